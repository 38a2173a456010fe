"""Exact aggregates: every call counted, beside the sampled raw rows.

The shim keeps, per thread and (call site, variant, size bucket), the count, sum, min, max and a
log-linear latency histogram of every call (variants/include/everypath/telemetry_agg.hpp); each
drain hands the interval's rows to Python (AggregateRows), the flusher publishes them as the lake's
`aggregates` table (LAKE/aggregates/date=D/device_class=C/part-*.parquet, AGGREGATES_SCHEMA).

Timing: every call is counted, but reading the clock twice costs ~15-80 ns, several percent of a
sub-microsecond kernel; the shim times a call with probability p = min(1, budget x latency / clock
cost) (budget 1%: `telemetry_configure(timing_budget=...)`), and a timed call adds 1/p
(stochastically rounded) to its bin and latency x 1/p to the sum: unbiased estimates of every
call's, exact where `timed == count` (calls of ~100 clock reads and longer are all timed).

Histogram bins (the same numbering in C++, here and in views.py's SQL): a latency v in ns falls in
bin v when v < 64, else in bin 64 * (e - 5) + ((v >> (e - 6)) & 63) with e = floor(log2 v): 64 bins
per power of two, each bin's midpoint within 1/128 (0.78%) of every value in it. Histograms merge
by adding counts per bin (across threads, intervals, processes and devices). A quantile read from
a merged histogram is the midpoint of the bin holding the rank-ceil(q * n) value (clamped to the
exact min and max), within 0.78% of the exact nearest-rank quantile where the clock counts ns and
within 1.6% where the shim counted TSC ticks (re-binned to ns at the drain).
"""
from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from everypath.telemetry.records import CallSite, _numbers, _repeat, arrow_kernel, site_columns

if TYPE_CHECKING:
    from pathlib import Path

    import pyarrow as pa

    from everypath.telemetry.lake import Lake

SUB_BITS = 6
SUB = 1 << SUB_BITS
MAX_OCTAVE = 40  # values >= 2^40 ns share the last bin
N_BINS = SUB * (MAX_OCTAVE - SUB_BITS + 1)
RELATIVE_ERROR = 1 / 128  # of a bin's midpoint, for values in ns


def bin_of(v: np.ndarray | int) -> np.ndarray:
    """The histogram bin of latencies in ns (vectorised)."""
    x = np.minimum(np.maximum(np.asarray(v, dtype=np.int64), 0), (1 << MAX_OCTAVE) - 1)
    e = np.frexp(np.maximum(x, 1).astype(np.float64))[1].astype(np.int64) - 1  # exact below 2^53: floor(log2 x)
    big = SUB * (e - SUB_BITS + 1) + ((x >> np.maximum(e - SUB_BITS, 0)) & (SUB - 1))
    return np.where(x < SUB, x, big)


def bin_low(b: np.ndarray | int) -> np.ndarray:
    b = np.asarray(b, dtype=np.int64)
    e = b // SUB + SUB_BITS - 1
    return np.where(b < SUB, b, (SUB + b % SUB) << np.maximum(e - SUB_BITS, 0))


def bin_mid(b: np.ndarray | int) -> np.ndarray:
    b = np.asarray(b, dtype=np.int64)
    width = np.where(b < SUB, 1, np.int64(1) << np.maximum(b // SUB - 1, 0))
    return bin_low(b) + (width - 1) // 2


def hist_quantile(bins: np.ndarray, counts: np.ndarray, q: float, lo: int | None = None,
                  hi: int | None = None) -> float:
    """The nearest-rank q-quantile of a histogram given as (bin, count) pairs, in any order and
    with repeated bins (a merge is a concatenation); lo/hi: the exact min and max, to clamp to."""
    bins, counts = np.asarray(bins, np.int64), np.asarray(counts, np.int64)
    order = np.argsort(bins, kind="stable")
    bins, counts = bins[order], counts[order]
    n = int(counts.sum())
    if n == 0:
        return float("nan")
    rank = max(1, int(np.ceil(q * n)))
    v = float(bin_mid(bins[int(np.searchsorted(np.cumsum(counts), rank))]))
    return min(max(v, lo if lo is not None else v), hi if hi is not None else v)


@dataclass(frozen=True)
class AggregateRows:
    """One drain interval's aggregates in columns (equal lengths; the histogram of row i is
    hist_bin/hist_count[hist_offsets[i]:hist_offsets[i + 1]])."""

    start_ns: int  # the interval, UNIX epoch ns
    end_ns: int
    site: np.ndarray  # int32, into the process's site table
    variant: np.ndarray  # int16, into that site's variants
    size_bucket: np.ndarray  # uint8
    count: np.ndarray  # int64, every call
    timed: np.ndarray  # int64, the calls timed (sum_ns and the histogram estimate all of count's)
    sum_ns: np.ndarray
    min_ns: np.ndarray
    max_ns: np.ndarray
    hist_offsets: np.ndarray  # int64, len + 1
    hist_bin: np.ndarray  # int32
    hist_count: np.ndarray  # int64
    table_version: str | None = None

    def __len__(self) -> int:
        return int(self.site.shape[0])

    @classmethod
    def from_drain(cls, d: dict[str, np.ndarray], start_ns: int, end_ns: int) -> AggregateRows:
        return cls(start_ns, end_ns, **{k: np.asarray(d[k]) for k in (
            "site", "variant", "size_bucket", "count", "timed", "sum_ns", "min_ns", "max_ns", "hist_offsets", "hist_bin",
            "hist_count")})


def to_batch(rows: AggregateRows, sites: Sequence[CallSite], device: dict[str, object]) -> pa.RecordBatch:
    """Arrow rows of AGGREGATES_SCHEMA; device holds the DEVICE_FIELDS values."""
    import pyarrow as pa

    from everypath.telemetry.schema import AGGREGATES_SCHEMA

    n = len(rows)
    per_site, variant_col = site_columns(rows.site, rows.variant, sites, "aggregate")
    offsets = _numbers(rows.hist_offsets, np.int32, pa.int32())
    ts_type = pa.timestamp("ns", tz="UTC")
    cols: dict[str, pa.Array] = {
        "ts": _numbers(np.full(n, rows.end_ns), np.int64, ts_type),
        "start": _numbers(np.full(n, rows.start_ns), np.int64, ts_type),
        "function": per_site("function"), "bundle_id": per_site("bundle_id"),
        "bundle_version": per_site("bundle_version"), "op": per_site("op"), "call_site": per_site("call_site"),
        "variant": variant_col, "dtype": per_site("dtype"),
        "size_bucket": _numbers(rows.size_bucket, np.int16, pa.int16()),
        "count": _numbers(rows.count, np.int64, pa.int64()), "timed": _numbers(rows.timed, np.int64, pa.int64()),
        "sum_ns": _numbers(rows.sum_ns, np.int64, pa.int64()),
        "min_ns": _numbers(rows.min_ns, np.int64, pa.int64()), "max_ns": _numbers(rows.max_ns, np.int64, pa.int64()),
        "hist_bin": pa.ListArray.from_arrays(offsets, _numbers(rows.hist_bin, np.int32, pa.int32())),
        "hist_count": pa.ListArray.from_arrays(offsets, _numbers(rows.hist_count, np.int64, pa.int64())),
    }
    for f in AGGREGATES_SCHEMA:
        if f.name not in cols:
            cols[f.name] = _repeat(device.get(f.name), f.type, n)
    return pa.RecordBatch.from_arrays([cols[f.name] for f in AGGREGATES_SCHEMA], schema=AGGREGATES_SCHEMA)


def file_schema() -> pa.Schema:
    """What a part stores: AGGREGATES_SCHEMA less the partition column device_class."""
    import pyarrow as pa

    from everypath.telemetry.schema import AGGREGATES_SCHEMA

    return pa.schema([f for f in AGGREGATES_SCHEMA if f.name != "device_class"], metadata=AGGREGATES_SCHEMA.metadata)


def publish(lake: Lake, table: pa.Table, *, date: dt.date | None = None, name: str | None = None) -> list[Path]:
    """Publish aggregate rows atomically, one part per device class (as Lake.publish does calls). With a
    name (a replayed journal) each part is exclusive: publishing the same name again writes nothing."""
    import pyarrow as pa

    from everypath.telemetry.lake import write_parquet

    day = date or dt.datetime.now(dt.timezone.utc).date()
    schema = file_schema()
    paths = []
    classes = arrow_kernel("unique", table.column("device_class")).to_pylist() if table.num_rows else []
    for dc in classes:
        if not dc or "/" in dc or dc.startswith("."):
            raise ValueError(f"device_class {dc!r} is not a valid partition name")
        part = table
        if len(classes) > 1:  # (a process's own publish has one class: no pyarrow.compute import)
            import pyarrow.compute as pc

            part = table.filter(pc.equal(table.column("device_class"), dc))
        part = pa.Table.from_arrays(part.drop_columns(["device_class"]).columns, schema=schema)
        fname = f"part-b-{name}.parquet" if name else f"part-{uuid.uuid4().hex}.parquet"
        p = write_parquet(part, lake.aggregates_dir(day, dc), fname, exclusive=name is not None)
        if p is not None:
            paths.append(p)
    return paths

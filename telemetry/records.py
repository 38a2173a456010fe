"""What the runtime shim hands to Python: raw call records in columns, plus the static
description of each call site, and their conversion into Arrow rows of the calls schema.

The C++ side (variants/include/everypath/telemetry.hpp, drained through the runtime module)
fills RawCalls; everything after that (device fields, strings, partitioning) happens here,
off the hot path.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from everypath.telemetry.schema import CALLS_SCHEMA

MAX_DIMS = 4  # shapes of higher rank keep their first MAX_DIMS - 1 dims and the product of the rest


@dataclass(frozen=True)
class CallSite:
    """One operator call site of one compiled function (static, registered when its module loads)."""

    function: str  # module-qualified Python name
    op: str  # operator key
    call_site: str  # file.py:LINE
    dtype: str  # result dtype name
    variants: tuple[str, ...]  # the variants compiled at this site, in dispatch order
    bundle_id: str | None = None
    bundle_version: str | None = None


@dataclass(frozen=True)
class RawCalls:
    """Columns of drained records (equal lengths). `site` indexes the process's site table,
    `variant` that site's `variants`; `shape` is (n, MAX_DIMS) with `ndim` valid entries."""

    ts_ns: np.ndarray  # int64, UNIX epoch ns (UTC) when the call started
    latency_ns: np.ndarray  # int64
    site: np.ndarray  # int32
    variant: np.ndarray  # int16
    ndim: np.ndarray  # int8
    shape: np.ndarray  # int64 (n, MAX_DIMS)
    n_elements: np.ndarray  # int64
    threads: np.ndarray  # int16
    explore: np.ndarray  # bool
    propensity: np.ndarray  # float32
    # selection table that chose each call: one version for all rows, or per row (object array,
    # None where the built-in thresholds chose)
    table_version: str | None | np.ndarray = None

    def __len__(self) -> int:
        return int(self.ts_ns.shape[0])


def to_batch(raw: RawCalls, sites: list[CallSite], device: dict[str, object]) -> pa.RecordBatch:
    """Arrow rows of the calls schema for raw records; device holds the DEVICE_FIELDS values."""
    n = len(raw)
    site_ix = raw.site.astype(np.int64)
    if n and (site_ix.min() < 0 or site_ix.max() >= len(sites)):
        raise ValueError(f"record refers to call site {int(site_ix.max())}, but only {len(sites)} are registered")

    def per_site(attr: str) -> pa.Array:
        values = pa.array([getattr(s, attr) for s in sites], pa.string())
        return pa.DictionaryArray.from_arrays(pa.array(site_ix, pa.int32()), values).cast(pa.string())

    # variant names through one dictionary of every (site, variant) pair: no per-row Python
    starts = np.zeros(len(sites) + 1, dtype=np.int64)
    np.cumsum([len(s.variants) for s in sites], out=starts[1:])
    var = raw.variant.astype(np.int64)
    if n and (var.min() < 0 or (var >= np.diff(starts)[site_ix]).any()):
        bad = int(np.flatnonzero((var < 0) | (var >= np.diff(starts)[site_ix]))[0])
        raise ValueError(f"record {bad} names variant {int(var[bad])} of call site {int(site_ix[bad])}, "
                         f"which has {len(sites[site_ix[bad]].variants)}")
    names = pa.array([v for s in sites for v in s.variants], pa.string())
    variant_col = pa.DictionaryArray.from_arrays(pa.array(starts[:-1][site_ix] + var, pa.int32()), names)
    dims = np.minimum(raw.ndim.astype(np.int64), MAX_DIMS)
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(dims, out=offsets[1:])
    mask = np.arange(MAX_DIMS)[None, :] < dims[:, None]
    shape = pa.ListArray.from_arrays(pa.array(offsets), pa.array(raw.shape.reshape(n, MAX_DIMS)[mask], pa.int64()))
    cols: dict[str, pa.Array] = {
        # straight from the buffer: casting int64 to a tz-aware timestamp costs ~0.2 s per million rows
        "ts": pa.Array.from_buffers(pa.timestamp("ns", tz="UTC"), n,
                                    [None, pa.py_buffer(np.ascontiguousarray(raw.ts_ns, dtype=np.int64))]),
        "function": per_site("function"), "bundle_id": per_site("bundle_id"),
        "bundle_version": per_site("bundle_version"), "op": per_site("op"), "call_site": per_site("call_site"),
        "variant": variant_col.cast(pa.string()), "dtype": per_site("dtype"), "shape": shape,
        "n_elements": pa.array(raw.n_elements, pa.int64()), "latency_ns": pa.array(raw.latency_ns, pa.int64()),
        "threads": pa.array(raw.threads, pa.int16()), "explore": pa.array(raw.explore, pa.bool_()),
        "propensity": pa.array(raw.propensity, pa.float32()),
        "table_version": pa.array(list(raw.table_version) if isinstance(raw.table_version, np.ndarray)
                                  else [raw.table_version] * n, pa.string()),
    }
    for f in CALLS_SCHEMA:
        if f.name not in cols:  # the same value on every row: one value repeated without Python lists
            cols[f.name] = pa.repeat(pa.scalar(device.get(f.name), f.type), n) if n else pa.array([], f.type)
    return pa.RecordBatch.from_arrays([cols[f.name] for f in CALLS_SCHEMA], schema=CALLS_SCHEMA)

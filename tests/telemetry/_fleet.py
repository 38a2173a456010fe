"""A generated fleet lake whose every call is known: exact aggregates of all calls beside a thinned
raw sample (the shim's case), raw-only devices (producers without aggregates) and aggregate-only
ones; the true latencies are kept so tests compare the lake's counts and percentiles with them."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa

from everypath.telemetry import aggregates
from everypath.telemetry.aggregates import bin_of
from everypath.telemetry.lake import Lake
from everypath.telemetry.records import MAX_DIMS, CallSite, RawCalls, to_batch
from everypath.telemetry.schema import AGGREGATES_SCHEMA

SITES = [CallSite(f"fleet.mod.fn{i}", op, f"fleet.py:{10 + i}", dtype, ("loops", "simd", "threads"))
         for i, (op, dtype) in enumerate((("numpy.add", "float32"), ("numpy.matmul", "float64"),
                                         ("numpy.sort", "int64")))]
SIZES = np.array([0, 1, 2, 3, 4, 1023, 1024, 1025, 4096, 65536], np.int64)  # bucket edges: 0, 1, powers of two
DATES = (dt.date(2026, 11, 20), dt.date(2026, 11, 21))
BASE_TS = int(dt.datetime(2026, 11, 20, tzinfo=dt.timezone.utc).timestamp() * 1e9)


@dataclass(frozen=True)
class Device:
    device_id: str
    device_class: str
    runtime: str
    sample: float | None  # share of calls kept as raw rows (inclusion); None: raw rows only, no aggregates


# all-digit classes: an engine inferring partition types would make numbers of them
DEVICES = (Device("a" * 64, "0042", "cpython-extension", 0.1), Device("b" * 64, "0042", "cpython-extension", 0.05),
           Device("c" * 64, "123456", "cpython-extension", 0.0),  # aggregates only (telemetry_sample 0)
           Device("d" * 64, "123456", "wasm", None),  # a browser page on a machine whose Python has aggregates
           Device("e" * 64, "a1b2c3", "native-executable", None))


@dataclass
class Truth:
    """Every call the fleet made, per roll-up group (date, class, op, variant, floor(log2 n)), and the
    calls only counted (no latency: the shim did not time them)."""

    latencies: dict[tuple, list[int]] = field(default_factory=dict)
    untimed: dict[tuple, int] = field(default_factory=dict)

    def counts(self) -> dict[tuple, int]:
        keys = self.latencies.keys() | self.untimed.keys()
        return {k: len(self.latencies.get(k, ())) + self.untimed.get(k, 0) for k in keys}


def _bucket(n: np.ndarray) -> np.ndarray:
    return np.array([max(int(x), 1).bit_length() - 1 for x in n])


def _device_fields(d: Device) -> dict[str, object]:
    return {"device_id": d.device_id, "device_class": d.device_class, "arch": "x86_64", "os": "linux",
            "cpu_model": "fleet cpu", "isa_level": "x86-64-v3", "isa_flags": "avx2 fma", "cores": 4, "l1d_kib": 32,
            "l2_kib": 1024, "l3_kib": 8192, "gpu": None, "runtime": d.runtime}


def aggregate_table(rows: list[dict[str, object]], dev: dict[str, object]) -> pa.Table:
    cols = {f.name: [r.get(f.name, dev.get(f.name)) for r in rows] for f in AGGREGATES_SCHEMA}
    return pa.Table.from_pydict(cols, schema=AGGREGATES_SCHEMA)


def _aggregates_of(site: np.ndarray, variant: np.ndarray, n: np.ndarray, lat: np.ndarray, t0: int
                   ) -> list[dict[str, object]]:
    """One interval's aggregate rows of these calls, every one timed (as the shim keeps them)."""
    out = []
    sb = np.array([int(x).bit_length() for x in n])  # the shim's size bucket: n in [2^(b-1), 2^b)
    for key in sorted(set(zip(site.tolist(), variant.tolist(), sb.tolist()))):
        m = (site == key[0]) & (variant == key[1]) & (sb == key[2])
        v = lat[m]
        bins, counts = np.unique(bin_of(v), return_counts=True)
        s = SITES[key[0]]
        out.append({"ts": t0 + 5 * 10**9, "start": t0, "function": s.function, "op": s.op, "call_site": s.call_site,
                    "variant": s.variants[key[1]], "dtype": s.dtype, "size_bucket": key[2], "count": int(m.sum()),
                    "timed": int(m.sum()), "sum_ns": int(v.sum()), "min_ns": int(v.min()), "max_ns": int(v.max()),
                    "hist_bin": bins.astype(int).tolist(), "hist_count": counts.astype(int).tolist()})
    return out


def make_fleet(root: Path, calls_per_interval: int = 600, intervals: int = 4, seed: int = 0) -> tuple[Lake, Truth]:
    lake, truth, rng = Lake(root), Truth(), np.random.default_rng(seed)
    for di, date in enumerate(DATES):
        for dev in DEVICES:
            fields = _device_fields(dev)
            for it in range(intervals):
                t0 = BASE_TS + di * 86_400 * 10**9 + it * 5 * 10**9
                k = calls_per_interval
                site = rng.integers(0, len(SITES), k).astype(np.int32)
                variant = rng.integers(0, 3, k).astype(np.int16)
                n = SIZES[rng.integers(0, len(SIZES), k)]
                lat = (rng.lognormal(8 + site, 0.7, k) * (1 + variant)).astype(np.int64) + 20
                for s, v, nn, x in zip(site, variant, _bucket(n), lat):
                    key = (date, dev.device_class, SITES[s].op, SITES[s].variants[v], int(nn))
                    truth.latencies.setdefault(key, []).append(int(x))
                if dev.sample is None:
                    keep = np.ones(k, bool)
                else:
                    keep = rng.random(k) < dev.sample
                    rows = _aggregates_of(site, variant, n, lat, t0)
                    if it == 0:  # calls counted but never timed (a sub-microsecond kernel's interval)
                        rows.append({**rows[0], "timed": 0, "count": 7, "sum_ns": 0, "min_ns": 0, "max_ns": 0,
                                     "hist_bin": [], "hist_count": []})
                        first = rows[0]
                        key = (date, dev.device_class, first["op"], first["variant"],
                               max(int(first["size_bucket"]) - 1, 0))
                        truth.untimed[key] = truth.untimed.get(key, 0) + 7
                    aggregates.publish(lake, aggregate_table(rows, fields), date=date)
                if keep.any():
                    m = int(keep.sum())
                    shape = np.zeros((m, MAX_DIMS), np.int64)
                    shape[:, 0] = n[keep]
                    inclusion = None if dev.sample is None else np.full(m, dev.sample, np.float32)
                    raw = RawCalls(t0 + np.arange(m, dtype=np.int64), lat[keep], site[keep], variant[keep],
                                   np.ones(m, np.int8), shape, n[keep], np.ones(m, np.int16), np.zeros(m, bool),
                                   np.ones(m, np.float32), None, inclusion)
                    lake.publish(to_batch(raw, SITES, fields), date=date)
    return lake, truth

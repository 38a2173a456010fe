"""Test data for the telemetry tests: raw records, call sites and a fixed device block."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa

from everypath.telemetry.records import MAX_DIMS, CallSite, RawCalls, to_batch

REPO = Path(__file__).resolve().parents[2]
SITES = [CallSite("pkg.mod.kernel", op, f"kernel.py:{10 + i}", "float64", ("loops", "simd"), "b0", "0.1.0")
         for i, op in enumerate(("numpy.add", "numpy.matmul", "numpy.sort"))]
DEVICE: dict[str, object] = {
    "device_id": "d" * 64, "device_class": "abc123def456", "arch": "x86_64", "os": "linux", "cpu_model": "test cpu",
    "isa_level": "x86-64-v3", "isa_flags": "avx2 fma", "cores": 2, "l1d_kib": 32, "l2_kib": 1024,
    "l3_kib": 8192, "gpu": None, "runtime": "cpython-extension",
}


def raw(n: int, seed: int = 0, ts0: int = 1_764_000_000_000_000_000) -> RawCalls:
    """n records with distinct timestamps ts0, ts0+1, ... (so duplicates are detectable)."""
    r = np.random.default_rng(seed)
    ndim = r.integers(0, MAX_DIMS + 1, n).astype(np.int8)
    shape = r.integers(1, 50, (n, MAX_DIMS)).astype(np.int64)
    shape[np.arange(MAX_DIMS)[None, :] >= ndim[:, None]] = 0
    return RawCalls(
        ts_ns=ts0 + np.arange(n, dtype=np.int64), latency_ns=r.integers(50, 1_000_000, n).astype(np.int64),
        site=r.integers(0, len(SITES), n).astype(np.int32), variant=r.integers(0, 2, n).astype(np.int16),
        ndim=ndim, shape=shape, n_elements=np.where(ndim > 0, shape.prod(axis=1, where=shape > 0), 1),
        threads=np.ones(n, np.int16), explore=r.random(n) < 0.1, propensity=np.full(n, 0.9, np.float32),
    )


def batch(n: int, seed: int = 0, ts0: int = 1_764_000_000_000_000_000, device_class: str | None = None
          ) -> pa.RecordBatch:
    dev = dict(DEVICE) if device_class is None else {**DEVICE, "device_class": device_class}
    return to_batch(raw(n, seed, ts0), SITES, dev)


def env(lake: Path) -> dict[str, str]:
    e = dict(os.environ)
    e.update(EVERYPATH_LAKE=str(lake), EVERYPATH_CACHE=e.get("EVERYPATH_CACHE", "/tmp/epcache-lake"),
             PYTHONPATH=str(REPO) + os.pathsep + e.get("PYTHONPATH", ""))
    return e


def run_py(code: str, lake: Path, **kw: object) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", code], env=env(lake), cwd=REPO, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)  # type: ignore[arg-type]

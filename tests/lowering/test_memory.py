"""Memory: temporaries are released (the large-block cache is bounded) and results outlive their call."""
from __future__ import annotations

import gc
import os

import numpy as np

import everypath

V = np.ndarray[tuple[int], np.dtype[np.float64]]


def _rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


@everypath.compile
def chain(x: V) -> V:
    a = np.exp(x) + 1.0
    b = np.sqrt(a) * 2.0
    return (a - b) / 3.0


def test_repeated_large_temporaries_do_not_grow_memory() -> None:
    x = np.random.default_rng(0).random(1_000_000)  # 8 MB per temporary
    want = chain.py_function(x)
    np.testing.assert_allclose(chain(x), want, rtol=1e-12)
    gc.collect()
    before = _rss_mib()
    for _ in range(60):
        out = chain(x)
    del out
    gc.collect()
    assert _rss_mib() - before < 100, "memory grew across calls"


def test_results_keep_their_memory_after_later_calls() -> None:
    x = np.linspace(0.0, 1.0, 300_000)
    first = chain(x)
    keep = first.copy()
    for _ in range(5):
        chain(x + 1.0)  # later calls reuse cached blocks, never the one `first` still owns
    np.testing.assert_array_equal(first, keep)

"""Leftmost insertion index of each query into a sorted array by binary search (np.searchsorted(side='left')), with the search in a helper function."""
import numpy as np

CATEGORY = "loop"


def lower_bound(a, v):
    lo = 0
    hi = a.shape[0]
    if hi == 0:
        return 0
    if v <= a[0]:
        return 0
    if v > a[hi - 1]:
        return hi
    while lo < hi:
        mid = (lo + hi) // 2
        if a[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo


def binary_search(sorted_values: np.ndarray[tuple[int], np.dtype[np.float64]],
                  queries: np.ndarray[tuple[int], np.dtype[np.float64]]) -> np.ndarray[tuple[int], np.dtype[np.int64]]:
    out = np.empty(queries.shape[0], dtype=np.int64)
    for i, q in enumerate(queries):
        out[i] = lower_bound(sorted_values, q)
    return out


ENTRY = "binary_search"


def cases(rng: np.random.Generator) -> list[tuple]:
    a = np.sort(rng.standard_normal(101))
    dup = np.sort(rng.integers(0, 10, size=53).astype(np.float64))
    return [
        (np.zeros(0), np.zeros(0)),
        (np.zeros(0), rng.standard_normal(3)),
        (np.array([1.0]), np.array([0.0, 1.0, 2.0])),
        (a, rng.standard_normal(7)),
        (a, a[::3].copy()),
        (dup, np.arange(-1.0, 12.0, 0.5)),
        (np.sort(rng.random(5000)), rng.random(997)),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (np.sort(rng.random(1_000_000)), rng.random(40_000))

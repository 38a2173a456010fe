"""Empirical survival function P(X >= k) from integer histogram counts via a reversed cumulative sum (counts[::-1] cumsum [::-1]), as in degree-distribution and reliability plots."""
import numpy as np

CATEGORY = "array"


def survival_function(counts: np.ndarray[tuple[int], np.dtype[np.int64]]) -> np.ndarray[tuple[int], np.dtype[np.float64]]:
    total = np.sum(counts)
    if total == 0:
        return np.zeros(counts.shape[0])
    tail = np.cumsum(counts[::-1])[::-1]
    return tail / total


ENTRY = "survival_function"


def cases(rng: np.random.Generator) -> list[tuple]:
    return [
        (np.zeros(0, dtype=np.int64),),
        (np.array([4], dtype=np.int64),),
        (np.zeros(5, dtype=np.int64),),
        (rng.integers(0, 10, size=7).astype(np.int64),),
        (np.bincount(rng.zipf(2.0, 997).clip(0, 200)).astype(np.int64),),
        (rng.integers(0, 10**6, size=9973).astype(np.int64),),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.integers(0, 1000, size=1_000_000).astype(np.int64),)

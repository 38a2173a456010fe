"""Inverse of a permutation by a fancy-index scatter (inv[perm] = arange), plus gathering and scattering values through it (the argsort-inverse idiom)."""
import numpy as np

CATEGORY = "array"

IntVec = np.ndarray[tuple[int], np.dtype[np.int64]]
Vec = np.ndarray[tuple[int], np.dtype[np.float64]]


def permutation_scatter(perm: IntVec, values: Vec) -> tuple[IntVec, Vec, Vec, Vec]:
    n = perm.shape[0]
    if values.shape[0] != n:
        raise ValueError("permutation_scatter: perm and values must have the same length")
    inv = np.empty_like(perm)
    inv[perm] = np.arange(n)
    gathered = values[perm]
    scattered = np.zeros_like(values)
    scattered[perm] = values
    wrapped = values[perm - n]  # negative indices wrap around
    return inv, gathered, scattered, wrapped[inv]


ENTRY = "permutation_scatter"


def cases(rng: np.random.Generator) -> list[tuple]:
    def case(n):
        return rng.permutation(n).astype(np.int64), rng.standard_normal(n)

    return [case(0), case(1), case(2), case(7), case(101), case(9973),
            (np.arange(3, dtype=np.int64), np.ones(4))]  # last: length mismatch raises ValueError


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.permutation(1_000_000).astype(np.int64), rng.standard_normal(1_000_000))

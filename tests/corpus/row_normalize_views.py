"""Normalise each row of a matrix to unit L2 norm in place by iterating over the rows (each row a view into the argument); returns the original norms (text-mining TF-IDF normalisation)."""
import math

import numpy as np

CATEGORY = "mixed"


def normalize_rows(x: np.ndarray[tuple[int, int], np.dtype[np.float64]],
                   eps: float = 1e-12) -> np.ndarray[tuple[int], np.dtype[np.float64]]:
    norms = np.zeros(x.shape[0])
    for i, row in enumerate(x):
        s = math.sqrt(sum(v * v for v in row))
        norms[i] = s
        if s > eps:
            row /= s  # writes through the view into x
    return norms


ENTRY = "normalize_rows"
MUTATES = (0,)


def cases(rng: np.random.Generator) -> list[tuple]:
    with_zero = rng.standard_normal((5, 4))
    with_zero[2] = 0.0
    return [
        (np.zeros((0, 3)),),
        (np.zeros((3, 0)),),
        (np.array([[3.0, 4.0]]),),
        (with_zero,),
        (rng.standard_normal((7, 13)),),
        (rng.exponential(1.0, (101, 31)), 1e-3),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.standard_normal((2000, 50)),)

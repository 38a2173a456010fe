"""Cholesky factorisation A = L L^T by the Cholesky-Banachiewicz loops with np.dot on row slices; raises on non-square or non-positive-definite input (Numerical Recipes)."""
import math

import numpy as np

CATEGORY = "mixed"

Mat = np.ndarray[tuple[int, int], np.dtype[np.float64]]


def cholesky(a: Mat) -> Mat:
    n = a.shape[0]
    if a.shape[1] != n:
        raise ValueError("cholesky: matrix must be square")
    l = np.zeros_like(a)
    for i in range(n):
        for j in range(i + 1):
            s = np.dot(l[i, :j], l[j, :j])
            if i == j:
                d = a[i, i] - s
                if d <= 0.0:
                    raise ValueError("cholesky: matrix is not positive definite")
                l[i, j] = math.sqrt(d)
            else:
                l[i, j] = (a[i, j] - s) / l[j, j]
    return l


ENTRY = "cholesky"
# np.dot on slices may use BLAS with another summation order
RTOL = 1e-6


def _spd(rng, n):
    b = rng.standard_normal((n, n))
    return b @ b.T + n * np.eye(n)


def cases(rng: np.random.Generator) -> list[tuple]:
    return [
        (np.zeros((0, 0)),),
        (np.array([[4.0]]),),
        (_spd(rng, 2),),
        (_spd(rng, 7),),
        (_spd(rng, 61),),
        (np.array([[1.0, 2.0], [2.0, 1.0]]),),  # indefinite: raises ValueError
        (rng.standard_normal((2, 3)),),  # not square: raises ValueError
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (_spd(rng, 200),)

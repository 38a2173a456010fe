"""Dominant eigenpair of a matrix by power iteration with np.linalg.norm normalisation and a convergence break (PCA / PageRank tutorials)."""
import math

import numpy as np

CATEGORY = "mixed"

Mat = np.ndarray[tuple[int, int], np.dtype[np.float64]]
Vec = np.ndarray[tuple[int], np.dtype[np.float64]]


def power_iteration(a: Mat, max_iter: int = 1000, tol: float = 1e-13) -> tuple[float, Vec]:
    n = a.shape[0]
    if n == 0 or a.shape[1] != n:
        raise ValueError("power_iteration: matrix must be square and non-empty")
    v = np.ones(n) / math.sqrt(n)
    lam = 0.0
    it = 0
    while it < max_iter:
        w = a @ v
        norm = np.linalg.norm(w)
        if norm == 0.0:
            break
        w = w / norm
        lam = float(w @ (a @ w))
        change = np.linalg.norm(w - v)
        v = w
        if change < tol:
            break
        it += 1
    return lam, v


ENTRY = "power_iteration"
# The eigenvector stops at a tolerance-dependent iterate; summation order (BLAS vs loops) may
# shift the stopping iteration by one, which changes v in the last few digits.
RTOL = 1e-6


def _spd(rng, n):
    b = rng.standard_normal((n, n))
    u = rng.random(n) + 0.5
    return b @ b.T / n + 3.0 * n * np.outer(u, u) / (u @ u)


def cases(rng: np.random.Generator) -> list[tuple]:
    return [
        (np.zeros((0, 0)),),  # empty: raises ValueError (no eigenpair)
        (np.array([[2.5]]),),
        (np.zeros((3, 3)),),
        (np.diag([5.0, 1.0, 0.5, 0.1, 0.05]),),
        (_spd(rng, 7),),
        (_spd(rng, 31), 50, 1e-8),
        (_spd(rng, 60),),
        (rng.standard_normal((3, 4)),),  # not square: raises ValueError
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (_spd(rng, 300), 200, 0.0)

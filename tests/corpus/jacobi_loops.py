"""Jacobi iterations for the 2-D Laplace equation with fixed boundary values by explicit loops, swapping two buffers by tuple assignment and tracking the largest update."""
import numpy as np

CATEGORY = "loop"

Field = np.ndarray[tuple[int, int], np.dtype[np.float64]]


def jacobi(u0: Field, iters: int) -> tuple[Field, float]:
    u = u0.copy()
    v = u0.copy()
    h, w = u.shape
    delta = 0.0
    for _ in range(iters):
        delta = 0.0
        for i in range(1, h - 1):
            for j in range(1, w - 1):
                new = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])
                d = abs(new - u[i, j])
                if d > delta:
                    delta = d
                v[i, j] = new
        u, v = v, u
    return u, float(delta)


ENTRY = "jacobi"


def _plate(rng, h, w):
    u = np.zeros((h, w))
    if h > 0 and w > 0:
        u[0, :] = 100.0
        u[:, -1] = rng.random(h) * 50.0
    return u


def cases(rng: np.random.Generator) -> list[tuple]:
    return [
        (_plate(rng, 0, 0), 3),
        (_plate(rng, 1, 1), 3),
        (_plate(rng, 3, 3), 1),
        (_plate(rng, 7, 5), 10),
        (rng.random((13, 17)), 25),
        (_plate(rng, 40, 60), 30),
        (_plate(rng, 5, 5), 0),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (_plate(rng, 64, 64), 20)

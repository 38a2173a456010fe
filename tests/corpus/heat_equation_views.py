"""Explicit finite-difference heat equation on a 2-D plate with slices; the interior is a view that is updated in place, so the argument itself evolves (NumPy stencil tutorials)."""
import numpy as np

CATEGORY = "mixed"

ALPHA = 0.2


def heat_equation(u: np.ndarray[tuple[int, int], np.dtype[np.float64]], steps: int, alpha: float = ALPHA):
    if alpha > 0.25:
        raise ValueError("heat_equation: explicit scheme is unstable for alpha > 0.25")
    interior = u[1:-1, 1:-1]  # a view: writing it updates u
    for _ in range(steps):
        lap = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * interior
        interior += alpha * lap


ENTRY = "heat_equation"
MUTATES = (0,)


def _plate(rng, h, w):
    u = rng.random((h, w))
    if h > 0:
        u[0] = 1.0
    return u


def cases(rng: np.random.Generator) -> list[tuple]:
    return [
        (np.zeros((0, 0)), 5),
        (np.ones((1, 1)), 5),
        (_plate(rng, 2, 7), 3),
        (_plate(rng, 3, 3), 4),
        (_plate(rng, 13, 7), 20, 0.1),
        (_plate(rng, 64, 81), 50),
        (_plate(rng, 5, 5), 2, 0.3),  # unstable alpha: raises ValueError
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (_plate(rng, 1000, 1000), 3)

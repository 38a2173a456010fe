"""Trapezoid-rule integral of samples on a non-uniform grid (np.trapezoid), written with zip over shifted slices, a lambda and a generator expression."""
import numpy as np

CATEGORY = "loop"


def trapezoid(y: np.ndarray[tuple[int], np.dtype[np.float64]], x: np.ndarray[tuple[int], np.dtype[np.float64]]) -> float:
    if y.shape[0] != x.shape[0]:
        raise ValueError("trapezoid: x and y must have the same length")
    area = lambda y0, y1, x0, x1: 0.5 * (y0 + y1) * (x1 - x0)
    return float(sum(area(y0, y1, x0, x1) for y0, y1, x0, x1 in zip(y[:-1], y[1:], x[:-1], x[1:])))


ENTRY = "trapezoid"


def cases(rng: np.random.Generator) -> list[tuple]:
    def grid(n):
        return np.cumsum(rng.random(n))

    xs = grid(101)
    return [
        (np.zeros(0), np.zeros(0)),
        (np.array([3.0]), np.array([1.0])),
        (np.array([1.0, 3.0]), np.array([0.0, 2.0])),
        (rng.standard_normal(7), grid(7)),
        (np.sin(xs), xs),
        (rng.standard_normal(5003), grid(5003)),
        (np.ones(4), np.ones(5)),  # length mismatch: raises ValueError
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    x = np.cumsum(rng.random(150_000))
    return (np.cos(x), x)

"""Gradient of a sampled 2-D field along both axes: central differences in the interior with slices and one-sided np.diff at the edges (np.gradient)."""
import numpy as np

CATEGORY = "array"

Field = np.ndarray[tuple[int, int], np.dtype[np.float64]]


def gradient_2d(f: Field, dy: float = 1.0, dx: float = 1.0):
    ny, nx = f.shape
    if ny < 2 or nx < 2:
        raise ValueError("gradient_2d: need at least 2 samples along each axis")
    gy = np.empty_like(f)
    gx = np.empty_like(f)
    gy[1:-1, :] = (f[2:, :] - f[:-2, :]) / (2.0 * dy)
    gx[:, 1:-1] = (f[:, 2:] - f[:, :-2]) / (2.0 * dx)
    d0 = np.diff(f, axis=0)
    d1 = np.diff(f, axis=1)
    gy[0, :] = d0[0] / dy
    gy[-1, :] = d0[-1] / dy
    gx[:, 0] = d1[:, 0] / dx
    gx[:, -1] = d1[:, -1] / dx
    return gy, gx


ENTRY = "gradient_2d"


def cases(rng: np.random.Generator) -> list[tuple]:
    yy, xx = np.mgrid[0:13, 0:17]
    return [
        (np.zeros((0, 0)),),  # empty: raises ValueError (no one-sided differences)
        (np.ones((1, 1)),),  # single sample: raises ValueError
        (rng.standard_normal((2, 2)),),
        (rng.standard_normal((3, 7)), 0.5, 2.0),
        (np.sin(0.3 * yy) * np.cos(0.2 * xx), 0.1, 0.1),
        (rng.standard_normal((64, 97)),),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.standard_normal((1000, 1000)), 0.01, 0.01)

"""Polynomial evaluation at many points by Horner's rule, coefficients in increasing degree walked with a negative-step range (numpy.polynomial.polynomial.polyval)."""
import numpy as np

CATEGORY = "loop"

Vec = np.ndarray[tuple[int], np.dtype[np.float64]]


def horner(coeffs: Vec, x: Vec) -> Vec:
    n = coeffs.shape[0]
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        xi = x[i]
        acc = 0.0
        for k in range(n - 1, -1, -1):
            acc = acc * xi + coeffs[k]
        out[i] = acc
    return out


ENTRY = "horner"


def cases(rng: np.random.Generator) -> list[tuple]:
    return [
        (np.zeros(0), np.zeros(0)),
        (np.zeros(0), rng.standard_normal(5)),
        (np.array([2.0]), rng.standard_normal(3)),
        (np.array([1.0, -3.0, 2.0]), np.array([0.0, 1.0, 1.5, 2.0, -1.0])),
        (rng.standard_normal(7), rng.uniform(-1.0, 1.0, 13)),
        (rng.standard_normal(13), rng.uniform(-1.0, 1.0, 997)),
        (rng.standard_normal(4), np.zeros(0)),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.standard_normal(12), rng.uniform(-1.0, 1.0, 20_000))

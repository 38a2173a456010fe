"""Weighted mean, variance and skewness written the pure-Python way: generator expressions, a list comprehension, zip and enumerate over arrays."""
import numpy as np

CATEGORY = "loop"


def weighted_moments(x: np.ndarray[tuple[int], np.dtype[np.float64]],
                     w: np.ndarray[tuple[int], np.dtype[np.float64]]) -> tuple[float, float, float]:
    if x.shape[0] != w.shape[0]:
        raise ValueError("weighted_moments: x and w must have the same length")
    total = sum(wi for wi in w)
    if total <= 0.0:
        return 0.0, 0.0, 0.0
    mean = sum(xi * wi for xi, wi in zip(x, w)) / total
    dev = [xi - mean for xi in x]
    var = sum(wi * d * d for d, wi in zip(dev, w)) / total
    if var == 0.0:
        skew = 0.0
    else:
        m3 = 0.0
        for i, d in enumerate(dev):
            m3 += w[i] * d ** 3
        skew = (m3 / total) / var ** 1.5
    return float(mean), float(var), float(skew)


ENTRY = "weighted_moments"


def cases(rng: np.random.Generator) -> list[tuple]:
    return [
        (np.zeros(0), np.zeros(0)),
        (np.array([2.0]), np.array([0.5])),
        (np.array([1.0, 2.0, 3.0]), np.zeros(3)),
        (np.full(5, 3.0), np.ones(5)),
        (rng.standard_normal(7), rng.random(7)),
        (rng.exponential(2.0, 997), rng.random(997)),
        (rng.standard_normal(5000), np.ones(5000)),
        (np.ones(3), np.ones(4)),  # length mismatch: raises ValueError
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.exponential(2.0, 60_000), rng.random(60_000))

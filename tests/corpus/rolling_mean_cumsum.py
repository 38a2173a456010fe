"""Rolling (moving) mean over a window computed from a cumulative sum, NaN for the first window-1 positions (pandas Series.rolling(window).mean())."""
import math

import numpy as np

CATEGORY = "array"

Vec = np.ndarray[tuple[int], np.dtype[np.float64]]


def rolling_mean(x: Vec, window: int) -> Vec:
    if window < 1:
        raise ValueError("rolling_mean: window must be >= 1")
    n = x.shape[0]
    out = np.full(n, math.nan)
    if n < window:
        return out
    c = np.cumsum(x)
    out[window - 1] = c[window - 1] / window
    out[window:] = (c[window:] - c[:-window]) / window
    return out


ENTRY = "rolling_mean"


def cases(rng: np.random.Generator) -> list[tuple]:
    return [
        (np.zeros(0), 3),
        (np.array([2.0]), 1),
        (np.array([2.0]), 2),
        (rng.standard_normal(7), 7),
        (rng.standard_normal(101), 5),
        (rng.standard_normal(9973) + 3.0, 250),
        (rng.standard_normal(10), 0),  # window < 1: raises ValueError
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.standard_normal(1_000_000), 50)

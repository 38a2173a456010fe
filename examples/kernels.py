"""Example kernels for `make demo`: ordinary annotated Python + NumPy."""
import math

import numpy as np

import everypath

Vec = np.ndarray[tuple[int], np.dtype[np.float64]]
Mat = np.ndarray[tuple[int, int], np.dtype[np.float64]]


@everypath.compile(tag="demo", description="pairwise Euclidean distances with explicit loops")
def pairwise_distances(x: Mat) -> Mat:
    n, d = x.shape
    out = np.empty((n, n))
    for i in range(n):
        for j in range(i, n):
            s = 0.0
            for k in range(d):
                diff = x[i, k] - x[j, k]
                s += diff * diff
            out[i, j] = out[j, i] = math.sqrt(s)
    return out


def _norm_cdf(x):
    return 0.5 * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))


@everypath.compile(tag="demo", description="Black-Scholes call prices, whole-array NumPy (fused by everypath)")
def black_scholes(spot: Vec, strike: Vec, t: Vec, rate: float, vol: float) -> Vec:
    sqrt_t = np.sqrt(t)
    d1 = (np.log(spot / strike) + (rate + 0.5 * vol * vol) * t) / (vol * sqrt_t)
    d2 = d1 - vol * sqrt_t
    return spot * _norm_cdf(d1) - strike * np.exp(-rate * t) * _norm_cdf(d2)


@everypath.compile(tag="demo", description="Mandelbrot escape counts with complex arithmetic")
def mandelbrot(width: int, height: int, max_iter: int) -> np.ndarray[tuple[int, int], np.dtype[np.int32]]:
    out = np.zeros((height, width), dtype=np.int32)
    for row in range(height):
        for col in range(width):
            c = complex(-2.0 + 3.0 * col / width, -1.2 + 2.4 * row / height)
            z = 0j
            n = 0
            while n < max_iter and abs(z) <= 2.0:
                z = z * z + c
                n += 1
            out[row, col] = n
    return out


@everypath.compile(tag="demo", description="rolling mean through a cumulative sum, with a guard")
def rolling_mean(x: Vec, window: int = 5) -> Vec:
    if window <= 0:
        raise ValueError("window must be positive")
    c = np.cumsum(x)
    out = np.full(x.shape[0], np.nan)
    for i in range(window - 1, x.shape[0]):
        prev = c[i - window] if i >= window else 0.0
        out[i] = (c[i] - prev) / window
    return out

"""Black-Scholes European call and put prices for arrays of options, with the normal CDF built from the Abramowitz-Stegun 7.1.26 erf approximation (the Numba/Pythran/Intel benchmark classic)."""
import math

import numpy as np

CATEGORY = "array"

# Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7)
P = 0.3275911
A1 = 0.254829592
A2 = -0.284496736
A3 = 1.421413741
A4 = -1.453152027
A5 = 1.061405429
SQRT2 = math.sqrt(2.0)

Vec = np.ndarray[tuple[int], np.dtype[np.float64]]


def erf_approx(x):
    sign = np.where(x < 0.0, -1.0, 1.0)
    ax = np.abs(x)
    t = 1.0 / (1.0 + P * ax)
    y = 1.0 - ((((A5 * t + A4) * t + A3) * t + A2) * t + A1) * t * np.exp(-ax * ax)
    return sign * y


def norm_cdf(x):
    return 0.5 * (1.0 + erf_approx(x / SQRT2))


def black_scholes(spot: Vec, strike: Vec, t: Vec, rate: float, vol: float) -> tuple[Vec, Vec]:
    sqrt_t = np.sqrt(t)
    d1 = (np.log(spot / strike) + (rate + 0.5 * vol * vol) * t) / (vol * sqrt_t)
    d2 = d1 - vol * sqrt_t
    disc = strike * np.exp(-rate * t)
    call = spot * norm_cdf(d1) - disc * norm_cdf(d2)
    put = disc * norm_cdf(-d2) - spot * norm_cdf(-d1)
    return call, put


ENTRY = "black_scholes"


def _options(rng, n):
    return rng.uniform(10.0, 50.0, n), rng.uniform(10.0, 50.0, n), rng.uniform(0.1, 2.0, n)


def cases(rng: np.random.Generator) -> list[tuple]:
    return [
        (*_options(rng, 0), 0.02, 0.3),
        (np.array([100.0]), np.array([100.0]), np.array([1.0]), 0.05, 0.2),
        (*_options(rng, 7), 0.0, 0.5),
        (*_options(rng, 101), 0.03, 0.25),
        (*_options(rng, 9973), 0.01, 0.4),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (*_options(rng, 1_000_000), 0.02, 0.3)

"""Fixed-width histogram of float64 samples by an explicit loop, ignoring values outside [lo, hi] (what np.histogram does; pure-Python analysis scripts)."""
import math

import numpy as np

CATEGORY = "loop"


def histogram_loop(x: np.ndarray[tuple[int], np.dtype[np.float64]], nbins: int = 10, lo: float = 0.0,
                   hi: float = 1.0) -> np.ndarray[tuple[int], np.dtype[np.int64]]:
    if nbins <= 0 or hi <= lo:
        raise ValueError("histogram_loop: need nbins > 0 and hi > lo")
    counts = np.zeros(nbins, dtype=np.int64)
    width = (hi - lo) / nbins
    for i in range(x.shape[0]):
        v = x[i]
        if v < lo or v > hi:
            continue
        k = int(math.floor((v - lo) / width))
        if k >= nbins:
            # v == hi goes into the last bin, like np.histogram
            k = nbins - 1
        counts[k] += 1
    return counts


ENTRY = "histogram_loop"


def cases(rng: np.random.Generator) -> list[tuple]:
    return [
        (np.zeros(0),),
        (np.array([0.5]),),
        (np.array([0.0, 1.0, -0.5, 1.5, 0.999]),),
        (rng.random(7), 3),
        (rng.random(101), 13),
        (rng.standard_normal(997), 17, -3.0, 3.0),
        (rng.standard_normal(5000) * 2.0, 40, -2.5, 2.5),
        (rng.random(10), 0),  # nbins == 0: raises ValueError
        (rng.random(10), 4, 1.0, 1.0),  # empty range: raises ValueError
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.standard_normal(200_000), 64, -4.0, 4.0)

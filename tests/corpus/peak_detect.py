"""Local maxima above a height found with vectorised boolean masks, then a greedy left-to-right scan enforcing a minimum distance between peaks (a small scipy.signal.find_peaks)."""
import numpy as np

CATEGORY = "mixed"


def find_peaks(x: np.ndarray[tuple[int], np.dtype[np.float64]], height: float = 0.0,
               distance: int = 1) -> np.ndarray[tuple[int], np.dtype[np.int64]]:
    n = x.shape[0]
    if n < 3:
        return np.zeros(0, dtype=np.int64)
    mid = x[1:-1]
    is_peak = (mid > x[:-2]) & (mid >= x[2:]) & (mid > height)
    cand = np.arange(1, n - 1)[is_peak]
    keep = np.ones_like(cand, dtype=np.bool_)
    last = -distance
    for i in range(cand.shape[0]):
        if cand[i] - last < distance:
            keep[i] = False
            continue
        last = cand[i]
    return cand[keep]


ENTRY = "find_peaks"


def cases(rng: np.random.Generator) -> list[tuple]:
    t = np.linspace(0.0, 20.0, 1001)
    return [
        (np.zeros(0),),
        (np.array([1.0]),),
        (np.array([0.0, 2.0, 1.0]),),
        (np.array([0.0, 2.0, 2.0, 1.0, 3.0, 0.0, 0.5]),),
        (rng.standard_normal(101), 0.5),
        (np.sin(t) + 0.1 * rng.standard_normal(1001), 0.2, 25),
        (rng.standard_normal(9973), -10.0, 7),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.standard_normal(200_000), 0.0, 3)

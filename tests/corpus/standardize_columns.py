"""Standardise every column to zero mean and unit variance with mean and std computed from sums with keepdims (sklearn StandardScaler); constant columns stay at zero."""
import numpy as np

CATEGORY = "array"

Mat = np.ndarray[tuple[int, int], np.dtype[np.float64]]
Vec = np.ndarray[tuple[int], np.dtype[np.float64]]


def standardize(x: Mat, ddof: int = 0) -> tuple[Mat, Vec, Vec]:
    n = x.shape[0]
    if n - ddof <= 0:
        raise ValueError("standardize: not enough rows for the requested ddof")
    mean = np.sum(x, axis=0, keepdims=True) / n
    centered = x - mean
    var = np.sum(centered * centered, axis=0, keepdims=True) / (n - ddof)
    std = np.sqrt(var)
    safe = np.where(std > 0.0, std, 1.0)
    return centered / safe, mean.reshape(-1), std.reshape(-1)


ENTRY = "standardize"


def cases(rng: np.random.Generator) -> list[tuple]:
    const = rng.standard_normal((9, 3)) * 4.0 + 1.0
    const[:, 1] = 2.0  # exactly representable: its mean is exact, its std exactly 0
    return [
        (np.zeros((0, 3)),),  # no rows: raises ValueError
        (np.array([[5.0]]),),
        (np.array([[5.0]]), 1),  # ddof too large: raises ValueError
        (rng.standard_normal((3, 0)),),
        (const, 1),
        (rng.standard_normal((7, 5)) * 3.0 + 10.0,),
        (rng.exponential(2.0, (997, 7)), 1),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.standard_normal((100_000, 10)),)

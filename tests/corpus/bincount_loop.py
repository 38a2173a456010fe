"""np.bincount written as two loops over the elements of an int32 array, with a minimum output length."""
import numpy as np

CATEGORY = "loop"


def bincount_loop(x: np.ndarray[tuple[int], np.dtype[np.int32]], minlength: int = 0):
    n = minlength
    for v in x:
        if v < 0:
            raise ValueError("bincount_loop: input must be non-negative")
        if v + 1 > n:
            n = int(v) + 1
    counts = np.zeros(n, dtype=np.int64)
    for v in x:
        counts[v] += 1
    return counts


ENTRY = "bincount_loop"


def cases(rng: np.random.Generator) -> list[tuple]:
    return [
        (np.zeros(0, dtype=np.int32),),
        (np.zeros(0, dtype=np.int32), 5),
        (np.array([3], dtype=np.int32),),
        (rng.integers(0, 5, size=7).astype(np.int32), 10),
        (rng.integers(0, 50, size=997).astype(np.int32),),
        (rng.poisson(4.0, size=3000).astype(np.int32), 3),
        (np.array([1, 2, -1, 4], dtype=np.int32),),  # negative value: raises ValueError
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.integers(0, 1000, size=150_000).astype(np.int32),)

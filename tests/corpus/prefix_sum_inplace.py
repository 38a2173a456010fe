"""In-place inclusive prefix sum of an int64 array, written through the view tail = x[1:] (scan kernels in GPU/parallel-algorithm textbooks); returns the total."""
import numpy as np

CATEGORY = "loop"


def prefix_sum_inplace(x: np.ndarray[tuple[int], np.dtype[np.int64]]) -> int:
    if x.shape[0] == 0:
        return 0
    tail = x[1:]
    for i in range(tail.shape[0]):
        tail[i] += x[i]  # x[i] is tail[i - 1], already updated
    return int(x[-1])


ENTRY = "prefix_sum_inplace"
MUTATES = (0,)


def cases(rng: np.random.Generator) -> list[tuple]:
    return [
        (np.zeros(0, dtype=np.int64),),
        (np.array([9], dtype=np.int64),),
        (np.array([1, -1, 2, -2, 3], dtype=np.int64),),
        (rng.integers(-1000, 1000, size=101).astype(np.int64),),
        (rng.integers(0, 10**9, size=9973).astype(np.int64),),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.integers(-1000, 1000, size=300_000).astype(np.int64),)

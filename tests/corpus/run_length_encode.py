"""Run-length encoding of an int64 array into (values, counts), as in itertools.groupby or image/codec RLE."""
import numpy as np

CATEGORY = "loop"

IntVec = np.ndarray[tuple[int], np.dtype[np.int64]]


def run_length_encode(x: IntVec) -> tuple[IntVec, IntVec]:
    n = x.shape[0]
    values = np.empty(n, dtype=np.int64)
    counts = np.empty(n, dtype=np.int64)
    k = 0
    i = 0
    while i < n:
        j = i + 1
        while j < n and x[j] == x[i]:
            j += 1
        values[k] = x[i]
        counts[k] = j - i
        k += 1
        i = j
    return values[:k].copy(), counts[:k].copy()


ENTRY = "run_length_encode"


def cases(rng: np.random.Generator) -> list[tuple]:
    return [
        (np.zeros(0, dtype=np.int64),),
        (np.array([7], dtype=np.int64),),
        (np.full(11, -3, dtype=np.int64),),
        (np.arange(13, dtype=np.int64),),
        (rng.integers(0, 3, size=101).astype(np.int64),),
        (np.repeat(rng.integers(-5, 5, size=40), rng.integers(1, 9, size=40)).astype(np.int64),),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (np.repeat(rng.integers(0, 4, size=40_000), rng.integers(1, 6, size=40_000)).astype(np.int64),)

"""Insertion sort of a copy of a float32 array, ascending or descending via a comparison lambda (the textbook sort used for small arrays inside quicksort/timsort)."""
import numpy as np

CATEGORY = "loop"

Vec32 = np.ndarray[tuple[int], np.dtype[np.float32]]


def insertion_sort(x: Vec32, descending: bool = False) -> Vec32:
    out = np.copy(x)
    before = (lambda p, q: p > q) if descending else (lambda p, q: p < q)
    for i in range(1, out.shape[0]):
        key = out[i]
        j = i - 1
        while j >= 0 and before(key, out[j]):
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = key
    return out


ENTRY = "insertion_sort"


def cases(rng: np.random.Generator) -> list[tuple]:
    f32 = np.float32
    return [
        (np.zeros(0, dtype=f32),),
        (np.array([2.5], dtype=f32),),
        (np.array([3, 1, 2, 1, 3], dtype=f32),),
        (np.array([3, 1, 2, 1, 3], dtype=f32), True),
        (rng.standard_normal(7).astype(f32), True),
        (rng.standard_normal(101).astype(f32),),
        (np.arange(31, dtype=f32)[::-1].copy(),),
        (rng.integers(0, 5, size=200).astype(f32), True),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.standard_normal(700).astype(np.float32),)

"""In-place recursive quicksort of an int64 array on an index range [lo, hi] (Lomuto partition, median-of-three pivot, recursion on the smaller side)."""
import numpy as np

CATEGORY = "loop"


def swap(a, i, j):
    t = a[i]
    a[i] = a[j]
    a[j] = t


def partition(a, lo, hi):
    mid = (lo + hi) // 2
    # median of three ends up in a[hi] and serves as the pivot
    if a[mid] < a[lo]:
        swap(a, mid, lo)
    if a[hi] < a[lo]:
        swap(a, hi, lo)
    if a[mid] < a[hi]:
        swap(a, mid, hi)
    pivot = a[hi]
    i = lo
    for j in range(lo, hi):
        if a[j] < pivot:
            swap(a, i, j)
            i += 1
    swap(a, i, hi)
    return i


def quicksort_range(a, lo, hi):
    while lo < hi:
        p = partition(a, lo, hi)
        if p - lo < hi - p:
            quicksort_range(a, lo, p - 1)
            lo = p + 1
        else:
            quicksort_range(a, p + 1, hi)
            hi = p - 1


def quicksort(a: np.ndarray[tuple[int], np.dtype[np.int64]], lo: int = 0, hi: int = -1):
    if hi < 0:
        hi = a.shape[0] - 1
    quicksort_range(a, lo, hi)


ENTRY = "quicksort"
MUTATES = (0,)


def cases(rng: np.random.Generator) -> list[tuple]:
    return [
        (np.zeros(0, dtype=np.int64),),
        (np.array([5], dtype=np.int64),),
        (np.array([3, -1, 2], dtype=np.int64),),
        (rng.integers(-100, 100, size=7).astype(np.int64),),
        (rng.integers(0, 4, size=101).astype(np.int64),),
        (np.arange(97, dtype=np.int64)[::-1].copy(),),
        (rng.integers(-10**12, 10**12, size=5000).astype(np.int64),),
        (rng.integers(0, 1000, size=50).astype(np.int64), 10, 39),  # sort only a[10:40]
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.integers(0, 10**9, size=20_000).astype(np.int64),)

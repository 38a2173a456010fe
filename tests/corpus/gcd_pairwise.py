"""Element-wise greatest common divisor by recursive Euclid (np.gcd) on int64 arrays, built as a Python list comprehension over zip, plus the gcd of all results."""
import numpy as np

CATEGORY = "loop"

IntVec = np.ndarray[tuple[int], np.dtype[np.int64]]


def gcd(a, b):
    if b == 0:
        return a
    return gcd(b, a % b)


def gcd_pairwise(x: IntVec, y: IntVec) -> tuple[IntVec, int]:
    if x.shape[0] != y.shape[0]:
        raise ValueError("gcd_pairwise: x and y must have the same length")
    values = [gcd(abs(int(a)), abs(int(b))) for a, b in zip(x, y)]
    out = np.empty(len(values), dtype=np.int64)
    g = 0
    for i, v in enumerate(values):
        out[i] = v
        g = gcd(g, v)
    return out, g


ENTRY = "gcd_pairwise"


def cases(rng: np.random.Generator) -> list[tuple]:
    def ints(n, hi=10**6):
        return rng.integers(-hi, hi, size=n).astype(np.int64)

    base = rng.integers(1, 50, size=31).astype(np.int64) * 6
    return [
        (ints(0), ints(0)),
        (np.array([0], dtype=np.int64), np.array([0], dtype=np.int64)),
        (np.array([12], dtype=np.int64), np.array([-18], dtype=np.int64)),
        (ints(7, 100), ints(7, 100)),
        (base, base * 5),
        (ints(997), ints(997)),
        (ints(101, 10**15), ints(101, 10**15)),
        (ints(3), ints(2)),  # length mismatch: raises ValueError
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.integers(1, 10**12, size=8000).astype(np.int64), rng.integers(1, 10**12, size=8000).astype(np.int64))

"""Smith-Waterman local alignment score with a linear gap penalty, returning the best score and the cell where it ends (bioinformatics sequence alignment)."""
import numpy as np

CATEGORY = "loop"

Seq = np.ndarray[tuple[int], np.dtype[np.int64]]


def smith_waterman(a: Seq, b: Seq, match: int = 2, mismatch: int = -1, gap: int = -2) -> tuple[int, int, int]:
    def score(x, y):
        # closure reading the (default) scoring parameters of the enclosing function
        if x == y:
            return match
        return mismatch

    n = len(a)
    m = len(b)
    h = np.zeros((n + 1, m + 1), dtype=np.int64)
    best = 0
    best_i = 0
    best_j = 0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            diag = h[i - 1, j - 1] + score(a[i - 1], b[j - 1])
            up = h[i - 1, j] + gap
            left = h[i, j - 1] + gap
            v = max(0, diag, up, left)
            h[i, j] = v
            if v > best:
                best = int(v)
                best_i = i
                best_j = j
    return best, best_i, best_j


ENTRY = "smith_waterman"


def cases(rng: np.random.Generator) -> list[tuple]:
    def seq(n):
        return rng.integers(0, 4, size=n).astype(np.int64)

    common = seq(9)
    a = np.concatenate([seq(5), common, seq(3)])
    b = np.concatenate([seq(11), common, seq(7)])
    return [
        (seq(0), seq(0)),
        (seq(0), seq(4)),
        (seq(1), seq(1)),
        (np.array([2], dtype=np.int64), np.array([2], dtype=np.int64)),
        (seq(13), seq(7)),
        (a, b),
        (a, b, 3, -3, -1),
        (seq(41), seq(29), 1, -1, -1),
        (seq(60), seq(60), 5, -4),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.integers(0, 4, size=180).astype(np.int64), rng.integers(0, 4, size=200).astype(np.int64))

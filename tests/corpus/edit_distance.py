"""Levenshtein edit distance between two token sequences given as int32 codes, by dynamic programming (python-Levenshtein, WER in speech recognition)."""
import numpy as np

CATEGORY = "loop"

Tokens = np.ndarray[tuple[int], np.dtype[np.int32]]


def edit_distance(a: Tokens, b: Tokens) -> int:
    n = a.shape[0]
    m = b.shape[0]
    if n == 0:
        return m
    elif m == 0:
        return n
    d = np.zeros((n + 1, m + 1), dtype=np.int64)
    for i in range(n + 1):
        d[i, 0] = i
    for j in range(m + 1):
        d[0, j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i, j] = min(d[i - 1, j] + 1, d[i, j - 1] + 1, d[i - 1, j - 1] + cost)
    return int(d[n, m])


ENTRY = "edit_distance"


def _seq(rng, n, alphabet=4):
    return rng.integers(0, alphabet, size=n).astype(np.int32)


def cases(rng: np.random.Generator) -> list[tuple]:
    out = [
        (_seq(rng, 0), _seq(rng, 0)),
        (_seq(rng, 0), _seq(rng, 5)),
        (_seq(rng, 7), _seq(rng, 0)),
        (_seq(rng, 1), _seq(rng, 1)),
        (np.array([1, 2, 3], dtype=np.int32), np.array([1, 2, 3], dtype=np.int32)),
        (_seq(rng, 13), _seq(rng, 11)),
        (_seq(rng, 31, 2), _seq(rng, 37, 2)),
    ]
    a = _seq(rng, 50)
    b = a.copy()
    b[::7] = (b[::7] + 1) % 4
    out.append((a, b))
    return out


def bench_args(rng: np.random.Generator) -> tuple:
    return (_seq(rng, 220), _seq(rng, 240))

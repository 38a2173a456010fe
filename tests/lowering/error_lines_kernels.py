"""Kernels that fail at run time, for tests/lowering/test_error_lines.py (plain functions: the
test compiles them and also runs them under CPython for the reference traceback)."""
from __future__ import annotations

import math

import numpy as np

F64 = np.ndarray[tuple[int], np.dtype[np.float64]]


def normalise(x: F64, total: int) -> F64:
    scale = 1.0
    for i in range(x.shape[0]):
        scale += x[i] * x[i]
    return x / (total // (total - total)) * scale


def head(x: F64) -> float:
    n = x.shape[0]
    first = x[0]
    return first + n


def distance(a: float, b: float) -> float:
    d = a * a - b * b
    return math.sqrt(d)


def checked_mean(x: F64) -> float:
    total = 0.0
    for v in x:
        total += v
    assert x.shape[0] > 0, "empty input"
    return total / x.shape[0]


def _pivot(row: F64, k: int) -> float:
    p = row[k]
    if p == 0.0:
        raise ValueError(f"zero pivot at column {k}")
    return p


def eliminate(a: F64, k: int) -> float:
    s = 0.0
    for j in range(a.shape[0]):
        s += a[j]
    p = _pivot(a, k)
    return s / p

"""Reductions through everypath.compile: the compiled function against the same Python function."""
from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

import everypath
from tests.variants._harness import sample, same_as_python

F2 = np.ndarray[tuple[int, int], np.dtype[np.float64]]
F32_2 = np.ndarray[tuple[int, int], np.dtype[np.float32]]
I1 = np.ndarray[tuple[int], np.dtype[np.int8]]


@everypath.compile
def full_stats(a: F2):
    return (np.sum(a), a.mean(), np.max(a), a.min(), np.argmax(a), a.argmin(), np.prod(a), np.std(a), a.var(ddof=1),
            np.any(a > 1.0), a.all(), np.nansum(a), np.nanmean(a), np.nanmax(a), np.nanmin(a), np.amax(a))


@everypath.compile
def axis_stats(a: F32_2):
    return (a.sum(axis=0), np.mean(a, 1), np.max(a, axis=-1, keepdims=True), np.argmin(a, axis=0),
            np.var(a, axis=1), a.std(0, ddof=1), np.sum(a, axis=(0, 1)), np.any(a < 0, axis=1), a.prod(axis=1),
            np.sum(a, keepdims=True))


@everypath.compile
def int_stats(x: I1):
    return np.sum(x), x.mean(), np.cumsum(x).max(), np.prod(x.astype(np.float64)), x.sum(dtype=np.int8)


@everypath.compile
def with_views(a: F2):
    b = a[::2, 1:]
    c = a.T
    return np.sum(b, axis=1), c.max(axis=1), np.mean(b), c.argmax()


@everypath.compile
def empty_max(a: npt.NDArray[np.float64]) -> float:
    return float(np.max(a))


@pytest.mark.parametrize("shape", [(3, 4), (1, 1), (5, 129), (7, 1)])
def test_full_and_axis(shape):
    a = sample(shape, np.float64)
    same_as_python(full_stats, a)
    same_as_python(axis_stats, a.astype(np.float32), rtol=1e-6)
    same_as_python(with_views, a)


def test_ints_and_errors():
    same_as_python(int_stats, sample((11,), np.int8))
    same_as_python(int_stats, np.array([100, 100, 100], np.int8))  # wrap-around in int8 sums with dtype=
    same_as_python(empty_max, np.ones(5))
    exc = same_as_python(empty_max, np.ones(0))
    assert "zero-size array to reduction operation maximum which has no identity" in str(exc)


def test_nan_semantics():
    a = np.array([[1.0, np.nan], [3.0, 4.0]])
    same_as_python(full_stats, a)

"""Statistics through everypath.compile: the compiled function against the same
Python function (values, dtypes, shapes, Python vs NumPy scalars, exceptions).
Medians and quantiles are exact; sums follow NumPy's pairwise order (1e-12)."""
from __future__ import annotations

import numpy as np
import pytest

import everypath
from tests.variants._harness import sample, same_as_python

F1 = np.ndarray[tuple[int], np.dtype[np.float64]]
F2 = np.ndarray[tuple[int, int], np.dtype[np.float64]]
F32_2 = np.ndarray[tuple[int, int], np.dtype[np.float32]]
I2 = np.ndarray[tuple[int, int], np.dtype[np.int32]]


@everypath.compile
def orders(a: F2, q: float):
    return (np.median(a), np.median(a, axis=0), np.median(a, axis=1, keepdims=True), np.percentile(a, 90),
            np.quantile(a, q, axis=0), np.quantile(a, [0.1, q], axis=1, method="midpoint"),
            np.percentile(a, 50.0, axis=(0, 1), method="lower"), np.quantile(a, q, method="nearest", keepdims=True),
            np.nanmedian(a), np.nanpercentile(a, 25, axis=0), np.nanquantile(a, [q, 1.0], axis=1))


@everypath.compile
def reductions(a: F2, w: F1):
    return (np.ptp(a), np.ptp(a, axis=0), np.ptp(a, 1, keepdims=True), np.average(a), np.average(a, axis=1),
            np.average(a, axis=1, weights=w), np.average(a, weights=a + 10.0), np.nanvar(a), np.nanstd(a, axis=0),
            np.nanvar(a, axis=1, ddof=1, keepdims=True), np.nanprod(a, axis=0), np.nancumsum(a), np.nancumprod(a, 1))


@everypath.compile
def ints(a: I2):
    return (np.median(a), np.percentile(a, 33, axis=0), np.quantile(a, 0.5, method="higher"), np.ptp(a, axis=1),
            np.average(a, axis=0), np.nanvar(a), np.nanprod(a), np.nancumsum(a, axis=0), np.cov(a), np.corrcoef(a))


@everypath.compile
def f32(a: F32_2):
    return np.median(a, axis=0), np.quantile(a, 0.25), np.nanstd(a), np.average(a, axis=1), np.ptp(a)


@everypath.compile
def covariance(m: F2, x: F1, y: F1):
    return (np.cov(m), np.cov(m, rowvar=False), np.cov(m, bias=True), np.cov(m, ddof=0), np.cov(x), np.cov(x, y),
            np.corrcoef(m), np.corrcoef(x), np.corrcoef(x, y), np.cov(m, m))


@everypath.compile
def bad_quantile(a: F1, q: float):
    return np.quantile(a, q)


@everypath.compile
def bad_weights(a: F2, w: F1):
    return np.average(a, axis=1, weights=w)


@everypath.compile
def one_row_cov(m: F2):
    return np.cov(m)


@pytest.mark.parametrize("shape", [(5, 4), (1, 1), (7, 3), (2, 9)])
def test_orders(shape):
    a = sample(shape, np.float64)
    same_as_python(orders, a, 0.3)
    same_as_python(orders, np.asfortranarray(a), 0.0)
    b = a.copy()
    b.flat[::3] = np.nan
    same_as_python(orders, b, 0.75)


@pytest.mark.parametrize("shape", [(5, 4), (3, 1), (6, 7)])
def test_reductions(shape):
    a = sample(shape, np.float64, 2)
    w = sample((shape[1],), np.float64, 4) + 10.0
    same_as_python(reductions, a, w)
    b = a.copy()
    b.flat[1::4] = np.nan
    same_as_python(reductions, b, w)
    same_as_python(reductions, a[::-1, ::-1], w[::-1])


def test_int_and_float32():
    same_as_python(ints, sample((4, 6), np.int32))
    same_as_python(ints, np.array([[2**30, -2**30, 7], [1, 2, 3]], np.int32))
    same_as_python(f32, sample((5, 3), np.float32))


@pytest.mark.parametrize("k,n", [(3, 6), (2, 2), (4, 9)])
def test_covariance(k, n):
    m = sample((k, n), np.float64, 1)
    same_as_python(covariance, m, sample((n,), np.float64, 2), sample((n,), np.float64, 5))


def test_errors():
    a = sample((5,), np.float64)
    assert "Quantiles must be in the range [0, 1]" in str(same_as_python(bad_quantile, a, 1.5))
    assert "out of bounds" in str(same_as_python(bad_quantile, np.zeros(0), 0.5))
    exc = same_as_python(bad_weights, sample((2, 3), np.float64), np.array([1.0, -1.0, 0.0]))
    assert isinstance(exc, ZeroDivisionError)
    exc = same_as_python(bad_weights, sample((2, 3), np.float64), np.array([1.0, 2.0]))
    assert "Shape of weights" in str(exc)


def test_single_variable_as_2d_is_refused():
    # documented deviation: NumPy squeezes the (1, 1) result to 0-d, a run-time rank change
    with pytest.raises(ValueError, match="single variable"):
        one_row_cov(sample((1, 5), np.float64))
    same_as_python(one_row_cov, sample((3, 5), np.float64))

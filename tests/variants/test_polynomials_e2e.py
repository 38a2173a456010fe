"""np.polyval and np.matrix_transpose through everypath.compile, against NumPy running the same
function: dtypes and their promotion, list and scalar operands, views, inf/nan (Horner's first step
is 0 * x), empty inputs, a view written through, and NumPy's errors."""
from __future__ import annotations

import numpy as np
import pytest

import everypath
from tests.variants._harness import sample, same_as_python


@everypath.compile
def poly(p: np.ndarray, x: np.ndarray):
    return (np.polyval(p, x), np.polyval(p, x[0]), np.polyval([1.5, -2.0, 0.25], x), np.polyval(p, 2),
            np.polyval([3, 1], x))


@everypath.compile
def transposed(a: np.ndarray):
    t = np.matrix_transpose(a)
    t[0, 0] = 7
    return t, a, np.matrix_transpose(a * 2)


@pytest.mark.parametrize("pdt,xdt", [(np.float64, np.float64), (np.int64, np.float32), (np.uint8, np.uint8)])
def test_polyval_dtypes_and_views(pdt, xdt):
    p = sample((4,), pdt, 1)
    x = sample((5, 6), xdt, 2)
    same_as_python(poly, p, x, rtol=1e-6)
    same_as_python(poly, p[::-2], x.T, rtol=1e-6)


@everypath.compile
def poly1(p: np.ndarray, x: np.ndarray):
    return np.polyval(p, x)


def test_polyval_empty_coefficients():
    x = sample((2, 3), np.float32)
    same_as_python(poly1, np.zeros(0, np.float32), x)  # zeros of x's dtype
    assert poly1(np.ones(1, np.float64), x).dtype == np.float64  # compiled for float64 results
    with pytest.raises(ValueError, match="empty coefficient array returns x's dtype"):
        poly1(np.zeros(0, np.float64), x)  # NumPy: float32 zeros (a known deviation)


def test_polyval_inf_nan():
    x = np.array([[np.inf, -np.inf, np.nan, 0.0, -0.0, 1e308]])
    same_as_python(poly, np.array([0.0, 1.0]), x)
    same_as_python(poly, np.array([2.0, -1.0, 3.0]), x)


def test_polyval_errors():
    with pytest.raises(everypath.CompileError, match="p must be 1-d"):
        poly(np.ones((2, 2)), np.ones((2, 2)))


@pytest.mark.parametrize("shape", [(3, 4), (0, 3), (2, 3, 4)])
def test_matrix_transpose(shape):
    a = sample(shape, np.int32, 3)
    same_as_python(transposed, a)
    if len(shape) == 2:
        same_as_python(transposed, np.ascontiguousarray(sample((4, 6), np.int32)[:, ::2]))


def test_matrix_transpose_needs_2d():
    with pytest.raises(everypath.CompileError, match="Input array must be at least 2-dimensional, but it is 1"):
        transposed(np.ones(3, np.int32))

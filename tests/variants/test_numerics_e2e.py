"""Numerical helpers through everypath.compile: the compiled function against the
same Python function (values, dtypes, shapes, scalar kinds, exceptions)."""
from __future__ import annotations

import numpy as np
import pytest

import everypath
from tests.variants._harness import sample, same_as_python

F1 = np.ndarray[tuple[int], np.dtype[np.float64]]
F2 = np.ndarray[tuple[int, int], np.dtype[np.float64]]
F3 = np.ndarray[tuple[int, int, int], np.dtype[np.float32]]
I1 = np.ndarray[tuple[int], np.dtype[np.int64]]
C1 = np.ndarray[tuple[int], np.dtype[np.complex128]]


@everypath.compile
def calculus(f: F2, x: F1, h: float):
    return (np.gradient(f), np.gradient(f, h), np.gradient(f, 1.0, h, edge_order=2), np.gradient(x, axis=0),
            np.trapezoid(f), np.trapezoid(f, dx=h, axis=0), np.trapezoid(x, x=x * x), np.ediff1d(f),
            np.ediff1d(x, to_begin=h, to_end=x[:2]))


@everypath.compile
def calculus3(f: F3):
    return np.gradient(f), np.gradient(f, axis=(0, 2)), np.trapezoid(f, axis=1)


@everypath.compile
def products(a: F2, b: F2, u: F1, v: F1):
    return (np.cross(a, b), np.cross(a[0], (0.0, 0.0, 1.0)), np.cross((1.0, 2.0), (3.0, 4.0)), np.convolve(u, v),
            np.convolve(u, v, "same"), np.correlate(u, v), np.correlate(v, u, mode="full"), np.interp(u, v, u * 2.0),
            np.interp(2.5, v, u, left=0.0, right=1.0), np.interp(u, np.sort(v), u, period=3.0))


@everypath.compile
def helpers(a: F1, b: F1, z: C1, n: I1):
    return (np.isclose(a, b), np.isclose(a, b, rtol=0.1, atol=0.5, equal_nan=True), np.allclose(a, a + 1e-9),
            np.allclose(a, b), np.array_equal(a, b), np.array_equal(a, a, equal_nan=True), np.array_equiv(a, a[0]),
            np.nan_to_num(a), np.nan_to_num(a, nan=-1.0, posinf=9.0), np.round(a, 2), np.around(a * 10.0, -1),
            a.round(1), np.round(n, -1), np.real(z), np.imag(z), np.angle(z), np.angle(z, deg=True), np.real(a))


@everypath.compile
def scalars(x: float, n: int):
    return np.round(x, 1), np.round(n, -1), np.nan_to_num(x), np.angle(x), np.isclose(x, 1.0), np.real(x), np.imag(n)


@everypath.compile
def cross_any(a: F1, b: F1):
    return np.cross(a, b)


@everypath.compile
def interp_bad(x: F1, xp: F1, fp: F1):
    return np.interp(x, xp, fp)


@pytest.mark.parametrize("shape", [(5, 4), (3, 3), (2, 7)])
def test_calculus(shape):
    f = sample(shape, np.float64, 1)
    x = np.cumsum(sample((shape[1],), np.float64, 2) ** 2) + 1.0
    same_as_python(calculus, f, x, 0.25)
    same_as_python(calculus, np.asfortranarray(f), x[::-1].copy(), 2.0)
    same_as_python(calculus3, sample((3, 4, 5), np.float32))


def test_products():
    a, b = sample((4, 3), np.float64, 1), sample((4, 3), np.float64, 3)
    u, v = sample((7,), np.float64, 2), np.sort(sample((4,), np.float64, 5))
    same_as_python(products, a, b, u, v)
    same_as_python(products, a[::-1], b.T.copy().T, u[::-1], v)


def test_helpers():
    a = np.array([np.nan, np.inf, -np.inf, 0.0, 1.25, -2.5, 1e300, 3.0])
    b = np.array([np.nan, np.inf, np.inf, -0.0, 1.2500001, -2.4, 1e300, 3.5])
    z = sample((8,), np.complex128)
    same_as_python(helpers, a, b, z, np.array([15, 25, -35, 4, 0, 5, -5, 96]))
    same_as_python(helpers, a, a.copy(), z[::-1], sample((8,), np.int64))
    for x, n in ((2.25, 15), (-0.05, -25), (float("nan"), 0)):
        same_as_python(scalars, x, n)


def test_errors():
    exc = same_as_python(cross_any, sample((4,), np.float64), sample((3,), np.float64))
    assert "incompatible dimensions for cross product\n(dimension must be 2 or 3)" == str(exc)
    assert "not of the same length" in str(same_as_python(interp_bad, sample((3,), np.float64), np.arange(3.0),
                                                          np.arange(2.0)))
    assert "empty" in str(same_as_python(interp_bad, sample((3,), np.float64), np.zeros(0), np.zeros(0)))


def test_cross_of_two_2_vectors_needs_static_lengths():
    # documented deviation: the result's rank depends on the vectors' lengths; arrays of
    # unknown length are typed as 3-vectors, so two 2-vectors raise instead of a 0-d result
    with pytest.raises(ValueError, match="2-vectors"):
        cross_any(np.array([1.0, 2.0]), np.array([3.0, 4.0]))
    same_as_python(cross_any, np.array([1.0, 2.0]), np.array([3.0, 4.0, 5.0]))

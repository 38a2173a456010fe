"""numpy.linalg decompositions and solvers through everypath.compile, against the
same Python function (decompositions compared through invariants)."""
from __future__ import annotations

import numpy as np
import pytest

import everypath
from tests.variants._decomp_data import general, hermitian, spd, wellcond
from tests.variants._harness import same_as_python

F2 = np.ndarray[tuple[int, int], np.dtype[np.float64]]
F3 = np.ndarray[tuple[int, int, int], np.dtype[np.float64]]
F1 = np.ndarray[tuple[int], np.dtype[np.float64]]
C2 = np.ndarray[tuple[int, int], np.dtype[np.complex128]]
S2 = np.ndarray[tuple[int, int], np.dtype[np.float32]]
I2 = np.ndarray[tuple[int, int], np.dtype[np.int64]]


@everypath.compile
def lu_family(a: F2, b: F1, k: int):
    sign, logdet = np.linalg.slogdet(a)
    x = np.linalg.solve(a, b)
    return (np.linalg.det(a), sign, logdet, np.linalg.inv(a), x, np.linalg.norm(a @ x - b),
            np.linalg.matrix_power(a, k), np.linalg.cond(a), np.linalg.matrix_rank(a))


@everypath.compile
def stacked(a: F3):
    return np.linalg.det(a), np.linalg.inv(a), np.linalg.cholesky(a @ np.swapaxes(a, 1, 2))


@everypath.compile
def int_input(a: I2):
    return np.linalg.det(a), np.linalg.inv(a), np.linalg.matrix_power(a, 3), np.linalg.matrix_power(a, -1)


@everypath.compile
def single(a: S2):
    w = np.linalg.eigvalsh(a @ a.T)
    return np.linalg.det(a), np.linalg.inv(a), w, np.linalg.svd(a, compute_uv=False)


@everypath.compile
def factors(a: F2):
    q, r = np.linalg.qr(a)
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    rec = (u * s) @ vh
    return np.linalg.norm(q @ r - a), np.linalg.norm(rec - a), s, np.abs(np.diag(r))


@everypath.compile
def herm(a: C2):
    w, v = np.linalg.eigh(a, UPLO="U")
    return w, np.linalg.norm(a @ v - v * w), np.linalg.eigvalsh(a, "U")


@everypath.compile
def least_squares(a: F2, b: F1):
    x, res, rank, s = np.linalg.lstsq(a, b)
    return x, res, rank, s, np.linalg.pinv(a), np.linalg.multi_dot((a.T, a, np.linalg.pinv(a)))


@everypath.compile
def general_eig(a: F2):
    w, v = np.linalg.eig(a)
    return w, v, np.linalg.eigvals(a), np.linalg.norm(a @ v - v * w)


@everypath.compile
def singular(a: F2):
    return np.linalg.inv(a)


@everypath.compile
def not_pd(a: F2):
    return np.linalg.cholesky(a, upper=True)


@pytest.mark.parametrize("n", [1, 3, 6])
def test_lu_family(n):
    a = wellcond(n, np.float64, n)
    same_as_python(lu_family, a, general((n,), np.float64, 2), 5, rtol=1e-9)
    same_as_python(lu_family, a, general((n,), np.float64, 2), -2, rtol=1e-9)


def test_stacks_and_dtypes():
    same_as_python(stacked, wellcond(3, np.float64, 1, batch=(4,)), rtol=1e-9)
    same_as_python(int_input, wellcond(3, np.int64, 2), rtol=1e-9)
    same_as_python(single, wellcond(4, np.float32, 3), rtol=1e-4)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)])
def test_factors(shape):
    got = factors(general(shape, np.float64, 3))
    want = factors.py_function(general(shape, np.float64, 3))
    assert got[0] < 1e-12 and got[1] < 1e-12
    np.testing.assert_allclose(got[2], want[2], rtol=1e-12)
    np.testing.assert_allclose(got[3], want[3], rtol=1e-12)


def test_hermitian_and_lstsq():
    h = hermitian(5, np.complex128, 4)
    got = herm(h)
    np.testing.assert_allclose(got[0], np.linalg.eigh(h, UPLO="U")[0], rtol=1e-12, atol=1e-12)
    assert got[1] < 1e-12
    same_as_python(least_squares, general((6, 3), np.float64, 1), general((6,), np.float64, 2), rtol=1e-9)
    same_as_python(least_squares, general((3, 5), np.float64, 1), general((3,), np.float64, 2), rtol=1e-9)


def test_eig():
    a = general((5, 5), np.float64, 7)
    w, v, w2, resid = general_eig(a)
    assert w.dtype == np.complex128 and v.dtype == np.complex128  # always complex (docs/semantics.md)
    assert resid < 1e-12
    key = lambda z: sorted(z, key=lambda x: (round(x.real, 8), round(x.imag, 8)))  # noqa: E731
    np.testing.assert_allclose(key(w), key(np.linalg.eigvals(a)), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(key(w2), key(w), rtol=1e-12, atol=1e-12)


def test_errors():
    exc = same_as_python(singular, np.array([[1.0, 2.0], [2.0, 4.0]]))
    assert isinstance(exc, np.linalg.LinAlgError) and str(exc) == "Singular matrix"
    exc = same_as_python(not_pd, -spd(3, np.float64))
    assert isinstance(exc, np.linalg.LinAlgError)
    exc = same_as_python(singular, np.ones((2, 3)))
    assert str(exc) == "Last 2 dimensions of the array must be square"

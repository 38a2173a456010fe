"""Linear algebra through everypath.compile: the compiled function against the same Python function."""
from __future__ import annotations

import numpy as np
import pytest

import everypath
from tests.variants._harness import sample, same_as_python

F1 = np.ndarray[tuple[int], np.dtype[np.float64]]
F2 = np.ndarray[tuple[int, int], np.dtype[np.float64]]
I2 = np.ndarray[tuple[int, int], np.dtype[np.int64]]


@everypath.compile
def products(a: F2, b: F2, v: F1):
    return (a @ b, np.matmul(a, b), a.dot(b), np.dot(a, v[: a.shape[1]]), v @ v, np.inner(v, v), np.outer(v, v),
            np.vdot(a, a), np.trace(a), a.trace(1))


@everypath.compile
def norms(a: F2, v: F1):
    return (np.linalg.norm(v), np.linalg.norm(a), np.linalg.norm(v, 1), np.linalg.norm(v, np.inf),
            np.linalg.norm(a, axis=1), np.linalg.norm(a, ord=1), np.linalg.norm(a, "fro"),
            np.linalg.norm(a, axis=0, keepdims=True))


@everypath.compile
def int_matmul(a: I2, b: I2):
    c = a @ b
    c @= np.eye(c.shape[1], dtype=np.int64)
    return c


@everypath.compile
def mismatch(a: F2, b: F2):
    return a @ b


@pytest.mark.parametrize("n,k,m", [(3, 4, 5), (1, 1, 1), (4, 4, 4), (2, 7, 1)])
def test_products(n, k, m):
    a = sample((n, k), np.float64)
    b = sample((k, m), np.float64, 3)
    v = sample((max(k, 2),), np.float64, 5)
    same_as_python(products, a, b, v)
    same_as_python(norms, a, v)
    same_as_python(int_matmul, a.astype(np.int64), b.astype(np.int64))


def test_errors():
    exc = same_as_python(mismatch, np.ones((2, 3)), np.ones((4, 2)))
    assert "mismatch in its core dimension 0" in str(exc)

"""Array creation through everypath.compile: the compiled function against the same Python function."""
from __future__ import annotations

import numpy as np
import pytest

import everypath
from tests.variants._harness import sample, same_as_python

F1 = np.ndarray[tuple[int], np.dtype[np.float64]]
I2 = np.ndarray[tuple[int, int], np.dtype[np.int32]]


@everypath.compile
def make(n: int, m: int):
    a = np.zeros((n, m))
    b = np.ones(n, dtype=np.int8)
    c = np.full((m, 2), 2.5, dtype=np.float32)
    d = np.empty((n,), np.int64)
    d[:] = 7
    e = np.eye(n, m, 1)
    f = np.identity(m, dtype=np.int16)
    g = np.full(3, True)
    h = np.zeros(())
    return a, b, c, d, e, f, g, h


@everypath.compile
def ranges(n: int, x: float):
    return (np.arange(n), np.arange(1, n, 2), np.arange(0.0, x, 0.25), np.arange(n, dtype=np.float32),
            np.linspace(0.0, x, n), np.linspace(0, 1, 5, endpoint=False), np.linspace(-x, x, 7, dtype=np.int32))


@everypath.compile
def likes(a: I2):
    return (np.zeros_like(a), np.ones_like(a, dtype=np.float32), np.full_like(a, 9), np.empty_like(a).shape,
            np.copy(a), a.copy(), np.array(a), np.asarray(a, dtype=np.float64))


@everypath.compile
def from_values(x: float, k: int):
    lst = [x, 2.0 * x]
    lst.append(3.0)
    return np.array(lst), np.array((k, k + 1, k + 2)), np.array(((1, 2), (3, 4))), np.array(x), np.asarray([k])


@everypath.compile
def asarray_is_a_view(a: F1):
    b = np.asarray(a)
    b[0] = -1.0
    return a


@pytest.mark.parametrize("n,m", [(3, 4), (1, 1), (0, 2), (5, 5)])
def test_shapes(n, m):
    same_as_python(make, n, m)
    same_as_python(ranges, n, 2.3)


def test_likes_and_values():
    same_as_python(likes, sample((3, 4), np.int32))
    same_as_python(likes, sample((3, 4), np.int32)[:, ::2])
    same_as_python(from_values, 1.5, 4)
    same_as_python(asarray_is_a_view, np.ones(3))


def test_errors():
    exc = same_as_python(make, -1, 2)
    assert "negative dimensions are not allowed" in str(exc)

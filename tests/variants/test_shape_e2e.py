"""Shape functions and attributes through everypath.compile, against the same Python function."""
from __future__ import annotations

import numpy as np
import pytest

import everypath
from tests.variants._harness import sample, same_as_python

F2 = np.ndarray[tuple[int, int], np.dtype[np.float64]]
F1 = np.ndarray[tuple[int], np.dtype[np.float64]]
C1 = np.ndarray[tuple[int], np.dtype[np.complex128]]


@everypath.compile
def reshapes(a: F2):
    n = a.size
    return (a.reshape(n), a.reshape((1, n)), np.reshape(a, (-1, 1)), a.reshape(a.shape[1], -1), a.ravel(),
            a.flatten(), np.ravel(a.T), a.T, np.transpose(a), a.transpose(1, 0), np.expand_dims(a, 0),
            np.flip(a, 0), np.squeeze(a.reshape(1, n), axis=0), a.astype(np.int32), a.astype(int))


@everypath.compile
def joins(a: F2, b: F2):
    return (np.concatenate((a, b)), np.concatenate((a, b), axis=1), np.stack((a, b)), np.vstack((a, b)),
            np.hstack((a, b)), np.concatenate([a, a], axis=None))


@everypath.compile
def attrs(a: F2, z: C1, c: complex):
    return (a.shape, a.ndim, a.size, a.itemsize, a.nbytes, a.T.shape, z.real, z.imag, a.real, c.real, c.imag,
            z[0].real)


@everypath.compile
def reshape_is_a_view(a: F1):
    b = a.reshape(2, -1)
    b[0, 0] = 100.0
    t = a.reshape(-1, 1).T
    t[0, 1] = -5.0
    return a


@everypath.compile
def bad_reshape(a: F1):
    return a.reshape(4, 2)


@pytest.mark.parametrize("shape", [(2, 3), (1, 1), (4, 1)])
def test_shapes(shape):
    a = sample(shape, np.float64)
    same_as_python(reshapes, a)
    same_as_python(reshapes, a.T.copy().T)  # a non C-contiguous input
    same_as_python(joins, a, sample(shape, np.float64, 2))
    same_as_python(attrs, a, sample((3,), np.complex128), 1.5 - 2j)


def test_views_and_errors():
    same_as_python(reshape_is_a_view, np.arange(6.0))
    exc = same_as_python(bad_reshape, np.arange(6.0))
    assert str(exc) == "cannot reshape array of size 6 into shape (4,2)"

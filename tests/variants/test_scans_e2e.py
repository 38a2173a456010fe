"""Scans through everypath.compile: the compiled function against the same Python function."""
from __future__ import annotations

import numpy as np
import pytest

import everypath
from tests.variants._harness import sample, same_as_python

F2 = np.ndarray[tuple[int, int], np.dtype[np.float64]]
I1 = np.ndarray[tuple[int], np.dtype[np.int32]]


@everypath.compile
def scans2(a: F2):
    return (np.cumsum(a), np.cumsum(a, axis=0), a.cumsum(axis=1), np.cumprod(a, 1), a.cumprod(), np.diff(a),
            np.diff(a, n=2, axis=0), np.diff(a, 0))


@everypath.compile
def scans_int(x: I1):
    return np.cumsum(x), np.cumprod(x), np.diff(x), np.diff(x > 0), x.cumsum(dtype=np.float32)


@pytest.mark.parametrize("shape", [(3, 4), (1, 1), (4, 1), (2, 0)])
def test_scans(shape):
    a = sample(shape, np.float64)
    same_as_python(scans2, a)
    same_as_python(scans2, np.asfortranarray(a))


def test_int_scans():
    same_as_python(scans_int, sample((9,), np.int32))
    same_as_python(scans_int, np.array([2**30, 2**30, 2**30], np.int32))

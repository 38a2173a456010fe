"""Construction operators and np.pad through everypath.compile, against the same Python function."""
from __future__ import annotations

import numpy as np
import pytest

import everypath
from tests.variants._harness import sample, same_as_python

F1 = np.ndarray[tuple[int], np.dtype[np.float64]]
F2 = np.ndarray[tuple[int, int], np.dtype[np.float64]]
I1 = np.ndarray[tuple[int], np.dtype[np.int64]]
U2 = np.ndarray[tuple[int, int], np.dtype[np.uint8]]


@everypath.compile
def triangles(a: F2, k: int):
    return (np.tri(a.shape[0], a.shape[1], k), np.tri(3, dtype=np.int32), np.tril(a), np.tril(a, k), np.triu(a),
            np.triu(a, -k), np.tril(a[0]))


@everypath.compile
def diagonals(a: F2, v: F1, k: int):
    d = np.diagonal(a)
    return (np.diag(v), np.diag(v, k), np.diag(a), np.diag(a, -k), d, a.diagonal(k), a.T.diagonal(),
            np.diagflat(a, k), d.sum())


@everypath.compile
def grids(x: F1, y: I1, n: int):
    xx, yy = np.meshgrid(x, y)
    ii, jj = np.meshgrid(x, y, indexing="ij", sparse=True)
    vx, vy = np.meshgrid(x, y, copy=False)
    g = np.indices((2, n))
    r, c = np.indices((n, 3), sparse=True)
    return xx, yy, ii, jj, vx, vy, g, r, c, np.vander(x), np.vander(y, n, True)


@everypath.compile
def spaces(n: int, s: float):
    return (np.logspace(0.0, s, n), np.logspace(s, 0, n, endpoint=False, base=2.0), np.geomspace(1.0, s, n),
            np.geomspace(-s, -1, n, dtype=np.float32), np.logspace(0, 2, 3, dtype=np.int64))


@everypath.compile
def padded(a: U2, w: int, c: int):
    return (np.pad(a, w), np.pad(a, (w, 1), constant_values=c), np.pad(a, [(1, 2), (w, 0)], mode="edge"),
            np.pad(a, w, mode="reflect"), np.pad(a, ((w, w), (2, 5)), "symmetric"), np.pad(a, 9, mode="wrap"),
            np.pad(a, 2, "reflect", reflect_type="odd"))


@everypath.compile
def geom_zero(s: float):
    return np.geomspace(0.0, s, 3)


@pytest.mark.parametrize("shape", [(3, 4), (1, 1), (5, 2)])
def test_construct(shape):
    a = sample(shape, np.float64)
    for k in (0, 1, -2):
        same_as_python(triangles, a, k)
        same_as_python(diagonals, a, sample((3,), np.float64), k)
    same_as_python(grids, sample((shape[0],), np.float64), np.arange(shape[1], dtype=np.int64), 3)
    same_as_python(padded, sample(shape, np.uint8), 3, 200)
    same_as_python(padded, sample(shape, np.uint8).T, 0, 7)


def test_spaces():
    for n in (0, 1, 5, 8):
        same_as_python(spaces, n, 3.5)
    exc = same_as_python(geom_zero, 2.0)
    assert str(exc) == "Geometric sequence cannot include zero"

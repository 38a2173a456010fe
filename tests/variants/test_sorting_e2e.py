"""Sorting, searching, counting, set and indexing routines through everypath.compile, against the same
Python function (values, dtypes, tuples, in-place writes and NumPy's exceptions)."""
from __future__ import annotations

import numpy as np
import pytest

import everypath
from tests.variants._harness import sample, same_as_python
from tests.variants._sortkit import special

F1 = np.ndarray[tuple[int], np.dtype[np.float64]]
F2 = np.ndarray[tuple[int, int], np.dtype[np.float64]]
I1 = np.ndarray[tuple[int], np.dtype[np.int64]]
I2 = np.ndarray[tuple[int, int], np.dtype[np.int64]]
B2 = np.ndarray[tuple[int, int], np.dtype[np.bool_]]


@everypath.compile
def sorts(a: F2, v: F1):
    s = np.sort(a)
    s0 = np.sort(a, axis=0, kind="stable")
    flat = np.sort(a, axis=None)
    i = np.argsort(v, kind="stable")
    j = a.argsort(axis=0, kind="stable")
    lx = np.lexsort((v, np.floor(v)))
    c = np.sort_complex(v)
    return s, s0, flat, i, j, lx, c, v[i]


@everypath.compile
def sort_in_place(a: F2, v: F1) -> F1:
    a.sort(axis=0)
    w = v[::2]
    w.sort()
    return v


@everypath.compile
def partitions(v: F1, k: int):
    p = np.partition(v, k)
    q = np.argpartition(v, (0, k))
    return p[k], v[q[k]], v[q[0]], np.sort(p[:k]), np.sort(p[k + 1:])


@everypath.compile
def searching(a: F1, keys: F1, bins: F1, m: F2):
    s = np.sort(a)
    return (np.searchsorted(s, keys), np.searchsorted(s, keys, side="right"), s.searchsorted(0.5),
            np.searchsorted(a, keys, sorter=np.argsort(a)), np.digitize(keys, bins), np.digitize(keys, bins, right=True),
            np.nonzero(m > 0), m.nonzero()[1], np.flatnonzero(m), np.argwhere(m < 0), np.count_nonzero(m),
            np.count_nonzero(m, axis=0), np.nanargmax(a), np.nanargmin(m, axis=1))


@everypath.compile
def counting(x: I1, w: F1, a: F1, nbins: int):
    return (np.bincount(x), np.bincount(x, weights=w, minlength=10), np.histogram(a), np.histogram(a, nbins),
            np.histogram(a, 4, range=(-1.0, 1.0), density=True), np.histogram(a, bins=np.array([-2.0, 0.0, 0.5, 3.0])))


@everypath.compile
def sets(a: I1, b: I1, f: F1):
    u, idx, inv, cnt = np.unique(a, return_index=True, return_inverse=True, return_counts=True)
    return (np.unique(f), u, idx, inv, cnt, np.unique(a, return_counts=True), np.isin(a, b), np.isin(a, [1, 2, 3], invert=True),
            np.intersect1d(a, b), np.intersect1d(a, b, return_indices=True), np.union1d(a, f), np.setdiff1d(a, b),
            np.setxor1d(a, b))


@everypath.compile
def picking(a: F2, idx: I1, c: B2):
    t = np.take(a, idx, axis=1)
    t2 = a.take(idx)
    order = np.argsort(a, axis=1)
    along = np.take_along_axis(a, order, axis=1)
    sel = np.select([c, a > 1.0], [a, -a], default=0.5)
    ch = np.choose(c.astype(np.int64), (a, 10.0))
    comp = np.compress(c[:, 0], a, axis=0)
    ex = np.extract(c, a)
    return t, t2, along, sel, ch, comp, ex, a.compress(c[0], axis=1)


@everypath.compile
def writes(a: F2, idx: I1, c: B2) -> F2:
    np.put(a, idx, np.array([-1.0, -2.0]))
    a.put(0, 100.0)
    np.put_along_axis(a, np.zeros((a.shape[0], 1), np.int64), 7.0, axis=1)
    np.place(a, c, [5.0, 6.0])
    return a


@everypath.compile
def bad_partition(v: F1, k: int):
    return np.partition(v, k)


@everypath.compile
def bad_bincount(x: I1):
    return np.bincount(x)


@everypath.compile
def bad_take(a: F1, i: int):
    return np.take(a, i)


@pytest.mark.parametrize("n", [1, 7, 64, 301])
def test_sorting(n):
    a = special(np.float64, max(n, 10), 1)[:n]
    m = sample((3, max(n // 3, 1)), np.float64, 2)
    same_as_python(sorts, m, a)
    same_as_python(sort_in_place, m.copy(), a.copy())
    same_as_python(sort_in_place, m.T.copy().T, a.copy())  # a non-contiguous input is written in place
    same_as_python(partitions, np.nan_to_num(a) * 0 + sample((n,), np.float64, 3), n // 2)


def test_in_place_needs_writable():
    m = sample((3, 4), np.float64, 2)
    m.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        sort_in_place(m, sample((5,), np.float64))


@pytest.mark.parametrize("n", [5, 40])
def test_searching_counting(n):
    a = special(np.float64, max(n, 10), 2)[:n]
    keys = sample((9,), np.float64, 4)
    bins = np.array([-2.0, -0.5, 0.0, 1.0, 3.0])
    same_as_python(searching, a, keys, bins, sample((3, 5), np.float64, 6))
    x = np.abs(sample((n,), np.int64, 1))
    same_as_python(counting, x, sample((n,), np.float64, 2), sample((n,), np.float64, 3), 6)


def test_sets_and_picking():
    a, b = sample((17,), np.int64, 1), sample((9,), np.int64, 4)
    same_as_python(sets, a, b, special(np.float64, 12, 3))
    m = sample((4, 5), np.float64, 2)
    c = sample((4, 5), np.int8, 5) > 0
    same_as_python(picking, m, np.array([4, 0, -1]), c)
    same_as_python(writes, m.copy(), np.array([1, -1]), c)


def test_errors():
    exc = same_as_python(bad_partition, np.arange(5.0), 5)
    assert str(exc) == "kth(=5) out of bounds (5)"
    exc = same_as_python(bad_bincount, np.array([1, -1]))
    assert str(exc) == "'list' argument must have no negative elements"
    exc = same_as_python(bad_take, np.arange(5.0), 7)
    assert isinstance(exc, IndexError)
    same_as_python(searching, np.full(4, np.nan), np.ones(3), np.array([1.0, 3.0, 2.0]), np.ones((2, 2)))

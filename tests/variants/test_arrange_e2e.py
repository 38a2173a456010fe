"""Rearranging, splitting and editing operators through everypath.compile,
against the same Python function (values, dtypes, views written through,
list results used inside the function, errors)."""
from __future__ import annotations

import numpy as np
import pytest

import everypath
from tests.variants._harness import assert_same, sample, same_as_python

F1 = np.ndarray[tuple[int], np.dtype[np.float64]]
F2 = np.ndarray[tuple[int, int], np.dtype[np.float64]]
I2 = np.ndarray[tuple[int, int], np.dtype[np.int32]]
U3 = np.ndarray[tuple[int, int, int], np.dtype[np.uint8]]


@everypath.compile
def rearranged(a: F2, n: int):
    return (np.tile(a, 2), np.tile(a, (n, 1)), np.tile(a, [1, 2, n]), np.repeat(a, n), a.repeat(2, axis=1),
            np.repeat(a, np.arange(a.shape[0]), axis=0), np.roll(a, n), np.roll(a, (1, -n), axis=(0, 1)),
            np.rot90(a), np.rot90(a, n), np.fliplr(a), np.flipud(a), np.moveaxis(a, 0, -1), np.swapaxes(a, 0, 1),
            a.swapaxes(1, 0), np.atleast_1d(a[0, 0]), np.atleast_2d(a[0]), np.atleast_3d(a),
            np.broadcast_to(a[0], (n, a.shape[1])), np.resize(a, (n, 3)))


@everypath.compile
def views_write(a: F2):
    np.fliplr(a)[0, 0] = -1.0
    np.rot90(a)[0, 0] = -2.0
    a.swapaxes(0, 1)[1, 0] = -3.0
    np.atleast_3d(a)[1, 1, 0] = -4.0
    return a


@everypath.compile
def pieces(a: U3, k: int):
    parts = np.split(a, k, axis=1)
    total = np.zeros_like(parts[0])
    for p in parts:
        total += p
    halves = np.array_split(a[0], 3)
    cols = np.hsplit(a[0], (1, 3))
    return len(parts), total, parts[-1], halves[0], halves[2], cols[1], np.vsplit(a[0], [1])[1], np.dsplit(a, 2)[0]


@everypath.compile
def stacked(x: F1, m: F2):
    return np.column_stack((x, m, x)), np.dstack((m, m)), np.column_stack([x, x]), np.dstack((x, x))


@everypath.compile
def edited(a: I2, i: int):
    b = np.append(a, 7)
    c = np.append(a, a, axis=0)
    d = np.insert(a, i, 9, axis=1)
    e = np.insert(a, -1, np.arange(a.shape[1]), axis=0)
    f = np.delete(a, i, axis=0)
    g = np.delete(a, np.arange(0, a.shape[1], 2), axis=1)
    h = np.delete(a, [0, -1])
    t = np.trim_zeros(np.insert(np.zeros(3), 1, 2.5), "b")
    return b, c, d, e, f, g, h, t


@everypath.compile
def filled(a: F2, v: float):
    a.fill(v)
    return a.item(0), a.item(1, 1), a[0].item(-1), a[:1, :1].item()


@everypath.compile
def bad_split(a: F1):
    return np.split(a, 4)[0]


@everypath.compile
def bad_insert(a: F1, i: int):
    return np.insert(a, i, 1.0)


@pytest.mark.parametrize("shape", [(2, 3), (1, 1), (4, 5)])
def test_rearranged(shape):
    a = sample(shape, np.float64)
    same_as_python(rearranged, a, 2)
    same_as_python(rearranged, a.T.copy().T, 3)  # a non C-contiguous input
    same_as_python(stacked, sample((shape[0],), np.float64), a)


def test_views_are_written_through():
    a = sample((3, 4), np.float64)
    want = views_write.py_function(a.copy())
    got_arg = a.copy()
    got = views_write(got_arg)
    assert_same(got, want)
    assert_same(got_arg, want)  # the caller's array itself was written


def test_split_lists():
    a = sample((2, 6, 4), np.uint8)
    for k in (1, 2, 3, 6):
        same_as_python(pieces, a, k)
    exc = same_as_python(pieces, a, 4)
    assert str(exc) == "array split does not result in an equal division"
    same_as_python(bad_split, np.arange(6.0))


def test_edits_and_scalars():
    a = sample((3, 4), np.int32)
    for i in (0, 1, -1):
        same_as_python(edited, a, i)
    exc = same_as_python(bad_insert, np.arange(3.0), 5)
    assert str(exc) == "index 5 is out of bounds for axis 0 with size 3"
    x = sample((2, 3), np.float64)
    same_as_python(filled, x, 2.5)
    got_arg = x.copy()
    filled(got_arg, -1.5)
    assert (got_arg == -1.5).all()
    assert type(filled(x.copy(), 1.0)[0]) is float


def test_fill_refuses_read_only():
    x = sample((2, 2), np.float64)
    x.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        filled(x, 1.0)

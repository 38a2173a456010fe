"""Tuples and lists as array values: row/slice assignment, list displays given to NumPy functions,
shape entries mixed with int arrays, all vs NumPy (values, dtypes, error types and messages)."""
from __future__ import annotations

import numpy as np
import pytest

import everypath as ep

F1 = np.ndarray[tuple[int], np.dtype[np.float64]]
F2 = np.ndarray[tuple[int, int], np.dtype[np.float64]]
I1 = np.ndarray[tuple[int], np.dtype[np.int32]]
U2 = np.ndarray[tuple[int, int], np.dtype[np.uint8]]
L1 = np.ndarray[tuple[int], np.dtype[np.int64]]


def fill_rows(a: F2, x: float) -> None:
    a[0] = (1.0, 2.0, x)
    a[1, :] = [0, 0, 1]
    a[:, 0] = (7, x, 9)
    a[2, 1:] = [x, x + 1]
    a[1:, :2] = ((5, 6), (7, 8))


def col_mismatch(a: F2) -> None:
    a[:, 0] = (1, 2, 3)


def row_overflow(a: U2) -> None:
    a[0] = (1, 300)


def displays(a: F1, i: I1, n: int):
    return (np.concatenate([a, [0]]), np.concatenate([i, [0]]), np.concatenate([a, i]),
            np.array([[0, 1], [1, 0]]), np.array([[0, 1], [n, 0]], dtype=np.float32),
            np.array([[0.5, n], [1, 0]]), np.stack([a, [1.0, 2.0, n]]), np.vstack([a, [0, 1, 2]]),
            np.stack([a, a * 2]))


def shape_arith(x: F2, idx: L1):
    return idx + x.shape[0], np.arange(4) * x.shape[1], x.shape[0] - idx, (idx * x.shape[1]).astype(np.int32)


def test_tuple_and_list_rows_match_numpy() -> None:
    got, want = np.zeros((3, 3)), np.zeros((3, 3))
    ep.compile(fill_rows)(got, 2.5)
    fill_rows(want, 2.5)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(("fn", "arr", "exc"), [
    (col_mismatch, np.zeros((2, 2)), ValueError),
    (row_overflow, np.zeros((2, 2), np.uint8), OverflowError),
])
def test_sequence_assignment_errors_are_numpys(fn, arr, exc) -> None:  # noqa: ANN001
    with pytest.raises(exc) as ref:
        fn(arr.copy())
    with pytest.raises(exc) as got:
        ep.compile(fn)(arr.copy())
    assert str(got.value) == str(ref.value)


def test_list_displays_given_to_numpy_functions() -> None:
    a, i = np.array([1.5, -2.0, 3.0]), np.array([4, 5, 6], np.int32)
    got, want = ep.compile(displays)(a, i, 3), displays(a, i, 3)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
        assert g.dtype == w.dtype and g.shape == w.shape


def test_shape_entries_are_python_ints_with_int_arrays() -> None:
    x, idx = np.ones((3, 5)), np.arange(-2, 4)
    for g, w in zip(ep.compile(shape_arith)(x, idx), shape_arith(x, idx)):
        np.testing.assert_array_equal(g, w)
        assert g.dtype == w.dtype

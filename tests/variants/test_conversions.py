"""np.ascontiguousarray / asanyarray / asarray / require / copyto vs NumPy (values, dtypes, flags, errors)."""
from __future__ import annotations

import numpy as np
import pytest

import everypath as ep
from everypath import CompileError

F1 = np.ndarray[tuple[int], np.dtype[np.float64]]
F2 = np.ndarray[tuple[int, int], np.dtype[np.float64]]
I2 = np.ndarray[tuple[int, int], np.dtype[np.int64]]


def layouts(x: F2, n: int):
    t = np.ascontiguousarray(x.T)
    same = np.ascontiguousarray(x)
    f32 = np.asarray(x, dtype=np.float32)
    anyv = np.asanyarray(x[:, ::2]) * 2
    req = np.require(x.T, requirements="C")
    req2 = np.require(x, np.float32, ["C", "W"])
    owned = np.require(x, requirements="O")
    scal = np.ascontiguousarray(2.5)
    lst = np.asarray([1.0, 2.0, n])
    return t, same, f32, anyv, req, req2, owned, scal, lst


def copies(dst: F2, src: F2, row: F1, isrc: I2) -> None:
    np.copyto(dst, src)
    np.copyto(dst[0], row)  # broadcast a row into a view
    np.copyto(dst, -1.0, where=src > 0.5)
    np.copyto(dst[1], isrc[0])  # int64 -> float64 is same_kind


def bad_cast(dst: I2, src: F2) -> None:
    np.copyto(dst, src)


def unsafe_cast(dst: I2, src: F2) -> None:
    np.copyto(dst, src, casting="unsafe")


def bad_shape(dst: F2, src: F1) -> None:
    np.copyto(dst, src)


def test_layout_conversions_match_numpy() -> None:
    x = np.arange(12.0).reshape(3, 4)
    got, want = ep.compile(layouts)(x, 3), layouts(x, 3)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
        assert g.dtype == w.dtype and g.shape == w.shape
        assert g.flags.c_contiguous == w.flags.c_contiguous
    assert np.shares_memory(got[1], x) == np.shares_memory(want[1], x)  # already contiguous: no copy
    assert not np.shares_memory(got[6], x)  # requirements='O' always copies


def test_copyto_matches_numpy() -> None:
    rng = np.random.default_rng(0)
    src, row, isrc = rng.random((3, 4)), rng.random(4), rng.integers(0, 9, (3, 4))
    got, want = np.zeros((3, 4)), np.zeros((3, 4))
    ep.compile(copies)(got, src, row, isrc)
    copies(want, src, row, isrc)
    np.testing.assert_array_equal(got, want)


def test_copyto_casting_rules_are_numpys() -> None:
    dst, src = np.zeros((2, 2), np.int64), np.full((2, 2), 1.75)
    with pytest.raises(TypeError) as ref:
        bad_cast(dst, src)
    with pytest.raises(CompileError, match=r"Cannot cast array data from dtype\('float64'\) to dtype\('int64'\)"):
        ep.compile(bad_cast)(dst, src)
    assert "same_kind" in str(ref.value)
    got, want = np.zeros((2, 2), np.int64), np.zeros((2, 2), np.int64)
    ep.compile(unsafe_cast)(got, src)
    unsafe_cast(want, src)
    np.testing.assert_array_equal(got, want)


def test_copyto_shape_mismatch_raises_numpys_error() -> None:
    dst, src = np.zeros((2, 2)), np.ones(3)
    with pytest.raises(ValueError) as ref:
        bad_shape(dst, src)
    with pytest.raises(ValueError) as got:
        ep.compile(bad_shape)(dst, src)
    assert str(got.value) == str(ref.value)

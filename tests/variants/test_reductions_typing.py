"""Typing of reductions, compared with what NumPy itself returns."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from everypath.base.types import ArrayT, DType, ScalarT
from tests.variants._harness import DTYPES, Const, infer, typing_error

FUNCS = ["sum", "prod", "mean", "max", "min", "argmax", "argmin", "any", "all", "std", "var",
         "nansum", "nanmean", "nanmax", "nanmin"]


def _np(name, a, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(np, name)(a, **kw)


def _check(t, r):
    if isinstance(r, np.ndarray):
        assert isinstance(t, ArrayT), (t, r)
        assert (t.dtype.np, t.ndim) == (r.dtype, r.ndim)
    else:
        assert isinstance(r, np.generic)
        assert isinstance(t, ScalarT) and not t.weak, t
        assert t.dtype.np == r.dtype


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_full_reduction_dtype_matches_numpy(name, dtype):
    for ndim in (1, 2, 3):
        a = np.ones((2,) * ndim, dtype)
        try:
            r = _np(name, a)
        except TypeError:
            continue
        _check(infer(f"numpy.{name}", a), r)


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.int32, np.float32, np.float64, np.complex64])
def test_axis_and_keepdims(name, dtype):
    a = np.ones((2, 3, 4), dtype)
    axes = [0, 1, 2, -1, -3]
    if name not in ("argmax", "argmin"):
        axes += [(0, 2), (1,), (-1, 0), ()]
    for axis in axes:
        for keep in (False, True):
            r = _np(name, a, axis=axis, keepdims=keep)
            _check(infer(f"numpy.{name}", a, axis=Const(axis), keepdims=Const(keep)), r)
            _check(infer(f"numpy.{name}", a, Const(axis), keepdims=Const(keep)), r)
    r = _np(name, a, keepdims=True)
    _check(infer(f"numpy.{name}", a, keepdims=Const(True)), r)
    _check(infer(f"numpy.{name}", a, axis=Const(None)), _np(name, a, axis=None))


@pytest.mark.parametrize("name", ["sum", "prod", "mean", "max", "min", "argmax", "argmin", "any", "all", "std", "var"])
def test_methods_share_the_rules(name):
    a = np.ones((3, 4), np.int16)
    _check(infer(f"ndarray.{name}", a), getattr(a, name)())
    _check(infer(f"ndarray.{name}", a, Const(1)), getattr(a, name)(1))
    _check(infer(f"ndarray.{name}", a, axis=Const(0), keepdims=Const(True)), getattr(a, name)(axis=0, keepdims=True))


def test_aliases():
    a = np.ones((3, 4), np.float32)
    _check(infer("numpy.amax", a, axis=Const(0)), np.amax(a, axis=0))
    _check(infer("numpy.amin", a), np.amin(a))


@pytest.mark.parametrize("dtype", [np.int8, np.float32, np.complex128, np.bool_])
def test_dtype_argument(dtype):
    a = np.ones((3, 4), np.int8)
    for name in ("sum", "prod", "mean", "nansum"):
        _check(infer(f"numpy.{name}", a, dtype=Const(np.dtype(dtype))), _np(name, a, dtype=dtype))


def test_scalars_and_lists_reduce_like_numpy():
    _check(infer("numpy.sum", 3.0), np.sum(3.0))
    _check(infer("numpy.sum", np.float32(3.0)), np.sum(np.float32(3.0)))
    _check(infer("numpy.mean", [1, 2, 3]), np.mean([1, 2, 3]))
    _check(infer("numpy.max", [1.5, 2.0]), np.max([1.5, 2.0]))


def test_ddof():
    a = np.ones((3, 4), np.float32)
    _check(infer("numpy.var", a, ddof=1), np.var(a, ddof=1))
    _check(infer("numpy.std", a, Const(0), ddof=Const(1.5)), np.std(a, 0, ddof=1.5))
    assert "ddof" in typing_error("numpy.std", a, ddof=a)


def test_axis_errors_match_numpy():
    a = np.ones((2, 3))
    assert typing_error("numpy.sum", a, axis=Const(2)) == "axis 2 is out of bounds for array of dimension 2"
    assert typing_error("numpy.max", a, Const(-3)) == "axis -3 is out of bounds for array of dimension 2"
    assert typing_error("numpy.mean", a, axis=Const((0, 0))) == "duplicate value in 'axis'"
    assert typing_error("numpy.sum", np.ones(()), axis=Const(0)) == "axis 0 is out of bounds for array of dimension 0"
    assert "compile-time constant" in typing_error("numpy.sum", a, axis=1)
    assert "integer" in typing_error("numpy.argmax", a, axis=Const((0, 1)))
    assert "keepdims" in typing_error("numpy.sum", a, keepdims=Const(1))
    assert "not supported" in typing_error("numpy.sum", a, out=a)
    assert "unexpected keyword" in typing_error("numpy.sum", a, foo=Const(1))
    with pytest.raises(np.exceptions.AxisError, match="axis 2 is out of bounds for array of dimension 2"):
        np.sum(a, axis=2)


def test_result_types_are_strong():
    t = infer("numpy.sum", np.ones(3, np.int8))
    assert t == ScalarT(DType.INT64)
    t = infer("numpy.argmax", np.ones((3, 2)), axis=Const(1))
    assert t == ArrayT(DType.INT64, 1)


def test_reducing_every_axis_gives_a_scalar():
    a = np.ones(4, np.int8)
    for name in FUNCS:
        _check(infer(f"numpy.{name}", a, axis=Const(0)), _np(name, a, axis=0))
        _check(infer(f"numpy.{name}", a, axis=Const(0), keepdims=Const(True)), _np(name, a, axis=0, keepdims=True))
    b = np.ones((2, 3))
    _check(infer("numpy.sum", b, axis=Const((0, 1))), np.sum(b, axis=(0, 1)))
    _check(infer("numpy.sum", np.ones(()), axis=Const(())), np.sum(np.ones(()), axis=()))

"""Typing of array creation, compared with what NumPy itself returns."""
from __future__ import annotations

import numpy as np
import pytest

from everypath.base.types import ArrayT, DType
from tests.variants._harness import DTYPES, Const, infer, typing_error

SCALARS = [0, 1.5, True, np.int8(2), np.uint8(3), np.int32(4), np.int64(5), np.uint64(6), np.float32(1.5),
           np.float64(2.5), np.complex64(1j)]


def _check(t, r):
    assert isinstance(r, np.ndarray)
    assert t == ArrayT(DType.of(r.dtype), r.ndim), (t, r.dtype, r.ndim)


@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
def test_shape_functions(name):
    f = getattr(np, name)
    for shape in [3, (2, 3), (), (1, 2, 3, 4), np.int32(4)]:
        _check(infer(f"numpy.{name}", Const(shape) if not isinstance(shape, np.generic) else shape), f(shape))
    _check(infer(f"numpy.{name}", 5), f(5))
    _check(infer(f"numpy.{name}", (3, 4)), f((3, 4)))  # a run-time tuple
    for dt in DTYPES:
        _check(infer(f"numpy.{name}", Const((2,)), Const(np.dtype(dt))), f((2,), dt))
        _check(infer(f"numpy.{name}", 2, dtype=Const(np.dtype(dt))), f(2, dtype=dt))
    assert typing_error(f"numpy.{name}", 2.5) == "'float' object cannot be interpreted as an integer"
    assert "integer" in typing_error(f"numpy.{name}", Const((2, 1.5)))


def test_full_dtype_follows_the_fill_value():
    for v in SCALARS:
        _check(infer("numpy.full", Const((2, 2)), v), np.full((2, 2), v))
        _check(infer("numpy.full", 3, v, dtype=Const(np.dtype(np.float32))), np.full(3, v, dtype=np.float32))
    assert "scalar" in typing_error("numpy.full", 3, np.ones(3))


@pytest.mark.parametrize("name", ["zeros_like", "ones_like", "empty_like"])
def test_like(name):
    f = getattr(np, name)
    for dt in DTYPES:
        for nd in (0, 1, 3):
            a = np.ones((2,) * nd, dt)
            _check(infer(f"numpy.{name}", a), f(a))
            _check(infer(f"numpy.{name}", a, Const(np.dtype(np.int16))), f(a, np.int16))
    _check(infer(f"numpy.{name}", np.float32(3)), f(np.float32(3)))
    _check(infer(f"numpy.{name}", 3), f(3))


def test_full_like():
    for dt in DTYPES:
        a = np.ones((2, 3), dt)
        _check(infer("numpy.full_like", a, 2.5), np.full_like(a, 2.5))
        _check(infer("numpy.full_like", a, 1, dtype=Const(np.dtype(np.complex64))), np.full_like(a, 1, np.complex64))


def test_arange_dtypes_follow_numpy():
    kinds = [int, float, bool, np.int8, np.uint8, np.int16, np.int32, np.uint32, np.int64, np.uint64, np.float32,
             np.float64]
    samples = [k(1) for k in kinds]
    stops = [k(5) if k is not bool else True for k in kinds]
    for x in samples:
        _check(infer("numpy.arange", x), np.arange(x))
        for y in stops:
            _check(infer("numpy.arange", x, y), np.arange(x, y))
            _check(infer("numpy.arange", x, y, 1), np.arange(x, y, 1))
            _check(infer("numpy.arange", 0, x, y), np.arange(0, x, y))
    for dt in (np.int8, np.uint16, np.float32, np.float64, np.int64):
        _check(infer("numpy.arange", 5, dtype=Const(np.dtype(dt))), np.arange(5, dtype=dt))
        _check(infer("numpy.arange", 1, 5.5, 0.5, Const(np.dtype(dt))), np.arange(1, 5.5, 0.5, dt))
    _check(infer("numpy.arange", 5, step=2), np.arange(5, step=2))
    _check(infer("numpy.arange", start=1, stop=5), np.arange(start=1, stop=5))
    assert "complex" in typing_error("numpy.arange", 1j)
    assert typing_error("numpy.arange", dtype=Const(np.dtype(np.int8))) == "np.arange() requires stop to be specified."


def test_linspace():
    samples = [0, 1.5, np.int8(1), np.int32(3), np.float32(1), np.float64(2), True]
    for a in samples:
        for b in samples:
            _check(infer("numpy.linspace", a, b), np.linspace(a, b))
            _check(infer("numpy.linspace", a, b, 7, endpoint=Const(False)), np.linspace(a, b, 7, endpoint=False))
    for dt in (np.int32, np.float32, np.uint8, np.complex128):
        _check(infer("numpy.linspace", 0, 10, Const(5), dtype=Const(np.dtype(dt))), np.linspace(0, 10, 5, dtype=dt))
    _check(infer("numpy.linspace", 0, 1j, 4), np.linspace(0, 1j, 4))
    assert typing_error("numpy.linspace", 0, 1, Const(-1)) == "Number of samples, -1, must be non-negative."
    assert "integer" in typing_error("numpy.linspace", 0, 1, 2.5)
    assert "retstep" in typing_error("numpy.linspace", 0, 1, 5, retstep=Const(True))


def test_eye_identity():
    _check(infer("numpy.eye", 3), np.eye(3))
    _check(infer("numpy.eye", 3, 4, 1, dtype=Const(np.dtype(np.int8))), np.eye(3, 4, 1, dtype=np.int8))
    _check(infer("numpy.eye", 3, Const(None), k=-1), np.eye(3, None, k=-1))
    _check(infer("numpy.identity", 4), np.identity(4))
    _check(infer("numpy.identity", 4, Const(np.dtype(np.bool_))), np.identity(4, np.bool_))
    assert "integer" in typing_error("numpy.eye", 2.0)


def test_copy_array_asarray():
    for dt in DTYPES:
        for nd in (0, 1, 2):
            a = np.ones((2,) * nd, dt)
            _check(infer("numpy.copy", a), np.copy(a))
            _check(infer("ndarray.copy", a), a.copy())
            _check(infer("numpy.array", a), np.array(a))
            _check(infer("numpy.asarray", a), np.asarray(a))
            _check(infer("numpy.array", a, Const(np.dtype(np.float32))), np.array(a, np.float32))
            _check(infer("numpy.asarray", a, dtype=Const(np.dtype(np.int8))), np.asarray(a, dtype=np.int8))
    for v in SCALARS:
        _check(infer("numpy.array", v), np.array(v))
        _check(infer("numpy.array", [v, v]), np.array([v, v]))
        _check(infer("numpy.asarray", [v]), np.asarray([v]))
        _check(infer("numpy.array", (v, v, v)), np.array((v, v, v)))
        _check(infer("numpy.array", Const((1, 2.5))), np.array((1, 2.5)))
    _check(infer("numpy.array", ((1, 2), (3, 4), (5, 6))), np.array(((1, 2), (3, 4), (5, 6))))
    _check(infer("numpy.array", (1, np.float32(2.0))), np.array((1, np.float32(2.0))))
    _check(infer("numpy.array", (np.int8(1), np.uint8(2))), np.array((np.int8(1), np.uint8(2))))
    arrs = [np.ones(3, np.float32), np.ones(3, np.float32)]
    _check(infer("numpy.array", arrs), np.array(arrs))
    _check(infer("numpy.array", tuple(arrs)), np.array(tuple(arrs)))
    _check(infer("numpy.array", (np.ones(2, np.int8), np.ones(2))), np.array((np.ones(2, np.int8), np.ones(2))))
    assert "inhomogeneous" in typing_error("numpy.array", ((1, 2), (3,)))
    assert "copy" in typing_error("numpy.array", np.ones(2), Const(np.dtype(np.int8)), copy=Const(False))

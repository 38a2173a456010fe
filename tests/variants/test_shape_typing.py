"""Typing of shape functions and of array attributes, compared with NumPy."""
from __future__ import annotations

import numpy as np
import pytest

from everypath.base.types import FLOAT, INT, ArrayT, DType, DTypeT, ScalarT, TupleT
from tests.variants._harness import DTYPES, Const, infer, typing_error
from everypath.variants.attributes import attribute_type
from everypath.variants.registry import TypingError


def _check(t, r):
    assert isinstance(r, np.ndarray)
    assert t == ArrayT(DType.of(r.dtype), r.ndim), (t, r.dtype, r.ndim)


def test_reshape_rank():
    a = np.ones(12, np.float32)
    _check(infer("numpy.reshape", a, Const((3, 4))), np.reshape(a, (3, 4)))
    _check(infer("numpy.reshape", a, (3, -1)), np.reshape(a, (3, -1)))
    _check(infer("numpy.reshape", a, 12), np.reshape(a, 12))
    _check(infer("numpy.reshape", a, shape=Const((2, 2, 3))), np.reshape(a, shape=(2, 2, 3)))
    _check(infer("ndarray.reshape", a, 2, 6), a.reshape(2, 6))
    _check(infer("ndarray.reshape", a, Const(2), Const(-1), Const(3)), a.reshape(2, -1, 3))
    _check(infer("ndarray.reshape", a, Const((12,))), a.reshape((12,)))
    _check(infer("ndarray.reshape", np.ones(1), Const(())), np.ones(1).reshape(()))
    assert "integer" in typing_error("ndarray.reshape", a, 2.0, 6)
    assert "order" in typing_error("numpy.reshape", a, Const((3, 4)), order=Const("F"))


def test_astype():
    for src in DTYPES:
        for dst in DTYPES:
            a = np.ones((2, 2), src)
            _check(infer("ndarray.astype", a, Const(np.dtype(dst))), a.astype(dst))
    assert infer("ndarray.astype", np.ones(2), Const(np.dtype(int))) == ArrayT(DType.INT64, 1)
    msg = typing_error("ndarray.astype", np.ones(2), Const(np.dtype(np.int32)), casting=Const("safe"))
    assert msg == "Cannot cast array data from dtype('float64') to dtype('int32') according to the rule 'safe'"
    assert "dtype" in typing_error("ndarray.astype", np.ones(2), 3)


def test_transpose_ravel_flatten():
    a = np.ones((2, 3, 4), np.int16)
    _check(infer("numpy.transpose", a), np.transpose(a))
    _check(infer("numpy.transpose", a, Const((1, 0, 2))), np.transpose(a, (1, 0, 2)))
    _check(infer("ndarray.transpose", a, Const(2), Const(0), Const(1)), a.transpose(2, 0, 1))
    _check(infer("ndarray.transpose", a, Const((-1, 0, 1))), a.transpose((-1, 0, 1)))
    assert typing_error("numpy.transpose", a, Const((1, 0))) == "axes don't match array"
    assert "repeated" in typing_error("numpy.transpose", a, Const((1, 1, 0)))
    for name in ("ravel",):
        _check(infer(f"numpy.{name}", a), np.ravel(a))
        _check(infer(f"ndarray.{name}", a), a.ravel())
    _check(infer("ndarray.flatten", a), a.flatten())
    _check(infer("numpy.ravel", 3.0), np.ravel(3.0))


def test_expand_squeeze_flip():
    a = np.ones((2, 3), np.float64)
    for ax in (0, 1, 2, -1, -3, (0, 1), (0, 3), (-1, 1)):
        _check(infer("numpy.expand_dims", a, Const(ax)), np.expand_dims(a, ax))
    assert typing_error("numpy.expand_dims", a, Const(3)) == "axis 3 is out of bounds for array of dimension 3"
    b = np.ones((1, 3, 1))
    for ax in (0, 2, (0, 2), -1):
        _check(infer("numpy.squeeze", b, axis=Const(ax)), np.squeeze(b, axis=ax))
        _check(infer("ndarray.squeeze", b, Const(ax)), b.squeeze(ax))
    assert "axis=" in typing_error("numpy.squeeze", b)
    for ax in (None, 0, 1, (0, 1), -1):
        _check(infer("numpy.flip", a, Const(ax)), np.flip(a, ax))
    _check(infer("numpy.flip", a), np.flip(a))


def test_joining():
    x = np.ones((2, 3), np.int8)
    y = np.ones((2, 3), np.float32)
    z = np.ones(3, np.uint16)
    _check(infer("numpy.concatenate", (x, y)), np.concatenate((x, y)))
    _check(infer("numpy.concatenate", (x, y), axis=Const(1)), np.concatenate((x, y), axis=1))
    _check(infer("numpy.concatenate", (x, z), axis=Const(None)), np.concatenate((x, z), axis=None))
    _check(infer("numpy.concatenate", [y, y]), np.concatenate([y, y]))
    _check(infer("numpy.concatenate", (x, y), dtype=Const(np.dtype(np.float64))),
           np.concatenate((x, y), dtype=np.float64))
    assert typing_error("numpy.concatenate", (x, z)) == (
        "all the input arrays must have same number of dimensions, but the array at index 0 has 2 dimension(s) and "
        "the array at index 1 has 1 dimension(s)")
    assert typing_error("numpy.concatenate", (x, y), Const(2)) == "axis 2 is out of bounds for array of dimension 2"
    for ax in (0, 1, 2, -1):
        _check(infer("numpy.stack", (x, y), Const(ax)), np.stack((x, y), ax))
    for tup in ((x, y), (z, z), (x, z), (np.ones((2, 2, 2)), np.ones((1, 2, 2)))):
        _check(infer("numpy.vstack", tup), np.vstack(tup))
    for tup in ((x, y), (z, z), (np.ones(()), z)):
        _check(infer("numpy.hstack", tup), np.hstack(tup))
    assert "dimension" in typing_error("numpy.hstack", (x, z))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_array_attributes(dtype):
    for nd in (0, 1, 3):
        a = np.ones((2,) * nd, dtype)
        assert attribute_type(ArrayT(DType.of(dtype), nd), "shape") == TupleT((INT,) * nd)
        for name in ("ndim", "size", "itemsize", "nbytes"):
            assert attribute_type(ArrayT(DType.of(dtype), nd), name) == INT
            assert isinstance(getattr(a, name), int)
        assert attribute_type(ArrayT(DType.of(dtype), nd), "dtype") == DTypeT(DType.of(dtype))
        for name in ("T", "real", "imag"):
            _check(attribute_type(ArrayT(DType.of(dtype), nd), name), getattr(a, name))
    with pytest.raises(TypingError, match="'numpy.ndarray' object has no attribute 'foo'"):
        attribute_type(ArrayT(DType.of(dtype), 1), "foo")


def test_scalar_attributes():
    for v in (1, 2.5, 1j, True, np.float32(1), np.complex64(1j), np.int8(3), np.complex128(1j)):
        from tests.variants._harness import value_type

        t = value_type(v)
        for name in ("real", "imag"):
            r = getattr(v, name)
            got = attribute_type(t, name)
            assert isinstance(got, ScalarT)
            if isinstance(r, np.generic):
                assert got == ScalarT(DType.of(r.dtype)), (v, name, got)
            else:
                assert got.weak and got == value_type(r), (v, name, got, r)
    assert attribute_type(value_type(1j), "real") == FLOAT
    assert attribute_type(ScalarT(DType.FLOAT32), "dtype") == DTypeT(DType.FLOAT32)
    with pytest.raises(TypingError, match="'float' object has no attribute 'shape'"):
        attribute_type(FLOAT, "shape")
    with pytest.raises(TypingError, match="'numpy.float32' object has no attribute 'foo'"):
        attribute_type(ScalarT(DType.FLOAT32), "foo")
    with pytest.raises(TypingError, match="'tuple' object has no attribute 'foo'"):
        attribute_type(TupleT((INT,)), "foo")

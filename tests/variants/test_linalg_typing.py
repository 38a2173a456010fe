"""Typing of matmul / dot / inner / outer / vdot / trace / linalg.norm against NumPy."""
from __future__ import annotations

import math
import operator

import numpy as np
import pytest

from everypath.base.types import ArrayT, DType, ScalarT
from tests.variants._harness import DTYPES, Const, infer, typing_error


def _check(t, r):
    if isinstance(r, np.ndarray):
        assert t == ArrayT(DType.of(r.dtype), r.ndim), (t, r.dtype, r.ndim)
    else:
        assert isinstance(r, np.generic), r
        assert t == ScalarT(DType.of(r.dtype)), (t, type(r))


PAIRS = [(np.int8, np.int8), (np.int8, np.uint8), (np.int32, np.float32), (np.float32, np.float32),
         (np.float32, np.float64), (np.bool_, np.bool_), (np.bool_, np.int16), (np.complex64, np.float64),
         (np.uint64, np.int64), (np.uint16, np.float32)]


@pytest.mark.parametrize("da,db", PAIRS)
def test_matmul_dot_inner(da, db):
    for na in (1, 2, 3):
        for nb in (1, 2, 3):
            a = np.ones((2,) * na, da)
            b = np.ones((2,) * nb, db)
            _check(infer("operator.matmul", a, b), a @ b)
            _check(infer("numpy.matmul", a, b), np.matmul(a, b))
            if na <= 2 and nb <= 2:
                _check(infer("numpy.dot", a, b), np.dot(a, b))
                _check(infer("ndarray.dot", a, b), a.dot(b))
                _check(infer("numpy.inner", a, b), np.inner(a, b))
            _check(infer("numpy.outer", a, b), np.outer(a, b))
            _check(infer("numpy.vdot", np.ones(4, da), np.ones(4, db)), np.vdot(np.ones(4, da), np.ones(4, db)))


def test_matmul_errors():
    a = np.ones((2, 2))
    msg = typing_error("operator.matmul", a, 2.0)
    with pytest.raises(ValueError) as exc:
        operator.matmul(a, 2.0)
    assert msg == str(exc.value)
    assert "scalar" in typing_error("numpy.dot", 2.0, a)
    assert "not supported" in typing_error("numpy.dot", np.ones((2, 2, 2)), a)


def test_imatmul_keeps_the_target_type():
    a = np.ones((2, 2), np.float32)
    assert infer("operator.imatmul", a, np.ones((2, 2), np.float32)) == ArrayT(DType.FLOAT32, 2)
    assert "same_kind" in typing_error("operator.imatmul", np.ones((2, 2), np.int32), np.ones((2, 2)))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_trace(dtype):
    a = np.ones((3, 3), dtype)
    _check(infer("numpy.trace", a), np.trace(a))
    _check(infer("numpy.trace", a, 1), np.trace(a, 1))
    _check(infer("ndarray.trace", a, offset=-1), a.trace(offset=-1))
    assert "2-d" in typing_error("numpy.trace", np.ones(3))


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.uint8, np.float32, np.float64, np.complex64, np.complex128,
                                   np.bool_], ids=lambda d: np.dtype(d).name)
def test_norm(dtype):
    for nd in (1, 2, 3):
        x = np.ones((2,) * nd, dtype)
        _check(infer("numpy.linalg.norm", x), np.linalg.norm(x))
        _check(infer("numpy.linalg.norm", x, keepdims=Const(True)), np.linalg.norm(x, keepdims=True))
        for axis in range(nd):
            for ord_ in (None, 1, 2, math.inf, -math.inf, 0, 3, 0.5):
                _check(infer("numpy.linalg.norm", x, Const(ord_), Const(axis)), np.linalg.norm(x, ord_, axis))
                _check(infer("numpy.linalg.norm", x, ord=Const(ord_), axis=Const(axis), keepdims=Const(True)),
                       np.linalg.norm(x, ord=ord_, axis=axis, keepdims=True))
    v = np.ones(3, dtype)
    for ord_ in (1, 2, math.inf, 0):
        _check(infer("numpy.linalg.norm", v, Const(ord_)), np.linalg.norm(v, ord_))
    m = np.ones((2, 3), dtype)
    for ord_ in (None, "fro", 1, -1, math.inf, -math.inf):
        _check(infer("numpy.linalg.norm", m, Const(ord_)), np.linalg.norm(m, ord_))
        _check(infer("numpy.linalg.norm", m, Const(ord_), Const((1, 0))), np.linalg.norm(m, ord_, (1, 0)))


def test_norm_errors():
    assert "SVD" in typing_error("numpy.linalg.norm", np.ones((2, 2)), Const(2))
    assert typing_error("numpy.linalg.norm", np.ones((2, 2, 2)), Const(1)) == "Improper number of dimensions to norm."
    assert "constant" in typing_error("numpy.linalg.norm", np.ones(3), 2)

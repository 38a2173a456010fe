"""Typing of the manipulation families (arrange, splitting, editing, padding,
construct): result types against NumPy's, and the calls that are refused at
compile time because their result type would depend on run-time values."""
from __future__ import annotations

import numpy as np

from everypath.base.types import BOOL, COMPLEX, FLOAT, INT, ArrayT, DType, ListT, TupleT
from tests.variants._harness import Const, infer, typing_error


def _t(r: np.ndarray) -> ArrayT:
    return ArrayT(DType.of(r.dtype), r.ndim)


def test_result_types_match_numpy():
    a = np.ones((2, 3), np.float32)
    i8 = np.ones(4, np.int8)
    assert infer("numpy.tile", a, Const((2, 1, 1))) == _t(np.tile(a, (2, 1, 1)))
    assert infer("numpy.tile", 3, 2) == _t(np.tile(3, 2))
    assert infer("numpy.repeat", a, 2) == _t(np.repeat(a, 2))
    assert infer("ndarray.repeat", a, 2, Const(1)) == _t(a.repeat(2, 1))
    assert infer("numpy.atleast_3d", 1.5) == _t(np.atleast_3d(1.5))
    assert infer("numpy.atleast_2d", a, i8) == TupleT((_t(a), _t(np.atleast_2d(i8))))
    assert infer("numpy.broadcast_to", i8, (3, 4)) == ArrayT(DType.INT8, 2)
    assert infer("numpy.split", a, 2) == ListT(_t(a))
    one = np.ones(1, np.int8)
    assert infer("numpy.column_stack", (one, 5)) == _t(np.column_stack((one, 5)))
    assert infer("numpy.append", i8, 300) == _t(np.append(i8, 300))  # int64: the value becomes an array
    assert infer("numpy.insert", i8, 0, 2.5) == _t(np.insert(i8, 0, 2.5))
    assert infer("numpy.vander", i8) == _t(np.vander(i8))
    assert infer("numpy.indices", Const((2, 3)), sparse=Const(True)) == TupleT((ArrayT(DType.INT64, 2),) * 2)
    assert infer("numpy.meshgrid", i8, a) == TupleT((ArrayT(DType.INT8, 2), ArrayT(DType.FLOAT32, 2)))
    assert infer("numpy.logspace", np.float32(0), 2) == _t(np.logspace(np.float32(0), 2))
    assert infer("numpy.geomspace", 1, 8, dtype=Const(np.dtype(np.complex64))) == ArrayT(DType.COMPLEX64, 1)
    for dt, py in ((np.bool_, BOOL), (np.uint64, INT), (np.float32, FLOAT), (np.complex64, COMPLEX)):
        assert infer("ndarray.item", np.ones(1, dt)) == py


def test_refused_at_compile_time():
    a = np.ones((2, 3))
    assert "not known at compile time" in typing_error("numpy.tile", a, [2, 2])  # a list held in a variable
    assert "not supported" in typing_error("numpy.pad", a, Const(1), Const("maximum"))
    assert "not supported" in typing_error("numpy.meshgrid", a, a, sparse=Const(True), copy=Const(False))
    assert "must be an integer" in typing_error("numpy.tri", 2.5)
    assert "index must be an integer" in typing_error("numpy.insert", a, (0, 1), 1)
    assert "list" in typing_error("numpy.trim_zeros", [0, 1, 0])
    assert "not supported" in typing_error("numpy.logspace", 0, 1, axis=Const(1))

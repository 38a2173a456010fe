"""Typing rules of numpy.linalg decompositions, numpy.fft and the tensor products
(no C++ involved): result types as NumPy gives them, NumPy's messages for bad calls."""
from __future__ import annotations

import numpy as np
import pytest

from everypath.base.types import ArrayT, DType, ScalarT, TupleT
from tests.variants._harness import Const, infer, typing_error

F64, F32, C128, C64 = DType.FLOAT64, DType.FLOAT32, DType.COMPLEX128, DType.COMPLEX64


@pytest.mark.parametrize("dt,res", [(np.int32, F64), (np.bool_, F64), (np.float32, F32), (np.complex64, C64),
                                    (np.float64, F64), (np.complex128, C128)])
def test_result_dtypes(dt, res):
    a2, a3 = np.ones((2, 2), dt), np.ones((2, 2, 2), dt)
    assert infer("numpy.linalg.det", a2) == ScalarT(res)
    assert infer("numpy.linalg.det", a3) == ArrayT(res, 1)
    assert infer("numpy.linalg.inv", a3) == ArrayT(res, 3)
    real = {C64: F32, C128: F64}.get(res, res)
    assert infer("numpy.linalg.svd", a2) == TupleT((ArrayT(res, 2), ArrayT(real, 1), ArrayT(res, 2)))
    assert infer("numpy.linalg.eigh", a3) == TupleT((ArrayT(real, 2), ArrayT(res, 3)))
    assert infer("numpy.linalg.slogdet", a2) == TupleT((ScalarT(res), ScalarT(real)))
    assert infer("numpy.linalg.cond", a2) == ScalarT(real)
    assert infer("numpy.linalg.matrix_rank", a2) == ScalarT(DType.INT64)
    lst = infer("numpy.linalg.lstsq", a2, np.ones(2, dt))
    assert lst == TupleT((ArrayT(res, 1), ArrayT(real, 1), ScalarT(DType.INT32), ArrayT(real, 1)))
    c = C64 if res in (F32, C64) else C128
    assert infer("numpy.linalg.eigvals", a2) == ArrayT(c, 1)
    assert infer("numpy.fft.fft", np.ones(3, dt)) == ArrayT(c, 1)
    assert infer("numpy.fft.irfft", np.ones((2, 3), dt)) == ArrayT({C64: F32, C128: F64}[c], 2)


def test_messages():
    assert typing_error("numpy.linalg.inv", np.ones(3)) == \
        "1-dimensional array given. Array must be at least two-dimensional"
    assert typing_error("numpy.linalg.qr", np.eye(2), Const("raw")).startswith("np.linalg.qr(mode='raw')")
    assert typing_error("numpy.linalg.eigh", np.eye(2), UPLO=Const("Q")) == "UPLO argument must be 'L' or 'U'"
    assert typing_error("numpy.linalg.svd", np.eye(2), compute_uv=True) == \
        "np.linalg.svd(): argument 'compute_uv' must be a compile-time constant"
    assert typing_error("numpy.fft.fft", np.ones(3), norm=Const("bad")).startswith("Invalid norm value bad")
    assert typing_error("numpy.fft.fft", np.ones(3), axis=1) == \
        "np.fft.fft(): argument 'axis' must be a compile-time constant"
    assert "subscripts" in typing_error("numpy.einsum", Const("ij,jk->iz"), np.ones((2, 2)), np.ones((2, 2)))
    assert typing_error("numpy.tensordot", np.ones((2, 3)), np.ones((3, 2)), Const(((0,), (0, 1)))) == \
        "shape-mismatch for sum"
    assert typing_error("numpy.linalg.multi_dot", (np.ones((2, 2)),)) == "Expecting at least two arrays."


def test_shapes_of_nd_transforms():
    assert infer("numpy.fft.rfftn", np.ones((2, 3, 4))) == ArrayT(C128, 3)
    assert infer("numpy.fft.fftshift", np.ones((2, 3), np.int8)) == ArrayT(DType.INT8, 2)
    assert infer("numpy.fft.fftfreq", 5) == ArrayT(F64, 1)
    assert infer("numpy.einsum", Const("ij,jk"), np.ones((2, 2)), np.ones((2, 2))) == ArrayT(F64, 2)
    assert infer("numpy.einsum", Const("ii"), np.ones((2, 2), np.int8)) == ScalarT(DType.INT8)
    assert infer("numpy.kron", np.ones(2, np.int8), np.ones((2, 2), np.uint8)) == ArrayT(DType.INT16, 2)

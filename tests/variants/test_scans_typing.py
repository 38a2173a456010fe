"""Typing of cumsum / cumprod / diff, compared with what NumPy itself returns."""
from __future__ import annotations

import numpy as np
import pytest

from everypath.base.types import ArrayT, DType
from tests.variants._harness import DTYPES, Const, infer, typing_error


def _check(t, r):
    assert isinstance(r, np.ndarray)
    assert t == ArrayT(DType.of(r.dtype), r.ndim), (t, r.dtype, r.ndim)


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_cumulative(name, dtype):
    f = getattr(np, name)
    for nd in (0, 1, 2, 3):
        a = np.ones((2,) * nd, dtype)
        _check(infer(f"numpy.{name}", a), f(a))
        _check(infer(f"ndarray.{name}", a), getattr(a, name)())
        for axis in range(-nd, nd):
            _check(infer(f"numpy.{name}", a, Const(axis)), f(a, axis))
            _check(infer(f"ndarray.{name}", a, axis=Const(axis)), getattr(a, name)(axis=axis))
        _check(infer(f"numpy.{name}", a, dtype=Const(np.dtype(np.float32))), f(a, dtype=np.float32))
    _check(infer(f"numpy.{name}", 3), f(3))
    _check(infer(f"numpy.{name}", [1.5, 2.0]), f([1.5, 2.0]))
    assert typing_error(f"numpy.{name}", np.ones((2, 2)), Const(2)) == "axis 2 is out of bounds for array of dimension 2"


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_diff(dtype):
    for nd in (1, 2, 3):
        a = np.ones((3,) * nd, dtype)
        _check(infer("numpy.diff", a), np.diff(a))
        for n in (0, 1, 2, 5):
            for axis in range(-nd, nd):
                _check(infer("numpy.diff", a, Const(n), Const(axis)), np.diff(a, n, axis))
                _check(infer("numpy.diff", a, n=Const(n), axis=Const(axis)), np.diff(a, n=n, axis=axis))


def test_diff_errors():
    assert typing_error("numpy.diff", np.ones(3), n=Const(-1)) == "order must be non-negative but got -1"
    assert typing_error("numpy.diff", 3.0) == "diff requires input that is at least one dimensional"
    assert typing_error("numpy.diff", np.ones((2, 2)), axis=Const(2)) == \
        "axis 2 is out of bounds for array of dimension 2"
    assert "constant" in typing_error("numpy.diff", np.ones(3), n=2)
    assert "prepend" in typing_error("numpy.diff", np.ones(3), prepend=Const(0))

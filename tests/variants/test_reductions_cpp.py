"""Reductions lowered to C++ (reduce.hpp), compiled with g++ and compared with NumPy."""
from __future__ import annotations

import numpy as np
import pytest

from tests.variants._harness import Const, Program, View, run_and_check, sample

NAMES = ["sum", "prod", "mean", "max", "min", "argmax", "argmin", "any", "all", "std", "var",
         "nansum", "nanmean", "nanmax", "nanmin"]


def _program() -> Program:
    p = Program("reductions")
    shapes = [(7,), (1,), (0,), (3, 5), (4, 1, 3), (2, 0), (0, 3), ()]
    dtypes = [np.int8, np.uint8, np.int32, np.float32, np.float64, np.complex64, np.bool_]
    for dt in dtypes:
        for shape in shapes:
            a = sample(shape, dt, seed=len(shape))
            for name in NAMES:
                tag = f"{name}_{np.dtype(dt).name}_{'x'.join(map(str, shape)) or 's'}"
                p.case(tag, f"numpy.{name}", a)
                for axis in range(len(shape)):
                    if name in ("std", "var", "prod") and dt == np.complex64:
                        continue
                    p.case(f"{tag}_ax{axis}", f"numpy.{name}", a, axis=Const(axis))
                    p.case(f"{tag}_ax{axis}k", f"numpy.{name}", a, Const(axis - len(shape)), keepdims=Const(True))
                if len(shape) == 3 and name not in ("argmax", "argmin"):
                    p.case(f"{tag}_ax02", f"numpy.{name}", a, axis=Const((0, 2)))
                    p.case(f"{tag}_ax12k", f"numpy.{name}", a, axis=Const((2, 1)), keepdims=Const(True))
                if len(shape) >= 1:
                    p.case(f"{tag}_allk", f"numpy.{name}", a, keepdims=Const(True))
    # non-contiguous inputs
    base = sample((6, 9), np.float64)
    for name in NAMES:
        p.case(f"{name}_strided", f"numpy.{name}", View(base, (slice(None, None, 2), slice(1, None, 3))))
        p.case(f"{name}_strided_ax0", f"numpy.{name}", View(base, (slice(1, None, 2), slice(None, None, -2))),
               axis=Const(0))
        p.case(f"{name}_T_ax1", f"numpy.{name}", View(base, transpose=True), axis=Const(1))
        p.case(f"ndarray_{name}_T", f"ndarray.{name}" if name[:3] != "nan" else f"numpy.{name}",
               View(base, transpose=True))
    # pairwise summation: bit-exact with NumPy for contiguous float arrays of any length
    for n in (5, 8, 9, 127, 128, 129, 300, 1000, 4099):
        for dt in (np.float32, np.float64, np.complex64):
            x = (np.sin(np.arange(n) * 1.3) * 1e3 + 0.1).astype(dt)
            if dt == np.complex64:
                x = x + 1j * np.cos(np.arange(n)).astype(np.float32)
            p.case(f"pairwise_{n}_{np.dtype(dt).name}", "numpy.sum", x, exact=True)
            p.case(f"mean_{n}_{np.dtype(dt).name}", "numpy.mean", x, exact=True)
        y = (np.sin(np.arange(3 * n) * 0.7) * 10).astype(np.float32).reshape(3, n)
        p.case(f"rows_{n}", "numpy.sum", y, axis=Const(1), exact=True)
        p.case(f"cols_{n}", "numpy.sum", y, axis=Const(0), exact=True)
        p.case(f"var_{n}", "numpy.var", y, exact=True)
        p.case(f"varax_{n}", "numpy.var", y, axis=Const(1), exact=True)
    # NaN handling
    z = np.array([1.0, np.nan, 3.0, -2.0, np.nan])
    zz = np.array([[np.nan, 1.0], [np.nan, np.nan], [2.0, -1.0]])
    for name in NAMES:
        p.case(f"{name}_nan", f"numpy.{name}", z)
        p.case(f"{name}_nan2", f"numpy.{name}", zz, axis=Const(1))
        p.case(f"{name}_nan2k", f"numpy.{name}", zz, axis=Const(0), keepdims=Const(True))
    # long contiguous rows take the vectorised max/min/argmax path: ties, NaN, inf, all dtypes
    for dt in (np.int8, np.uint8, np.int16, np.uint32, np.int64, np.uint64, np.float32, np.float64):
        x = sample((203,), dt, 7)
        x[150] = x.max()  # a tie: argmax must find the first
        for name in ("max", "min", "argmax", "argmin", "nanmax", "nanmin"):
            p.case(f"long_{name}_{np.dtype(dt).name}", f"numpy.{name}", x)
            p.case(f"long2_{name}_{np.dtype(dt).name}", f"numpy.{name}", sample((3, 130), dt, 1), axis=Const(1))
    for where in (0, 5, 64, 100, 199):
        for dt in (np.float32, np.float64):
            x = sample((200,), dt, 2)
            x[where] = np.nan
            y = sample((200,), dt, 3)
            y[where] = -np.inf if where % 2 else np.inf
            for name in ("max", "min", "argmax", "argmin", "nanmax", "nanmin"):
                p.case(f"lnan_{name}_{where}_{np.dtype(dt).name}", f"numpy.{name}", x)
                p.case(f"linf_{name}_{where}_{np.dtype(dt).name}", f"numpy.{name}", y)
    # integer wrap-around and dtypes
    big = np.array([2**62, 2**62, 2**62], dtype=np.int64)
    p.case("sum_wrap", "numpy.sum", big)
    p.case("prod_wrap", "numpy.prod", np.array([1 << 40, 1 << 30], dtype=np.int64))
    p.case("sum_u64", "numpy.sum", np.array([2**63, 2**63 + 5], dtype=np.uint64))
    p.case("sum_dtype", "numpy.sum", sample((4, 3), np.int8), dtype=Const(np.dtype(np.float32)))
    p.case("mean_dtype", "numpy.mean", sample((4, 3), np.int16), Const(0), Const(np.dtype(np.float32)))
    p.case("var_ddof", "numpy.var", sample((4, 3), np.float64), ddof=1)
    p.case("std_ddof_ax", "numpy.std", sample((4, 3), np.float32), Const(0), ddof=2.5)
    p.case("var_ddof_big", "numpy.var", sample((4, 3), np.float64), axis=Const(0), ddof=7)
    p.case("amax", "numpy.amax", sample((4, 3), np.int32), axis=Const(1))
    p.case("amin", "numpy.amin", sample((4, 3), np.int32))
    # scalars and lists
    p.case("sum_py_float", "numpy.sum", 2.5)
    p.case("max_np_scalar", "numpy.max", np.float32(-1.5))
    p.case("mean_list", "numpy.mean", [1, 2, 4])
    p.case("argmax_list", "numpy.argmax", [1.0, 7.0, 7.0, -2.0])
    return p


def test_reductions_against_numpy(tmp_path):
    run_and_check(_program(), tmp_path)


@pytest.mark.parametrize("name", NAMES)
def test_every_reduction_is_exercised(name):
    assert any(c.key == f"numpy.{name}" for c in _program().cases.values())

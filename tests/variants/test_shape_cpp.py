"""Shape functions and attributes lowered to C++ (shape.hpp), compiled with g++ and compared with NumPy.

Besides values, every array result is checked for being a view exactly when
NumPy's result shares memory with the input.
"""
from __future__ import annotations

import numpy as np

from tests.variants._harness import DTYPES, Const, Program, View, run_and_check, sample


def _program() -> Program:
    p = Program("shape")
    a = sample((12,), np.float64)
    m = sample((3, 4), np.int32)
    base = sample((6, 8), np.float32)
    views = {
        "c": m,
        "rows": View(base, (slice(None, None, 2), slice(None))),  # (3, 8): rows strided, each row contiguous
        "cols": View(base, (slice(None), slice(None, None, 2))),  # (6, 4)
        "T": View(base, transpose=True),  # (8, 6)
        "neg": View(base, (slice(None, None, -1), slice(None))),
        "col": View(base, (slice(None), 1)),  # (6,) stride 8
        "e": np.ones((0, 4), np.int8),
    }
    # reshape (views exactly where NumPy makes them)
    for tag, v in views.items():
        n = int(np.prod(v.value.shape if isinstance(v, View) else v.shape))
        for shp in [(n,), (-1,), (2, -1), (-1, 2), (1, n), (n, 1), (2, 2, -1), (3, -1, 2), (4, 2)]:
            st = "_".join(map(str, shp)).replace("-", "m")
            p.case(f"reshape_{tag}_{st}", "numpy.reshape", v, Const(shp))
            p.case(f"mreshape_{tag}_{st}", "ndarray.reshape", v, *(Const(d) for d in shp))
            p.case(f"mreshape_rt_{tag}_{st}", "ndarray.reshape", v, shp)  # a run-time tuple
        p.case(f"ravel_{tag}", "numpy.ravel", v)
        p.case(f"mravel_{tag}", "ndarray.ravel", v)
        p.case(f"flatten_{tag}", "ndarray.flatten", v)
        p.case(f"transpose_{tag}", "numpy.transpose", v)
        p.case(f"mT_{tag}", "ndarray.transpose", v)
        for ax in (0, -1, (0, 1)):
            p.case(f"flip_{tag}_{ax}", "numpy.flip", v, Const(ax))
        p.case(f"flip_{tag}", "numpy.flip", v)
        p.case(f"expand_{tag}_0", "numpy.expand_dims", v, Const(0))
        p.case(f"expand_{tag}_m1", "numpy.expand_dims", v, Const(-1))
        p.case(f"expand_{tag}_02", "numpy.expand_dims", v, axis=Const((0, 2)))
        for dt in (np.bool_, np.int8, np.uint32, np.float32, np.complex128):
            p.case(f"astype_{tag}_{np.dtype(dt).name}", "ndarray.astype", v, Const(np.dtype(dt)))
        p.case(f"astype_nocopy_{tag}", "ndarray.astype", v, Const(v.value.dtype if isinstance(v, View) else v.dtype),
               copy=Const(False))
    p.case("reshape_bad", "numpy.reshape", a, Const((4, 2)))
    p.case("reshape_bad_unknown", "numpy.reshape", a, Const((5, -1)))
    p.case("reshape_bad_lead", "ndarray.reshape", a, -1, 5)
    p.case("reshape_two_unknown", "ndarray.reshape", a, -1, -1)
    p.case("reshape_neg_other", "ndarray.reshape", a, -2, 3)
    p.case("reshape_1d_bad", "ndarray.reshape", a, 5)
    p.case("reshape_empty_unknown", "ndarray.reshape", np.ones(0), 0, -1)
    p.case("reshape_0d", "ndarray.reshape", np.ones(1), Const(()))
    p.case("reshape_3d", "ndarray.reshape", sample((2, 3, 4), np.int8), Const((4, 6)))
    p.case("transpose_axes", "numpy.transpose", sample((2, 3, 4), np.int8), Const((1, 2, 0)))
    p.case("mtranspose_axes", "ndarray.transpose", sample((2, 3, 4), np.int8), Const(2), Const(0), Const(1))
    sq = sample((1, 3, 1), np.float64)
    for ax in (0, 2, (0, 2), -1):
        p.case(f"squeeze_{ax}", "numpy.squeeze", sq, axis=Const(ax))
    p.case("squeeze_bad", "numpy.squeeze", sq, axis=Const(1))
    # astype conversions with NumPy's casting semantics
    special = np.array([1.5, -1.5, 0.0, -0.0, 2.7, -3.99, 255.0, 1e3], np.float64)
    for dt in (np.int8, np.uint8, np.int64, np.bool_, np.float32, np.complex64):
        p.case(f"astype_special_{np.dtype(dt).name}", "ndarray.astype", special, Const(np.dtype(dt)))
    cplx = np.array([1 + 2j, 0j, -3.5 + 0j, 1j], np.complex128)
    for dt in (np.float64, np.int32, np.bool_, np.complex64):
        p.case(f"astype_cplx_{np.dtype(dt).name}", "ndarray.astype", cplx, Const(np.dtype(dt)))
    ints = np.array([-1, 300, 128, -129, 0], np.int64)
    for dt in (np.int8, np.uint8, np.uint16, np.bool_, np.float32):
        p.case(f"astype_ints_{np.dtype(dt).name}", "ndarray.astype", ints, Const(np.dtype(dt)))
    # joining
    x = sample((2, 3), np.int8)
    y = sample((2, 3), np.float32, 4)
    z = sample((3,), np.uint16)
    w = sample((4, 3), np.float32, 9)
    for ax in (0, 1, -1):
        p.case(f"concat_{ax}", "numpy.concatenate", (x, y), Const(ax))
        p.case(f"stack_{ax}", "numpy.stack", (x, y, x), axis=Const(ax))
    p.case("concat_2", "numpy.concatenate", (x, w))
    p.case("concat_bad", "numpy.concatenate", (x, w), axis=Const(1))
    p.case("concat_none", "numpy.concatenate", (x, z), axis=Const(None))
    p.case("concat_views", "numpy.concatenate", (views["rows"], views["neg"]), Const(0))
    p.case("concat_list", "numpy.concatenate", [z, z, z])
    p.case("concat_dtype", "numpy.concatenate", (x, y), dtype=Const(np.dtype(np.float64)))
    p.case("concat_single", "numpy.concatenate", (x,))
    p.case("concat_empty", "numpy.concatenate", (np.ones((0, 3)), x))
    p.case("stack_2", "numpy.stack", (x, y), Const(2))
    p.case("stack_bad", "numpy.stack", (x, w))
    p.case("stack_list", "numpy.stack", [z, z])
    p.case("vstack_1d", "numpy.vstack", (z, z))
    p.case("vstack_mixed", "numpy.vstack", (w, z))
    p.case("vstack_2d", "numpy.vstack", (x, y, w))
    p.case("hstack_1d", "numpy.hstack", (z, z))
    p.case("hstack_0d", "numpy.hstack", (np.full((), 2.0, np.float32), z))
    p.case("hstack_2d", "numpy.hstack", (x, y))
    p.case("hstack_bad", "numpy.hstack", (x, w))
    # attributes
    for dt in DTYPES:
        arr = sample((2, 3), dt)
        n = np.dtype(dt).name
        for attr in ("shape", "ndim", "size", "itemsize", "nbytes", "T", "real", "imag", "dtype"):
            p.attr(f"attr_{n}_{attr}", arr, attr)
        p.attr(f"attr_{n}_real_view", View(sample((4, 6), dt), (slice(1, None, 2), slice(None, None, -2))), "real")
        p.attr(f"attr_{n}_imag_view", View(sample((4, 6), dt), (slice(1, None, 2), slice(None, None, -2))), "imag")
        p.attr(f"attr_{n}_T_view", View(sample((4, 6), dt), (slice(1, None, 2), slice(None, None, -2))), "T")
    p.attr("attr_mT", sample((2, 3, 4), np.float64), "mT")
    p.attr("attr_0d_shape", np.ones((), np.float64), "shape")
    for tag, v in (("pyc", 1.5 - 2j), ("pyf", 2.5), ("pyi", 7), ("pyb", True), ("c64", np.complex64(1 - 3j)),
                   ("f32", np.float32(2.5)), ("i8", np.int8(-3)), ("c128", np.complex128(2 + 1j))):
        p.attr(f"sattr_{tag}_real", v, "real")
        p.attr(f"sattr_{tag}_imag", v, "imag")
    for tag, v in (("f32", np.float32(2.5)), ("i8", np.int8(-3))):
        for attr in ("ndim", "size", "itemsize", "nbytes", "shape"):
            p.attr(f"sattr_{tag}_{attr}", v, attr)
    return p


def test_shape_against_numpy(tmp_path):
    run_and_check(_program(), tmp_path)

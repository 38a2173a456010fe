"""Array creation lowered to C++ (creation.hpp), compiled with g++ and compared with NumPy."""
from __future__ import annotations

import numpy as np

from tests.variants._harness import DTYPES, Const, Program, View, run_and_check, sample


def _dt(d):
    return Const(np.dtype(d))


def _program() -> Program:
    p = Program("creation")
    # zeros / ones / empty / full
    for name in ("zeros", "ones", "empty"):
        vals = name != "empty"
        for dt in DTYPES:
            n = np.dtype(dt).name
            p.case(f"{name}_{n}", f"numpy.{name}", Const((2, 3)), _dt(dt), values=vals)
            p.case(f"{name}_{n}_int", f"numpy.{name}", 4, dtype=_dt(dt), values=vals)
        p.case(f"{name}_default", f"numpy.{name}", Const(5), values=vals)
        p.case(f"{name}_0d", f"numpy.{name}", Const(()), values=vals)
        p.case(f"{name}_empty", f"numpy.{name}", Const((0, 3)), values=vals)
        p.case(f"{name}_runtime_tuple", f"numpy.{name}", (2, np.int32(3), 1), values=vals)
        p.case(f"{name}_np_int", f"numpy.{name}", np.uint8(3), values=vals)
        p.case(f"{name}_negative", f"numpy.{name}", -1)
        p.case(f"{name}_negative_tuple", f"numpy.{name}", (2, -3))
    for i, v in enumerate((0, 2.5, True, -3, np.int8(-2), np.uint16(7), np.float32(1.25), 1.5 + 2j, np.complex64(1j))):
        p.case(f"full_{i}", "numpy.full", Const((2, 2)), v)
        for dt in (np.int16, np.float32, np.bool_, np.complex128, np.uint8):
            p.case(f"full_{i}_{np.dtype(dt).name}", "numpy.full", 3, v, _dt(dt))
    p.case("full_neg_to_uint", "numpy.full", 2, -1, dtype=_dt(np.uint8))
    p.case("full_like_overflow", "numpy.full_like", np.ones(2, np.int8), 300)
    p.case("full_like_ok", "numpy.full_like", np.ones(2, np.uint16), 300)
    p.case("array_overflow", "numpy.array", -1, dtype=_dt(np.uint8))
    p.case("array_list_overflow", "numpy.array", [1, 300], dtype=_dt(np.int8))
    p.case("array_tuple_overflow", "numpy.array", (1, (-5)), dtype=_dt(np.uint32))
    p.case("array_tuple_ok", "numpy.array", (1, 200), dtype=_dt(np.uint8))
    p.case("asarray_list_np_int", "numpy.asarray", [np.int64(-1)], dtype=_dt(np.int8))
    p.case("arange_overflow", "numpy.arange", -1, 3, dtype=_dt(np.uint8))
    p.case("arange_overflow_step", "numpy.arange", 250, 3, -10, dtype=_dt(np.uint8))
    p.case("full_nan_bool", "numpy.full", 2, float("nan"), dtype=_dt(np.bool_))
    # *_like
    base = sample((4, 6), np.float32)
    for tag, src in enumerate((sample((3, 2), np.int32), View(base, (slice(None, None, 2), slice(1, None, 2))),
                               np.float64(2.0), 3, np.ones((0, 2), np.complex64))):
        for name in ("zeros_like", "ones_like", "empty_like"):
            p.case(f"{name}_{tag}", f"numpy.{name}", src, values=name != "empty_like")
            p.case(f"{name}_{tag}_i8", f"numpy.{name}", src, _dt(np.int8), values=name != "empty_like")
        p.case(f"full_like_{tag}", "numpy.full_like", src, 2.75)
        p.case(f"full_like_{tag}_c", "numpy.full_like", src, -1, dtype=_dt(np.complex64))
    # arange
    args = [
        (5,), (0,), (-3,), (2, 9), (9, 2), (1, 10, 3), (10, 1, -3), (0, 1, 0.1), (1.5, 4), (0.0, -1.0, -0.25),
        (np.float32(0), np.float32(1), np.float32(0.1)), (np.int8(3), 11), (np.uint8(2), np.uint8(9), np.uint8(2)),
        (0, 10, 0), (0.0, float("nan")), (0.0, 1.0, float("inf")), (np.int32(-5), np.int32(5), 2), (True,),
        (0, 3, 0.3), (1, 2, 1e-3), (-2.5, 7.25, 0.75), (np.int64(5),), (np.uint64(3), 10),
    ]
    for i, a in enumerate(args):
        p.case(f"arange_{i}", "numpy.arange", *a)
    for dt in (np.int8, np.uint8, np.int64, np.float32, np.float64):
        p.case(f"arange_dt_{np.dtype(dt).name}", "numpy.arange", 1, 20, 3, dtype=_dt(dt))
        p.case(f"arange_dtf_{np.dtype(dt).name}", "numpy.arange", 0, 5, 0.5, dtype=_dt(dt))
    p.case("arange_bool_2", "numpy.arange", 2, dtype=_dt(np.bool_))
    p.case("arange_f32_long", "numpy.arange", np.float32(0.1), np.float32(300), np.float32(0.7))
    p.case("arange_f64_long", "numpy.arange", 0.1, 3000.0, 0.7, exact=True)
    p.case("arange_kw", "numpy.arange", 7, step=2)
    # linspace
    for i, (a, b) in enumerate([(0, 1), (1.5, -2.5), (np.float32(0), np.float32(1)), (np.int8(2), 10), (0, 0),
                                (1e-310, 2e-310), (0, 1j), (np.float32(-1), 3.0)]):
        for num in (0, 1, 2, 5, 50):
            for ep in (True, False):
                p.case(f"linspace_{i}_{num}_{ep}", "numpy.linspace", a, b, num, endpoint=ep)
    p.case("linspace_default", "numpy.linspace", 2.0, 3.0, exact=True)
    p.case("linspace_const", "numpy.linspace", 0, 10, Const(11), Const(False))
    for dt in (np.int32, np.uint8, np.float32, np.complex64):
        p.case(f"linspace_dt_{np.dtype(dt).name}", "numpy.linspace", -3, 7.5, 9, dtype=_dt(dt))
    p.case("linspace_neg", "numpy.linspace", 0, 1, -2)
    # eye / identity
    for args_ in [(3,), (2, 4), (4, 2, 1), (3, 3, -2), (3, 5, 7), (0,)]:
        p.case(f"eye_{'_'.join(map(str, args_)).replace('-', 'm')}", "numpy.eye", *args_)
    p.case("eye_none_k", "numpy.eye", 3, Const(None), 1, dtype=_dt(np.int8))
    p.case("eye_c", "numpy.eye", 2, dtype=_dt(np.complex64))
    p.case("identity", "numpy.identity", 3)
    p.case("identity_b", "numpy.identity", 2, _dt(np.bool_))
    # copy / array / asarray
    a = sample((3, 4), np.int16)
    v = View(sample((5, 6), np.float64), (slice(None, None, 2), slice(None, None, -1)))
    for tag, src in (("c", a), ("v", v), ("0d", np.ones((), np.float32)), ("e", np.ones((0, 2)))):
        p.case(f"copy_{tag}", "numpy.copy", src)
        p.case(f"mcopy_{tag}", "ndarray.copy", src)
        p.case(f"array_{tag}", "numpy.array", src)
        p.case(f"array_{tag}_nocopy", "numpy.array", src, copy=Const(False))
        p.case(f"asarray_{tag}", "numpy.asarray", src)
        p.case(f"array_{tag}_f32", "numpy.array", src, _dt(np.float32))
        p.case(f"asarray_{tag}_u8", "numpy.asarray", src, dtype=_dt(np.uint8))
    p.case("copy_scalar", "numpy.copy", 2.5)
    for tag, sv in (("int", 3), ("float", -0.5), ("bool", True), ("c64", np.complex64(1 + 2j)), ("u8", np.uint8(200))):
        p.case(f"array_scalar_{tag}", "numpy.array", sv)
        p.case(f"array_list_{tag}", "numpy.array", [sv, sv, sv])
        p.case(f"asarray_list_{tag}", "numpy.asarray", [sv], dtype=_dt(np.float32))
        p.case(f"array_tuple_{tag}", "numpy.array", (sv, sv))
    p.case("array_tuple_mixed", "numpy.array", (1, 2.5, True))
    p.case("array_tuple_2d", "numpy.array", ((1, 2, 3), (4, 5, 6)))
    p.case("array_tuple_const", "numpy.array", Const(((1.5, 2), (3, 4))))
    p.case("array_tuple_np", "numpy.array", (np.int8(1), np.uint8(2)))
    p.case("array_list_arrays", "numpy.array", [sample((2, 3), np.float32), sample((2, 3), np.float32, 5)])
    p.case("array_list_arrays_ragged", "numpy.array", [sample((2, 3), np.float32), sample((3, 3), np.float32)],
           ref=lambda x: (_ for _ in ()).throw(ValueError(
               "setting an array element with a sequence. The requested array has an inhomogeneous shape after 1 "
               "dimensions. The detected shape was (2,) + inhomogeneous part.")))
    p.case("array_tuple_arrays", "numpy.array", (sample((4,), np.int8), sample((4,), np.float64)))
    # the shape helper
    p.raw("to_shape_int", "ep::shape_tuple(ep::zeros<double, 1>(int64_t(4)))", (4,))
    p.raw("to_shape_tuple", "ep::shape_tuple(ep::zeros<double, 3>(std::make_tuple(2, int8_t(3), uint64_t(1))))",
          (2, 3, 1))
    p.raw("to_shape_array", "ep::shape_tuple(ep::ones<int, 2>(std::array<int, 2>{5, 0}))", (5, 0))
    return p


def test_creation_against_numpy(tmp_path):
    run_and_check(_program(), tmp_path)

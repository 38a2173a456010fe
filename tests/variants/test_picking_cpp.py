"""Indexing routines lowered to C++ (pick.hpp), compiled with g++ and compared with NumPy: take, put,
take_along_axis, put_along_axis, select, choose, compress, extract and place."""
from __future__ import annotations

import numpy as np

from tests.variants._harness import Const, View, sample
from tests.variants._sortkit import Kit, run_kit

DTYPES = [np.bool_, np.int8, np.uint16, np.int32, np.int64, np.float32, np.float64, np.complex128]


def _take_put_cases(p: Kit) -> None:
    for dt in DTYPES:
        tag = np.dtype(dt).name
        a = sample((3, 5), dt, 1)
        idx = np.array([4, 0, -1, 2, 2])
        p.case(f"take_{tag}", "numpy.take", a, idx)
        p.case(f"take_{tag}_ax0", "numpy.take", a, np.array([[2, 0], [-3, 1]]), axis=Const(0))
        p.case(f"take_{tag}_ax1", "numpy.take", a, idx, Const(1))
        p.case(f"take_{tag}_scalar", "numpy.take", a, 7)
        p.case(f"take_{tag}_scalar_ax1", "numpy.take", a, -2, axis=Const(1))
        p.case(f"mtake_{tag}", "ndarray.take", a, idx, axis=Const(-1))
        p.inplace_case(f"put_{tag}", "numpy.put", a.copy(), np.array([0, 7, -1]), sample((3,), dt, 9))
        p.inplace_case(f"mput_{tag}", "ndarray.put", a.copy(), [1, 2, 3, 4], sample((2,), dt, 4))
    a = sample((4, 6), np.float64, 2)
    for mode in ("wrap", "clip"):
        p.case(f"take_{mode}", "numpy.take", a, np.array([30, -30, 5, -1]), mode=Const(mode))
        p.case(f"take_{mode}_ax", "numpy.take", a, np.array([9, -9]), axis=Const(0), mode=Const(mode))
        p.inplace_case(f"put_{mode}", "numpy.put", a.copy(), np.array([30, -30, 5]), [7.0, 8.0], mode=Const(mode))
    p.case("take_list", "numpy.take", a, [1, 0])
    p.case("take_tuple", "numpy.take", a, (1, 3), axis=Const(1))
    p.case("take_bool_idx", "numpy.take", a, np.array([True, False]))
    p.case("take_u8_idx", "numpy.take", a, np.array([3, 1], np.uint8), axis=Const(1))
    p.case("take_0d_idx", "numpy.take", a, np.array(3), axis=Const(1))
    p.case("take_0d_a", "numpy.take", np.array(5.0), 0)
    p.case("take_0d_a_ax", "numpy.take", np.array(5.0), 0, axis=Const(0))
    p.case("take_3d", "numpy.take", sample((2, 3, 4), np.int16), np.array([[0, 3], [1, 1]]), axis=Const(2))
    p.case("take_empty_idx", "numpy.take", a, np.ones(0, np.int64), axis=Const(0))
    p.case("take_empty_a_idx", "numpy.take", np.ones(0), np.ones(0, np.int64))
    p.case("take_view", "numpy.take", View(a, (slice(None, None, -1), slice(None, None, 2))), np.array([1, 2]),
           axis=Const(1))
    p.case("take_list_a", "numpy.take", [5, 6, 7], 1)
    p.case("take_oob", "numpy.take", a, 24)
    p.case("take_oob_ax", "numpy.take", a, np.array([0, 6]), axis=Const(1))
    p.case("take_oob_neg", "numpy.take", a, np.array([-5]), axis=Const(0))
    p.case("take_empty_axis", "numpy.take", np.ones(0), np.array([0]))
    p.case("take_float_idx", "numpy.take", a, np.array([1.0]))
    p.case("take_mode_bad", "numpy.take", a, 1, mode=Const("foo"))
    p.inplace_case("put_scalar", "numpy.put", a.copy(), 3, 9.5)
    p.inplace_case("put_cycle", "numpy.put", a.copy(), np.arange(7), np.array([1.0, 2.0]))
    p.inplace_case("put_empty_v", "numpy.put", a.copy(), np.arange(3), np.ones(0))
    p.inplace_case("put_cast", "numpy.put", np.zeros(3, np.int64), [0, 2], [2.7, -3.9])
    p.inplace_case("put_view", "numpy.put", View(np.zeros((4, 6)), (slice(None), slice(None, None, 2))), [0, 5, -1],
                   [1.0, 2.0, 3.0])
    p.inplace_case("put_dups", "numpy.put", np.zeros(4), [1, 1, 1], [1.0, 2.0, 3.0])
    p.inplace_case("put_oob", "numpy.put", a.copy(), [1, 24], 0.0)
    p.inplace_case("put_empty_a", "numpy.put", np.zeros(0), [0], [1.0])
    p.inplace_case("put_empty_a_ok", "numpy.put", np.zeros(0), np.ones(0, np.int64), [1.0])


def _along_cases(p: Kit) -> None:
    for dt in (np.int8, np.float32, np.float64, np.complex64, np.bool_):
        tag = np.dtype(dt).name
        a = sample((3, 5), dt, 1)
        p.case(f"tal_{tag}_1", "numpy.take_along_axis", a, np.argsort(a, axis=1), axis=Const(1))
        p.case(f"tal_{tag}_0", "numpy.take_along_axis", a, np.argsort(a, axis=0)[:2], Const(0))
        p.inplace_case(f"pal_{tag}", "numpy.put_along_axis", a.copy(), np.array([[0], [4], [-1]]),
                       sample((3, 1), dt, 6), Const(1))
    a = sample((3, 4), np.float64, 3)
    p.case("tal_default_axis", "numpy.take_along_axis", a, np.array([[3, 0], [1, 1], [-1, 2]]))
    p.case("tal_bcast", "numpy.take_along_axis", a, np.array([[2, 0]]), axis=Const(1))
    p.case("tal_bcast0", "numpy.take_along_axis", a, np.array([[0], [2]]), axis=Const(0))
    p.case("tal_none", "numpy.take_along_axis", a, np.array([11, 0, -12]), axis=Const(None))
    p.case("tal_3d", "numpy.take_along_axis", sample((2, 3, 4), np.int32), np.zeros((2, 1, 4), np.int64) + 2,
           axis=Const(1))
    p.case("tal_view", "numpy.take_along_axis", View(a, transpose=True), np.array([[2, 0, 1]]), axis=Const(1))
    p.case("tal_u8", "numpy.take_along_axis", a, np.array([[3], [1], [0]], np.uint8), axis=Const(1))
    p.case("tal_oob", "numpy.take_along_axis", a, np.array([[5]]), axis=Const(1))
    p.case("tal_bcast_bad", "numpy.take_along_axis", a, np.array([[2], [0]]), axis=Const(1))
    p.case("tal_ndim", "numpy.take_along_axis", a, np.array([0]), axis=Const(1))
    p.case("tal_float", "numpy.take_along_axis", a, np.array([[0.0]]), axis=Const(1))
    p.case("tal_none_2d", "numpy.take_along_axis", a, np.array([[0]]), axis=Const(None))
    p.inplace_case("pal_bcast", "numpy.put_along_axis", a.copy(), np.array([[1, 3]]), np.array([[7.0, 8.0]]), Const(1))
    p.inplace_case("pal_scalar", "numpy.put_along_axis", a.copy(), np.array([[0], [1], [2]]), 5.0, axis=Const(0))
    p.inplace_case("pal_none", "numpy.put_along_axis", a.copy(), np.array([1, -1]), np.array([-4.0, 4.0]), Const(None))
    p.inplace_case("pal_view", "numpy.put_along_axis", View(a.copy(), transpose=True), np.array([[2], [0], [1], [1]]),
                   -1.0, Const(1))
    p.inplace_case("pal_none_view", "numpy.put_along_axis", View(a.copy(), transpose=True), np.array([0, 5]),
                   np.array([10.0, 20.0]), Const(None))
    p.inplace_case("pal_list", "numpy.put_along_axis", a.copy(), np.array([[0], [1], [2]]), [1.0], Const(1))
    p.inplace_case("pal_oob", "numpy.put_along_axis", a.copy(), np.array([[5]]), 1.0, Const(1))
    p.inplace_case("pal_values_bad", "numpy.put_along_axis", a.copy(), np.array([[0], [1], [2]]), np.ones(3), Const(1))


def _select_choose_cases(p: Kit) -> None:
    x = sample((2, 5), np.float64, 1)
    c1, c2 = x > 0, x < -1
    p.case("sel_basic", "numpy.select", [c1, c2], [x, -x])
    p.case("sel_default", "numpy.select", [c1, c2], [x, -x], 9.5)
    p.case("sel_tuple", "numpy.select", (c1, c2), (x.astype(np.float32), 2), default=Const(-1))
    p.case("sel_f32_weak", "numpy.select", [c1], [x.astype(np.float32)], 0.5)
    p.case("sel_f32_np", "numpy.select", [c1], [x.astype(np.float32)], np.float32(0.5))
    p.case("sel_scalars", "numpy.select", (c1, c2), (1, 2.5))
    p.case("sel_bcast", "numpy.select", [np.array([True, False, True, False, False])], [np.arange(10).reshape(2, 5)])
    p.case("sel_bcast_cond", "numpy.select", [np.array([[True], [False]])], [np.arange(5)], -1)
    p.case("sel_0d", "numpy.select", [np.array(True)], [np.array(3)])
    p.case("sel_view", "numpy.select", [View(c1, transpose=True)], [View(x, transpose=True)])
    p.case("sel_int_cond", "numpy.select", [np.array([1, 0])], [np.ones(2)])
    p.case("sel_len", "numpy.select", [c1], [x, x])
    p.case("sel_len_dyn", "numpy.select", [c1, c2], [x])
    p.case("sel_bcast_bad", "numpy.select", (c1, np.ones(3, bool)), [x, x])
    p.case("sel_bcast_bad2", "numpy.select", [c1], [np.ones(3)])
    p.case("sel_empty", "numpy.select", (), ())
    a = np.array([[0, 1, 2], [2, 1, 0]])
    ch = (sample((2, 3), np.float64, 1), sample((3,), np.float32, 2), 5)
    p.case("choose_basic", "numpy.choose", a, ch)
    p.case("choose_tuple", "numpy.choose", a, (np.zeros(3, np.int8), 300, np.ones((2, 3), np.int8)))
    p.case("choose_f32_weak", "numpy.choose", np.array([0, 1]), (np.zeros(2, np.float32), 5.5))
    p.case("choose_array", "numpy.choose", np.array([0, 1, 1]), np.arange(6).reshape(2, 3))
    p.case("choose_bcast", "numpy.choose", np.array([[0], [1]]), [np.zeros(3), np.ones(3)])
    p.case("mchoose", "ndarray.choose", a, [np.zeros(3), np.ones(3), np.full(3, 2.0)])
    for mode in ("wrap", "clip"):
        p.case(f"choose_{mode}", "numpy.choose", np.array([0, 3, -1, 7]), [np.zeros(4), np.ones(4)], mode=Const(mode))
    p.case("choose_0d", "numpy.choose", np.array(1), [1.5, 2.0])
    p.case("choose_view", "numpy.choose", View(a, transpose=True), [np.zeros(2), np.ones(2), np.full(2, 2.0)])
    p.case("choose_oob", "numpy.choose", np.array([0, 3]), [np.zeros(2), np.ones(2)])
    p.case("choose_neg", "numpy.choose", np.array([-1]), [np.zeros(1)])
    p.case("choose_bcast_bad", "numpy.choose", np.array([0, 1]), [np.zeros(3), np.ones(3)])
    p.case("choose_float", "numpy.choose", np.array([0.0, 1.0]), [np.zeros(2), np.ones(2)])
    p.case("choose_mode_bad", "numpy.choose", np.array([0]), [np.zeros(1)], mode=Const("foo"))


def _compress_cases(p: Kit) -> None:
    for dt in (np.bool_, np.int16, np.float32, np.complex64):
        tag = np.dtype(dt).name
        a = sample((3, 4), dt, 1)
        p.case(f"comp_{tag}", "numpy.compress", np.array([True, False, True]), a, axis=Const(0))
        p.case(f"comp_{tag}_1", "numpy.compress", np.array([False, True, True, False]), a, Const(1))
        p.case(f"comp_{tag}_none", "numpy.compress", np.array([1, 0, 0, 2, 0, 1, 1]), a)
        p.case(f"mcomp_{tag}", "ndarray.compress", a, np.array([True, True]), axis=Const(1))
        p.case(f"extract_{tag}", "numpy.extract", a > 0 if dt is not np.complex64 else a.real > 0, a)
        m = sample((3, 4), np.int8, 7) > 0
        p.inplace_case(f"place_{tag}", "numpy.place", a.copy(), m, sample((3,), dt, 5))
    a = sample((3, 4), np.float64, 2)
    p.case("comp_short", "numpy.compress", np.array([True]), a, axis=Const(1))
    p.case("comp_long_false", "numpy.compress", np.array([True, False, True, False, False]), a, axis=Const(1))
    p.case("comp_list", "numpy.compress", [1, 0, 1], a, axis=Const(0))
    p.case("comp_float", "numpy.compress", np.array([2.0, 0.0]), a, axis=Const(0))
    p.case("comp_view", "numpy.compress", np.array([True, False, True]), View(a, transpose=True), axis=Const(1))
    p.case("comp_0d", "numpy.compress", np.array([True]), np.array(3.0))
    p.case("comp_0d_ax", "numpy.compress", np.array([True]), np.array(3.0), axis=Const(0))
    p.case("comp_long", "numpy.compress", np.array([True, False, True, True]), a[:, :3], axis=Const(1))
    p.case("comp_2d_cond", "numpy.compress", np.array([[True]]), a)
    p.case("comp_0d_cond", "numpy.compress", np.array(True), a)
    p.case("extract_short", "numpy.extract", np.ones(3), a)
    p.case("extract_long", "numpy.extract", np.ones(13), a)
    p.case("extract_0d", "numpy.extract", np.array(True), np.array(3.0))
    p.case("extract_view", "numpy.extract", View(a > 0, transpose=True), View(a, transpose=True))
    p.inplace_case("place_cycle", "numpy.place", a.copy(), a > -1, [10.0, 20.0])
    p.inplace_case("place_int_mask", "numpy.place", a.copy(), np.array([[1, 0, 2, 0], [0, 0, 1, 0], [0, 3, 0, 0]]),
                   [7.0])
    p.inplace_case("place_flat_mask", "numpy.place", a.copy(), np.ones(12, bool), [7.0])
    p.inplace_case("place_scalar", "numpy.place", a.copy(), a > 0, 4.0)
    p.inplace_case("place_cast", "numpy.place", np.zeros(3, np.int64), np.ones(3, bool), [5.7])
    p.inplace_case("place_view", "numpy.place", View(np.zeros((2, 4)), (slice(None), slice(None, None, 2))),
                   np.ones((2, 2), bool), [5.0, 6.0])
    p.inplace_case("place_empty_none", "numpy.place", a.copy(), np.zeros((3, 4), bool), np.ones(0))
    p.inplace_case("place_empty", "numpy.place", a.copy(), a > 0, np.ones(0))
    p.inplace_case("place_size", "numpy.place", a.copy(), np.ones(3, bool), [1.0])


def _program() -> Kit:
    p = Kit("picking")
    _take_put_cases(p)
    _along_cases(p)
    _select_choose_cases(p)
    _compress_cases(p)
    return p


def test_picking_against_numpy(tmp_path):
    run_kit(_program(), tmp_path)

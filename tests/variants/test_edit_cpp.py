"""Editing operators (edit.hpp: np.append, insert, delete, trim_zeros,
ndarray.fill, ndarray.item) compiled with g++ and compared with NumPy.

Exact comparisons; trim_zeros results must be views of their input, the
others copies. ndarray.fill is checked through the array it filled.
"""
from __future__ import annotations

import numpy as np

from everypath.base.types import ArrayT, DType
from tests.variants._harness import Const, Program, View, run_and_check, sample
from tests.variants._manip import slice_case

DTS = (np.bool_, np.uint8, np.int16, np.int64, np.float32, np.float64, np.complex128)


def _inputs() -> dict[str, object]:
    base = sample((6, 8), np.float64)
    return {
        "c": sample((3, 4), np.int32),
        "rows": View(base, (slice(None, None, 2), slice(None))),
        "T": View(sample((5, 3), np.uint8), transpose=True),
        "neg": View(base, (slice(None, None, -1), slice(1, None, 3))),
        "e": np.ones((0, 3), np.float32),
    }


def _append_insert(p: Program, views: dict[str, object]) -> None:
    for tag, v in views.items():
        p.case(f"append_{tag}_scalar", "numpy.append", v, 5)
        p.case(f"append_{tag}_list", "numpy.append", v, [1.5, 2.5])
        p.case(f"append_{tag}_self", "numpy.append", v, v)
        p.case(f"append_{tag}_ax0", "numpy.append", v, v, axis=Const(0))
        p.case(f"append_{tag}_ax1", "numpy.append", v, v, Const(1))
        for i in (0, 1, -1, 2):
            p.case(f"insert_{tag}_{i}", "numpy.insert", v, i, 7)
            p.case(f"insert_{tag}_{i}_ax0", "numpy.insert", v, i, 9, axis=Const(0))
        p.case(f"insert_{tag}_row", "numpy.insert", v, 1, sample((1,), np.int64), axis=Const(1))
        p.case(f"delete_{tag}_0", "numpy.delete", v, 0)
        p.case(f"delete_{tag}_m1_ax1", "numpy.delete", v, -1, axis=Const(1))
        slice_case(p, f"delete_{tag}_slice", "numpy.delete", v, slice(None, None, 2), axis=Const(0))
        p.case(f"delete_{tag}_idx", "numpy.delete", v, (0, -1, 0), axis=Const(1))
    m = sample((3, 4), np.int8)
    for dt in DTS:
        n = np.dtype(dt).name
        x = sample((5,), dt)
        p.case(f"append_{n}_int8", "numpy.append", x, sample((2,), np.int8))
        p.case(f"append_{n}_py", "numpy.append", x, 1.5)
        p.case(f"insert_{n}", "numpy.insert", x, 3, sample((2,), dt, 4))
        p.case(f"delete_{n}", "numpy.delete", x, np.array([1, 3]))
        p.case(f"delete_mask_{n}", "numpy.delete", x, np.array([True, False, False, True, False]))
    p.case("append_0d", "numpy.append", np.full((), 2.0), np.full((), 3.0))
    p.case("append_rank_bad", "numpy.append", m, sample((4,), np.int8), axis=Const(0))
    p.case("append_shape_bad", "numpy.append", m, sample((2, 3), np.int8), axis=Const(0))
    p.case("append_scalar_ax", "numpy.append", m, 5, axis=Const(0))
    p.case("append_bad_axis", "numpy.append", m, m, axis=Const(2))
    p.case("insert_row_ax0", "numpy.insert", m, 1, sample((4,), np.int8), axis=Const(0))
    p.case("insert_col_ax1", "numpy.insert", m, 2, sample((3,), np.int8), axis=Const(1))
    p.case("insert_col_bad", "numpy.insert", m, 2, sample((4,), np.int8), axis=Const(1))
    p.case("insert_block_ax1", "numpy.insert", m, 1, sample((3, 1), np.int8), axis=Const(1))
    p.case("insert_2rows", "numpy.insert", m, -1, sample((2, 4), np.int8), axis=Const(0))
    p.case("insert_end", "numpy.insert", m, 12, 1)
    p.case("insert_oob", "numpy.insert", m, 13, 1)
    p.case("insert_oob_neg", "numpy.insert", m, -13, 1)
    p.case("insert_oob_ax", "numpy.insert", m, 5, 1, axis=Const(1))
    p.case("insert_float_into_int", "numpy.insert", m, 0, 2.7)
    p.case("insert_overflow", "numpy.insert", m, 0, 300)
    p.case("insert_list_overflow", "numpy.insert", m, 0, [1, 300])
    p.case("insert_neg_u8", "numpy.insert", sample((3,), np.uint8), 0, -1)
    p.case("insert_complex_bad", "numpy.insert", sample((3,), np.float64), 0, 1 + 2j)
    p.case("insert_complex_int_bad", "numpy.insert", m, 0, 2j)
    p.case("insert_empty", "numpy.insert", np.ones(0, np.int16), 0, 3)
    p.case("insert_bad_axis", "numpy.insert", m, 0, 3, axis=Const(2))
    p.case("insert_3d", "numpy.insert", sample((2, 3, 2), np.float32), 1, 0.5, axis=Const(1))


def _delete_trim(p: Program) -> None:
    m = sample((3, 5), np.int64)
    for s in (slice(1, 3), slice(None, None, -2), slice(10, 1), slice(-2, None), slice(None, None, 3),
              slice(4, 0, -3)):
        slice_case(p, f"delete_slice_{s.start}_{s.stop}_{s.step}", "numpy.delete", m, s, axis=Const(1))
    slice_case(p, "delete_flat_slice", "numpy.delete", m, slice(2, 12, 5))
    p.case("delete_oob", "numpy.delete", m, 5, axis=Const(1))
    p.case("delete_oob_neg", "numpy.delete", m, -4, axis=Const(0))
    p.case("delete_idx_oob", "numpy.delete", m, (0, 9), axis=Const(1))
    p.case("delete_idx_neg_oob", "numpy.delete", m, np.array([-6]), axis=Const(1))
    p.case("delete_idx_2d", "numpy.delete", m, np.array([[0], [2]], np.int32), axis=Const(1))
    p.case("delete_list", "numpy.delete", m, [2, 2, -1])
    p.case("delete_mask_bad", "numpy.delete", m, np.array([True, False]), axis=Const(1))
    p.case("delete_mask_2d", "numpy.delete", m, np.ones((1, 5), np.bool_), axis=Const(1))
    p.case("delete_float_idx", "numpy.delete", m, np.array([1.0]))
    p.case("delete_all", "numpy.delete", m, np.arange(3), axis=Const(0))
    p.case("delete_bad_axis", "numpy.delete", m, 0, axis=Const(-3))
    slice_case(p, "delete_empty_arr", "numpy.delete", np.ones((0, 2)), slice(None), axis=Const(0))
    z1 = np.array([0, 0, 3, 0, 5, 0, 0], np.float64)
    for trim in ("fb", "f", "b", "BF", "F"):
        p.case(f"trim_{trim}", "numpy.trim_zeros", z1, Const(trim))
    p.case("trim_default", "numpy.trim_zeros", z1)
    p.case("trim_bad", "numpy.trim_zeros", z1, Const("fx"))
    p.case("trim_all_zero", "numpy.trim_zeros", np.zeros(4, np.int32))
    p.case("trim_all_zero_f", "numpy.trim_zeros", np.zeros(4, np.int32), Const("f"))
    p.case("trim_empty", "numpy.trim_zeros", np.zeros(0, np.int32))
    p.case("trim_none_zero", "numpy.trim_zeros", sample((4,), np.uint8) + 1)
    p.case("trim_nan", "numpy.trim_zeros", np.array([0.0, np.nan, -0.0]))
    p.case("trim_complex", "numpy.trim_zeros", np.array([0j, 1j, 0j, 2 + 0j, 0j]))
    p.case("trim_bool", "numpy.trim_zeros", np.array([False, True, False, True, False]))
    box = np.zeros((4, 5), np.int16)
    box[1, 2], box[2, 3] = 1, -2
    p.case("trim_2d", "numpy.trim_zeros", box)
    p.case("trim_2d_ax0", "numpy.trim_zeros", box, axis=Const(0))
    p.case("trim_2d_ax1_b", "numpy.trim_zeros", box, Const("b"), Const(-1))
    p.case("trim_2d_axes", "numpy.trim_zeros", box, axis=Const((1, 0)))
    p.case("trim_2d_noaxes", "numpy.trim_zeros", box, axis=Const(()))
    p.case("trim_2d_zero", "numpy.trim_zeros", np.zeros((2, 3)), axis=Const(1))
    p.case("trim_2d_bad_axis", "numpy.trim_zeros", box, axis=Const(2))
    p.case("trim_view", "numpy.trim_zeros", View(np.concatenate([z1, z1]), (slice(None, None, -2),)))
    p.case("trim_0d", "numpy.trim_zeros", np.full((), 0.0))


def _fill_item(p: Program) -> None:
    def fill_case(name: str, arr: object, value: object) -> None:
        p.case(name, "ndarray.fill", arr, value, ref=lambda a, v: (a.fill(v), a)[1])
        c = p.cases[name]
        if c.typing_error is None:
            c.expr = f"({c.expr}, {p.value(arr)})"
            c.result = ArrayT(DType.of((arr.value if isinstance(arr, View) else arr).dtype), 2)  # type: ignore
            p.body[-1] = f'  EPT_CASE("{name}", {c.expr});'

    for dt in DTS:
        n = np.dtype(dt).name
        fill_case(f"fill_{n}_int", sample((2, 3), dt), 3)
        fill_case(f"fill_{n}_float", sample((2, 3), dt), 2.75)
        fill_case(f"fill_{n}_bool", sample((2, 3), dt), True)
        fill_case(f"fill_{n}_np", sample((2, 3), dt), np.float32(-1.5))
        fill_case(f"fill_{n}_complex", sample((2, 3), dt), 1 - 2j)
    fill_case("fill_view", View(sample((4, 6), np.float32), (slice(None, None, 2), slice(None, None, -3))), 9.5)
    fill_case("fill_T", View(sample((3, 2), np.int64), transpose=True), -4)
    fill_case("fill_empty", np.ones((0, 2), np.int32), 1)
    fill_case("fill_overflow", sample((2, 2), np.int8), 300)
    fill_case("fill_neg_u8", sample((2, 2), np.uint8), -1)
    fill_case("fill_u64_max", sample((2, 2), np.uint64), 2**63 - 1)
    for dt in DTS:
        n = np.dtype(dt).name
        p.case(f"item_{n}", "ndarray.item", sample((1, 1), dt))
        p.case(f"item_{n}_flat", "ndarray.item", sample((3, 4), dt), 7)
        p.case(f"item_{n}_multi", "ndarray.item", sample((3, 4), dt), 2, -1)
    m = sample((3, 4), np.float64)
    p.case("item_size", "ndarray.item", m)
    p.case("item_0d", "ndarray.item", np.full((), 2.5, np.float32))
    p.case("item_0d_idx", "ndarray.item", np.full((), 2.5, np.float32), 0)
    p.case("item_0d_oob", "ndarray.item", np.full((), 2.5, np.float32), 1)
    p.case("item_neg", "ndarray.item", m, -12)
    p.case("item_oob", "ndarray.item", m, 12)
    p.case("item_oob_neg", "ndarray.item", m, -13)
    p.case("item_1d_oob", "ndarray.item", sample((3,), np.int32), -4)
    p.case("item_multi_oob", "ndarray.item", m, 1, 4)
    p.case("item_multi_neg_oob", "ndarray.item", m, -4, 0)
    p.case("item_tuple", "ndarray.item", m, (2, 3))
    p.case("item_tuple_const", "ndarray.item", m, Const((1, -2)))
    p.case("item_wrong_count", "ndarray.item", m, 1, 2, 3)
    p.case("item_float_idx", "ndarray.item", m, 1.0)
    p.case("item_view", "ndarray.item", View(sample((4, 6), np.int16), (slice(1, None, 2), slice(None, None, -1))), 4)
    p.case("item_T", "ndarray.item", View(sample((3, 5), np.int16), transpose=True), 3, 1)


def test_edit_against_numpy(tmp_path):
    p = Program("edit")
    _append_insert(p, _inputs())
    _delete_trim(p)
    _fill_item(p)
    run_and_check(p, tmp_path)

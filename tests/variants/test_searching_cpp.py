"""Searching lowered to C++ (search.hpp), compiled with g++ and compared with NumPy: searchsorted,
digitize, nonzero, flatnonzero, argwhere, count_nonzero, nanargmax / nanargmin."""
from __future__ import annotations

import numpy as np

from tests.variants._harness import Const, View, sample
from tests.variants._sortkit import Kit, run_kit, special

REAL = [np.bool_, np.int8, np.uint8, np.int32, np.int64, np.uint64, np.float32, np.float64]


def _searchsorted_cases(p: Kit) -> None:
    for dt in (*REAL, np.complex64, np.complex128):
        tag = np.dtype(dt).name
        a = np.sort(special(dt, 17))
        keys = special(dt, 11, 3)
        for side in ("left", "right"):
            p.case(f"ss_{tag}_{side}", "numpy.searchsorted", a, keys, side=Const(side))
            p.case(f"ss_{tag}_{side}_scalar", "numpy.searchsorted", a, keys[4], side=Const(side))
            p.case(f"ss_{tag}_{side}_self", "numpy.searchsorted", a, a, Const(side))
        p.case(f"mss_{tag}", "ndarray.searchsorted", a, keys[::-1].copy())
        # many keys into a sorted array: a one-pass vectorised count (short arrays) or branch-free search
        for n in (20, 100):
            srt, many = np.sort(special(dt, n, 2)), special(dt, 300, 7)
            p.case(f"ss_{tag}_many{n}", "numpy.searchsorted", srt, many)
            p.case(f"ss_{tag}_many{n}_r", "numpy.searchsorted", srt, many, side=Const("right"))
        p.case(f"ss_{tag}_2dkeys", "numpy.searchsorted", a, sample((3, 4), dt, 2))
    f = np.sort(special(np.float64, 40, 4))
    p.case("ss_py_int", "numpy.searchsorted", f, 1)
    p.case("ss_py_float", "numpy.searchsorted", np.array([0.1, 0.5], np.float32), 0.1, side=Const("right"))
    p.case("ss_f32_f32", "numpy.searchsorted", np.array([0.1, 0.5], np.float32), np.float32(0.1), side=Const("right"))
    p.case("ss_u8_big", "numpy.searchsorted", np.array([1, 2, 3], np.uint8), 300)
    p.case("ss_u8_neg", "numpy.searchsorted", np.array([1, 2, 3], np.uint8), -1)
    p.case("ss_int_float", "numpy.searchsorted", np.array([1, 2, 3]), 2.5)
    p.case("ss_int_complex", "numpy.searchsorted", np.array([1, 2, 3]), 2 + 1j)
    p.case("ss_list", "numpy.searchsorted", [1, 2, 3], [2, 3, 0])
    p.case("ss_0d_key", "numpy.searchsorted", f, np.array(0.3))
    p.case("ss_empty", "numpy.searchsorted", np.ones(0), np.array([1.0, 2.0]))
    p.case("ss_empty_keys", "numpy.searchsorted", f, np.ones(0))
    large = np.sort(sample((70000,), np.float32, 7) * 3 + np.arange(70000, dtype=np.float32) % 97)
    many = np.concatenate([sample((4499,), np.float32, 8) * 40, [np.nan, -np.inf]]).astype(np.float32)
    for side in ("left", "right"):  # many keys into a large sorted array: sorted keys swept in one pass
        p.case(f"ss_sweep_{side}", "numpy.searchsorted", large, many, side=Const(side))
    p.case("ss_sweep_f64", "numpy.searchsorted", large, many.astype(np.float64))
    p.case("ss_unsorted", "numpy.searchsorted", sample((11,), np.float64, 1), sample((7,), np.float64, 2))
    p.case("ss_view", "numpy.searchsorted", View(f, (slice(None, None, 3),)),
           View(sample((4, 6), np.float64), (slice(None), slice(None, None, -2))))
    perm = np.argsort(special(np.float64, 13, 5), kind="stable")
    unsorted = special(np.float64, 13, 5)
    for side in ("left", "right"):
        p.case(f"ss_sorter_{side}", "numpy.searchsorted", unsorted, special(np.float64, 10, 1), Const(side), perm)
    p.case("ss_sorter_kw", "numpy.searchsorted", unsorted, 0.5, sorter=perm.astype(np.int32))
    p.case("mss_sorter", "ndarray.searchsorted", unsorted, 0.5, sorter=perm)
    p.case("ss_sorter_oob", "numpy.searchsorted", unsorted, 0.5, sorter=np.where(perm == 0, 13, perm))
    p.case("ss_sorter_neg", "numpy.searchsorted", unsorted, 0.5, sorter=np.where(perm == 0, -1, perm))
    p.case("ss_sorter_len", "numpy.searchsorted", unsorted, 0.5, sorter=perm[:5])
    p.case("ss_sorter_float", "numpy.searchsorted", unsorted, 0.5, sorter=perm.astype(np.float64))
    p.case("ss_side_bad", "numpy.searchsorted", f, 0.5, side=Const("middle"))
    p.case("ss_2d", "numpy.searchsorted", np.ones((2, 2)), 0.5)


def _digitize_cases(p: Kit) -> None:
    x = special(np.float64, 19, 2)
    inc = np.array([-2.0, -0.5, 0.0, 0.5, 1.0, 3.0])
    for name, bins in (("inc", inc), ("dec", inc[::-1].copy()), ("ties", np.array([0.0, 1.0, 1.0, 2.0])),
                       ("one", np.array([0.5])), ("empty", np.ones(0)), ("const", np.array([1.0, 1.0])),
                       ("int", np.array([-2, 0, 1, 3]))):
        for right in (False, True):
            p.case(f"dig_{name}_{right}", "numpy.digitize", x, bins, Const(right))
    many = special(np.float64, 200, 4)
    for name, bins in (("inc", inc), ("dec", inc[::-1].copy()), ("nan", np.array([1.0, np.nan, 3.0])),
                       ("nan_end", np.array([-1.0, 1.0, np.nan]))):
        for right in (False, True):
            p.case(f"dig_many_{name}_{right}", "numpy.digitize", many, bins, Const(right))
    for dt in REAL:
        p.case(f"dig_{np.dtype(dt).name}", "numpy.digitize", sample((3, 5), dt, 1), np.array([0, 1, 4], dt))
        p.case(f"dig_many_{np.dtype(dt).name}", "numpy.digitize", sample((40,), dt, 2), np.array([0, 1, 1, 4], dt))
    p.case("dig_scalar", "numpy.digitize", 2.5, np.array([1.0, 2.0, 3.0]))
    p.case("dig_0d", "numpy.digitize", np.array(0.5), inc, right=Const(True))
    p.case("dig_list", "numpy.digitize", [0.2, 5.0], [0, 1, 2])
    p.case("dig_right_dyn", "numpy.digitize", x, inc, True)
    p.case("dig_nan_bins", "numpy.digitize", np.array([2.5]), np.array([1.0, np.nan, 3.0]))
    p.case("dig_view", "numpy.digitize", View(sample((4, 6), np.float32), transpose=True), inc[::-1].copy())
    p.case("dig_not_mono", "numpy.digitize", x, np.array([1.0, 3.0, 2.0]))
    p.case("dig_complex", "numpy.digitize", np.array([1j]), inc)
    p.case("dig_2d_bins", "numpy.digitize", x, np.ones((2, 2)))


def _nonzero_cases(p: Kit) -> None:
    for dt in (*REAL, np.complex64):
        tag = np.dtype(dt).name
        for shape in ((0,), (1,), (13,), (3, 5), (2, 3, 4), (4, 0)):
            s = "x".join(map(str, shape))
            x = sample(shape, dt, 1)
            p.tuple_case(f"nz_{tag}_{s}", "numpy.nonzero", x, n=len(shape))
            p.case(f"fnz_{tag}_{s}", "numpy.flatnonzero", x)
            p.case(f"aw_{tag}_{s}", "numpy.argwhere", x)
            p.case(f"cnz_{tag}_{s}", "numpy.count_nonzero", x)
            for ax in range(len(shape)):
                p.case(f"cnz_{tag}_{s}_{ax}", "numpy.count_nonzero", x, axis=Const(ax))
                p.case(f"cnz_{tag}_{s}_{ax}_k", "numpy.count_nonzero", x, axis=Const(ax), keepdims=Const(True))
        p.tuple_case(f"mnz_{tag}", "ndarray.nonzero", sample((3, 4), dt, 2), n=2)
    m = sample((3, 4, 5), np.float64, 3)
    p.case("cnz_tuple", "numpy.count_nonzero", m, axis=Const((0, 2)))
    p.case("cnz_all_axes", "numpy.count_nonzero", m, axis=Const((0, 1, 2)))
    p.case("cnz_keep_none", "numpy.count_nonzero", m, keepdims=Const(True))
    p.case("cnz_list", "numpy.count_nonzero", [1, 0, 2])
    p.case("cnz_0d", "numpy.count_nonzero", np.array(3.0))
    p.case("fnz_0d", "numpy.flatnonzero", np.array(3.0))
    p.case("aw_0d", "numpy.argwhere", np.array(0.0))
    p.case("aw_0d_true", "numpy.argwhere", np.array(2))
    p.case("nz_0d", "numpy.nonzero", np.array(1))
    p.case("cnz_axis_bad", "numpy.count_nonzero", m, axis=Const(3))
    base = sample((6, 8), np.int16, 4)
    for name, v in (("step", View(base, (slice(1, None, 2), slice(None, None, 3)))), ("T", View(base, transpose=True))):
        p.tuple_case(f"nz_view_{name}", "numpy.nonzero", v, n=2)
        p.case(f"fnz_view_{name}", "numpy.flatnonzero", v)
        p.case(f"aw_view_{name}", "numpy.argwhere", v)
        p.case(f"cnz_view_{name}", "numpy.count_nonzero", v)
        p.case(f"cnz_view_{name}_0", "numpy.count_nonzero", v, axis=Const(0))
    big = (sample((1000,), np.int32, 5) % 3 == 0)
    p.case("cnz_big_bool", "numpy.count_nonzero", big)
    p.tuple_case("nz_big_bool", "numpy.nonzero", big, n=1)


def _nanarg_cases(p: Kit) -> None:
    for name in ("nanargmax", "nanargmin"):
        for dt in (np.float32, np.float64, np.complex128, np.int16, np.uint8, np.bool_):
            tag = f"{name}_{np.dtype(dt).name}"
            x = special(dt, 13, 1)
            m = sample((4, 5), dt, 2)
            if np.dtype(dt).kind == "f":
                m[1, :] = np.nan
                m[:, 2] = np.nan
            p.case(tag, f"numpy.{name}", x)
            p.case(f"{tag}_ax0", f"numpy.{name}", m, axis=Const(0))
            p.case(f"{tag}_ax1", f"numpy.{name}", m, Const(1))
            p.case(f"{tag}_keep", f"numpy.{name}", m, axis=Const(0), keepdims=Const(True))
            p.case(f"{tag}_keepall", f"numpy.{name}", m, keepdims=Const(True))
        p.case(f"{name}_allnan", f"numpy.{name}", np.array([np.nan, np.nan]))
        p.case(f"{name}_infnan", f"numpy.{name}", np.array([np.nan, -np.inf, np.inf, np.nan]))
        p.case(f"{name}_empty", f"numpy.{name}", np.ones(0))
        p.case(f"{name}_empty_ax", f"numpy.{name}", np.ones((3, 0)), axis=Const(0))
        p.case(f"{name}_empty_ax_bad", f"numpy.{name}", np.ones((0, 3)), axis=Const(0))
        p.case(f"{name}_view", f"numpy.{name}", View(sample((5, 6), np.float64, 3), transpose=True), axis=Const(1))
        p.case(f"{name}_axis_bad", f"numpy.{name}", np.ones(3), axis=Const(1))


def _program() -> Kit:
    p = Kit("searching")
    _searchsorted_cases(p)
    _digitize_cases(p)
    _nonzero_cases(p)
    _nanarg_cases(p)
    return p


# two programs, so that pytest -n can compile them in parallel
def test_searchsorted_digitize_against_numpy(tmp_path):
    p = Kit("searching_sorted")
    _searchsorted_cases(p)
    _digitize_cases(p)
    run_kit(p, tmp_path)


def test_nonzero_nanarg_against_numpy(tmp_path):
    p = Kit("searching_nonzero")
    _nonzero_cases(p)
    _nanarg_cases(p)
    run_kit(p, tmp_path)

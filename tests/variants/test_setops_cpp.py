"""Set routines lowered to C++ (setops.hpp), compiled with g++ and compared with NumPy: unique (with its
return flags and equal_nan), isin, intersect1d, union1d, setdiff1d and setxor1d."""
from __future__ import annotations

import itertools

import numpy as np

from tests.variants._harness import Const, View, sample
from tests.variants._sortkit import Kit, run_kit, special

DTYPES = [np.bool_, np.int8, np.uint8, np.int32, np.int64, np.uint64, np.float32, np.float64, np.complex64,
          np.complex128]
FLAGS = ("return_index", "return_inverse", "return_counts")


def _unique_cases(p: Kit) -> None:
    for dt in DTYPES:
        tag = np.dtype(dt).name
        x = special(dt, 29, 1)
        x[10:14] = x[2]  # repeated values, NaNs included
        p.case(f"u_{tag}", "numpy.unique", x)
        p.case(f"u_{tag}_noeq", "numpy.unique", x, equal_nan=Const(False))
        for r in range(1, 4):
            for flags in itertools.combinations(FLAGS, r):
                name = f"u_{tag}_" + "".join(f[7:10] for f in flags)
                p.tuple_case(name, "numpy.unique", x, n=1 + r, **{f: Const(True) for f in flags})
        p.tuple_case(f"u_{tag}_all_noeq", "numpy.unique", x, n=4, equal_nan=Const(False),
                     **{f: Const(True) for f in FLAGS})
    m = sample((4, 5), np.int16, 3)
    p.case("u_2d", "numpy.unique", m)
    p.tuple_case("u_2d_inv", "numpy.unique", m, Const(True), Const(True), n=3)
    p.tuple_case("u_view_all", "numpy.unique", View(m, transpose=True), n=4, **{f: Const(True) for f in FLAGS})
    p.case("u_empty", "numpy.unique", np.ones(0))
    p.tuple_case("u_empty_all", "numpy.unique", np.ones((0, 3)), n=4, **{f: Const(True) for f in FLAGS})
    p.tuple_case("u_0d", "numpy.unique", np.array(3.0), n=3, return_index=Const(True), return_inverse=Const(True))
    p.case("u_list", "numpy.unique", [3, 1, 3])
    p.case("u_scalar", "numpy.unique", 2.5)
    p.case("u_sorted_kw", "numpy.unique", np.array([3, 1, 3]), sorted=Const(True))
    p.case("u_allnan", "numpy.unique", np.full(4, np.nan))
    p.tuple_case("u_allnan_c", "numpy.unique", np.full(4, np.nan), n=2, return_counts=Const(True))


def _isin_cases(p: Kit) -> None:
    for dt in DTYPES:
        tag = np.dtype(dt).name
        e = special(dt, 17, 2).reshape(17)
        t = special(dt, 11, 5)
        p.case(f"isin_{tag}", "numpy.isin", e, t)
        p.case(f"isin_{tag}_inv", "numpy.isin", e, t, invert=Const(True))
        p.case(f"isin_{tag}_2d", "numpy.isin", sample((3, 4), dt, 1), t)
    big = np.arange(-500, 500, 7)
    p.case("isin_table", "numpy.isin", np.arange(-20, 20), big)  # integers of a small range: bit table
    p.case("isin_sparse", "numpy.isin", np.array([0, 2**40, -(2**40), 5]), np.array([2**40, 5, 1]))
    p.case("isin_u64_i64", "numpy.isin", np.array([2**63, 1], np.uint64), np.array([-1, 1]))
    p.case("isin_f64_f32", "numpy.isin", np.array([0.1, 0.5]), np.array([0.1, 0.5], np.float32))
    p.case("isin_int_float", "numpy.isin", np.array([1, 2, 3]), np.array([2.0, 2.5]))
    p.case("isin_scalar", "numpy.isin", 3, [1, 2, 3])
    p.case("isin_list", "numpy.isin", [1, 5], np.array([[1, 2], [3, 5]]))
    p.case("isin_weak", "numpy.isin", np.array([1], np.uint8), 257)
    p.case("isin_empty_test", "numpy.isin", np.array([1.0, np.nan]), np.ones(0))
    p.case("isin_empty_elem", "numpy.isin", np.ones((0, 2)), np.ones(3))
    p.case("isin_view", "numpy.isin", View(sample((5, 6), np.int32), transpose=True), np.array([1, 3, -2]))
    p.case("isin_kind_sort", "numpy.isin", np.array([1, 2]), np.array([2]), kind=Const("sort"))
    p.case("isin_kind_table", "numpy.isin", np.array([1, 2]), np.array([2]), kind=Const("table"))
    p.case("isin_inv_dyn", "numpy.isin", np.array([1, 2]), np.array([2]), invert=True)
    p.case("isin_kind_bad", "numpy.isin", np.array([1, 2]), np.array([2]), kind=Const("foo"))
    p.case("isin_table_float", "numpy.isin", np.array([1.0]), np.array([2.0]), kind=Const("table"))


def _set_cases(p: Kit) -> None:
    pairs = [(np.int32, np.int32), (np.float64, np.float64), (np.uint8, np.int8), (np.float32, np.int64),
             (np.complex64, np.float64), (np.bool_, np.bool_), (np.int64, np.float32)]
    for d1, d2 in pairs:
        tag = f"{np.dtype(d1).name}_{np.dtype(d2).name}"
        a = special(d1, 19, 1)
        b = special(d2, 13, 7)
        a[4:7] = a[0]
        for name in ("intersect1d", "union1d", "setdiff1d", "setxor1d"):
            p.case(f"{name}_{tag}", f"numpy.{name}", a, b)
        p.tuple_case(f"intersect1d_idx_{tag}", "numpy.intersect1d", a, b, n=3, return_indices=Const(True))
        ua, ub = np.unique(a), np.unique(b)
        for name in ("intersect1d", "setdiff1d", "setxor1d"):
            p.case(f"{name}_u_{tag}", f"numpy.{name}", ua, ub, assume_unique=Const(True))
        p.tuple_case(f"intersect1d_uidx_{tag}", "numpy.intersect1d", ua, ub, Const(True), Const(True), n=3)
    m1, m2 = sample((3, 4), np.int16, 1), sample((2, 5), np.int16, 2)
    for name in ("intersect1d", "union1d", "setdiff1d", "setxor1d"):
        p.case(f"{name}_2d", f"numpy.{name}", m1, m2)
        p.case(f"{name}_empty", f"numpy.{name}", np.ones(0), m2)
        p.case(f"{name}_list", f"numpy.{name}", [3, 1, 3], (1, 5))
        p.case(f"{name}_view", f"numpy.{name}", View(m1, transpose=True), View(m2, (slice(None), slice(None, None, 2))))
    p.tuple_case("intersect1d_idx_2d", "numpy.intersect1d", m1, m2, return_indices=Const(True), n=3)
    p.case("setdiff1d_u_dups", "numpy.setdiff1d", np.array([3, 1, 3]), np.array([1.0, 5.0]), assume_unique=Const(True))
    p.case("union1d_scalar", "numpy.union1d", 3, np.array([1, 2]))


def _program() -> Kit:
    p = Kit("setops")
    _unique_cases(p)
    _isin_cases(p)
    _set_cases(p)
    return p


def test_setops_against_numpy(tmp_path):
    run_kit(_program(), tmp_path)

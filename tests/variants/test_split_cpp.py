"""Splitting and stacking (split.hpp: np.split, array_split, hsplit, vsplit,
dsplit, column_stack, dstack) compiled with g++ and compared with NumPy.

Split results are lists of views: every piece is checked (values, dtype,
shape, sharing memory with the input) and so is the list's length. Exact.
"""
from __future__ import annotations

import numpy as np

from tests.variants._harness import Const, Program, View, run_and_check, sample
from tests.variants._manip import seq_cases


def _splits(p: Program) -> None:
    base = sample((7, 12), np.float64)
    arrays = {
        "c": sample((6, 4), np.int32),
        "prime": sample((7, 3), np.uint8),
        "rows": View(base, (slice(None, None, 2), slice(None))),  # (4, 12)
        "T": View(base, transpose=True),  # (12, 7)
        "neg": View(base, (slice(None, None, -1), slice(None, None, -3))),  # (7, 4)
        "e": np.ones((0, 4), np.int8),
        "b": sample((5, 2), np.bool_),
        "z": sample((6, 2), np.complex64),
    }
    for tag, v in arrays.items():
        for sec in (1, 2, 3, 5, 8):
            seq_cases(p, f"asplit_{tag}_{sec}", "numpy.array_split", v, sec, count=min(sec, 4))
            seq_cases(p, f"split_{tag}_{sec}", "numpy.split", v, sec, count=min(sec, 3))
        seq_cases(p, f"asplit_{tag}_ax1", "numpy.array_split", v, 3, axis=Const(1), count=3)
        seq_cases(p, f"split_{tag}_axm1", "numpy.split", v, 2, Const(-1), count=2)
        for pts in ((2,), (1, 3), (0, 0, 5), (3, 1), (-2,), (-10, 2, 100), ()):
            seq_cases(p, f"split_{tag}_pts{'_'.join(map(str, pts))}", "numpy.split", v, pts,
                      count=len(pts) + 1)
        seq_cases(p, f"split_{tag}_list", "numpy.split", v, [1, 2], count=3)
        seq_cases(p, f"split_{tag}_arr", "numpy.split", v, np.array([2, 3]), axis=Const(1), count=3)
        seq_cases(p, f"hsplit_{tag}", "numpy.hsplit", v, 2, count=2)
        seq_cases(p, f"hsplit_{tag}_pts", "numpy.hsplit", v, (1,), count=2)
        seq_cases(p, f"vsplit_{tag}", "numpy.vsplit", v, (1, 3), count=3)
    x1 = sample((9,), np.float32)
    seq_cases(p, "hsplit_1d", "numpy.hsplit", x1, 3, count=3)
    seq_cases(p, "hsplit_1d_bad", "numpy.hsplit", x1, 2, count=2)
    seq_cases(p, "split_zero", "numpy.split", x1, 0, count=1)
    seq_cases(p, "split_neg", "numpy.split", x1, -1, count=1)
    seq_cases(p, "split_neg3", "numpy.split", x1, -3, count=1)
    seq_cases(p, "asplit_zero", "numpy.array_split", x1, 0, count=1)
    seq_cases(p, "asplit_many", "numpy.array_split", sample((2,), np.int64), 5, count=5)
    seq_cases(p, "split_bad_axis", "numpy.split", x1, 3, axis=Const(1), count=1)
    seq_cases(p, "split_0d", "numpy.split", np.ones(()), 1, count=1)
    seq_cases(p, "vsplit_1d", "numpy.vsplit", x1, 3, count=1)
    c3 = sample((2, 3, 4), np.int16)
    seq_cases(p, "dsplit", "numpy.dsplit", c3, 2, count=2)
    seq_cases(p, "dsplit_pts", "numpy.dsplit", c3, (1, 3), count=3)
    seq_cases(p, "dsplit_2d", "numpy.dsplit", sample((2, 4), np.int16), 2, count=1)
    seq_cases(p, "split_3d_ax1", "numpy.split", c3, 3, axis=Const(1), count=3)
    seq_cases(p, "split_float_pts", "numpy.split", x1, np.array([1.0]), count=2)


def _stacks(p: Program) -> None:
    a1 = sample((3,), np.float64)
    b1 = sample((3,), np.int8, 2)
    m = sample((3, 2), np.float32)
    c3 = sample((3, 2, 2), np.uint8)
    p.case("cstack_1d", "numpy.column_stack", (a1, b1))
    p.case("cstack_mixed", "numpy.column_stack", (a1, m, b1))
    p.case("cstack_list", "numpy.column_stack", [a1, a1, a1])
    p.case("cstack_2d", "numpy.column_stack", (m, m))
    p.case("cstack_views", "numpy.column_stack", (View(sample((6,), np.int32), (slice(None, None, 2),)),
                                                  View(sample((2, 3), np.int32), transpose=True)))
    p.case("cstack_scalar", "numpy.column_stack", (np.ones(1), 5))
    p.case("cstack_0d", "numpy.column_stack", (np.full((), 2.0), np.full((), 3.0)))
    p.case("cstack_3d", "numpy.column_stack", (c3, c3))
    p.case("cstack_bad", "numpy.column_stack", (a1, sample((4,), np.float64)))
    p.case("cstack_ndim", "numpy.column_stack", (a1, c3))
    p.case("cstack_empty", "numpy.column_stack", (np.ones(0), np.ones((0, 2))))
    p.case("cstack_bool", "numpy.column_stack", (sample((4,), np.bool_), sample((4,), np.bool_, 3)))
    p.case("cstack_complex", "numpy.column_stack", (a1, sample((3,), np.complex64)))
    p.case("dstack_1d", "numpy.dstack", (a1, b1))
    p.case("dstack_2d", "numpy.dstack", (m, m, m))
    p.case("dstack_3d", "numpy.dstack", (c3, sample((3, 2, 1), np.int64)))
    p.case("dstack_mix", "numpy.dstack", (sample((1, 3), np.int32), a1))
    p.case("dstack_0d", "numpy.dstack", (np.full((), 1, np.int16), np.full((), 2, np.int16)))
    p.case("dstack_list", "numpy.dstack", [m, m])
    p.case("dstack_views", "numpy.dstack", (View(sample((4, 6), np.float64), (slice(None, None, 2), slice(1, None, 2))),
                                            View(sample((3, 2), np.float64), transpose=True)))
    p.case("dstack_bad", "numpy.dstack", (m, sample((2, 2), np.float32)))
    p.case("dstack_4d", "numpy.dstack", (np.ones((1, 2, 3, 4)), np.ones((1, 2, 3))))


def test_split_against_numpy(tmp_path):
    p = Program("split")
    _splits(p)
    _stacks(p)
    run_and_check(p, tmp_path)

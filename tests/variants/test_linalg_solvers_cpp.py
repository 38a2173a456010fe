"""numpy.linalg lstsq/pinv/matrix_rank/cond/matrix_power/multi_dot lowered to C++
(ops/decomp/solvers.hpp), compiled once and compared with NumPy.

Tolerances: 1e-10 relative to the largest entry for float64/complex128, 1e-4
for float32/complex64 (NumPy's single-precision LAPACK against everypath's
double), exact for integer matrix powers.
"""
from __future__ import annotations

import math

import numpy as np

from tests.variants._decomp_data import general, wellcond
from tests.variants._harness import Const, View
from tests.variants._tuple_cases import TupleProgram, run_tuple_program, tol_for

F = [np.float64, np.float32, np.int64, np.complex128, np.complex64]


def _tag(dt: object) -> str:
    return np.dtype(dt).name


def _wt(dt: object) -> object:
    return dt if np.dtype(dt).kind in "fc" else np.float64


def _lstsq_pinv(p: TupleProgram) -> None:
    for dt in F:
        tol = tol_for(_wt(dt)) * 10
        for sh in [(6, 3), (3, 5), (4, 4), (1, 1), (5, 1)]:
            a = general(sh, dt, sh[0] * 3 + sh[1])
            tag = f"{_tag(dt)}_{sh[0]}x{sh[1]}"
            p.tcase(f"lstsq1_{tag}", "numpy.linalg.lstsq", a, general((sh[0],), dt, 2), within=tol)
            p.tcase(f"lstsq2_{tag}", "numpy.linalg.lstsq", a, general((sh[0], 2), dt, 3), within=tol)
            p.tcase(f"pinv_{tag}", "numpy.linalg.pinv", a, within=tol)
        p.tcase(f"pinv_stack_{_tag(dt)}", "numpy.linalg.pinv", general((2, 4, 3), dt, 9), within=tol)
    low = np.outer(np.arange(1.0, 7.0), [1.0, 2.0, 3.0])  # rank 1: residuals empty
    p.tcase("lstsq_rankdef", "numpy.linalg.lstsq", low, np.arange(6.0))
    p.tcase("lstsq_rcond", "numpy.linalg.lstsq", general((6, 3), np.float64, 1), np.arange(6.0), rcond=Const(0.5))
    p.tcase("lstsq_rcond_pos", "numpy.linalg.lstsq", general((6, 3), np.float64, 1), np.arange(6.0), 1e-3)
    p.tcase("lstsq_rcond_neg", "numpy.linalg.lstsq", general((6, 3), np.float64, 1), np.arange(6.0), -1.0)
    p.tcase("lstsq_incompatible", "numpy.linalg.lstsq", np.ones((3, 2)), np.ones(4))
    p.tcase("lstsq_3d", "numpy.linalg.lstsq", np.ones((2, 3, 2)), np.ones(3))
    p.tcase("lstsq_empty_rows", "numpy.linalg.lstsq", np.ones((0, 2)), np.ones(0))
    p.tcase("lstsq_empty_cols", "numpy.linalg.lstsq", np.ones((3, 0)), np.ones(3))
    p.tcase("lstsq_no_rhs", "numpy.linalg.lstsq", general((3, 2), np.float64), np.ones((3, 0)))
    p.tcase("lstsq_view", "numpy.linalg.lstsq", View(general((8, 6), np.float64, 4), (slice(None, None, 2), slice(1, None, 2))),
            View(general((8, 6), np.float64, 5), (slice(None, None, 2), 0)))
    p.tcase("pinv_rankdef", "numpy.linalg.pinv", low)
    p.tcase("pinv_rcond", "numpy.linalg.pinv", general((4, 3), np.float64, 3), rcond=Const(0.6))
    p.tcase("pinv_rtol", "numpy.linalg.pinv", general((4, 3), np.float64, 3), rtol=Const(0.6))
    p.tcase("pinv_rtol_none", "numpy.linalg.pinv", general((4, 3), np.float32, 3), rtol=Const(None))
    p.tcase("pinv_both", "numpy.linalg.pinv", np.eye(2), rcond=Const(0.1), rtol=Const(0.1))
    p.tcase("pinv_empty", "numpy.linalg.pinv", np.ones((0, 3)))
    p.tcase("pinv_zeros", "numpy.linalg.pinv", np.zeros((2, 3)))
    p.tcase("pinv_1d", "numpy.linalg.pinv", np.ones(3))


def _rank_cond(p: TupleProgram) -> None:
    low = np.outer(np.arange(1.0, 7.0), [1.0, 2.0, 3.0])
    for dt in F:
        p.tcase(f"rank_{_tag(dt)}", "numpy.linalg.matrix_rank", general((5, 4), dt, 1))
        p.tcase(f"rank_low_{_tag(dt)}", "numpy.linalg.matrix_rank", low.astype(dt))
        p.tcase(f"rank_stack_{_tag(dt)}", "numpy.linalg.matrix_rank", np.stack([low[:4], np.eye(4, 3)]).astype(dt))
        tol = tol_for(_wt(dt)) * 10
        a = wellcond(4, dt, 2)
        for pv in (None, 2, -2, "fro", "nuc", math.inf, -math.inf, 1, -1):
            p.tcase(f"cond_{_tag(dt)}_{pv}".replace("-", "m"), "numpy.linalg.cond", a, Const(pv), within=tol)
    p.tcase("rank_1d", "numpy.linalg.matrix_rank", np.array([0.0, 2.0]))
    p.tcase("rank_1d_zero", "numpy.linalg.matrix_rank", np.zeros(3, np.int32))
    p.tcase("rank_0d", "numpy.linalg.matrix_rank", np.float64(0.0))
    p.tcase("rank_tol", "numpy.linalg.matrix_rank", np.diag([1.0, 1e-3, 1e-6]), 1e-4)
    p.tcase("rank_tol_kw", "numpy.linalg.matrix_rank", np.diag([1.0, 1e-3, 1e-6]), tol=Const(1e-2))
    p.tcase("rank_empty", "numpy.linalg.matrix_rank", np.ones((0, 3)))
    p.tcase("rank_view", "numpy.linalg.matrix_rank", View(low, transpose=True))
    p.tcase("cond_rect", "numpy.linalg.cond", general((5, 3), np.float64, 4))
    p.tcase("cond_stack", "numpy.linalg.cond", general((3, 4, 4), np.float64, 4))
    p.tcase("cond_stack_fro", "numpy.linalg.cond", general((3, 4, 4), np.float64, 4), Const("fro"))
    p.tcase("cond_singular_1", "numpy.linalg.cond", np.array([[1.0, 2.0], [2.0, 4.0]]), Const(1))
    p.tcase("cond_empty", "numpy.linalg.cond", np.ones((0, 0)))
    p.tcase("cond_rect_fro", "numpy.linalg.cond", np.ones((2, 3)), Const("fro"))
    p.tcase("cond_bad_p", "numpy.linalg.cond", np.eye(2), Const("bad"))
    p.tcase("cond_view", "numpy.linalg.cond", View(wellcond(6, np.float64, 3), (slice(None, None, 2), slice(None, None, 2))))


def _power_multi(p: TupleProgram) -> None:
    for dt in [np.float64, np.float32, np.int64, np.int32, np.uint8, np.complex128, np.bool_]:
        a = general((3, 3), dt, 5) if dt is not np.bool_ else general((3, 3), dt, 5)
        if np.dtype(dt).kind in "iu":
            a = (a % 3).astype(dt)
        for n in (0, 1, 2, 3, 4, 5, 7, 13):
            p.tcase(f"pow_{_tag(dt)}_{n}", "numpy.linalg.matrix_power", a, n, within=tol_for(_wt(dt)))
    for n in (-1, -2, -3, -6):
        p.tcase(f"pow_neg_{-n}", "numpy.linalg.matrix_power", wellcond(4, np.float64, 1), Const(n))
        p.tcase(f"pow_neg_int_{-n}", "numpy.linalg.matrix_power", wellcond(3, np.int64, 1), Const(n))
    p.tcase("pow_stack", "numpy.linalg.matrix_power", general((2, 3, 3), np.float64, 2), 5)
    p.tcase("pow_stack_0", "numpy.linalg.matrix_power", general((2, 3, 3), np.int32, 2), 0)
    p.tcase("pow_empty", "numpy.linalg.matrix_power", np.ones((0, 0)), 3)
    p.tcase("pow_nonsquare", "numpy.linalg.matrix_power", np.ones((2, 3)), 2)
    p.tcase("pow_float_n", "numpy.linalg.matrix_power", np.eye(2), Const(1.5))
    p.tcase("pow_singular", "numpy.linalg.matrix_power", np.array([[1.0, 2.0], [2.0, 4.0]]), Const(-1))
    p.tcase("pow_view", "numpy.linalg.matrix_power", View(general((6, 6), np.float64, 3), transpose=True), 4)
    # multi_dot: products in NumPy's chosen order
    A, B, C, D = (general(s, np.float64, i) for i, s in enumerate([(10, 30), (30, 5), (5, 60), (60, 3)]))
    p.tcase("md_3", "numpy.linalg.multi_dot", (A, B, C))
    p.tcase("md_4", "numpy.linalg.multi_dot", (A, B, C, D))
    p.tcase("md_5", "numpy.linalg.multi_dot", (A, B, C, D, general((3, 7), np.float64, 9)))
    p.tcase("md_2", "numpy.linalg.multi_dot", (A, B))
    p.tcase("md_2_vec", "numpy.linalg.multi_dot", (general((30,), np.float64), B))
    p.tcase("md_vec_first", "numpy.linalg.multi_dot", (general((10,), np.float64, 1), A, B))
    p.tcase("md_vec_last", "numpy.linalg.multi_dot", (A, B, general((5,), np.float64, 1)))
    p.tcase("md_vec_both", "numpy.linalg.multi_dot", (general((10,), np.float64, 1), A, B, general((5,), np.float64)))
    p.tcase("md_mixed", "numpy.linalg.multi_dot", (A.astype(np.float32), B.astype(np.int64), C), within=1e-12)
    p.tcase("md_int", "numpy.linalg.multi_dot", tuple((general((3, 3), np.int32, i)) for i in range(4)))
    p.tcase("md_list", "numpy.linalg.multi_dot", [general((4, 4), np.float64, i) for i in range(5)])
    p.tcase("md_list_2", "numpy.linalg.multi_dot", [general((4, 4), np.float64, i) for i in range(2)])
    p.tcase("md_list_1", "numpy.linalg.multi_dot", [general((4, 4), np.float64, 1)])
    p.tcase("md_mismatch", "numpy.linalg.multi_dot", (A, C, B))
    p.tcase("md_3d", "numpy.linalg.multi_dot", (A, np.ones((2, 30, 5)), C))
    p.tcase("md_one", "numpy.linalg.multi_dot", (A,))
    p.tcase("md_views", "numpy.linalg.multi_dot", (View(B, transpose=True), View(A, transpose=True),
                                                    View(A, (slice(None), slice(None, None, 3)))))


def test_linalg_solvers_cpp(tmp_path):
    p = TupleProgram("linalg_solvers")
    _lstsq_pinv(p)
    _rank_cond(p)
    _power_multi(p)
    run_tuple_program(p, tmp_path)

"""numpy.linalg det/slogdet/inv/solve/cholesky/qr/svd/eigh/eigvalsh lowered to C++
(ops/decomp.hpp), compiled once and compared with NumPy.

Tolerances (relative to the largest entry): 1e-10 for float64/complex128
results, 1e-4 for float32/complex64 (NumPy computes those in single precision,
everypath in double). QR, SVD and eigenvectors are compared through their
invariants (reconstruction, orthogonality, R up to row phases, A v = v w).
"""
from __future__ import annotations

import numpy as np

from tests.variants._decomp_data import eigh_check, general, hermitian, qr_check, spd, svd_check, wellcond
from tests.variants._harness import Const, View
from tests.variants._tuple_cases import TupleProgram, run_tuple_program, tol_for

REAL = [np.float64, np.float32, np.int32, np.int64, np.uint8]
ALL = [*REAL, np.complex128, np.complex64]
SING = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])


def _tag(dt: object) -> str:
    return np.dtype(dt).name


def _lu_cases(p: TupleProgram) -> None:
    for dt in ALL:
        tol = tol_for(dt if np.dtype(dt).kind in "fc" else np.float64)
        for n in (1, 2, 3, 5, 7):
            a = wellcond(n, dt, n)
            for op in ("det", "inv", "slogdet"):
                p.tcase(f"{op}_{_tag(dt)}_{n}", f"numpy.linalg.{op}", a, within=tol)
            b1, b2 = general((n,), dt, 11), general((n, 2), dt, 12)
            p.tcase(f"solve1_{_tag(dt)}_{n}", "numpy.linalg.solve", a, b1, within=tol)
            p.tcase(f"solve2_{_tag(dt)}_{n}", "numpy.linalg.solve", a, b2, within=tol)
        st = wellcond(4, dt, 3, batch=(2, 3))
        for op in ("det", "inv", "slogdet"):
            p.tcase(f"{op}_{_tag(dt)}_stack", f"numpy.linalg.{op}", st, within=tol)
    p.tcase("det_bool", "numpy.linalg.det", wellcond(3, np.bool_, 1))
    p.tcase("inv_mixed_solve", "numpy.linalg.solve", wellcond(3, np.float32), general((3,), np.float64, 2))
    p.tcase("solve_f32_c64", "numpy.linalg.solve", wellcond(3, np.float32), general((3, 1), np.complex64, 2),
            within=1e-4)
    # singular matrices: NumPy's LinAlgError, det 0, slogdet (0, -inf)
    p.tcase("inv_singular", "numpy.linalg.inv", SING)
    p.tcase("solve_singular", "numpy.linalg.solve", SING, np.ones(3))
    p.tcase("det_singular", "numpy.linalg.det", SING)
    p.tcase("slogdet_singular", "numpy.linalg.slogdet", SING)
    p.tcase("inv_singular_stack", "numpy.linalg.inv", np.stack([np.eye(3), SING]))
    p.tcase("det_zeros", "numpy.linalg.det", np.zeros((2, 2), np.int32))
    # shape errors
    p.tcase("inv_nonsquare", "numpy.linalg.inv", np.ones((2, 3)))
    p.tcase("det_nonsquare", "numpy.linalg.det", np.ones((2, 3, 4)))
    p.tcase("inv_1d", "numpy.linalg.inv", np.ones(3))
    p.tcase("solve_mismatch1", "numpy.linalg.solve", np.eye(3), np.ones(2))
    p.tcase("solve_mismatch2", "numpy.linalg.solve", np.eye(3), np.ones((2, 2)))
    # empty and broadcasting
    p.tcase("inv_empty", "numpy.linalg.inv", np.ones((0, 0)))
    p.tcase("det_empty", "numpy.linalg.det", np.ones((0, 0)))
    p.tcase("slogdet_empty", "numpy.linalg.slogdet", np.ones((0, 0)))
    p.tcase("det_empty_stack", "numpy.linalg.det", np.ones((0, 3, 3)))
    p.tcase("solve_empty", "numpy.linalg.solve", np.ones((0, 0)), np.ones(0))
    p.tcase("solve_bcast", "numpy.linalg.solve", wellcond(3, np.float64, 4, batch=(2, 1)),
            general((4, 3, 2), np.float64, 5))
    p.tcase("solve_bcast_vec", "numpy.linalg.solve", wellcond(3, np.float64, 4, batch=(2,)), general((3,), np.float64, 5))
    p.tcase("solve_bcast_b", "numpy.linalg.solve", wellcond(3, np.float64, 4), general((5, 3, 2), np.float64, 5))
    p.tcase("solve_bcast_err", "numpy.linalg.solve", np.ones((2, 3, 3)), np.ones((4, 3, 1)))
    # non-contiguous views
    base = wellcond(8, np.float64, 9)
    p.tcase("inv_T", "numpy.linalg.inv", View(base, transpose=True))
    p.tcase("det_strided", "numpy.linalg.det", View(base, (slice(None, None, 2), slice(1, None, 2))))
    p.tcase("solve_views", "numpy.linalg.solve", View(base, (slice(None, None, -2), slice(None, None, -2))),
            View(base, (slice(None, None, 2), 3)))
    # a list operand
    p.tcase("det_list", "numpy.linalg.det", [np.array([2.0, 1.0]), np.array([1.0, 3.0])])


def _chol_cases(p: TupleProgram) -> None:
    for dt in ALL:
        tol = tol_for(dt if np.dtype(dt).kind in "fc" else np.float64)
        for n in (1, 3, 6):
            a = spd(n, dt, n)
            p.tcase(f"chol_{_tag(dt)}_{n}", "numpy.linalg.cholesky", a, within=tol)
            p.tcase(f"cholU_{_tag(dt)}_{n}", "numpy.linalg.cholesky", a, upper=Const(True), within=tol)
    good = spd(4, np.complex128, 3)
    lo, up = good.copy(), good.copy()
    lo[0, 3], up[3, 0] = 55.0 + 7j, 55.0 - 7j  # in the triangle that is not read
    p.tcase("chol_lower_only", "numpy.linalg.cholesky", lo)
    p.tcase("cholU_upper_only", "numpy.linalg.cholesky", up, upper=Const(True))
    p.tcase("chol_stack", "numpy.linalg.cholesky", spd(3, np.float64, 5, batch=(2, 2)))
    p.tcase("chol_not_pd", "numpy.linalg.cholesky", -np.eye(3))
    p.tcase("chol_indefinite", "numpy.linalg.cholesky", np.array([[1.0, 2.0], [2.0, 1.0]]))
    p.tcase("chol_empty", "numpy.linalg.cholesky", np.ones((0, 0)))
    p.tcase("chol_nonsquare", "numpy.linalg.cholesky", np.ones((3, 2)))
    p.tcase("chol_view", "numpy.linalg.cholesky", View(spd(6, np.float64, 2), transpose=True))


def _qr_svd_eigh_cases(p: TupleProgram) -> None:
    shapes = [(5, 3), (3, 5), (4, 4), (1, 1), (7, 1), (1, 6)]
    for dt in [np.float64, np.float32, np.int64, np.complex128, np.complex64]:
        wt = dt if np.dtype(dt).kind in "fc" else np.float64
        for sh in shapes:
            a = general(sh, dt, sh[0] * 7 + sh[1])
            tag = f"{_tag(dt)}_{sh[0]}x{sh[1]}"
            p.tcase(f"qr_{tag}", "numpy.linalg.qr", a, check=qr_check(wt))
            p.tcase(f"qrc_{tag}", "numpy.linalg.qr", a, Const("complete"), check=qr_check(wt))
            p.tcase(f"qrr_{tag}", "numpy.linalg.qr", a, mode=Const("r"), check=_r_only(wt))
            p.tcase(f"svd_{tag}", "numpy.linalg.svd", a, check=svd_check(wt))
            p.tcase(f"svds_{tag}", "numpy.linalg.svd", a, full_matrices=Const(False), check=svd_check(wt))
            p.tcase(f"svdv_{tag}", "numpy.linalg.svd", a, compute_uv=Const(False), within=tol_for(wt))
        for n in (1, 2, 5, 8):
            h = hermitian(n, dt, n + 3)
            p.tcase(f"eigh_{_tag(dt)}_{n}", "numpy.linalg.eigh", h, check=eigh_check(wt))
            p.tcase(f"eigvalsh_{_tag(dt)}_{n}", "numpy.linalg.eigvalsh", h, within=tol_for(wt))
        g = general((5, 5), dt, 77)  # not Hermitian: only one triangle is read
        p.tcase(f"eighU_{_tag(dt)}", "numpy.linalg.eigh", g, UPLO=Const("U"), check=eigh_check(wt, "U"))
        p.tcase(f"eighL_{_tag(dt)}", "numpy.linalg.eigh", g, Const("L"), check=eigh_check(wt, "L"))
        p.tcase(f"eigvalshU_{_tag(dt)}", "numpy.linalg.eigvalsh", g, UPLO=Const("U"), within=tol_for(wt))
    # rank deficiency, repeated eigenvalues, stacks, empty, views
    low = np.outer(np.arange(1.0, 6.0), np.arange(1.0, 4.0))
    p.tcase("svd_rank1", "numpy.linalg.svd", low, check=svd_check(np.float64))
    p.tcase("svd_rank1_wide", "numpy.linalg.svd", low.T.copy(), check=svd_check(np.float64))
    p.tcase("svd_zeros", "numpy.linalg.svd", np.zeros((4, 3)), check=svd_check(np.float64))
    p.tcase("qr_rankdef", "numpy.linalg.qr", low, Const("complete"), check=qr_check(np.float64))
    p.tcase("qr_zeros", "numpy.linalg.qr", np.zeros((3, 3)), check=qr_check(np.float64))
    p.tcase("eigh_identity", "numpy.linalg.eigh", np.eye(4), check=eigh_check(np.float64))
    p.tcase("eigh_repeated", "numpy.linalg.eigh", np.diag([2.0, 1.0, 2.0, 1.0]) + 0.0, check=eigh_check(np.float64))
    stack = general((2, 3, 5, 4), np.float64, 5)
    p.tcase("qr_stack", "numpy.linalg.qr", stack, check=qr_check(np.float64))
    p.tcase("svd_stack", "numpy.linalg.svd", stack, check=svd_check(np.float64))
    p.tcase("svdv_stack", "numpy.linalg.svd", stack, compute_uv=Const(False))
    hs = hermitian(4, np.complex128, 6, batch=(3,))
    p.tcase("eigh_stack", "numpy.linalg.eigh", hs, check=eigh_check(np.complex128))
    p.tcase("eigvalsh_stack", "numpy.linalg.eigvalsh", hs)
    for sh in [(0, 3), (3, 0), (0, 0)]:
        e = np.ones(sh)
        tag = f"{sh[0]}x{sh[1]}"
        p.tcase(f"svd_empty_{tag}", "numpy.linalg.svd", e, check=svd_check(np.float64))
        p.tcase(f"svds_empty_{tag}", "numpy.linalg.svd", e, full_matrices=Const(False), check=svd_check(np.float64))
        p.tcase(f"qr_empty_{tag}", "numpy.linalg.qr", e)
        p.tcase(f"qrc_empty_{tag}", "numpy.linalg.qr", e, Const("complete"))
    p.tcase("eigh_empty", "numpy.linalg.eigh", np.ones((0, 0)))
    base = general((9, 9), np.float64, 4)
    p.tcase("svd_view", "numpy.linalg.svd", View(base, (slice(None, None, 2), slice(None, None, -3))),
            check=svd_check(np.float64))
    p.tcase("qr_view", "numpy.linalg.qr", View(base, transpose=True), check=qr_check(np.float64))
    hb = hermitian(9, np.float64, 2)
    p.tcase("eigh_view", "numpy.linalg.eigh", View(hb, (slice(None, None, 2), slice(None, None, 2))),
            check=eigh_check(np.float64))
    # typing errors and bad constants
    p.tcase("qr_1d", "numpy.linalg.qr", np.ones(3))
    p.tcase("qr_badmode", "numpy.linalg.qr", np.eye(2), Const("bad"))
    p.tcase("svd_1d", "numpy.linalg.svd", np.ones(3))
    p.tcase("eigh_nonsquare", "numpy.linalg.eigh", np.ones((2, 3)))
    p.tcase("eigh_bad_uplo", "numpy.linalg.eigh", np.eye(2), UPLO=Const("X"))
    p.tcase("eigh_lower_case", "numpy.linalg.eigvalsh", np.eye(2), UPLO=Const("u"))


def _r_only(dtype: object):
    tol = tol_for(dtype) * 10

    def chk(got, want, inputs):
        r = got[0]
        a = inputs[0].astype(np.complex128 if inputs[0].dtype.kind == "c" else np.float64)
        # R^H R == A^H A (for the leading k columns of R's rows)
        from tests.variants._tuple_cases import close

        close(np.conj(r.T) @ r, np.conj(a.T) @ a, tol, "R^H R == A^H A")

    return chk


def test_decomp_cpp(tmp_path):
    p = TupleProgram("decomp")
    _lu_cases(p)
    _chol_cases(p)
    _qr_svd_eigh_cases(p)
    run_tuple_program(p, tmp_path)

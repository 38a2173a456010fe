"""The blas path of numpy.linalg (LAPACK of OpenBLAS) forced through everypath.compile
(Settings.force_path="blas"), against NumPy on the same inputs: float32, float64,
complex128 and int64 (promoted to float64), shapes 0x0, 1x1, 5x5, 13x13, 7x3, 3x7,
a (2, 3, 4, 4) stack, transposed and strided views, and NumPy's LinAlgErrors.

Results unique in exact arithmetic (det, slogdet, inv, solve, cholesky, eigenvalues,
singular values, lstsq, pinv, matrix_rank, |diag R|) are compared with NumPy's; Q, U,
Vh and eigenvectors, unique only up to a unit phase per column, through invariants
(Q R = A, U S Vh = A, A v = v w, orthonormal columns). Tolerances, relative to the
largest magnitude of the expected value: float32 2e-4, float64 / complex128 1e-9
(the 13x13 inputs are well conditioned; both sides call LAPACK in the same precision).
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import everypath
from everypath.base.errors import CompileError
from everypath.base.settings import Settings
from tests.variants._decomp_data import general, spd, wellcond
from everypath.variants.ops.linalg_decomp import LU_MIN_WORK, SPECTRAL_MIN_WORK
from everypath.variants.paths import host_path

pytestmark = pytest.mark.skipif(not host_path("blas").available, reason="OpenBLAS (scipy-openblas64) not installed")

F2 = np.ndarray[tuple[int, int], np.dtype[np.float64]]
F1 = np.ndarray[tuple[int], np.dtype[np.float64]]
S2 = np.ndarray[tuple[int, int], np.dtype[np.float32]]
S1 = np.ndarray[tuple[int], np.dtype[np.float32]]
Z2 = np.ndarray[tuple[int, int], np.dtype[np.complex128]]
Z1 = np.ndarray[tuple[int], np.dtype[np.complex128]]
I2 = np.ndarray[tuple[int, int], np.dtype[np.int64]]
F4 = np.ndarray[tuple[int, int, int, int], np.dtype[np.float64]]


def square_ops(a, b, h):  # a square, b a vector, h Hermitian positive definite
    sign, logdet = np.linalg.slogdet(a)
    w, v = np.linalg.eigh(h)
    ew, ev = np.linalg.eig(a)
    return (np.linalg.det(a), sign, logdet, np.linalg.inv(a), np.linalg.solve(a, b), np.linalg.solve(a, h),
            np.linalg.cholesky(h), np.linalg.cholesky(h, upper=True), w, v, np.linalg.eigvalsh(h, UPLO="U"),
            ew, ev, np.linalg.eigvals(a), a @ np.linalg.inv(a))  # with a BLAS product: cblas.h beside lapack.h


def rect_ops(r, rb):  # r any shape, rb a vector of r.shape[0]
    q, rr = np.linalg.qr(r)
    qc, rc = np.linalg.qr(r, mode="complete")
    u, s, vh = np.linalg.svd(r)
    ur, sr, vhr = np.linalg.svd(r, full_matrices=False)
    x, res, rank, sv = np.linalg.lstsq(r, rb)
    x2, res2, rank2, sv2 = np.linalg.lstsq(r, rb, rcond=0.5)
    x3, res3, rank3, sv3 = np.linalg.lstsq(r, r[:, ::-1])  # several right-hand sides
    return (q, rr, qc, rc, np.linalg.qr(r, mode="r"), u, s, vh, ur, sr, vhr, np.linalg.svd(r, compute_uv=False),
            x, res, rank, sv, x2, res2, rank2, sv2, np.linalg.pinv(r), np.linalg.matrix_rank(r), x3, res3, rank3, sv3)


def stacked_ops(a, h):  # (..., n, n) stacks; h Hermitian positive definite
    sign, logdet = np.linalg.slogdet(a)
    q, r = np.linalg.qr(a)
    u, s, vh = np.linalg.svd(a)
    w, v = np.linalg.eigh(h)
    ew, ev = np.linalg.eig(a)
    return (np.linalg.det(a), sign, logdet, np.linalg.inv(a), np.linalg.solve(a, h), np.linalg.cholesky(h),
            q, r, u, s, vh, w, v, ew, ev, np.linalg.pinv(a), np.linalg.matrix_rank(a))


def int_ops(a):  # integer input: computed in float64, as NumPy does
    return (np.linalg.det(a), np.linalg.inv(a), np.linalg.svd(a, compute_uv=False), np.linalg.matrix_rank(a),
            np.linalg.matrix_rank(a[0]))


def _typed(fn, ann: dict[str, Any], key: str):
    # a copy per annotation set, with its own qualname: the compile cache keys on
    # the source and the qualname, not on annotations set programmatically
    fn = type(fn)(fn.__code__, fn.__globals__, fn.__name__)
    fn.__annotations__ = ann
    fn.__qualname__ = f"{fn.__name__}_{key}"
    return fn


_COMPILED: dict[tuple[str, str], Any] = {}


def blas(fn, key: str, ann: dict[str, Any]):
    """fn with annotations ann, compiled with only the blas path (one build per key)."""
    if (fn.__name__, key) not in _COMPILED:
        settings = replace(Settings.from_env(), force_path="blas")
        compiled = everypath.compile(_typed(fn, ann, key), settings=settings)
        src = compiled.cpp_source
        # every numpy.linalg call went to LAPACK: none was declined back to the loops
        assert "ep::blas::linalg_" in src and re.search(r"[^:]ep::linalg_", src) is None
        _COMPILED[(fn.__name__, key)] = compiled
    return _COMPILED[(fn.__name__, key)]


TOL = {np.float32: 2e-4, np.float64: 1e-9, np.complex128: 1e-9}
ANN = {np.float32: (S2, S1), np.float64: (F2, F1), np.complex128: (Z2, Z1)}


def close(got: Any, want: Any, tol: float, what: str) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    scale = max(float(np.max(np.abs(want))) if want.size else 1.0, 1.0)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale, err_msg=what)


def _h(x: np.ndarray) -> np.ndarray:
    return np.conj(np.swapaxes(x, -1, -2))


def orthonormal_cols(x: np.ndarray, tol: float, what: str) -> None:
    eye = np.broadcast_to(np.eye(x.shape[-1]), x.shape[:-2] + (x.shape[-1],) * 2)
    np.testing.assert_allclose(_h(x) @ x, eye, rtol=0, atol=tol * 10, err_msg=what)


def sorted_eigs(w: np.ndarray) -> np.ndarray:
    return np.sort_complex(np.round(w.astype(np.complex128), 6))


def check_square(got: tuple, a: np.ndarray, b: np.ndarray, h: np.ndarray, tol: float) -> None:
    want = square_ops(a, b, h)
    for i in (0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 14):  # unique results
        close(got[i], want[i], tol, f"square_ops[{i}] {a.shape}")
    w, v = got[8], got[9]
    close(h.astype(v.dtype) @ v, v * w, tol * 10, "A v == v w")
    orthonormal_cols(v, tol, "eigh vectors")
    ew, ev = got[11], got[12]
    assert ew.dtype == ev.dtype == np.result_type(a.dtype, np.complex64)
    close(a @ ev, ev * ew, tol * 10, "eig: A v == v w")
    close(sorted_eigs(ew), sorted_eigs(np.asarray(want[11])), max(tol, 1e-6) * 10, "eig values")
    close(sorted_eigs(got[13]), sorted_eigs(ew), max(tol, 1e-6) * 10, "eigvals == eig values")


def check_rect(got: tuple, r: np.ndarray, rb: np.ndarray, tol: float) -> None:
    want = rect_ops(r, rb)
    for i in range(len(want)):
        assert np.shape(got[i]) == np.shape(want[i]), f"rect_ops[{i}] {r.shape}: {np.shape(got[i])}"
    q, rr, qc, rc = got[:4]
    close(q @ rr, r, tol * 10, "Q R == A")
    close(qc @ rc, r, tol * 10, "complete Q R == A")
    orthonormal_cols(q, tol, "Q")
    orthonormal_cols(qc, tol, "complete Q")
    for x, y in ((rr, want[1]), (rc, want[3]), (got[4], want[4])):  # R: unique up to a phase per row
        close(np.abs(x), np.abs(np.asarray(y)), tol * 10, "|R|")
        close(np.triu(x), x, tol, "R upper triangular")
    u, s, vh, ur, sr, vhr = got[5:11]
    for i in (6, 9, 11, 13, 14, 15, 17, 18, 19, 20, 21, 23, 24, 25):  # singular values, lstsq, pinv, rank
        close(got[i], want[i], tol * 10, f"rect_ops[{i}] {r.shape}")
    k = s.shape[-1]
    close((u[:, :k] * s) @ vh[:k], r, tol * 10, "U S Vh == A")
    close((ur * sr) @ vhr, r, tol * 10, "reduced U S Vh == A")
    for m, what in ((u, "U"), (_h(vh), "Vh"), (ur, "reduced U"), (_h(vhr), "reduced Vh")):
        orthonormal_cols(m, tol, what)
    # lstsq x: unique for full-rank systems (the residual is checked above)
    if np.linalg.matrix_rank(r) == min(r.shape):
        close(got[12], want[12], tol * 100, "lstsq x")
        close(got[16], want[16], tol * 100, "lstsq x (rcond=0.5)")
        close(got[22], want[22], tol * 100, "lstsq x (matrix b)")


def swap01(a: np.ndarray) -> np.ndarray:
    """a with its first two rows swapped: getrf pivots once, so det changes sign."""
    a = a.copy()
    if a.shape[-2] >= 2:
        a[..., [0, 1], :] = a[..., [1, 0], :]
    return a


def _inputs(n: int, m: int, k: int, dtype: Any, seed: int) -> tuple[np.ndarray, ...]:
    a = swap01(wellcond(n, dtype, seed))
    b = general((n,), dtype, seed + 1)
    h = spd(n, dtype, seed + 2)
    r = general((m, k), dtype, seed + 3)
    rb = general((m,), dtype, seed + 4)
    return a, b, h, r, rb


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
def test_blas_matches_numpy(dtype):
    M, V = ANN[dtype]
    sq = blas(square_ops, dtype.__name__, {"a": M, "b": V, "h": M})
    rect = blas(rect_ops, dtype.__name__, {"r": M, "rb": V})
    tol = TOL[dtype]
    for seed, (n, m, k) in enumerate([(0, 0, 0), (1, 1, 1), (5, 7, 3), (13, 3, 7), (13, 13, 13), (4, 5, 5), (2, 4, 0),
                                        (2, 0, 3)]):
        a, b, h, r, rb = _inputs(n, m, k, dtype, seed)
        check_square(sq(a, b, h), a, b, h, tol)
        check_rect(rect(r, rb), r, rb, tol)
    # a Gaussian matrix: complex eigenvalue pairs of a real input (geev's packed vectors)
    g, gb, gh = general((6, 6), dtype, 11), general((6,), dtype, 12), spd(6, dtype, 13)
    got = sq(g, gb, gh)
    assert np.abs(got[11].imag).max() > 0.1
    check_square(got, g, gb, gh, tol)
    # transposed and strided views
    a, b, h, r, rb = _inputs(9, 11, 6, dtype, 3)
    check_square(sq(a.T, b[::-1], h.T), a.T, b[::-1], h.T, tol)
    check_square(sq(a[::2, ::2], b[::2], h[::2, ::2]), a[::2, ::2], b[::2], h[::2, ::2], tol)
    check_rect(rect(r.T, r[0]), r.T, r[0], tol)
    check_rect(rect(r[::2, ::-1], rb[::2]), r[::2, ::-1], rb[::2], tol)
    # rank-deficient: matrix_rank, lstsq rank and residuals follow NumPy's cutoffs
    low = (general((8, 2), dtype, 9) @ general((2, 6), dtype, 10)).astype(dtype)
    got, want = rect(low, rb[:8]), rect_ops(low, rb[:8])
    assert got[21] == want[21] == 2 and got[14] == want[14] and got[13].shape == want[13].shape
    close(got[20], want[20], tol * 100, "pinv of a rank-2 matrix")


def test_blas_stacks_and_integers():
    f = blas(stacked_ops, "f64", {"a": F4, "h": F4})
    a = swap01(wellcond(4, np.float64, 1, batch=(2, 3)))
    h = spd(4, np.float64, 2, batch=(2, 3))
    got, want = f(a, h), stacked_ops(a, h)
    for i in (0, 1, 2, 3, 4, 5, 9, 11, 15, 16):
        close(got[i], want[i], 1e-9, f"stacked_ops[{i}]")
    q, r, u, s, vh, w, v, ew, ev = (got[i] for i in (6, 7, 8, 9, 10, 11, 12, 13, 14))
    close(q @ r, a, 1e-8, "stacked Q R")
    close((u * s[..., None, :]) @ vh, a, 1e-8, "stacked U S Vh")
    close(h @ v, v * w[..., None, :], 1e-8, "stacked eigh")
    close(a @ ev, ev * ew[..., None, :], 1e-8, "stacked eig")
    got = f(np.swapaxes(a, -1, -2), np.swapaxes(h, -1, -2)[:, ::-1])  # transposed stack, reversed batch
    want = stacked_ops(np.swapaxes(a, -1, -2), np.swapaxes(h, -1, -2)[:, ::-1])
    for i in (0, 3, 4, 5, 15):
        close(got[i], want[i], 1e-9, f"strided stacked_ops[{i}]")
    fi = blas(int_ops, "i64", {"a": I2})
    x = swap01(wellcond(5, np.int64, 4))
    for i, (g, w_) in enumerate(zip(fi(x), int_ops(x))):
        close(g, w_, 1e-9, f"int_ops[{i}]")


def test_blas_raises_like_numpy():
    sq = blas(square_ops, "float64", {"a": F2, "b": F1, "h": F2})
    rect = blas(rect_ops, "float64", {"r": F2, "rb": F1})
    ok = wellcond(3, np.float64, 1)
    b = general((3,), np.float64, 2)
    cases = [
        (sq, (np.array([[1.0, 2.0], [2.0, 4.0]]), b[:2], spd(2, np.float64)), "Singular matrix"),
        (sq, (ok, b, -spd(3, np.float64)), "Matrix is not positive definite"),
        (sq, (np.ones((2, 3)), b[:2], spd(2, np.float64)), "Last 2 dimensions of the array must be square"),
        (rect, (np.full((3, 2), np.nan), b), "SVD did not converge"),
    ]
    for fn, args, msg in cases:
        with pytest.raises(np.linalg.LinAlgError) as want:
            fn.py_function(*args)
        with pytest.raises(np.linalg.LinAlgError) as got:
            fn(*args)
        assert str(got.value) == str(want.value) == msg
    with pytest.raises(ValueError, match="UPLO argument must be 'L' or 'U'"):
        bad_uplo(ok)
    with pytest.raises(CompileError, match="UPLO argument must be 'L' or 'U'"):  # a constant: found at compile time
        blas(bad_uplo, "f64", {"a": F2})(ok)


def bad_uplo(a):
    return np.linalg.eigvalsh(a, UPLO="X")


def test_default_policy_dispatches_and_ops_list():
    """Without a forced path, numpy.linalg calls choose between loops and blas at run time."""
    f = everypath.compile(_typed(int_ops, {"a": F2}, "default"), settings=Settings.from_env())
    src = f.cpp_source
    assert "ep::blas::linalg_inv<double>" in src and "ep::linalg_inv<double>" in src
    # every call site goes through the shim with both variants and their default thresholds
    assert f"{{0, {LU_MIN_WORK}}}, {{0, 0}}" in src and f"{{0, {SPECTRAL_MIN_WORK}}}, {{0, 0}}" in src
    assert "#define EP_HAVE_BLAS 1" in src
    for n in (3, 20, 100):  # below and above the thresholds
        x = wellcond(n, np.float64, n)
        for g, w in zip(f(x), int_ops(x)):
            close(g, w, 1e-9, f"default policy n={n}")
    exe = Path(sys.executable).parent / "everypath"
    rows = json.loads(subprocess.run([str(exe), "ops", "list", "--json"], capture_output=True, text=True,
                                     check=True).stdout)
    svd = next(r for r in rows if r["op"] == "numpy.linalg.svd")
    paths = {v["path"]: v for v in svd["variants"]}
    assert paths["blas"]["available"] is True
    if sys.platform != "darwin":
        assert paths["accelerate"]["available"] is False and "darwin" in paths["accelerate"]["reason"]


def test_accelerate_layer_builds_against_new_lapack_prototypes(tmp_path):
    """The accelerate path cannot be built off macOS; its symbol layer is checked here against
    prototypes in the form of Accelerate's new LAPACK interface (name_, 64-bit __LAPACK_int,
    C complex types, no hidden string lengths), derived from OpenBLAS's lapack.h."""
    import shutil

    from tests.variants._harness import INCLUDE

    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ is required")
    import scipy_openblas64 as ob  # type: ignore[import-not-found]

    lapack_h = (Path(ob.get_include_dir()) / "lapack.h").read_text()
    routines = [p + r for p in "sd" for r in ("getrf", "gesv", "potrf", "geqrf", "orgqr", "gesdd", "syevd", "gelsd",
                                             "geev")]
    routines += [p + r for p in "cz" for r in ("getrf", "gesv", "potrf", "geqrf", "ungqr", "gesdd", "heevd", "gelsd",
                                              "geev")]
    protos = []
    for name in routines:
        m = re.search(rf"void LAPACK_{name}(?:_base)?\(([^;]*?)\);", lapack_h, re.S)
        assert m, name
        body = re.sub(r"#ifdef LAPACK_FORTRAN_STRLEN_END.*?#endif", "", m.group(1), flags=re.S)
        body = body.replace("lapack_complex_float", "__LAPACK_float_complex")
        body = body.replace("lapack_complex_double", "__LAPACK_double_complex").replace("lapack_int", "__LAPACK_int")
        protos.append(f"void {name}_({body});")
    (tmp_path / "Accelerate").mkdir()
    (tmp_path / "Accelerate" / "Accelerate.h").write_text(
        "#pragma once\n#define __LAPACK_int long\n#define __LAPACK_float_complex float _Complex\n"
        "#define __LAPACK_double_complex double _Complex\nextern \"C\" {\n" + "\n".join(protos) + "\n}\n")
    calls = []
    for r in ("double", "std::complex<double>"):
        calls += [f"ep::accelerate::linalg_{op}<{r}>(a<{r}>(){args});" for op, args in (
            ("det", ""), ("slogdet", ""), ("inv", ""), ("solve", ", a<double>()"), ("cholesky", ", true"),
            ("qr", ", true"), ("qr_r", ""), ("svd", ", false"), ("svdvals", ""), ("eigh", ', std::string("U")'),
            ("eigvalsh", ', std::string("L")'), ("pinv", ", 1e-15, 0.0"))]
        calls.append(f"ep::accelerate::linalg_eig<std::complex<double>>(a<{r}>());")
        calls.append(f"ep::accelerate::linalg_lstsq<{r}>(a<{r}>(), a<{r}>(), 0.0, true);")
        calls.append(f"ep::accelerate::linalg_matrix_rank<double>(a<{r}>(), 0.0, true);")
    src = tmp_path / "acc.cpp"
    src.write_text("#define EP_HAVE_ACCELERATE 1\n#include <everypath/everypath.hpp>\n"
                   "#include <everypath/paths/accelerate/lapack.hpp>\n"
                   "template <class T> ep::Array<T, 2> a() { return ep::empty<T, 2>({2, 2}); }\n"
                   "void all() {\n" + "\n".join(calls) + "\n}\n")
    proc = subprocess.run([gxx, "-std=c++20", "-fsyntax-only", "-D__APPLE__", "-I", str(INCLUDE), "-I", str(tmp_path),
                           str(src)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-4000:]

"""numpy.linalg decompositions: det, slogdet, inv, solve, cholesky, qr, svd,
eigh, eigvalsh, eig and eigvals (lstsq, pinv, matrix_rank, matrix_power, cond
and multi_dot are in linalg_solvers).

Typing asks NumPy: the same call on stand-in stacks of identity matrices of
the operands' dtypes and ranks gives the result type (tuples, NumPy scalars
for single matrices, float64 for integer input, float32 kept) and NumPy's own
error for a wrong rank. Arguments that change the result's type (qr's mode,
svd's compute_uv, cond's p) must be compile-time constants. Every operator
has one C++ entry point ``ep::linalg_<name><R>(...)`` in
variants/include/everypath/ops/decomp.hpp, R being NumPy's result_t, and the
same entry points on LAPACK in ``ep::blas`` (OpenBLAS) and ``ep::accelerate``
(Apple) from variants/include/everypath/paths/{blas,accelerate}/lapack.hpp.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from everypath.base.types import ArrayT, DType, ListT, TupleT, Type
from everypath.variants.ops.reductions import Bound, array_expr, array_operand
from everypath.variants.probe import call_probe
from everypath.variants.registry import (Family, LowerSite, Operator, PathNotApplicable, Registry, Requirements, Site,
                               TypingError, Variant)

HEADER = Variant("loops", "everypath/ops/decomp.hpp")
# Default policy: LAPACK from this many elements of the largest operand on, the loops
# below. Measured with `everypath ops bench numpy.linalg.<op>` (2-core x86-64, OpenBLAS
# 0.3): the O(n^3) LU/Cholesky loops keep up with getrf/potrf to about 90 x 90, the
# Householder QR to 32 x 32, the Jacobi SVD / eigensolvers only to about 16 x 16.
LU_MIN_WORK = 1 << 13
QR_MIN_WORK = 1 << 10
SPECTRAL_MIN_WORK = 1 << 8


def lapack_variants(min_work: int) -> tuple[Variant, ...]:
    """loops, then LAPACK of OpenBLAS (blas) and of Apple Accelerate from min_work on."""
    return (
        HEADER,
        Variant("blas", "everypath/paths/blas/lapack.hpp", Requirements(libraries=("openblas",)),
                cost_hint="LAPACK of OpenBLAS (getrf/gesv, potrf, geqrf, gesdd, syevd, geev, gelsd)",
                min_work=min_work),
        Variant("accelerate", "everypath/paths/accelerate/lapack.hpp", Requirements(os=("darwin",)),
                cost_hint="Apple Accelerate LAPACK (new ILP64 interface)", min_work=min_work),
    )


LAPACK_VARIANTS = lapack_variants(SPECTRAL_MIN_WORK)


def fn(ls: LowerSite, name: str) -> str:
    """The C++ function of operator `name` on ls.path (the same signature on every path)."""
    if ls.path not in ("loops", "blas", "accelerate"):
        raise PathNotApplicable(f"numpy.linalg has no {ls.path} path")
    return f"{ls.ns}::linalg_{name}"


_STANDIN: dict[str, Any] = {}  # parameter name -> value NumPy is probed with when it is a run-time value


def sample(t: ArrayT) -> np.ndarray:
    """A stack of 2x2 identities (rank >= 2), ones (rank 1) or a one (rank 0) of t's dtype."""
    if t.ndim >= 2:
        return np.broadcast_to(np.eye(2, dtype=t.dtype.np), (1,) * (t.ndim - 2) + (2, 2)).copy()
    return np.ones((2,) * t.ndim, t.dtype.np)


def result_t(*dts: DType) -> DType:
    """NumPy's _commonType: single precision only when every operand is float32/complex64."""
    single = all(d in (DType.FLOAT32, DType.COMPLEX64) for d in dts)
    cplx = any(d.is_complex for d in dts)
    if cplx:
        return DType.COMPLEX64 if single else DType.COMPLEX128
    return DType.FLOAT32 if single else DType.FLOAT64


def real_of(d: DType) -> DType:
    return {DType.COMPLEX64: DType.FLOAT32, DType.COMPLEX128: DType.FLOAT64}.get(d, d)


class Call:
    """One call bound to NumPy's parameter names, with its array operands."""

    def __init__(self, site: Site | LowerSite, names: tuple[str, ...], arrays: tuple[str, ...], fname: str) -> None:
        self.b = Bound(site, names, fname)
        self.fname = fname
        self.arrays: dict[str, ArrayT] = {}
        for n in arrays:
            if self.b.has(n):
                self.arrays[n] = array_operand(self.b.type(n), n)
        for n in names:
            if self.b.has(n) and n not in arrays and not self.b.is_const(n):
                t = self.b.type(n)
                if n not in _RUNTIME_OK:
                    raise TypingError(f"{fname}(): argument '{n}' must be a compile-time constant")
                if isinstance(t, (ArrayT, ListT, TupleT)):
                    raise TypingError(f"{fname}(): argument '{n}' must be a scalar")

    def const(self, name: str, default: Any = None) -> Any:
        return self.b.const(name, default) if self.b.is_const(name) else _STANDIN.get(name, default)

    def probe(self, ref: Callable[..., Any], names: tuple[str, ...]) -> Type:
        args = {n: sample(self.arrays[n]) if n in self.arrays else self.const(n) for n in names if self.b.has(n)}
        first = args.pop(names[0]) if names[0] in args else None  # may be positional-only (cholesky)
        return call_probe(lambda: ref(first, **args))

    def expr(self, name: str) -> str:
        if name in self.arrays:
            return array_expr(self.b.type(name), self.b.expr(name))  # type: ignore[arg-type]
        return self.b.expr(name)

    def dtype(self) -> DType:
        return result_t(*(a.dtype for a in self.arrays.values()))


# scalars that may be run-time values (with the stand-in NumPy is probed with)
_RUNTIME_OK = {"upper": False, "full_matrices": True, "UPLO": "L", "rcond": 1e-15, "rtol": 1e-15, "n": 2, "tol": 0.5}
_STANDIN.update(_RUNTIME_OK)


def _unary(name: str, params: tuple[str, ...] = ("a",)) -> tuple[Callable[[Site], Type], Callable[[LowerSite], str]]:
    """det / slogdet / inv: one stack of square matrices."""
    ref = getattr(np.linalg, name)
    fname = f"np.linalg.{name}"

    def infer(site: Site) -> Type:
        c = Call(site, params, ("a",), fname)
        return c.probe(ref, params)

    def lower(ls: LowerSite) -> str:
        c = Call(ls, params, ("a",), fname)
        return f"{fn(ls, name)}<{c.dtype().cpp}>({c.expr('a')})"

    return infer, lower


_SOLVE = ("a", "b")


def _solve_infer(site: Site) -> Type:
    return Call(site, _SOLVE, _SOLVE, "np.linalg.solve").probe(np.linalg.solve, _SOLVE)


def _solve_lower(ls: LowerSite) -> str:
    c = Call(ls, _SOLVE, _SOLVE, "np.linalg.solve")
    return f"{fn(ls, 'solve')}<{c.dtype().cpp}>({c.expr('a')}, {c.expr('b')})"


_CHOL = ("a", "upper")


def _chol_infer(site: Site) -> Type:
    return Call(site, _CHOL, ("a",), "np.linalg.cholesky").probe(np.linalg.cholesky, _CHOL)


def _chol_lower(ls: LowerSite) -> str:
    c = Call(ls, _CHOL, ("a",), "np.linalg.cholesky")
    upper = c.expr("upper") if c.b.has("upper") else "false"
    return f"{fn(ls, 'cholesky')}<{c.dtype().cpp}>({c.expr('a')}, {upper})"


_QR = ("a", "mode")


def _qr_mode(c: Call) -> str:
    mode = c.b.const("mode", "reduced")
    if mode in ("raw", "economic", "e", "f", "full"):
        raise TypingError(f"np.linalg.qr(mode={mode!r}) is not supported; use 'reduced', 'complete' or 'r'")
    return mode


def _qr_infer(site: Site) -> Type:
    c = Call(site, _QR, ("a",), "np.linalg.qr")
    t = c.probe(np.linalg.qr, _QR)
    _qr_mode(c)
    return t


def _qr_lower(ls: LowerSite) -> str:
    c = Call(ls, _QR, ("a",), "np.linalg.qr")
    R = c.dtype().cpp
    mode = _qr_mode(c)
    if mode == "r":
        return f"{fn(ls, 'qr_r')}<{R}>({c.expr('a')})"
    return f"{fn(ls, 'qr')}<{R}>({c.expr('a')}, {'true' if mode == 'complete' else 'false'})"


_SVD = ("a", "full_matrices", "compute_uv", "hermitian")


def _svd_call(site: Site | LowerSite) -> Call:
    c = Call(site, _SVD, ("a",), "np.linalg.svd")
    if c.b.const("hermitian", False):
        raise TypingError("np.linalg.svd(hermitian=True) is not supported; use np.linalg.eigh")
    return c


def _svd_infer(site: Site) -> Type:
    return _svd_call(site).probe(np.linalg.svd, _SVD)


def _svd_lower(ls: LowerSite) -> str:
    c = _svd_call(ls)
    R = c.dtype().cpp
    if not c.b.const("compute_uv", True):
        return f"{fn(ls, 'svdvals')}<{R}>({c.expr('a')})"
    full = c.expr("full_matrices") if c.b.has("full_matrices") else "true"
    return f"{fn(ls, 'svd')}<{R}>({c.expr('a')}, {full})"


_EIGH = ("a", "UPLO")


def _eigh(name: str) -> tuple[Callable[[Site], Type], Callable[[LowerSite], str]]:
    ref = getattr(np.linalg, name)

    def infer(site: Site) -> Type:
        return Call(site, _EIGH, ("a",), f"np.linalg.{name}").probe(ref, _EIGH)

    def lower(ls: LowerSite) -> str:
        c = Call(ls, _EIGH, ("a",), f"np.linalg.{name}")
        uplo = f"std::string({c.expr('UPLO')})" if c.b.has("UPLO") else 'std::string("L")'
        return f"{fn(ls, name)}<{c.dtype().cpp}>({c.expr('a')}, {uplo})"

    return infer, lower


def _complex_of(d: DType) -> DType:
    return DType.COMPLEX64 if d in (DType.FLOAT32, DType.COMPLEX64) else DType.COMPLEX128


def _eig(name: str) -> tuple[Callable[[Site], Type], Callable[[LowerSite], str]]:
    """eig / eigvals: always complex (NumPy returns real arrays when every eigenvalue of a
    real input happens to be real, a value-dependent type that compiled code cannot have)."""
    ref = getattr(np.linalg, name)

    def infer(site: Site) -> Type:
        c = Call(site, ("a",), ("a",), f"np.linalg.{name}")
        t = c.probe(ref, ("a",))
        C = _complex_of(c.dtype())
        nd = c.arrays["a"].ndim
        if isinstance(t, TupleT):
            return TupleT((ArrayT(C, nd - 1), ArrayT(C, nd)))
        return ArrayT(C, nd - 1)

    def lower(ls: LowerSite) -> str:
        c = Call(ls, ("a",), ("a",), f"np.linalg.{name}")
        return f"{fn(ls, name)}<{_complex_of(c.dtype()).cpp}>({c.expr('a')})"

    return infer, lower


def declare(reg: Registry) -> None:
    L, LU, V = Family.LINALG, lapack_variants(LU_MIN_WORK), LAPACK_VARIANTS
    for name in ("det", "slogdet", "inv"):
        reg.add(Operator(f"numpy.linalg.{name}", L, getattr(np.linalg, name), *_unary(name), variants=LU))
    reg.add(Operator("numpy.linalg.solve", L, np.linalg.solve, _solve_infer, _solve_lower, variants=LU))
    reg.add(Operator("numpy.linalg.cholesky", L, np.linalg.cholesky, _chol_infer, _chol_lower, variants=LU))
    reg.add(Operator("numpy.linalg.qr", L, np.linalg.qr, _qr_infer, _qr_lower, variants=lapack_variants(QR_MIN_WORK)))
    reg.add(Operator("numpy.linalg.svd", L, np.linalg.svd, _svd_infer, _svd_lower, variants=V))
    for name in ("eigh", "eigvalsh"):
        reg.add(Operator(f"numpy.linalg.{name}", L, getattr(np.linalg, name), *_eigh(name), variants=V))
    for name in ("eig", "eigvals"):
        reg.add(Operator(f"numpy.linalg.{name}", L, getattr(np.linalg, name), *_eig(name), variants=V))


__all__ = ["declare", "Call", "sample", "result_t", "real_of", "fn", "lapack_variants", "HEADER", "LAPACK_VARIANTS"]

"""Linear algebra: ``a @ b`` / np.matmul, np.dot / ndarray.dot, np.inner, np.outer,
np.vdot, np.trace and np.linalg.norm.

``matmul_type`` / ``matmul_lower`` are also the typing and lowering of
``operator.matmul`` (declared with the element-wise table). Result dtypes are
NumPy's (probed on sample arrays); shape errors are raised at run time with
NumPy's messages. C++ kernels: variants/include/everypath/ops/linalg.hpp.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from everypath.base.types import ArrayT, DType, NoneT, ScalarT, Type
from everypath.variants.ops.reductions import Bound, array_expr, array_operand, const_bool, mask_of, normalize_axes, probe
from everypath.variants.registry import PathNotApplicable, Requirements, Variant, Family, LowerSite, Operator, Registry, Site, TypingError

_SIG = "(n?,k),(k,m?)->(n?,m?)"


def _sample(t: ArrayT) -> np.ndarray:
    return np.ones((2,) * t.ndim, t.dtype.np)


def _dtype_of(fn: Any) -> DType:
    r = probe(fn)
    try:
        return DType.of(np.asarray(r).dtype)
    except ValueError as exc:
        raise TypingError(str(exc)) from None


# ---- matmul ---------------------------------------------------------------------


def _matmul_operands(site: Site | LowerSite) -> tuple[ArrayT, ArrayT]:
    if site.node.kwargs:
        raise TypingError("matmul: keyword arguments are not supported")
    if len(site.node.args) != 2:
        raise TypingError(f"matmul() takes 2 operands, got {len(site.node.args)}")
    ts = [site.type(0), site.type(1)]
    for i, t in enumerate(ts):
        if isinstance(t, ScalarT) or (isinstance(t, ArrayT) and t.ndim == 0):
            raise TypingError(f"matmul: Input operand {i} does not have enough dimensions (has 0, gufunc core with "
                              f"signature {_SIG} requires 1)")
        if not isinstance(t, ArrayT):
            raise TypingError(f"unsupported operand type for @: {t}")
    return ts[0], ts[1]  # type: ignore[return-value]


def _matmul_result(a: ArrayT, b: ArrayT) -> Type:
    dt = _dtype_of(lambda: np.matmul(np.ones((2, 2), a.dtype.np), np.ones((2, 2), b.dtype.np)))
    if a.ndim == 1 and b.ndim == 1:
        return ScalarT(dt)
    if a.ndim == 1:
        return ArrayT(dt, b.ndim - 1)
    if b.ndim == 1:
        return ArrayT(dt, a.ndim - 1)
    return ArrayT(dt, max(a.ndim, b.ndim))


def matmul_type(site: Site) -> Type:
    a, b = _matmul_operands(site)
    res = _matmul_result(a, b)
    if site.key == "operator.imatmul":
        if not isinstance(res, ArrayT) or res.ndim != a.ndim:
            raise TypingError("inplace matrix multiplication requires the first operand to have at least one and "
                              "the second at least two dimensions.")
        if not np.can_cast(res.dtype.np, a.dtype.np, "same_kind"):
            raise TypingError(f"Cannot cast ufunc 'matmul' output from dtype('{res.dtype}') to dtype('{a.dtype}') "
                              "with casting rule 'same_kind'")
        return a
    return res


# matmul-like products: the reference loops GEMM, OpenMP row blocks, OpenBLAS
PRODUCT_VARIANTS = (
    Variant("loops", "everypath/ops/linalg.hpp", cost_hint="cache-blocked i-k-j GEMM"),
    Variant("threads", "everypath/paths/threads/linalg.hpp", cost_hint="row blocks across cores",
            min_work=1 << 16),
    Variant("blas", "everypath/paths/blas/linalg.hpp", Requirements(libraries=("openblas",)),
            cost_hint="OpenBLAS gemm (float/complex only)", min_work=1 << 10),
    Variant("accelerate", "everypath/paths/accelerate/linalg.hpp", Requirements(os=("darwin",)),
            cost_hint="Apple Accelerate cblas (float/double)", min_work=1 << 10),
    Variant("cuda", "everypath/paths/cuda/gemm.cuh", Requirements(device="cuda"),
            cost_hint="tiled shared-memory GEMM on the GPU", min_work=1 << 16),
    # Objective-C++ on macOS (paths/metal/runtime.hpp); copies to shared GPU buffers, so large products only
    Variant("metal", "everypath/paths/metal/gemm.hpp", Requirements(os=("darwin",), device="metal"),
            cost_hint="MPSMatrixMultiplication (float32: Metal has no double)", min_work=1 << 18),
)
_ACCELERATE_DTYPES = frozenset({DType.FLOAT32, DType.FLOAT64})
_BLAS_DTYPES = frozenset({DType.FLOAT32, DType.FLOAT64, DType.COMPLEX64, DType.COMPLEX128})


def path_tag(ls: LowerSite, result: Type) -> str:
    """The template argument naming ls.path for a product; declines BLAS for integer/bool products."""
    if ls.path == "loops":
        return ""
    dt = result.dtype if isinstance(result, (ArrayT, ScalarT)) else None
    if ls.path == "blas" and dt not in _BLAS_DTYPES:
        raise PathNotApplicable(f"no BLAS routine for {dt}")
    if ls.path == "blas" and isinstance(result, ScalarT):
        raise PathNotApplicable("a 1-d dot stays on the vectorised loops")
    if ls.path == "accelerate" and (dt not in _ACCELERATE_DTYPES or isinstance(result, ScalarT)):
        raise PathNotApplicable(f"no Accelerate GEMM for {dt}")
    if ls.path == "metal" and (dt is not DType.FLOAT32 or isinstance(result, ScalarT)):
        raise PathNotApplicable(f"no Metal GEMM for {dt} (float32 only)")
    if ls.path not in ("threads", "blas", "accelerate", "metal"):
        raise PathNotApplicable(f"products on the {ls.path} path are not lowered into host code")
    return f", ep::path::{ls.path}"


def matmul_lower(ls: LowerSite) -> str:
    a, b = _matmul_operands(ls)
    res = _matmul_result(a, b)
    tag = path_tag(ls, res)
    e = f"ep::matmul<{res.dtype.cpp}{tag}>({ls.args[0]}, {ls.args[1]})"  # type: ignore[union-attr]
    if ls.key == "operator.imatmul":
        return f"ep::assign_result({ls.args[0]}, {e})"
    return e


# ---- dot / inner / outer / vdot ------------------------------------------------------


def _two_arrays(site: Site | LowerSite, fname: str, max_ndim: int | None = 2) -> tuple[ArrayT, ArrayT]:
    if site.node.kwargs:
        raise TypingError(f"np.{fname}(): keyword arguments are not supported")
    if len(site.node.args) != 2:
        raise TypingError(f"np.{fname}() takes 2 arguments, got {len(site.node.args)}")
    out = []
    for i in range(2):
        t = site.type(i)
        if isinstance(t, ScalarT) and max_ndim is not None:
            raise TypingError(f"np.{fname}() with a scalar operand is not supported; use *")
        if max_ndim is None:
            t = array_operand(t)
        if not isinstance(t, ArrayT):
            raise TypingError(f"np.{fname}(): expected an array, got {t}")
        if max_ndim is not None and not 1 <= t.ndim <= max_ndim:
            raise TypingError(f"np.{fname}() of {t.ndim}-d arrays is not supported (1-d and 2-d only)")
        out.append(t)
    return out[0], out[1]


def _contraction(name: str, ref: Callable[..., Any]) -> tuple[Callable[[Site], Type], Callable[[LowerSite], str]]:
    """np.dot / np.inner on 1-d and 2-d operands: the last axis of a against one of b."""

    def infer(site: Site) -> Type:
        a, b = _two_arrays(site, name)
        dt = _dtype_of(lambda: ref(_sample(a), _sample(b)))
        nd = a.ndim + b.ndim - 2
        return ScalarT(dt) if nd == 0 else ArrayT(dt, nd)

    def lower(ls: LowerSite) -> str:
        tag = path_tag(ls, ls.result)
        return f"ep::{name}<{ls.result.dtype.cpp}{tag}>({ls.args[0]}, {ls.args[1]})"  # type: ignore[union-attr]

    return infer, lower


def _outer_infer(site: Site) -> Type:
    a, b = _two_arrays(site, "outer", None)
    return ArrayT(_dtype_of(lambda: np.outer(_sample(a), _sample(b))), 2)


def _outer_lower(ls: LowerSite) -> str:
    x = array_expr(ls.arg_types[0], ls.args[0])
    y = array_expr(ls.arg_types[1], ls.args[1])
    return f"ep::outer<{ls.result.dtype.cpp}>({x}, {y})"  # type: ignore[union-attr]


def _vdot_infer(site: Site) -> Type:
    a, b = _two_arrays(site, "vdot", None)
    return ScalarT(_dtype_of(lambda: np.vdot(np.ones(2, a.dtype.np), np.ones(2, b.dtype.np))))


def _vdot_lower(ls: LowerSite) -> str:
    x = array_expr(ls.arg_types[0], ls.args[0])
    y = array_expr(ls.arg_types[1], ls.args[1])
    return f"ep::vdot<{ls.result.dtype.cpp}>({x}, {y})"  # type: ignore[union-attr]


# ---- trace -------------------------------------------------------------------------

_TRACE = ("a", "offset", "axis1", "axis2", "dtype", "out")


def _trace_infer(site: Site) -> Type:
    b = Bound(site, _TRACE, "np.trace")
    b.reject_non_none("out", "dtype")
    a = b.type("a")
    if not isinstance(a, ArrayT) or a.ndim != 2:
        raise TypingError(f"np.trace() of {a} is not supported (2-d arrays only)")
    if b.has("axis1") or b.has("axis2"):
        ax = (b.const("axis1", 0), b.const("axis2", 1))
        if tuple(x % 2 for x in ax) != (0, 1):
            raise TypingError("np.trace(axis1=, axis2=) other than (0, 1) is not supported")
    if b.has("offset"):
        t = b.type("offset")
        if not (isinstance(t, ScalarT) and t.dtype.is_integer):
            raise TypingError("np.trace(): offset must be an integer")
    return ScalarT(_dtype_of(lambda: np.trace(_sample(a))))


def _trace_lower(ls: LowerSite) -> str:
    b = Bound(ls, _TRACE)
    off = b.expr("offset") if b.has("offset") else "0"
    return f"ep::trace<{ls.result.dtype.cpp}>({b.expr('a')}, {off})"  # type: ignore[union-attr]


# ---- np.linalg.norm ------------------------------------------------------------------

_NORM = ("x", "ord", "axis", "keepdims")


def _norm_parse(site: Site | LowerSite) -> tuple[Bound, ArrayT, Any, tuple[int, ...] | None, bool]:
    b = Bound(site, _NORM, "np.linalg.norm")
    if not b.has("x"):
        raise TypingError("np.linalg.norm() missing required argument 'x'")
    x = b.type("x")
    if not isinstance(x, ArrayT):
        raise TypingError(f"np.linalg.norm() of {x} is not supported; pass an array")
    ord_ = b.const("ord", None)
    if isinstance(ord_, bool) or not (ord_ is None or isinstance(ord_, (int, float, str))):
        raise TypingError(f"Invalid norm order {ord_!r}")
    axis = None
    if b.has("axis") and not isinstance(b.type("axis"), NoneT):
        axis = normalize_axes(b.const("axis"), x.ndim)
        raw = b.const("axis")
        if isinstance(raw, tuple):
            axis = tuple(a % x.ndim for a in raw)  # keep the given order (row, col)
            if len(set(axis)) != len(axis):
                raise TypingError("Duplicate axes given.")
    keep = const_bool(b, "keepdims")
    return b, x, ord_, axis, keep


def _norm_infer(site: Site) -> Type:
    b, x, ord_, axis, keep = _norm_parse(site)
    nd = x.ndim
    eff = axis if axis is not None else (tuple(range(nd)) if nd <= 2 else None)
    if eff is not None and len(eff) == 2 and ord_ in (2, -2, "nuc"):
        raise TypingError(f"np.linalg.norm(ord={ord_!r}) of matrices needs an SVD, which is not supported")
    if eff is not None and len(eff) > 2:
        raise TypingError("Improper number of dimensions to norm.")
    if axis is None and nd > 2 and ord_ is not None:
        raise TypingError("Improper number of dimensions to norm.")
    raw_axis = b.const("axis", None) if b.has("axis") else None
    sample = _sample(x)
    r = probe(lambda: np.linalg.norm(sample, ord=ord_, axis=raw_axis, keepdims=keep))
    dt = DType.of(np.asarray(r).dtype)
    rnd = np.ndim(r)
    return ScalarT(dt) if rnd == 0 and not isinstance(r, np.ndarray) else ArrayT(dt, rnd)


def _norm_lower(ls: LowerSite) -> str:
    b, x, ord_, axis, keep = _norm_parse(ls)
    R = ls.result.dtype.cpp  # type: ignore[union-attr]
    X = b.expr("x")
    nd = x.ndim
    scalar_result = isinstance(ls.result, ScalarT)

    def finish_full(expr: str) -> str:
        return expr if scalar_result else f"ep::scalar_keepdims<{R}, {nd}>({expr})"

    if axis is None:
        if ord_ is None or (ord_ in ("f", "fro") and nd == 2) or (ord_ == 2 and nd == 1):
            return finish_full(f"ep::norm_fro<{R}>({X})")
        axis = tuple(range(nd))
    K = "true" if keep else "false"
    if len(axis) == 1:
        m = mask_of(axis)
        full = nd == 1 and not keep

        def red(kind: str, arr: str) -> str:
            return f"ep::{kind}_all<{R}>({arr})" if full else f"ep::{kind}_axes<{R}, {m}u, {K}>({arr})"

        if isinstance(ord_, str):
            raise TypingError(f"Invalid norm order '{ord_}' for vectors")
        if ord_ == math.inf:
            return red("max0", f"ep::abs_as<{R}>({X})")  # NumPy: .max(initial=0)
        if ord_ == -math.inf:
            return red("min", f"ep::abs_as<{R}>({X})")
        if ord_ == 0:
            return red("sum", f"ep::nonzero_as<{R}>({X})")
        if ord_ == 1:
            return red("sum", f"ep::abs_as<{R}>({X})")
        if ord_ is None or ord_ == 2:
            s = red("sum", f"ep::abs2_as<{R}>({X})")
            return f"std::sqrt({s})" if full else f"ep::sqrt_array({s})"
        s = red("sum", f"ep::abspow_as<{R}>({X}, {float(ord_)!r})")
        return f"ep::pow_scalar<{R}>({s}, {1.0 / ord_!r})" if full else f"ep::pow_array({s}, {1.0 / ord_!r})"
    # matrix norms over (row, col)
    row, col = axis
    if nd != 2:
        raise TypingError("np.linalg.norm over 2 axes of an array of rank > 2 is not supported")
    if ord_ in (None, "fro", "f"):
        e = f"ep::norm_fro<{R}>({X})"
    elif ord_ in (1, -1, math.inf, -math.inf):
        # sum |x| over one axis, then max/min over the other
        over = row if ord_ in (1, -1) else col
        pick = "max0" if ord_ in (1, math.inf) else "min"
        e = f"ep::{pick}_all<{R}>(ep::sum_axes<{R}, {1 << over}u, false>(ep::abs_as<{R}>({X})))"
    else:
        raise TypingError(f"Invalid norm order {ord_!r} for matrices")
    return finish_full(e)


def declare(reg: Registry) -> None:
    reg.add(Operator("numpy.matmul", Family.LINALG, np.matmul, matmul_type, matmul_lower, PRODUCT_VARIANTS))
    reg.add(Operator("numpy.dot", Family.LINALG, np.dot, *_contraction("dot", np.dot), PRODUCT_VARIANTS,
                     aliases=("ndarray.dot",)))
    reg.add(Operator("numpy.inner", Family.LINALG, np.inner, *_contraction("inner", np.inner), PRODUCT_VARIANTS))
    reg.add(Operator("numpy.outer", Family.LINALG, np.outer, _outer_infer, _outer_lower))
    reg.add(Operator("numpy.vdot", Family.LINALG, np.vdot, _vdot_infer, _vdot_lower))
    reg.add(Operator("numpy.trace", Family.LINALG, np.trace, _trace_infer, _trace_lower, aliases=("ndarray.trace",)))
    reg.add(Operator("numpy.linalg.norm", Family.LINALG, np.linalg.norm, _norm_infer, _norm_lower))


__all__ = ["declare", "matmul_type", "matmul_lower"]

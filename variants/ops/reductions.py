"""Reductions: np.sum, mean, max/amax, min/amin, argmax, argmin, prod, any, all,
std, var and nansum/nanmean/nanmax/nanmin, with their ndarray methods.

Typing asks NumPy itself: the result dtype is that of the same call on a
small array of the operand's dtype (``np.sum(np.ones((1,) * ndim, dt))``), so
int8 sums give int64, float32 means stay float32, and so on. ``axis`` (None,
an int or a tuple of ints) and ``keepdims`` must be compile-time constants;
the reduced axes become a bit mask template argument of the C++ kernel
(variants/include/everypath/ops/reduce.hpp).

This module also holds the small helpers the other array families share:
argument binding by NumPy's parameter names, axis normalisation, probing.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np

from everypath.base.types import ArrayT, DType, DTypeT, ListT, NoneT, ScalarT, Type
from everypath.variants.registry import Family, LowerSite, Operator, PathNotApplicable, Registry, Requirements, Site, TypingError, Variant

# ---------------------------------------------------------------------------
# shared helpers (also used by creation, scans, linalg, shape)


class Bound:
    """A call's arguments bound to NumPy's parameter names (positional, then keywords)."""

    def __init__(self, site: Site | LowerSite, names: tuple[str, ...], fname: str | None = None) -> None:
        self.site = site
        self.where: dict[str, int | str] = {}
        nargs = len(site.node.args)
        short = fname or site.key.replace("numpy.", "np.")
        if nargs > len(names):
            raise TypingError(f"{short}() takes at most {len(names)} positional arguments ({nargs} given)")
        for i in range(nargs):
            self.where[names[i]] = i
        for k in site.node.kwargs:
            if k not in names:
                raise TypingError(f"{short}() got an unexpected keyword argument '{k}'")
            if k in self.where:
                raise TypingError(f"{short}() got multiple values for argument '{k}'")
            self.where[k] = k

    def has(self, name: str) -> bool:
        return name in self.where

    def type(self, name: str) -> Type | None:
        return self.site.type(self.where[name]) if name in self.where else None

    def const(self, name: str, default: Any = None) -> Any:
        if name not in self.where:
            return default
        return self.site.const(self.where[name])

    def is_const(self, name: str) -> bool:
        from everypath.tracer.ir import Opcode

        if name not in self.where:
            return False
        w = self.where[name]
        node = self.site.node.args[w] if isinstance(w, int) else self.site.node.kwargs[w]
        return node.op is Opcode.CONST

    def expr(self, name: str) -> str:
        assert isinstance(self.site, LowerSite)
        return self.site.arg(self.where[name])  # type: ignore[return-value]

    def reject_non_none(self, *names: str) -> None:
        """Arguments we do not support unless they are the constant None (out=, where=, ...)."""
        for n in names:
            if n in self.where:
                t = self.type(n)
                if not isinstance(t, NoneT):
                    raise TypingError(f"{self.site.key.replace('numpy.', 'np.')}(): argument '{n}' is not supported")


def normalize_axis(ax: Any, ndim: int) -> int:
    if isinstance(ax, bool) or not isinstance(ax, (int, np.integer)):
        raise TypingError(f"'{type(ax).__name__}' object cannot be interpreted as an integer")
    ax = int(ax)
    if not -ndim <= ax < ndim:
        raise TypingError(f"axis {ax} is out of bounds for array of dimension {ndim}")
    return ax % ndim if ndim else ax


def normalize_axes(axis: Any, ndim: int, allow_tuple: bool = True) -> tuple[int, ...] | None:
    """None, an int or a tuple of ints -> sorted normalised axes (None: all)."""
    if axis is None:
        return None
    if isinstance(axis, tuple):
        if not allow_tuple:
            raise TypingError("'tuple' object cannot be interpreted as an integer")
        out = [normalize_axis(a, ndim) for a in axis]
        if len(set(out)) != len(out):
            raise TypingError("duplicate value in 'axis'")
        return tuple(sorted(out))
    return (normalize_axis(axis, ndim),)


def mask_of(axes: tuple[int, ...]) -> int:
    m = 0
    for a in axes:
        m |= 1 << a
    return m


def probe(fn: Callable[[], Any]) -> Any:
    """Run a NumPy call on sample values; its TypeError/ValueError becomes a TypingError."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn()
    except (TypeError, ValueError) as exc:
        raise TypingError(str(exc)) from None


def sample_dtype(t: Type) -> np.dtype:
    if isinstance(t, (ScalarT, ArrayT)):
        return t.dtype.np
    raise TypingError(f"expected an array or a number, got {t}")


def sample_value(t: Type) -> Any:
    """A representative NumPy value of a type: a Python scalar for weak scalars (NEP 50)."""
    if isinstance(t, ScalarT):
        if t.weak:
            return {DType.BOOL: True, DType.INT64: 1, DType.FLOAT64: 1.0, DType.COMPLEX128: 1.0 + 0j}[t.dtype]
        return t.dtype.np.type(1)
    if isinstance(t, ArrayT):
        return np.ones((1,) * t.ndim, t.dtype.np)
    if isinstance(t, DTypeT):
        return t.dtype.np
    if isinstance(t, NoneT):
        return None
    raise TypingError(f"unsupported argument {t}")


def array_operand(t: Type | None, what: str = "a") -> ArrayT:
    """The array a reduction/scan/... works on: arrays, scalars (0-d) and lists of scalars (1-d)."""
    if isinstance(t, ArrayT):
        return t
    if isinstance(t, ScalarT):
        return ArrayT(t.dtype, 0)
    if isinstance(t, ListT) and isinstance(t.elem, ScalarT):
        return ArrayT(t.elem.dtype, 1)
    if isinstance(t, ListT) and isinstance(t.elem, ArrayT):
        return ArrayT(t.elem.dtype, t.elem.ndim + 1)
    raise TypingError(f"argument '{what}': expected an array, got {t}")


def array_expr(t: Type, expr: str) -> str:
    """C++ for the array a value of type t stands for (see array_operand)."""
    if isinstance(t, ArrayT):
        return expr
    if isinstance(t, ScalarT):
        return f"ep::scalar_array({expr})"
    if isinstance(t, ListT) and t.elem is not None:
        elem = t.elem.dtype.cpp  # type: ignore[union-attr]
        return f"ep::array_from_list<{elem}>({expr})"
    raise AssertionError(t)


def dtype_arg(t: Type | None, what: str = "dtype") -> DType | None:
    if t is None or isinstance(t, NoneT):
        return None
    if isinstance(t, DTypeT):
        return t.dtype
    raise TypingError(f"argument '{what}' must be a dtype (np.float64, int, ...), got {t}")


def const_bool(b: Bound, name: str, default: bool = False) -> bool:
    v = b.const(name, default)
    if not isinstance(v, (bool, np.bool_)):
        raise TypingError(f"argument '{name}' must be True or False")
    return bool(v)


# ---------------------------------------------------------------------------
# reductions

_NAMES: dict[str, tuple[str, ...]] = {
    "sum": ("a", "axis", "dtype", "out", "keepdims", "initial", "where"),
    "prod": ("a", "axis", "dtype", "out", "keepdims", "initial", "where"),
    "mean": ("a", "axis", "dtype", "out", "keepdims", "where"),
    "max": ("a", "axis", "out", "keepdims", "initial", "where"),
    "min": ("a", "axis", "out", "keepdims", "initial", "where"),
    "argmax": ("a", "axis", "out", "keepdims"),
    "argmin": ("a", "axis", "out", "keepdims"),
    "any": ("a", "axis", "out", "keepdims", "where"),
    "all": ("a", "axis", "out", "keepdims", "where"),
    "std": ("a", "axis", "dtype", "out", "ddof", "keepdims", "where", "mean", "correction"),
    "var": ("a", "axis", "dtype", "out", "ddof", "keepdims", "where", "mean", "correction"),
    "nansum": ("a", "axis", "dtype", "out", "keepdims", "initial", "where"),
    "nanmean": ("a", "axis", "dtype", "out", "keepdims", "where"),
    "nanmax": ("a", "axis", "out", "keepdims", "initial", "where"),
    "nanmin": ("a", "axis", "out", "keepdims", "initial", "where"),
}
_HAS_DTYPE = {"sum", "prod", "mean", "std", "var", "nansum", "nanmean"}
_ARG = {"argmax", "argmin"}


def _parse(name: str, site: Site | LowerSite) -> tuple[Bound, ArrayT, tuple[int, ...] | None, bool, DType | None]:
    b = Bound(site, _NAMES[name], f"np.{name}")
    if not b.has("a"):
        raise TypingError(f"np.{name}() missing required argument 'a'")
    b.reject_non_none("out", "initial", "where", "mean", "correction")
    a = array_operand(b.type("a"))
    axis_t = b.type("axis")
    axis = None
    if axis_t is not None and not isinstance(axis_t, NoneT):
        axis = normalize_axes(b.const("axis"), a.ndim, allow_tuple=name not in _ARG)
    keep = const_bool(b, "keepdims")
    dt = dtype_arg(b.type("dtype")) if name in _HAS_DTYPE else None
    return b, a, axis, keep, dt


def _result_dtype(name: str, a: ArrayT, dt: DType | None, ddof: Any = 0) -> DType:
    fn = getattr(np, name)
    x = np.ones((2,) * max(a.ndim, 1), a.dtype.np)
    kw: dict[str, Any] = {}
    if dt is not None:
        kw["dtype"] = dt.np
    r = probe(lambda: fn(x, **kw))
    try:
        return DType.of(np.asarray(r).dtype)
    except ValueError as exc:
        raise TypingError(str(exc)) from None


def _make_infer(name: str) -> Callable[[Site], Type]:
    def infer(site: Site) -> Type:
        b, a, axis, keep, dt = _parse(name, site)
        if name in ("std", "var") and b.has("ddof"):
            t = b.type("ddof")
            if not (isinstance(t, ScalarT) and (t.dtype.is_integer or t.dtype.is_float or t.dtype.is_bool)):
                raise TypingError(f"np.{name}(): ddof must be a real number, got {t}")
        out = _result_dtype(name, a, dt)
        if keep:
            return ArrayT(out, a.ndim)
        if axis is None or len(axis) == a.ndim:
            return ScalarT(out)  # NumPy gives a scalar, not a 0-d array, when every axis is reduced
        return ArrayT(out, a.ndim - len(axis))

    return infer


def _accum_dtype(a: ArrayT, dt: DType | None) -> DType:
    """The dtype var/std take their mean in (float64 for integers, the array's own for inexact)."""
    if dt is not None:
        return dt
    if a.dtype.is_integer or a.dtype.is_bool:
        return DType.FLOAT64
    return a.dtype


# full reductions on each path; axis reductions (and keepdims) on loops, simd and threads (_AXIS_KERNELS)
REDUCTION_VARIANTS = (
    Variant("loops", "everypath/everypath.hpp", cost_hint="NumPy's pairwise order, bit-identical"),
    Variant("simd", "everypath/paths/simd/reduce_axis.hpp", cost_hint="xsimd blocks, pairwise block sums",
            min_work=1 << 16),
    # on a loaded 2-core machine a descheduled team member costs milliseconds (measured)
    Variant("threads", "everypath/paths/threads/reduce_axis.hpp", cost_hint="one slab per core", min_work=1 << 22),
    Variant("accelerate", "everypath/paths/accelerate/reduce.hpp", Requirements(os=("darwin",)),
            cost_hint="vDSP sum/max/min", min_work=1 << 12),
    Variant("cuda", "everypath/paths/cuda/reduce.cuh", Requirements(device="cuda"),
            cost_hint="block tree sums on the GPU", min_work=1 << 20),
    Variant("metal", "everypath/paths/metal/reduce.hpp", Requirements(os=("darwin",), device="metal"),
            cost_hint="threadgroup tree sum/max/min on the GPU (float32)", min_work=1 << 20),
)
_PATH_KERNELS = {
    "threads": frozenset({"sum", "nansum", "prod", "max", "min", "nanmax", "nanmin", "mean"}),
    "simd": frozenset({"sum", "max", "min", "mean"}),
    "accelerate": frozenset({"sum", "max", "min", "mean"}),
    "metal": frozenset({"sum", "max", "min", "mean"}),
}

# axis reductions (and keepdims): paths/threads/reduce_axis.hpp; simd: float rows of the
# last axis only (paths/simd/reduce_axis.hpp: over axis 0 the loops kernel is as fast)
_AXIS_KERNELS = {
    "threads": frozenset({"sum", "nansum", "prod", "max", "min", "nanmax", "nanmin", "mean", "any", "all"}),
    "simd": frozenset({"sum", "max", "min", "mean"}),
}


def _check_path(ls: LowerSite, kname: str, src: DType, res: DType) -> None:
    if ls.path == "loops":
        return
    if DType.FLOAT16 in (src, res):
        raise PathNotApplicable("float16 reductions run on the loops path (NumPy's float32 sum per row, rounded once)")
    if kname not in _PATH_KERNELS.get(ls.path, ()):
        raise PathNotApplicable(f"no {ls.path} kernel for {kname}")
    if ls.path in ("simd", "accelerate") and not (src is res and src.is_float):
        raise PathNotApplicable("the simd reductions cover float arrays reduced in their own dtype")
    if ls.path == "metal" and not (src is res is DType.FLOAT32):
        raise PathNotApplicable("the metal reductions cover float32 arrays reduced as float32 (Metal has no double)")


def _make_lower(name: str) -> Callable[[LowerSite], str]:
    cpp = {"max": "max", "min": "min"}.get(name, name)

    def lower(ls: LowerSite) -> str:
        b, a, axis, keep, dt = _parse(name, ls)
        x = array_expr(b.type("a"), b.expr("a"))  # type: ignore[arg-type]
        res = ls.result
        R = res.dtype.cpp  # type: ignore[union-attr]
        full_mask = (1 << a.ndim) - 1
        if axis is not None and len(axis) == a.ndim and not keep:
            axis = None  # every axis reduced: the scalar form
        if name in _ARG:
            if ls.path != "loops" and (axis is None or ls.path != "threads"):
                raise PathNotApplicable("argmax/argmin without axis run on the loops path")
            if axis is None:
                e = f"ep::{name}_all({x})"
                return f"ep::keep_all_dims<{a.ndim}>({e})" if keep else e
            return f"{ls.ns}::{name}_axis<{axis[0]}, {'true' if keep else 'false'}>({x})"
        kname = cpp
        if name == "nanmean" and not (a.dtype.is_float or a.dtype.is_complex):
            kname = "mean"
        if name in ("nanmax", "nanmin") and not (a.dtype.is_float or a.dtype.is_complex):
            kname = name  # fmax/fmin on integers are max/min, but keep NumPy's error name
        tmpl = R
        extra = ""
        if kname == "mean":  # np.mean of float16 accumulates in float32 (numpy/_core/_methods.py _mean)
            tmpl = f"{R}, {'float' if res.dtype is DType.FLOAT16 else R}"  # type: ignore[union-attr]
        if name in ("std", "var"):
            tmpl = f"{R}, {_accum_dtype(a, dt).cpp}"
            ddof = b.expr("ddof") if b.has("ddof") else "0"
            extra = f", static_cast<double>({ddof})"
        if axis is None and not keep:
            _check_path(ls, kname, a.dtype, res.dtype)  # type: ignore[union-attr]
            return f"{ls.ns}::{kname}_all<{tmpl}>({x}{extra})"
        mask = full_mask if axis is None else mask_of(axis)
        if ls.path != "loops" and kname not in _AXIS_KERNELS.get(ls.path, ()):
            raise PathNotApplicable(f"no {ls.path} kernel for {kname} over an axis")
        if ls.path != "loops" and DType.FLOAT16 in (a.dtype, res.dtype):  # type: ignore[union-attr]
            raise PathNotApplicable("float16 reductions run on the loops path")
        if ls.path == "simd" and not (mask == 1 << (a.ndim - 1) and a.dtype is res.dtype and a.dtype.is_float):  # type: ignore[union-attr]
            raise PathNotApplicable("simd axis reductions cover float rows of the last axis in their own dtype")
        return f"{ls.ns}::{kname}_axes<{tmpl}, {mask}u, {'true' if keep else 'false'}>({x}{extra})"

    return lower


_FUNCS = ("sum", "prod", "mean", "max", "min", "argmax", "argmin", "any", "all", "std", "var",
          "nansum", "nanmean", "nanmax", "nanmin")
_METHODS = ("sum", "prod", "mean", "max", "min", "argmax", "argmin", "any", "all", "std", "var")
_NP_ALIASES = {"max": ("numpy.amax",), "min": ("numpy.amin",), "prod": (), "sum": ()}


def declare(reg: Registry) -> None:
    for name in _FUNCS:
        aliases = _NP_ALIASES.get(name, ())
        if name in _METHODS:
            aliases = (*aliases, f"ndarray.{name}")
        reg.add(Operator(f"numpy.{name}", Family.REDUCTION, getattr(np, name), _make_infer(name), _make_lower(name),
                         REDUCTION_VARIANTS, aliases=aliases))


__all__ = ["declare", "Bound", "normalize_axis", "normalize_axes", "mask_of", "probe", "sample_value",
           "sample_dtype", "array_operand", "array_expr", "dtype_arg", "const_bool"]

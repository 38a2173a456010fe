"""NaN-ignoring reductions and scans: np.nanvar, np.nanstd, np.nanprod,
np.nancumsum, np.nancumprod (np.nansum, nanmean, nanmax and nanmin are in
reductions.py, np.nanargmax and nanargmin in searching.py).

Typing runs the NumPy function on a small stand-in array of the operand's
dtype and rank with the call's constant ``axis``/``keepdims``/``dtype``. For
inputs that cannot hold NaN, NumPy itself falls back to the plain function
(np.var, np.prod, ...), and so do the lowerings. C++ kernels:
variants/include/everypath/ops/statistics_nan.hpp.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from everypath.base.types import ArrayT, DType, NoneT, ScalarT, Type
from everypath.variants.ops.reductions import (
    Bound, array_expr, array_operand, const_bool, dtype_arg, mask_of, normalize_axes, normalize_axis,
)
from everypath.variants.probe import call_probe
from everypath.variants.registry import Family, LowerSite, Operator, Registry, Site, TypingError, Variant

HEADER = Variant("loops", "everypath/ops/statistics_nan.hpp")

_NAMES: dict[str, tuple[str, ...]] = {
    "nanvar": ("a", "axis", "dtype", "out", "ddof", "keepdims", "where", "mean", "correction"),
    "nanstd": ("a", "axis", "dtype", "out", "ddof", "keepdims", "where", "mean", "correction"),
    "nanprod": ("a", "axis", "dtype", "out", "keepdims", "initial", "where"),
    "nancumsum": ("a", "axis", "dtype", "out"),
    "nancumprod": ("a", "axis", "dtype", "out"),
}
_REAL = {DType.COMPLEX64: DType.FLOAT32, DType.COMPLEX128: DType.FLOAT64}


class Parsed:
    """A call's operand, constant options and NumPy's result type."""

    def __init__(self, name: str, site: Site | LowerSite) -> None:
        names = _NAMES[name]
        b = Bound(site, names, f"np.{name}")
        if not b.has("a"):
            raise TypingError(f"np.{name}() missing required argument 'a'")
        b.reject_non_none("out", "where", "mean", "correction", "initial")
        self.bound = b
        self.a = array_operand(b.type("a"))
        axis_t = b.type("axis")
        self.axis_given = axis_t is not None and not isinstance(axis_t, NoneT)
        self.keep = const_bool(b, "keepdims") if "keepdims" in names else False
        self.dtype = dtype_arg(b.type("dtype")) if "dtype" in names else None
        if b.has("ddof"):
            t = b.type("ddof")
            if not (isinstance(t, ScalarT) and not t.dtype.is_complex):
                raise TypingError(f"np.{name}(): ddof must be a real number, got {t}")
        kw: dict[str, Any] = {"axis": b.const("axis") if self.axis_given else None}
        if "keepdims" in names:
            kw["keepdims"] = self.keep
        if self.dtype is not None:
            kw["dtype"] = self.dtype.np
        sample = np.arange(1, 3 ** self.a.ndim + 1).reshape((3,) * self.a.ndim).astype(self.a.dtype.np)
        self.result = call_probe(getattr(np, name), sample, **kw)  # first: NumPy's errors and messages
        if not self.axis_given:
            self.axes: tuple[int, ...] = tuple(range(self.a.ndim))
        elif name.startswith("nancum"):
            self.axes = (normalize_axis(b.const("axis"), self.a.ndim),)
        else:
            self.axes = normalize_axes(b.const("axis"), self.a.ndim) or ()

    @property
    def inexact(self) -> bool:
        return self.a.dtype.is_float or self.a.dtype.is_complex

    def x(self) -> str:
        return array_expr(self.bound.type("a"), self.bound.expr("a"))  # type: ignore[arg-type]


def _rdt(t: Type) -> str:
    assert isinstance(t, (ScalarT, ArrayT))
    return t.dtype.cpp


def _infer(name: str) -> Callable[[Site], Type]:
    def infer(site: Site) -> Type:
        return Parsed(name, site).result

    return infer


def _var_lower(name: str) -> Callable[[LowerSite], str]:
    sqrt = name == "nanstd"

    def lower(ls: LowerSite) -> str:
        p = Parsed(name, ls)
        R = _rdt(p.result)
        ddof = f"static_cast<double>({p.bound.expr('ddof')})" if p.bound.has("ddof") else "0.0"
        full = p.axes == tuple(range(p.a.ndim)) and not p.keep
        mask = f"{mask_of(p.axes)}u"
        keep = "true" if p.keep else "false"
        if not p.inexact:  # NumPy calls np.var / np.std: the mean in float64 (or dtype=)
            A = (p.dtype or DType.FLOAT64).cpp
            fn = "std" if sqrt else "var"
            if full:
                return f"ep::{fn}_all<{R}, {A}>({p.x()}, {ddof})"
            return f"ep::{fn}_axes<{R}, {A}, {mask}, {keep}>({p.x()}, {ddof})"
        A = (p.dtype or p.a.dtype).cpp
        S = (p.dtype or _REAL.get(p.a.dtype, p.a.dtype)).cpp
        s = "true" if sqrt else "false"
        if full:
            return f"ep::nanr::nanvar_all<{R}, {A}, {S}, {s}>({p.x()}, {ddof})"
        return f"ep::nanr::nanvar_axes<{R}, {A}, {S}, {s}, {mask}, {keep}>({p.x()}, {ddof})"

    return lower


def _prod_lower(ls: LowerSite) -> str:
    p = Parsed("nanprod", ls)
    R = _rdt(p.result)
    if p.axes == tuple(range(p.a.ndim)) and not p.keep:
        return f"ep::nanprod_all<{R}>({p.x()})"
    return f"ep::nanprod_axes<{R}, {mask_of(p.axes)}u, {'true' if p.keep else 'false'}>({p.x()})"


def _cum_lower(name: str) -> Callable[[LowerSite], str]:
    is_sum = "true" if name == "nancumsum" else "false"

    def lower(ls: LowerSite) -> str:
        p = Parsed(name, ls)
        R = _rdt(p.result)
        if not p.axis_given:
            return f"ep::nanr::nancum_flat<{R}, {is_sum}>({p.x()})"
        return f"ep::nanr::nancum_axis<{R}, {is_sum}, {p.axes[0]}>({p.x()})"

    return lower


def declare(reg: Registry) -> None:
    lowers: dict[str, Callable[[LowerSite], str]] = {
        "nanvar": _var_lower("nanvar"), "nanstd": _var_lower("nanstd"), "nanprod": _prod_lower,
        "nancumsum": _cum_lower("nancumsum"), "nancumprod": _cum_lower("nancumprod"),
    }
    for name, lower in lowers.items():
        family = Family.SCAN if name.startswith("nancum") else Family.REDUCTION
        reg.add(Operator(f"numpy.{name}", family, getattr(np, name), _infer(name), lower, variants=(HEADER,)))


__all__ = ["declare"]

"""np.ptp, np.average, np.cov and np.corrcoef.

Typing runs NumPy on stand-in arrays of the operands' dtypes and ranks with the
call's constant options. Kernels: statistics_more.hpp (ptp, average) and
statistics_cov.hpp (cov, corrcoef). np.average without weights is np.mean
(reduce.hpp's kernel).

np.cov and np.corrcoef squeeze their (k, k) result, so the result rank depends
on the number of variables, a run-time value: one variable given as a 1-d
array types as NumPy's 0-d result, anything else as 2-d, and a single
variable given as a 2-d array raises ValueError at run time (documented in
docs/semantics.md).
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from everypath.base.types import ArrayT, DType, NoneT, ScalarT, Type
from everypath.variants.ops.reductions import (
    Bound, array_expr, array_operand, const_bool, dtype_arg, mask_of, normalize_axes,
)
from everypath.variants.probe import call_probe
from everypath.variants.registry import Family, LowerSite, Operator, Registry, Site, TypingError, Variant

MORE = Variant("loops", "everypath/ops/statistics_more.hpp")
COV = Variant("loops", "everypath/ops/statistics_cov.hpp")


def _sample(a: ArrayT, n: int = 3) -> np.ndarray:
    return np.arange(1, n ** a.ndim + 1).reshape((n,) * a.ndim).astype(a.dtype.np)


def _axes(b: Bound, a: ArrayT) -> tuple[tuple[int, ...], bool, Any]:
    """(reduced axes, axis given, the constant as written)."""
    t = b.type("axis")
    if t is None or isinstance(t, NoneT):
        return tuple(range(a.ndim)), False, None
    raw = b.const("axis")
    return normalize_axes(raw, a.ndim) or (), True, raw


def _raw_axis(b: Bound) -> Any:
    t = b.type("axis")
    return None if t is None or isinstance(t, NoneT) else b.const("axis")


def _dt(t: Type) -> DType:
    assert isinstance(t, (ScalarT, ArrayT)), t
    return t.dtype


# ---- ptp --------------------------------------------------------------------------------

def _ptp_parse(site: Site | LowerSite) -> tuple[Bound, ArrayT, tuple[int, ...], bool, Type]:
    b = Bound(site, ("a", "axis", "out", "keepdims"), "np.ptp")
    if not b.has("a"):
        raise TypingError("np.ptp() missing required argument 'a'")
    b.reject_non_none("out")
    a = array_operand(b.type("a"))
    keep = const_bool(b, "keepdims")
    res = call_probe(np.ptp, _sample(a), axis=_raw_axis(b), keepdims=keep)
    axes, _, _ = _axes(b, a)
    return b, a, axes, keep, res


def _ptp_lower(ls: LowerSite) -> str:
    b, a, axes, keep, _ = _ptp_parse(ls)
    x = array_expr(b.type("a"), b.expr("a"))  # type: ignore[arg-type]
    if len(axes) == a.ndim and not keep:
        return f"ep::ptp_all({x})"
    return f"ep::ptp_axes<{mask_of(axes)}u, {'true' if keep else 'false'}>({x})"


# ---- average ------------------------------------------------------------------------------

def _avg_parse(site: Site | LowerSite) -> tuple[Bound, ArrayT, tuple[int, ...], bool, Any, ArrayT | None, Type]:
    b = Bound(site, ("a", "axis", "weights", "returned", "keepdims"), "np.average")
    if not b.has("a"):
        raise TypingError("np.average() missing required argument 'a'")
    if const_bool(b, "returned"):
        raise TypingError("np.average(returned=True) is not supported")
    a = array_operand(b.type("a"))
    raw = _raw_axis(b)
    if raw is not None:
        call_probe(np.average, _sample(a), axis=raw)  # NumPy's axis errors first
    axes, given, raw = _axes(b, a)
    keep = const_bool(b, "keepdims")
    wt = b.type("weights")
    w = None if wt is None or isinstance(wt, NoneT) else array_operand(wt, "weights")
    kw: dict[str, Any] = {"axis": raw, "keepdims": keep}
    if w is not None:
        if not given and w.ndim != a.ndim:
            raise TypingError("Axis must be specified when shapes of a and weights differ.")
        if w.ndim != a.ndim and w.ndim != len(axes):
            raise TypingError("Shape of weights must be consistent with shape of a along specified axis.")
        kw["weights"] = _sample(w) if w.ndim == a.ndim else np.ones((3,) * w.ndim, w.dtype.np)
    return b, a, axes, keep, raw, w, call_probe(np.average, _sample(a), **kw)


def _avg_lower(ls: LowerSite) -> str:
    b, a, axes, keep, raw, w, result = _avg_parse(ls)
    x = array_expr(b.type("a"), b.expr("a"))  # type: ignore[arg-type]
    R = _dt(result).cpp
    full = len(axes) == a.ndim and not keep
    mask = f"{mask_of(axes)}u"
    k = "true" if keep else "false"
    if w is None:  # a.mean(axis, keepdims)
        return f"ep::mean_all<{R}, {R}>({x})" if full else f"ep::mean_axes<{R}, {R}, {mask}, {k}>({x})"
    wx = array_expr(b.type("weights"), b.expr("weights"))  # type: ignore[arg-type]
    order = (raw,) if isinstance(raw, int) else tuple(raw or ())
    ax = "".join(f", {int(v) % max(a.ndim, 1)}" for v in order)
    none = "true" if raw is None else "false"
    e = f"ep::more::average_w<{R}, {mask}, {k}, {none}{ax}>({x}, {wx})"
    return f"({e}).data[0]" if full and raw is not None else e  # every axis named: NumPy gives a scalar


# ---- cov / corrcoef -----------------------------------------------------------------------

_COV = ("m", "y", "rowvar", "bias", "ddof", "fweights", "aweights", "dtype")
_CORR = ("x", "y", "rowvar", "bias", "ddof", "dtype")


def _cov_parse(name: str, site: Site | LowerSite) -> tuple[Bound, ArrayT, ArrayT | None, Type, bool]:
    first = "m" if name == "cov" else "x"
    b = Bound(site, _COV if name == "cov" else _CORR, f"np.{name}")
    if not b.has(first):
        raise TypingError(f"np.{name}() missing required argument '{first}'")
    b.reject_non_none("fweights", "aweights")
    if name == "corrcoef" and (b.has("bias") or b.has("ddof")):
        raise TypingError("np.corrcoef(): bias and ddof have no effect and are deprecated; leave them out")
    m = array_operand(b.type(first), first)
    yt = b.type("y")
    y = None if yt is None or isinstance(yt, NoneT) else array_operand(yt, "y")
    rowvar = const_bool(b, "rowvar", True)
    kw: dict[str, Any] = {"rowvar": rowvar}
    if name == "cov":
        kw["bias"] = const_bool(b, "bias")
        if b.has("ddof") and not isinstance(b.type("ddof"), NoneT):
            t = b.type("ddof")
            if not (isinstance(t, ScalarT) and (t.dtype.is_integer or t.dtype.is_bool or t.dtype.is_float)):
                raise TypingError(f"np.cov(): ddof must be an integer, got {t}")
    dt = dtype_arg(b.type("dtype"))
    if dt is not None:
        kw["dtype"] = dt.np
    args = [_sample(m)] + ([_sample(y)] if y is not None else [])
    if m.ndim == 2 and y is not None and y.ndim == 2 and not rowvar:
        args[1] = args[1].T.copy()
    result = call_probe(getattr(np, name), *args, **kw)
    return b, m, y, result, rowvar


def _cov_infer(name: str) -> Callable[[Site], Type]:
    def infer(site: Site) -> Type:
        return _cov_parse(name, site)[3]

    return infer


def _cov_lower(name: str) -> Callable[[LowerSite], str]:
    def lower(ls: LowerSite) -> str:
        b, m, y, result, rowvar = _cov_parse(name, ls)
        first = "m" if name == "cov" else "x"
        D = _dt(result).cpp
        rn = result.ndim if isinstance(result, ArrayT) else 0
        mx = array_expr(b.type(first), b.expr(first))  # type: ignore[arg-type]
        yx = "ep::None{}" if y is None else array_expr(b.type("y"), b.expr("y"))  # type: ignore[arg-type]
        rv = "true" if rowvar else "false"
        bias = "true" if name == "cov" and const_bool(b, "bias") else "false"
        has_ddof = b.has("ddof") and not isinstance(b.type("ddof"), NoneT)
        ddof = b.expr("ddof") if has_ddof else "int64_t(0)"
        corr = "true" if name == "corrcoef" else "false"
        return (f"ep::covr::cov_corr<{D}, {rn}, {corr}>({mx}, {yx}, {rv}, {bias}, {ddof}, "
                f"{'true' if has_ddof else 'false'})")

    return lower


def declare(reg: Registry) -> None:
    reg.add(Operator("numpy.ptp", Family.REDUCTION, np.ptp, lambda s: _ptp_parse(s)[4], _ptp_lower, variants=(MORE,)))
    reg.add(Operator("numpy.average", Family.REDUCTION, np.average, lambda s: _avg_parse(s)[6], _avg_lower,
                     variants=(MORE,)))
    for name in ("cov", "corrcoef"):
        reg.add(Operator(f"numpy.{name}", Family.REDUCTION, getattr(np, name), _cov_infer(name), _cov_lower(name),
                         variants=(COV,)))


__all__ = ["declare"]

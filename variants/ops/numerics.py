"""Numerical helpers: np.cross, np.convolve, np.correlate, np.interp,
np.gradient, np.trapezoid and np.ediff1d.

Typing runs the NumPy function on stand-in values of the operands' types
(``sample``), so result dtypes and ranks, NEP 50 weak scalars and NumPy's
error messages are NumPy's own. The dtypes of intermediate steps (NumPy's
formulas promote step by step) are found the same way and passed to the C++
kernels (variants/include/everypath/ops/numerics.hpp, numerics_calc.hpp) as
template arguments.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np

from everypath.base.types import ArrayT, DType, ListT, NoneT, ScalarT, TupleT, Type
from everypath.variants.ops.reductions import Bound, array_expr, array_operand, normalize_axis
from everypath.variants.probe import call_probe
from everypath.variants.registry import Family, LowerSite, Operator, Registry, Site, TypingError, Variant

HEADER = Variant("loops", "everypath/ops/numerics.hpp")
_WEAK = {DType.BOOL: True, DType.INT64: 2, DType.FLOAT64: 2.0, DType.COMPLEX128: 2.0 + 1j}


def sample(t: Type | None, n: int = 3, last: int | None = None) -> Any:
    """A stand-in value of type t: Python scalars stay Python scalars (weak), arrays have
    n elements per axis (``last`` on the last axis), increasing so that NumPy accepts them."""
    if t is None or isinstance(t, NoneT):
        return None
    if isinstance(t, ScalarT):
        return _WEAK[t.dtype] if t.weak else t.dtype.np.type(2)
    if isinstance(t, TupleT):
        return tuple(sample(i) for i in t.items)
    a = array_operand(t)
    shape = (n,) * a.ndim if last is None or a.ndim == 0 else (n,) * (a.ndim - 1) + (last,)
    size = int(np.prod(shape)) if shape else 1
    v = np.arange(1, size + 1).reshape(shape).astype(a.dtype.np)
    return v.tolist() if isinstance(t, ListT) else v


def tuple_dtype(t: TupleT) -> DType:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return DType.of(np.asarray(sample(t)).dtype)


def operand(t: Type | None, expr: str, what: str = "a") -> tuple[int, str]:
    """(rank, C++ array expression) of an array-like operand (arrays, scalars, lists, tuples)."""
    if isinstance(t, TupleT):
        dt = tuple_dtype(t)
        if any(not isinstance(i, ScalarT) for i in t.items):
            raise TypingError(f"argument '{what}': nested sequences are not supported")
        return 1, f"ep::array_from_tuple<{dt.cpp}, 1>({expr}, std::array<ep::index_t, 1>{{{len(t.items)}}})"
    a = array_operand(t, what)
    return a.ndim, array_expr(t, expr)  # type: ignore[arg-type]


def dt_of(t: Type) -> DType:
    if isinstance(t, (ScalarT, ArrayT)):
        return t.dtype
    raise TypingError(f"unexpected result {t}")


def np_dtype(fn: Callable[[], Any]) -> DType:
    """The dtype of a NumPy expression on samples (an intermediate step's dtype)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return DType.of(np.asarray(fn()).dtype)
        except (TypeError, ValueError) as exc:
            raise TypingError(str(exc)) from None


def _bind(name: str, site: Site | LowerSite, names: tuple[str, ...], required: int) -> Bound:
    b = Bound(site, names, f"np.{name}")
    for n in names[:required]:
        if not b.has(n):
            raise TypingError(f"np.{name}() missing required argument '{n}'")
    return b


def _scalar_expr(b: Bound, name: str, default: str) -> str:
    if not b.has(name) or isinstance(b.type(name), NoneT):
        return default
    return b.expr(name)


# ---- cross ------------------------------------------------------------------------------

def _cross(site: Site | LowerSite) -> tuple[Bound, Type]:
    b = _bind("cross", site, ("a", "b", "axisa", "axisb", "axisc", "axis"), 2)
    for k in ("axisa", "axisb", "axisc", "axis"):
        if b.has(k) and b.const(k) not in (None, -1):
            raise TypingError(f"np.cross({k}={b.const(k)!r}) is not supported: vectors lie along the last axis")
    samples = []
    for k in ("a", "b"):
        t = b.type(k)
        if isinstance(t, TupleT):
            samples.append(np.asarray(sample(t)))
        else:
            a = array_operand(t, k)
            samples.append(np.asarray(sample(t, 2, 3)) if a.ndim else sample(t))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return b, call_probe(np.cross, *samples)


def _cross_lower(ls: LowerSite) -> str:
    b, res = _cross(ls)
    _, a = operand(b.type("a"), b.expr("a"), "a")
    _, v = operand(b.type("b"), b.expr("b"), "b")
    rank = res.ndim if isinstance(res, ArrayT) else 0
    return f"ep::num::cross<{dt_of(res).cpp}, {rank}>({a}, {v})"


# ---- convolve / correlate ---------------------------------------------------------------------

_MODES = {"v": 0, "s": 1, "f": 2}


def _corr(name: str, site: Site | LowerSite) -> tuple[Bound, Type, Any]:
    b = _bind(name, site, ("a", "v", "mode"), 2)
    mode = b.const("mode", "full" if name == "convolve" else "valid")
    if isinstance(mode, str):
        if not mode or mode.lower()[0] not in _MODES:
            raise TypingError(f"np.{name}(mode={mode!r}): mode must be 'valid', 'same' or 'full'")
        mode = _MODES[mode.lower()[0]]
    res = call_probe(getattr(np, name), sample(b.type("a"), 3), sample(b.type("v"), 2), mode=mode)
    return b, res, mode


def _corr_lower(name: str) -> Callable[[LowerSite], str]:
    def lower(ls: LowerSite) -> str:
        b, res, mode = _corr(name, ls)
        exprs = []
        for k in ("a", "v"):
            t = b.type(k)
            if isinstance(t, ScalarT):  # np.convolve takes scalars as 1-element arrays
                exprs.append(f"ep::full<{t.dtype.cpp}, 1>({{1}}, {b.expr(k)})")
            else:
                exprs.append(operand(t, b.expr(k), k)[1])
        return f"ep::num::{name}<{dt_of(res).cpp}>({exprs[0]}, {exprs[1]}, int64_t({int(mode)}))"

    return lower


# ---- interp -------------------------------------------------------------------------------------

def _interp(site: Site | LowerSite) -> tuple[Bound, Type]:
    b = _bind("interp", site, ("x", "xp", "fp", "left", "right", "period"), 3)
    for k in ("left", "right", "period"):
        t = b.type(k)
        if t is not None and not isinstance(t, (ScalarT, NoneT)):
            raise TypingError(f"np.interp(): '{k}' must be a number")
    kw = {k: sample(b.type(k)) for k in ("left", "right", "period") if b.has(k)}
    return b, call_probe(np.interp, sample(b.type("x")), sample(b.type("xp")), sample(b.type("fp")), **kw)


def _interp_lower(ls: LowerSite) -> str:
    b, res = _interp(ls)
    xt = b.type("x")
    _, x = operand(xt, b.expr("x"), "x")
    _, xp = operand(b.type("xp"), b.expr("xp"), "xp")
    _, fp = operand(b.type("fp"), b.expr("fp"), "fp")
    extra = ", ".join(_scalar_expr(b, k, "ep::None{}") for k in ("left", "right", "period"))
    e = f"ep::num::interp<{dt_of(res).cpp}>({x}, {xp}, {fp}, {extra})"
    return f"({e}).data[0]" if isinstance(res, ScalarT) else e


# ---- gradient ------------------------------------------------------------------------------------

def _gradient(site: Site | LowerSite) -> tuple[ArrayT, tuple[int, ...], list[Type], int, Type]:
    node = site.node
    kwargs = set(node.kwargs) - {"axis", "edge_order"}
    if kwargs:
        raise TypingError(f"np.gradient() got an unexpected keyword argument '{sorted(kwargs)[0]}'")
    if not node.args:
        raise TypingError("np.gradient() missing required argument 'f'")
    f = array_operand(site.type(0), "f")
    spacing = [site.type(i) for i in range(1, len(node.args))]
    for t in spacing:
        if not isinstance(t, ScalarT):
            raise TypingError("np.gradient(): only scalar spacings are supported (coordinate arrays are not)")
    axis = site.const("axis", None)
    edge = site.const("edge_order", 1)
    res = call_probe(np.gradient, sample(site.type(0), 4), *[sample(t) for t in spacing], axis=axis, edge_order=edge)
    if edge not in (1, 2):
        raise TypingError(f"np.gradient(edge_order={edge!r}) is not supported")
    if axis is None:
        axes = tuple(range(f.ndim))
    else:
        axes = tuple(normalize_axis(a, f.ndim) for a in (axis if isinstance(axis, tuple) else (axis,)))
    dx = spacing * len(axes) if len(spacing) == 1 else spacing
    return f, axes, dx, int(edge), res


def _gradient_lower(ls: LowerSite) -> str:
    f, axes, dxs, edge, res = _gradient(ls)
    F = DType.FLOAT64 if not (f.dtype.is_float or f.dtype.is_complex) else f.dtype
    ones = np.ones(3, F.np)
    fx = array_expr(ls.arg_types[0], ls.args[0])
    if F is not f.dtype:
        fx = f"ep::as_dtype<double>({fx})"
    exprs = []
    for k, ax in enumerate(axes):
        t = dxs[k] if dxs else None
        dx = sample(t) if t is not None else 1.0
        dxe = ls.args[1 + (k if len(ls.args) > 2 else 0)] if dxs else "1.0"
        two = np_dtype(lambda d=dx: 2.0 * d)  # the dtypes of NumPy's steps for this spacing
        ci = np_dtype(lambda d=dx: ones / (2.0 * d))
        ce = np_dtype(lambda d=dx: ones / d)
        ca = np_dtype(lambda d=dx: (-1.5 / d) * ones)
        q = np_dtype(lambda d=dx: -1.5 / d)
        coef = ", ".join(f"static_cast<{ca.cpp}>({q.cpp}({c}) / static_cast<{q.cpp}>({dxe}))"
                         for c in ("-1.5", "2.0", "-0.5", "0.5", "-2.0", "1.5"))
        exprs.append(f"ep::num::gradient_axis<{F.cpp}, {ci.cpp}, {ce.cpp}, {ca.cpp}, {edge}, {ax}>(f, "
                     f"static_cast<{ci.cpp}>({two.cpp}(2.0) * static_cast<{two.cpp}>({dxe})), "
                     f"static_cast<{ce.cpp}>({dxe}), ep::num::Edge2<{ca.cpp}>{{{coef}}})")
    body = exprs[0] if len(exprs) == 1 else f"std::make_tuple({', '.join(exprs)})"
    return f"[&](const auto& f) {{ return {body}; }}({fx})"


# ---- trapezoid / ediff1d -----------------------------------------------------------------------------

def _trapz(site: Site | LowerSite) -> tuple[Bound, ArrayT, int, Type]:
    b = _bind("trapezoid", site, ("y", "x", "dx", "axis"), 1)
    y = array_operand(b.type("y"), "y")
    xt = b.type("x")
    kw: dict[str, Any] = {"axis": b.const("axis", -1)}
    if xt is not None and not isinstance(xt, NoneT):
        x = array_operand(xt, "x")
        kw["x"] = sample(xt)
        if x.ndim not in (1, y.ndim):
            raise TypingError("np.trapezoid(): x must be 1-d or have y's rank")
    elif b.has("dx"):
        if not isinstance(b.type("dx"), ScalarT):
            raise TypingError("np.trapezoid(): dx must be a number")
        kw["dx"] = sample(b.type("dx"))
    res = call_probe(np.trapezoid, sample(b.type("y")), **kw)
    return b, y, normalize_axis(kw["axis"], y.ndim), res


def _trapz_lower(ls: LowerSite) -> str:
    b, y, axis, res = _trapz(ls)
    ys = np.ones(1, y.dtype.np)
    if b.has("x") and not isinstance(b.type("x"), NoneT):
        ds = np.diff(np.asarray(sample(b.type("x"))).reshape(-1))[:1]
        d = array_expr(b.type("x"), b.expr("x"))  # type: ignore[arg-type]
    else:
        ds = sample(b.type("dx")) if b.has("dx") else 1.0
        d = b.expr("dx") if b.has("dx") else "1.0"
    m = np_dtype(lambda: ds * (ys + ys))
    c = np_dtype(lambda: np.ones(3, m.np) / 2.0)
    yx = array_expr(b.type("y"), b.expr("y"))  # type: ignore[arg-type]
    return f"ep::num::trapezoid<{m.cpp}, {c.cpp}, {axis}>({yx}, {d})"


def _ediff(site: Site | LowerSite) -> tuple[Bound, Type]:
    b = _bind("ediff1d", site, ("ary", "to_end", "to_begin"), 1)
    kw = {k: sample(b.type(k)) for k in ("to_end", "to_begin") if b.has(k)}
    return b, call_probe(np.ediff1d, sample(b.type("ary")), **kw)


def _ediff_lower(ls: LowerSite) -> str:
    b, _ = _ediff(ls)
    _, x = operand(b.type("ary"), b.expr("ary"), "ary")
    extra = []
    for k in ("to_end", "to_begin"):
        t = b.type(k)
        if t is None or isinstance(t, NoneT):
            extra.append("ep::None{}")
        elif isinstance(t, ScalarT):
            extra.append(b.expr(k))
        else:
            extra.append(operand(t, b.expr(k), k)[1])
    return f"ep::num::ediff1d({x}, {extra[0]}, {extra[1]})"


def _infer(parse: Callable[[Site], Any], pick: int) -> Callable[[Site], Type]:
    def infer(site: Site) -> Type:
        return parse(site)[pick]

    return infer


def declare(reg: Registry) -> None:
    add = lambda key, ref, infer, lower: reg.add(  # noqa: E731
        Operator(key, Family.LINALG, ref, infer, lower, variants=(HEADER,)))
    add("numpy.cross", np.cross, _infer(_cross, 1), _cross_lower)
    for name in ("convolve", "correlate"):
        add(f"numpy.{name}", getattr(np, name), _infer(lambda s, n=name: _corr(n, s), 1), _corr_lower(name))
    add("numpy.interp", np.interp, _infer(_interp, 1), _interp_lower)
    add("numpy.gradient", np.gradient, _infer(_gradient, 4), _gradient_lower)
    add("numpy.trapezoid", np.trapezoid, _infer(_trapz, 3), _trapz_lower)
    add("numpy.ediff1d", np.ediff1d, _infer(_ediff, 1), _ediff_lower)


__all__ = ["declare", "sample", "operand", "np_dtype", "dt_of"]

"""Element-wise helpers that take keyword options: np.isclose, np.allclose,
np.array_equal, np.array_equiv, np.nan_to_num, np.round / np.around /
ndarray.round, np.real, np.imag and np.angle.

Keyword options keep them out of element-wise fusion (a fused loop sees only
positional operands), so each is an ordinary operator whose kernel is one
pass over the data (variants/include/everypath/ops/numerics_elem.hpp).
Typing asks NumPy (``call_probe`` on stand-in values); the dtypes of the
intermediate steps of np.isclose's formula are found the same way.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np

from everypath.base.types import BOOL, DType, ListT, NoneT, ScalarT, Type
from everypath.variants.attributes import attribute_lower, attribute_type
from everypath.variants.ops.numerics import dt_of, np_dtype, sample
from everypath.variants.ops.reductions import Bound, array_expr, array_operand, const_bool
from everypath.variants.probe import call_probe
from everypath.variants.registry import Family, LowerSite, Operator, Registry, Site, TypingError, Variant

HEADER = Variant("loops", "everypath/ops/numerics_elem.hpp")


def _bind(name: str, site: Site | LowerSite, names: tuple[str, ...], required: int, fname: str = "") -> Bound:
    b = Bound(site, names, fname or f"np.{name}")
    for n in names[:required]:
        if not b.has(n):
            raise TypingError(f"{fname or 'np.' + name}() missing required argument '{n}'")
    return b


def _one(t: Type) -> Any:
    """A dtype stand-in: a Python scalar for weak scalars, else a 1-element array."""
    if isinstance(t, ScalarT) and t.weak:
        return sample(t)
    if isinstance(t, ScalarT):
        return np.ones(1, t.dtype.np)
    return np.ones(1, array_operand(t).dtype.np)


def _arr_or_scalar(t: Type | None, expr: str) -> tuple[int, str]:
    """(rank or -1 for a scalar, C++ expression)."""
    if isinstance(t, ScalarT):
        return -1, expr
    a = array_operand(t)
    return a.ndim, array_expr(t, expr)  # type: ignore[arg-type]


def _flag(b: Bound, name: str, default: bool) -> str:
    if not b.has(name):
        return "true" if default else "false"
    t = b.type(name)
    if not isinstance(t, ScalarT):
        raise TypingError(f"argument '{name}' must be True or False")
    return f"static_cast<bool>({b.expr(name)})" if not b.is_const(name) else ("true" if b.const(name) else "false")


# ---- isclose / allclose -----------------------------------------------------------------------

_CLOSE = ("a", "b", "rtol", "atol", "equal_nan")


def _close(name: str, site: Site | LowerSite) -> tuple[Bound, Type]:
    b = _bind(name, site, _CLOSE, 2)
    for k in ("rtol", "atol"):
        t = b.type(k)
        if t is not None and not isinstance(t, ScalarT):
            raise TypingError(f"np.{name}(): {k} must be a number (tolerance arrays are not supported)")
    kw = {k: sample(b.type(k)) for k in ("rtol", "atol") if b.has(k)}
    if b.has("equal_nan"):
        kw["equal_nan"] = True
    res = call_probe(getattr(np, name), sample(b.type("a")), sample(b.type("b")), **kw)
    return b, res


def _loop_operand(v: Any) -> Any:
    """What ufunc.resolve_dtypes takes for a value: its dtype, or the Python type of a weak scalar."""
    if hasattr(v, "dtype"):
        return v.dtype
    return np.dtype(bool) if isinstance(v, bool) else type(v)


def _close_types(b: Bound) -> str:
    x, y = _one(b.type("a")), _one(b.type("b"))
    rtol = sample(b.type("rtol")) if b.has("rtol") else 1e-5
    atol = sample(b.type("atol")) if b.has("atol") else 1e-8
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if hasattr(y, "dtype"):
            y = np.asarray(y, dtype=np.result_type(y, 1.0))
        elif isinstance(y, int):
            y = float(y)
        yp = np_dtype(lambda: y)
        d = np_dtype(lambda: x - y)
        rd = np_dtype(lambda: abs(x - y))
        rhs = np_dtype(lambda: atol + rtol * abs(y))
        cmp = DType.of(np.promote_types(rd.np, rhs.np))
        eq = DType.of(np.equal.resolve_dtypes((_loop_operand(x), _loop_operand(y), None))[0])
    return f"ep::nume::Close<{yp.cpp}, {d.cpp}, {rd.cpp}, {rhs.cpp}, {cmp.cpp}, {eq.cpp}>"


def _close_lower(name: str) -> Callable[[LowerSite], str]:
    def lower(ls: LowerSite) -> str:
        b, _ = _close(name, ls)
        na, x = _arr_or_scalar(b.type("a"), b.expr("a"))
        nb, y = _arr_or_scalar(b.type("b"), b.expr("b"))
        n = max(na, nb)
        rtol = b.expr("rtol") if b.has("rtol") else "1e-05"
        atol = b.expr("atol") if b.has("atol") else "1e-08"
        args = f"{x}, {y}, {atol}, {rtol}, {_flag(b, 'equal_nan', False)}"
        return f"ep::nume::{name}<{_close_types(b)}, {n if name == 'isclose' else max(n, 0)}>({args})"

    return lower


# ---- array_equal / array_equiv ------------------------------------------------------------------

def _equal(name: str, site: Site | LowerSite) -> tuple[Bound, Type]:
    names = ("a1", "a2", "equal_nan") if name == "array_equal" else ("a1", "a2")
    b = _bind(name, site, names, 2)
    kw = {"equal_nan": True} if b.has("equal_nan") else {}
    call_probe(getattr(np, name), sample(b.type("a1")), sample(b.type("a2")), **kw)
    return b, BOOL


def _equal_lower(name: str) -> Callable[[LowerSite], str]:
    def lower(ls: LowerSite) -> str:
        b, _ = _equal(name, ls)
        ta, tb = (array_operand(b.type(k), k) for k in ("a1", "a2"))
        eq = DType.of(np.equal.resolve_dtypes((ta.dtype.np, tb.dtype.np, None))[0])
        a = array_expr(b.type("a1"), b.expr("a1"))  # type: ignore[arg-type]
        c = array_expr(b.type("a2"), b.expr("a2"))  # type: ignore[arg-type]
        if name == "array_equiv":
            return f"ep::nume::array_equiv<{eq.cpp}>({a}, {c})"
        return f"ep::nume::array_equal<{eq.cpp}>({a}, {c}, {_flag(b, 'equal_nan', False)})"

    return lower


# ---- nan_to_num ------------------------------------------------------------------------------------

_NTN = ("x", "copy", "nan", "posinf", "neginf")


def _ntn(site: Site | LowerSite) -> tuple[Bound, Type]:
    b = _bind("nan_to_num", site, _NTN, 1)
    for k in ("nan", "posinf", "neginf"):
        t = b.type(k)
        if t is not None and not isinstance(t, (ScalarT, NoneT)):
            raise TypingError(f"np.nan_to_num(): {k} must be a number (arrays are not supported)")
    kw = {k: sample(b.type(k)) for k in ("nan", "posinf", "neginf") if b.has(k)}
    return b, call_probe(np.nan_to_num, sample(b.type("x")), copy=const_bool(b, "copy", True), **kw)


def _ntn_lower(ls: LowerSite) -> str:
    b, res = _ntn(ls)
    extra = ", ".join(b.expr(k) if b.has(k) else "ep::None{}" for k in ("nan", "posinf", "neginf"))
    if isinstance(res, ScalarT):
        T = res.dtype.cpp
        return f"ep::nume::fix_value(static_cast<{T}>({b.expr('x')}), {extra})"
    x = array_expr(b.type("x"), b.expr("x"))  # type: ignore[arg-type]
    copy = "true" if const_bool(b, "copy", True) or isinstance(b.type("x"), ListT) else "false"
    return f"ep::nume::nan_to_num({x}, {copy}, {extra})"


# ---- round / around / ndarray.round ---------------------------------------------------------------

def _round(key: str, site: Site | LowerSite) -> tuple[Bound, Type]:
    fname = "round" if key == "ndarray.round" else key.split(".")[1]
    b = _bind(fname, site, ("a", "decimals", "out"), 1, "a.round" if key == "ndarray.round" else "")
    b.reject_non_none("out")
    if b.has("decimals"):
        t = b.type("decimals")
        if not (isinstance(t, ScalarT) and (t.dtype.is_integer or t.dtype.is_bool)):
            raise TypingError(f"'{t}' object cannot be interpreted as an integer")
    decimals = (b.const("decimals") if b.is_const("decimals") else 1) if b.has("decimals") else 0
    res = call_probe(np.round, sample(b.type("a")), decimals)
    return b, res


def _round_lower(key: str) -> Callable[[LowerSite], str]:
    def lower(ls: LowerSite) -> str:
        b, res = _round(key, ls)
        d = f"static_cast<int64_t>({b.expr('decimals')})" if b.has("decimals") else "int64_t(0)"
        if isinstance(res, ScalarT):
            return f"ep::nume::round_value(static_cast<{res.dtype.cpp}>({b.expr('a')}), {d})"
        return f"ep::nume::round({array_expr(b.type('a'), b.expr('a'))}, {d})"  # type: ignore[arg-type]

    return lower


# ---- real / imag / angle ------------------------------------------------------------------------------

def _part(name: str) -> tuple[Callable[[Site], Type], Callable[[LowerSite], str]]:
    def base(site: Site | LowerSite) -> Type:
        b = _bind(name, site, ("val",), 1)
        t = b.type("val")
        return t if isinstance(t, ScalarT) else array_operand(t, "val")

    def infer(site: Site) -> Type:
        return attribute_type(base(site), name)

    def lower(ls: LowerSite) -> str:
        t = base(ls)
        e = ls.args[0] if ls.args else ls.kwargs["val"]
        src = ls.arg_types[0] if ls.args else ls.kw_types["val"]
        if not isinstance(src, ScalarT):
            e = array_expr(src, e)
        return attribute_lower(t, e, name, ls.result, ls.ctype)

    return infer, lower


def _angle(site: Site | LowerSite) -> tuple[Bound, Type]:
    b = _bind("angle", site, ("z", "deg"), 1)
    return b, call_probe(np.angle, sample(b.type("z")), deg=True if b.has("deg") else False)


def _angle_lower(ls: LowerSite) -> str:
    b, res = _angle(ls)
    R = dt_of(res).cpp
    deg = _flag(b, "deg", False)
    if isinstance(res, ScalarT):
        return f"ep::nume::angle_value<{R}>({b.expr('z')}, {deg})"
    return f"ep::nume::angle<{R}>({array_expr(b.type('z'), b.expr('z'))}, {deg})"  # type: ignore[arg-type]


def _infer(parse: Callable[[Site], Any]) -> Callable[[Site], Type]:
    return lambda site: parse(site)[1]


def declare(reg: Registry) -> None:
    def add(key: str, ref: Any, infer: Callable[[Site], Type], lower: Callable[[LowerSite], str],
            aliases: tuple[str, ...] = ()) -> None:
        reg.add(Operator(key, Family.ELEMENTWISE, ref, infer, lower, variants=(HEADER,), aliases=aliases))

    for name in ("isclose", "allclose"):
        add(f"numpy.{name}", getattr(np, name), _infer(lambda s, n=name: _close(n, s)), _close_lower(name))
    for name in ("array_equal", "array_equiv"):
        add(f"numpy.{name}", getattr(np, name), _infer(lambda s, n=name: _equal(n, s)), _equal_lower(name))
    add("numpy.nan_to_num", np.nan_to_num, _infer(_ntn), _ntn_lower)
    for key in ("numpy.round", "numpy.around", "ndarray.round"):
        ref = np.ndarray.round if key == "ndarray.round" else getattr(np, key.split(".")[1])
        add(key, ref, _infer(lambda s, k=key: _round(k, s)), _round_lower(key))
    for name in ("real", "imag"):
        infer, lower = _part(name)
        add(f"numpy.{name}", getattr(np, name), infer, lower)
    add("numpy.angle", np.angle, _infer(_angle), _angle_lower)


__all__ = ["declare"]

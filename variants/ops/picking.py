"""Indexing routines: np.take / ndarray.take, np.put / ndarray.put,
np.take_along_axis, np.put_along_axis, np.select, np.choose / ndarray.choose,
np.compress / ndarray.compress, np.extract and np.place.

Constant arguments (axis, mode) become template arguments; index and value
operands may be arrays, scalars, lists or tuples. put, put_along_axis and
place write into their first argument and return None, as in NumPy
(lowering/effects.py knows they write). C++ kernels:
variants/include/everypath/ops/pick.hpp.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from everypath.base.types import ArrayT, ListT, NoneT, ScalarT, TupleT, Type
from everypath.variants.ops.reductions import Bound, normalize_axis
from everypath.variants.ops.sorting import dtype_of, operand, operand_expr, probe_type, real_array, sample
from everypath.variants.registry import Family, LowerSite, Operator, Registry, Site, TypingError, Variant

PICK_HPP = (Variant("loops", "everypath/ops/pick.hpp"),)
_MODES = {"raise": 0, "wrap": 1, "clip": 2}


def _mode(b: Bound) -> int:
    m = b.const("mode", "raise")
    return _MODES.get(m, 0) if isinstance(m, str) else 0


def _axis(b: Bound, a: ArrayT, default: Any = None) -> int:
    """A constant axis; -1 for None (and for 0-d arrays, which NumPy treats as flat)."""
    ax = b.const("axis", default)
    if ax is None or a.ndim == 0:
        return -1
    return normalize_axis(ax, a.ndim)


def _value_type(t: Type | None, what: str) -> None:
    if not isinstance(t, (ArrayT, ScalarT, ListT, TupleT)):
        raise TypingError(f"argument '{what}': expected an array, a number or a sequence, got {t}")


def _array_of(site: Site | LowerSite, b: Bound, name: str) -> ArrayT:
    fname = site.key.replace("numpy.", "np.")
    if site.key.startswith("ndarray.") or site.key in ("numpy.put", "numpy.place", "numpy.put_along_axis"):
        return real_array(b.type(name), fname)
    return operand(b.type(name), name)


def _require(b: Bound, fname: str, *names: str) -> None:
    for n in names:
        if not b.has(n):
            raise TypingError(f"{fname}() missing required argument '{n}'")


# ---------------------------------------------------------------------------
# take / put

_TAKE = ("a", "indices", "axis", "out", "mode")


def _take_parts(site: Site | LowerSite) -> tuple[Bound, ArrayT, Type]:
    fname = site.key.replace("numpy.", "np.")
    b = Bound(site, _TAKE, fname)
    _require(b, fname, "a", "indices")
    b.reject_non_none("out")
    a = _array_of(site, b, "a")
    _value_type(b.type("indices"), "indices")
    result = probe_type(np.take, sample(a), sample(b.type("indices"), zero=True), axis=b.const("axis", None),
                        mode=b.const("mode", "raise"))
    return b, a, result


def _take_infer(site: Site) -> Type:
    return _take_parts(site)[2]


def _take_lower(ls: LowerSite) -> str:
    b, a, _ = _take_parts(ls)
    x = operand_expr(b.type("a"), b.expr("a"))  # type: ignore[arg-type]
    it = b.type("indices")
    i = b.expr("indices") if isinstance(it, (ArrayT, ScalarT)) else operand_expr(it, b.expr("indices"))  # type: ignore[arg-type]
    return f"ep::take<{_axis(b, a)}, {_mode(b)}>({x}, {i})"


_PUT = {"numpy.put": ("a", "ind", "v", "mode"), "ndarray.put": ("a", "indices", "values", "mode")}


def _put_parts(site: Site | LowerSite) -> tuple[Bound, str, str]:
    fname = site.key.replace("numpy.", "np.")
    names = _PUT[site.key]
    b = Bound(site, names, fname)
    _require(b, fname, *names[:3])
    a = _array_of(site, b, "a")
    for n in names[1:3]:
        _value_type(b.type(n), n)
    x = sample(a)
    probe_type(lambda: (np.put(x, sample(b.type(names[1]), zero=True), sample(b.type(names[2])),
                               mode=b.const("mode", "raise")), x)[1])
    return b, names[1], names[2]


def _put_infer(site: Site) -> Type:
    _put_parts(site)
    return NoneT()


def _put_lower(ls: LowerSite) -> str:
    b, ind, v = _put_parts(ls)
    return f"ep::put<{_mode(b)}>({b.expr('a')}, {b.expr(ind)}, {b.expr(v)})"


# ---------------------------------------------------------------------------
# take_along_axis / put_along_axis


def _along_parts(site: Site | LowerSite) -> tuple[Bound, int, Type]:
    fname = site.key.replace("numpy.", "np.")
    put = site.key == "numpy.put_along_axis"
    names = ("arr", "indices", "values", "axis") if put else ("arr", "indices", "axis")
    b = Bound(site, names, fname)
    _require(b, fname, *(names if put else names[:2]))
    a = real_array(b.type("arr"), fname) if put else operand(b.type("arr"), "arr")
    it = b.type("indices")
    if not isinstance(it, ArrayT):
        raise TypingError(f"{fname}(): indices must be an integer array, got {it}")
    axis = b.const("axis", -1)
    x, i = sample(a), sample(it, zero=True)
    if put:
        _value_type(b.type("values"), "values")
        probe_type(lambda: (np.put_along_axis(x, i, sample(b.type("values")), axis), x)[1])
        result: Type = NoneT()
    else:
        result = probe_type(np.take_along_axis, x, i, axis=axis)
    return b, (-1 if axis is None else normalize_axis(axis, a.ndim)), result


def _along_infer(site: Site) -> Type:
    return _along_parts(site)[2]


def _along_lower(ls: LowerSite) -> str:
    b, axis, _ = _along_parts(ls)
    if ls.key == "numpy.put_along_axis":
        v = b.type("values")
        vx = b.expr("values") if isinstance(v, (ArrayT, ScalarT)) else operand_expr(v, b.expr("values"))  # type: ignore[arg-type]
        return f"ep::put_along_axis<{axis}>({b.expr('arr')}, {b.expr('indices')}, {vx})"
    x = operand_expr(b.type("arr"), b.expr("arr"))  # type: ignore[arg-type]
    return f"ep::take_along_axis<{axis}>({x}, {b.expr('indices')})"


# ---------------------------------------------------------------------------
# select / choose


def _seq(t: Type | None, what: str) -> None:
    if not isinstance(t, (TupleT, ListT)):
        raise TypingError(f"{what} must be a list or tuple, got {t}")
    items = t.items if isinstance(t, TupleT) else ((t.elem,) if t.elem is not None else ())
    for i in items:
        if not isinstance(i, (ArrayT, ScalarT)):
            raise TypingError(f"{what}: expected arrays or numbers, got {i}")


def _select_infer(site: Site) -> Type:
    b = Bound(site, ("condlist", "choicelist", "default"), "np.select")
    _require(b, "np.select", "condlist", "choicelist")
    _seq(b.type("condlist"), "condlist")
    _seq(b.type("choicelist"), "choicelist")
    d = b.type("default")
    if d is not None and not isinstance(d, (ArrayT, ScalarT)):
        raise TypingError(f"np.select(): default must be an array or a number, got {d}")
    ct, vt = b.type("condlist"), b.type("choicelist")
    conds, choices = list(sample(ct)), list(sample(vt))
    # a list's length is known at run time only: let it match the other sequence
    if isinstance(ct, ListT) and conds:
        conds = conds[:1] * (len(choices) if isinstance(vt, TupleT) else 1)
    if isinstance(vt, ListT) and choices:
        choices = choices[:1] * (len(conds) if isinstance(ct, TupleT) else 1)
    return probe_type(np.select, conds, choices, 0 if d is None else sample(d))


def _select_lower(ls: LowerSite) -> str:
    b = Bound(ls, ("condlist", "choicelist", "default"), "np.select")
    res = ls.result
    nd = res.ndim if isinstance(res, ArrayT) else 0
    d = b.expr("default") if b.has("default") else "int64_t(0)"
    return f"ep::select<{dtype_of(res).cpp}, {nd}>({b.expr('condlist')}, {b.expr('choicelist')}, {d})"


_CHOOSE = ("a", "choices", "out", "mode")


def _choose_parts(site: Site | LowerSite) -> tuple[Bound, Type]:
    fname = site.key.replace("numpy.", "np.")
    b = Bound(site, _CHOOSE, fname)
    _require(b, fname, "a", "choices")
    b.reject_non_none("out")
    a = _array_of(site, b, "a")
    ct = b.type("choices")
    if not isinstance(ct, ArrayT):
        _seq(ct, "choices")
    choices = sample(ct) if isinstance(ct, ArrayT) else list(sample(ct))
    result = probe_type(np.choose, sample(a, zero=True), choices, mode=b.const("mode", "raise"))
    return b, result


def _choose_infer(site: Site) -> Type:
    return _choose_parts(site)[1]


def _choose_lower(ls: LowerSite) -> str:
    b, res = _choose_parts(ls)
    nd = res.ndim if isinstance(res, ArrayT) else 0
    x = operand_expr(b.type("a"), b.expr("a"))  # type: ignore[arg-type]
    return f"ep::choose<{dtype_of(res).cpp}, {nd}, {_mode(b)}>({x}, {b.expr('choices')})"


# ---------------------------------------------------------------------------
# compress / extract / place

_COMPRESS = {"numpy.compress": ("condition", "a", "axis", "out"), "ndarray.compress": ("a", "condition", "axis", "out")}


def _compress_parts(site: Site | LowerSite) -> tuple[Bound, ArrayT, Type]:
    fname = site.key.replace("numpy.", "np.")
    b = Bound(site, _COMPRESS[site.key], fname)
    _require(b, fname, "condition", "a")
    b.reject_non_none("out")
    a = _array_of(site, b, "a")
    _value_type(b.type("condition"), "condition")
    c = sample(b.type("condition"))
    result = probe_type(np.compress, np.asarray(c) if isinstance(c, list) else c, sample(a),
                        axis=b.const("axis", None))
    return b, a, result


def _compress_infer(site: Site) -> Type:
    return _compress_parts(site)[2]


def _compress_lower(ls: LowerSite) -> str:
    b, a, _ = _compress_parts(ls)
    x = operand_expr(b.type("a"), b.expr("a"))  # type: ignore[arg-type]
    return f"ep::compress<{_axis(b, a)}>({b.expr('condition')}, {x})"


def _extract_infer(site: Site) -> Type:
    b = Bound(site, ("condition", "arr"), "np.extract")
    _require(b, "np.extract", "condition", "arr")
    return probe_type(np.extract, sample(operand(b.type("condition"))), sample(operand(b.type("arr"))))


def _extract_lower(ls: LowerSite) -> str:
    b = Bound(ls, ("condition", "arr"), "np.extract")
    c = operand_expr(b.type("condition"), b.expr("condition"))  # type: ignore[arg-type]
    return f"ep::extract({c}, {operand_expr(b.type('arr'), b.expr('arr'))})"  # type: ignore[arg-type]


def _place_parts(site: Site | LowerSite) -> Bound:
    b = Bound(site, ("arr", "mask", "vals"), "np.place")
    _require(b, "np.place", "arr", "mask", "vals")
    a = real_array(b.type("arr"), "np.place")
    m = operand(b.type("mask"), "mask")
    _value_type(b.type("vals"), "vals")
    x = sample(a)
    probe_type(lambda: (np.place(x, sample(m), sample(b.type("vals"))), x)[1])
    return b


def _place_infer(site: Site) -> Type:
    _place_parts(site)
    return NoneT()


def _place_lower(ls: LowerSite) -> str:
    b = _place_parts(ls)
    m = operand_expr(b.type("mask"), b.expr("mask"))  # type: ignore[arg-type]
    return f"ep::place({b.expr('arr')}, {m}, {b.expr('vals')})"


def declare(reg: Registry) -> None:
    ops = [("numpy.take", np.take, _take_infer, _take_lower), ("ndarray.take", np.ndarray.take, _take_infer, _take_lower),
           ("numpy.put", np.put, _put_infer, _put_lower), ("ndarray.put", np.ndarray.put, _put_infer, _put_lower),
           ("numpy.take_along_axis", np.take_along_axis, _along_infer, _along_lower),
           ("numpy.put_along_axis", np.put_along_axis, _along_infer, _along_lower),
           ("numpy.select", np.select, _select_infer, _select_lower),
           ("numpy.choose", np.choose, _choose_infer, _choose_lower),
           ("ndarray.choose", np.ndarray.choose, _choose_infer, _choose_lower),
           ("numpy.compress", np.compress, _compress_infer, _compress_lower),
           ("ndarray.compress", np.ndarray.compress, _compress_infer, _compress_lower),
           ("numpy.extract", np.extract, _extract_infer, _extract_lower),
           ("numpy.place", np.place, _place_infer, _place_lower)]
    for key, ref, infer, lower in ops:
        reg.add(Operator(key, Family.INDEXING, ref, infer, lower, PICK_HPP))


__all__ = ["declare", "PICK_HPP"]

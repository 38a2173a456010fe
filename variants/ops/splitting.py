"""Splitting and stacking: np.split, array_split, hsplit, vsplit, dsplit (a list
of views, as NumPy's), np.column_stack and np.dstack.

The sections may be an integer (how many) or the split points (a tuple, a
list or an integer array), known at run time; the axis is a compile-time
constant. The result is a ``list[<array>]``: index it, iterate it or take
its len(). C++ kernels: variants/include/everypath/ops/split.hpp.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from everypath.base.types import ArrayT, ListT, ScalarT, TupleT, Type
from everypath.variants.ops._manip import is_int, operand, operand_expr
from everypath.variants.ops.reductions import Bound
from everypath.variants.probe import call_probe, probe as probe_value
from everypath.variants.registry import Family, LowerSite, Operator, Registry, Site, TypingError, Variant

SPLIT = (Variant("loops", "everypath/ops/split.hpp"),)

# the axis hsplit / vsplit / dsplit split along, and the rank they need
_FIXED = {"hsplit": (None, 1), "vsplit": (0, 2), "dsplit": (2, 3)}


def _sections_ok(t: Type | None) -> None:
    if is_int(t):
        return
    if isinstance(t, TupleT) and all(is_int(i) for i in t.items):
        return
    if isinstance(t, ListT) and (t.elem is None or is_int(t.elem)):
        return
    if isinstance(t, ArrayT) and t.ndim == 1 and (t.dtype.is_integer or t.dtype.is_bool):
        return
    if isinstance(t, ArrayT) and t.ndim == 1:
        raise TypingError("slice indices must be integers or None or have an __index__ method")
    raise TypingError(f"indices_or_sections must be an integer or a sequence of integers, got {t}")


def _split_parts(fname: str, site: Site | LowerSite) -> tuple[Bound, ArrayT, int]:
    names = ("ary", "indices_or_sections") + (() if fname in _FIXED else ("axis",))
    b = Bound(site, names, f"np.{fname}")
    a = operand(b, "ary")
    if not b.has("indices_or_sections"):
        raise TypingError(f"{fname}() missing 1 required positional argument: 'indices_or_sections'")
    _sections_ok(b.type("indices_or_sections"))
    if fname in _FIXED:
        axis, need = _FIXED[fname]
        if a.ndim < need:
            more = {"hsplit": 1, "vsplit": 2, "dsplit": 3}[fname]
            raise TypingError(f"{fname} only works on arrays of {more} or more dimensions")
        if axis is None:
            axis = 1 if a.ndim > 1 else 0
        return b, a, axis
    axis = b.const("axis", 0)
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypingError(f"'{type(axis).__name__}' object cannot be interpreted as an integer")
    if not -a.ndim <= axis < a.ndim:
        raise TypingError("tuple index out of range")  # NumPy reads ary.shape[axis]
    return b, a, int(axis) % a.ndim


def _split_infer(fname: str) -> Callable[[Site], Type]:
    def infer(site: Site) -> Type:
        _, a, _ = _split_parts(fname, site)
        return ListT(ArrayT(a.dtype, a.ndim))

    return infer


def _split_lower(fname: str) -> Callable[[LowerSite], str]:
    equal = "false" if fname == "array_split" else "true"

    def lower(ls: LowerSite) -> str:
        b, _, axis = _split_parts(fname, ls)
        return f"ep::array_split<{equal}>({operand_expr(b, 'ary')}, {b.expr('indices_or_sections')}, {axis})"

    return lower


# ---- column_stack / dstack --------------------------------------------------------------


def _stack_items(t: Type | None, fname: str) -> None:
    items = t.items if isinstance(t, TupleT) else ((t.elem,) if isinstance(t, ListT) else None)
    if not items or any(i is None for i in items):
        raise TypingError("need at least one array to concatenate")
    if isinstance(t, ListT) and not isinstance(t.elem, ArrayT):
        raise TypingError(f"np.{fname}(): expected a list of arrays, got {t}")
    for i in items:
        if not isinstance(i, (ArrayT, ScalarT)):
            raise TypingError(f"np.{fname}(): expected a tuple or list of arrays, got {t}")


def _stack_infer(fname: str) -> Callable[[Site], Type]:
    def infer(site: Site) -> Type:
        b = Bound(site, ("tup",), f"np.{fname}")
        t = b.type("tup")
        _stack_items(t, fname)
        sample = [probe_value(t.elem)] if isinstance(t, ListT) else probe_value(t)  # type: ignore[arg-type]
        return call_probe(getattr(np, fname), sample)  # NumPy's dtype, rank and errors

    return infer


def _stack_lower(fname: str) -> Callable[[LowerSite], str]:
    def lower(ls: LowerSite) -> str:
        res: ArrayT = ls.result  # type: ignore[assignment]
        return f"ep::{fname}<{res.dtype.cpp}, {res.ndim}>({ls.args[0]})"

    return lower


def declare(reg: Registry) -> None:
    for name in ("split", "array_split", "hsplit", "vsplit", "dsplit"):
        reg.add(Operator(f"numpy.{name}", Family.SHAPE, getattr(np, name), _split_infer(name), _split_lower(name),
                         SPLIT))
    for name in ("column_stack", "dstack"):
        reg.add(Operator(f"numpy.{name}", Family.SHAPE, getattr(np, name), _stack_infer(name), _stack_lower(name),
                         SPLIT))


__all__ = ["declare"]

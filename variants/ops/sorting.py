"""Sorting: np.sort / ndarray.sort, np.argsort / ndarray.argsort, np.partition /
ndarray.partition, np.argpartition / ndarray.argpartition, np.lexsort and
np.sort_complex.

Typing runs NumPy itself on stand-in values (variants/probe.py), so result
dtypes and the errors for bad constant arguments (axis, kind, ...) are
NumPy's own. ``axis`` must be a compile-time constant; it becomes a template
argument of the C++ kernels (variants/include/everypath/ops/sort.hpp), with
-1 standing for axis=None. argsort is always stable (ties keep their input
order), which NumPy allows for every ``kind``.

This module also holds the small helpers the other families of this group
share (searching, counting, setops, picking).
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from everypath.base.types import ArrayT, DType, ListT, NoneT, ScalarT, TupleT, Type
from everypath.variants.ops.reductions import Bound, array_expr, array_operand, normalize_axis
from everypath.variants.probe import call_probe
from everypath.variants.registry import Family, LowerSite, Operator, PathNotApplicable, Registry, Site, TypingError, Variant

SORT_HPP = (Variant("loops", "everypath/ops/sort.hpp"),)
# np.sort / argsort / ndarray.sort: lanes in parallel, or one long lane as chunk sorts + merges.
# Loaded 2-core machine, float64: rows 0.8-1.9x from 2^16, one long lane 0.65-1.15x up to 2^22 (measured)
SORT_VARIANTS = (*SORT_HPP, Variant("threads", "everypath/paths/threads/sort.hpp",
                                    cost_hint="lanes or chunks per core, merge-path merges", min_work=1 << 20))

# ---------------------------------------------------------------------------
# shared helpers

_WEAK = {DType.BOOL: True, DType.INT64: 1, DType.FLOAT64: 1.0, DType.COMPLEX128: 1 + 0j}


def sample(t: Type | None, zero: bool = False) -> Any:
    """A NumPy stand-in for a value of type t (zeros when used as an index)."""
    if isinstance(t, ArrayT):
        return (np.zeros if zero else np.ones)((1,) * t.ndim, t.dtype.np)
    if isinstance(t, ScalarT):
        v = _WEAK[t.dtype] if t.weak else t.dtype.np.type(1)
        return type(v)(0) if zero else v
    if isinstance(t, ListT):
        return [] if t.elem is None else [sample(t.elem, zero)]
    if isinstance(t, TupleT):
        return tuple(sample(i, zero) for i in t.items)
    if isinstance(t, NoneT) or t is None:
        return None
    raise TypingError(f"unsupported argument of type {t}")


def operand(t: Type | None, what: str = "a") -> ArrayT:
    """The array a value stands for: arrays, scalars (0-d), lists and tuples of scalars (1-d)."""
    if isinstance(t, TupleT) and t.items and all(isinstance(i, ScalarT) for i in t.items):
        return ArrayT(_tuple_dtype(t), 1)
    return array_operand(t, what)


def _tuple_dtype(t: TupleT) -> DType:
    return DType.of(np.asarray(sample(t)).dtype)


def operand_expr(t: Type, expr: str) -> str:
    """C++ for the array of `operand`."""
    if isinstance(t, TupleT):
        return f"ep::array_from_tuple<{_tuple_dtype(t).cpp}, 1>({expr}, {{{len(t.items)}}})"
    return array_expr(t, expr)


def real_array(t: Type | None, fname: str) -> ArrayT:
    """An ndarray argument (in-place operations and methods need the array itself)."""
    if not isinstance(t, ArrayT):
        raise TypingError(f"{fname}: expected an array, got {t}")
    return t


def cbool(v: bool) -> str:
    return "true" if v else "false"


def probe_type(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Type:
    return call_probe(fn, *args, **kwargs)


def dtype_of(t: Type) -> DType:
    assert isinstance(t, (ArrayT, ScalarT)), t
    return t.dtype


# ---------------------------------------------------------------------------
# sort / argsort

_SORT = ("a", "axis", "kind", "order", "stable")


def _sort_parts(site: Site | LowerSite) -> tuple[Bound, ArrayT, int, bool]:
    fname = site.key.replace("numpy.", "np.")
    b = Bound(site, _SORT, fname)
    b.reject_non_none("order")
    a = real_array(b.type("a"), fname) if site.key.startswith("ndarray.") else operand(b.type("a"))
    kind, stable = b.const("kind", None), b.const("stable", None)
    axis = b.const("axis", -1)
    fn = getattr(np, site.key.split(".")[1])
    x = sample(a)
    if site.key == "ndarray.sort":  # in place: probe on a copy
        probe_type(lambda: (x.copy().sort(axis=axis, kind=kind, stable=stable), x)[1])
    else:
        probe_type(fn, x, axis=axis, kind=kind, stable=stable)
    is_stable = bool(stable) or (isinstance(kind, str) and kind[:1].lower() in ("m", "s"))
    return b, a, (-1 if axis is None else normalize_axis(axis, a.ndim)), is_stable


def _sort_infer(site: Site) -> Type:
    _, a, axis, _ = _sort_parts(site)
    if site.key == "ndarray.sort":
        return NoneT()
    if site.key.endswith("argsort"):
        return ArrayT(DType.INT64, 1 if axis < 0 else a.ndim)
    return ArrayT(a.dtype, 1 if axis < 0 else a.ndim)


def _sort_lower(ls: LowerSite) -> str:
    b, _, axis, stable = _sort_parts(ls)
    if ls.path not in ("loops", "threads"):
        raise PathNotApplicable(f"no {ls.path} sort")
    x = operand_expr(b.type("a"), b.expr("a"))  # type: ignore[arg-type]
    if ls.key == "ndarray.sort":
        return f"({ls.ns}::sort_inplace<{axis}, {cbool(stable)}>({x}), ep::None{{}})"
    if ls.key.endswith("argsort"):
        return f"{ls.ns}::argsort<{axis}>({x})"
    return f"{ls.ns}::sort<{axis}, {cbool(stable)}>({x})"


# ---------------------------------------------------------------------------
# partition / argpartition

_PART = ("a", "kth", "axis", "kind", "order")


def _kth_ok(t: Type | None) -> bool:
    def integral(x: Type | None) -> bool:
        return isinstance(x, (ScalarT, ArrayT)) and x.dtype.is_integer
    if isinstance(t, TupleT):
        return all(integral(i) for i in t.items)
    if isinstance(t, ListT):
        return integral(t.elem)
    return integral(t) and not (isinstance(t, ArrayT) and t.ndim > 1)


def _part_parts(site: Site | LowerSite) -> tuple[Bound, ArrayT, int]:
    fname = site.key.replace("numpy.", "np.")
    b = Bound(site, _PART, fname)
    b.reject_non_none("order")
    a = real_array(b.type("a"), fname) if site.key.startswith("ndarray.") else operand(b.type("a"))
    if not b.has("kth"):
        raise TypingError(f"{fname}() missing required argument 'kth'")
    kind, axis = b.const("kind", "introselect"), b.const("axis", -1)
    x, k = sample(a), sample(b.type("kth"), zero=True)
    if site.key == "ndarray.partition":
        probe_type(lambda: (x.copy().partition(k, axis=axis, kind=kind), x)[1])
    else:
        probe_type(getattr(np, site.key.split(".")[1]), x, k, axis=axis, kind=kind)
    if not _kth_ok(b.type("kth")):
        raise TypingError(f"{fname}(): kth must be an integer or a sequence of integers, got {b.type('kth')}")
    return b, a, (-1 if axis is None else normalize_axis(axis, a.ndim))


def _part_infer(site: Site) -> Type:
    _, a, axis = _part_parts(site)
    if site.key == "ndarray.partition":
        return NoneT()
    nd = 1 if axis < 0 else a.ndim
    return ArrayT(DType.INT64 if site.key.endswith("argpartition") else a.dtype, nd)


def _part_lower(ls: LowerSite) -> str:
    b, _, axis = _part_parts(ls)
    x = operand_expr(b.type("a"), b.expr("a"))  # type: ignore[arg-type]
    k = b.expr("kth")
    if ls.key == "ndarray.partition":
        return f"(ep::partition_inplace<{axis}>({x}, {k}), ep::None{{}})"
    fn = "argpartition" if ls.key.endswith("argpartition") else "partition"
    return f"ep::{fn}<{axis}>({x}, {k})"


# ---------------------------------------------------------------------------
# lexsort / sort_complex


def _lex_parts(site: Site | LowerSite) -> tuple[Bound, int, int]:
    """(bound, key rank, normalised axis)."""
    b = Bound(site, ("keys", "axis"), "np.lexsort")
    t = b.type("keys")
    if isinstance(t, TupleT):
        if not t.items:
            raise TypingError("need sequence of keys with len > 0 in lexsort")
        if not all(isinstance(i, ArrayT) for i in t.items):
            raise TypingError(f"np.lexsort: keys must be arrays, got {t}")
        nds = {i.ndim for i in t.items}  # type: ignore[union-attr]
        if len(nds) > 1:
            raise TypingError("all keys need to be the same shape")
        nd = nds.pop()
    elif isinstance(t, ListT) and isinstance(t.elem, ArrayT):
        nd = t.elem.ndim
    elif isinstance(t, ArrayT) and t.ndim >= 2:
        nd = t.ndim - 1
    else:
        raise TypingError(f"np.lexsort: keys must be a tuple or list of arrays or an array of rank >= 2, got {t}")
    if nd == 0:
        raise TypingError("np.lexsort of 0-d keys is not supported")
    axis = b.const("axis", -1)
    return b, nd, normalize_axis(axis, nd)


def _lex_infer(site: Site) -> Type:
    _, nd, _ = _lex_parts(site)
    return ArrayT(DType.INT64, nd)


def _lex_lower(ls: LowerSite) -> str:
    b, _, axis = _lex_parts(ls)
    return f"ep::lexsort<{axis}>({b.expr('keys')})"


def _sort_complex_infer(site: Site) -> Type:
    b = Bound(site, ("a",), "np.sort_complex")
    a = operand(b.type("a"))
    return probe_type(np.sort_complex, sample(a))


def _sort_complex_lower(ls: LowerSite) -> str:
    b = Bound(ls, ("a",), "np.sort_complex")
    x = operand_expr(b.type("a"), b.expr("a"))  # type: ignore[arg-type]
    return f"ep::sort_complex<{dtype_of(ls.result).cpp}>({x})"


def declare(reg: Registry) -> None:
    for key, ref in (("numpy.sort", np.sort), ("ndarray.sort", np.ndarray.sort), ("numpy.argsort", np.argsort),
                     ("ndarray.argsort", np.ndarray.argsort)):
        reg.add(Operator(key, Family.SORTING, ref, _sort_infer, _sort_lower, SORT_VARIANTS))
    for key, ref in (("numpy.partition", np.partition), ("ndarray.partition", np.ndarray.partition),
                     ("numpy.argpartition", np.argpartition), ("ndarray.argpartition", np.ndarray.argpartition)):
        reg.add(Operator(key, Family.SORTING, ref, _part_infer, _part_lower, SORT_HPP))
    reg.add(Operator("numpy.lexsort", Family.SORTING, np.lexsort, _lex_infer, _lex_lower, SORT_HPP))
    reg.add(Operator("numpy.sort_complex", Family.SORTING, np.sort_complex, _sort_complex_infer, _sort_complex_lower,
                     SORT_HPP))


__all__ = ["declare", "sample", "operand", "operand_expr", "real_array", "cbool", "probe_type",
           "dtype_of", "SORT_HPP"]

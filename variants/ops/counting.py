"""Counting: np.bincount and np.histogram.

histogram with a number of bins reproduces NumPy's fast path bit for bit,
which computes in a mix of dtypes that depends on where the range comes from
(the data's min/max as NumPy scalars, or Python numbers given as range=). The
dtypes are worked out here by replaying NumPy's promotions on stand-in
values, for the range as found and as widened by 0.5 when both ends are
equal, and handed to the C++ kernel (variants/include/everypath/ops/count.hpp).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from everypath.base.types import ArrayT, DType, ListT, NoneT, ScalarT, TupleT, Type
from everypath.variants.ops.reductions import Bound
from everypath.variants.ops.sorting import cbool, operand, operand_expr, probe_type, sample
from everypath.variants.registry import Family, LowerSite, Operator, Registry, Site, TypingError, Variant

COUNT_HPP = (Variant("loops", "everypath/ops/count.hpp"),)

# ---------------------------------------------------------------------------
# bincount

_BC = ("x", "weights", "minlength")


def _bc_parts(site: Site | LowerSite) -> tuple[Bound, Type]:
    b = Bound(site, _BC, "np.bincount")
    if not b.has("x"):
        raise TypingError("np.bincount() missing required argument 'x'")
    x = operand(b.type("x"), "x")
    wt = b.type("weights")
    w = None if wt is None or isinstance(wt, NoneT) else sample(operand(wt, "weights"))
    mt = b.type("minlength")
    if b.is_const("minlength"):
        minlength = b.const("minlength")
    elif mt is None or (isinstance(mt, ScalarT) and (mt.dtype.is_integer or mt.dtype.is_bool)):
        minlength = 0
    else:
        raise TypingError(f"'{mt}' object cannot be interpreted as an integer")
    return b, probe_type(np.bincount, sample(x, zero=True), weights=w, minlength=minlength)


def _bc_infer(site: Site) -> Type:
    return _bc_parts(site)[1]


def _bc_lower(ls: LowerSite) -> str:
    b, _ = _bc_parts(ls)
    x = operand_expr(b.type("x"), b.expr("x"))  # type: ignore[arg-type]
    m = f"static_cast<int64_t>({b.expr('minlength')})" if b.has("minlength") else "int64_t(0)"
    wt = b.type("weights")
    if wt is None or isinstance(wt, NoneT):
        return f"ep::bincount({x}, {m})"
    return f"ep::bincount_weights({x}, {operand_expr(wt, b.expr('weights'))}, {m})"


# ---------------------------------------------------------------------------
# histogram

_HIST = ("a", "bins", "range", "density", "weights")


@dataclass(frozen=True)
class HistTypes:
    """The dtypes of NumPy's uniform-bins histogram (see count.hpp's HistTypes)."""

    edges: np.dtype
    linspace: np.dtype
    shifted: np.dtype
    denom: np.dtype
    index: np.dtype
    test: np.dtype

    def cpp(self) -> str:
        names = (self.edges, self.linspace, self.shifted, self.denom, self.index, self.test)
        return "ep::HistTypes<" + ", ".join(DType.of(d).cpp for d in names) + ">"


def _unsigned_subtract_dtype(a: Any, b: Any) -> np.dtype:
    dt = np.result_type(a, b)
    if dt.kind == "i":
        return np.dtype(f"u{dt.itemsize}")
    return dt


def hist_types(data: np.dtype, first: Any, last: Any) -> HistTypes:
    """Replay NumPy's _get_bin_edges and histogram loop promotions on stand-in ends."""
    a = np.ones(2, data)
    edges = np.result_type(first, last, a)
    if edges.kind in "iub":
        edges = np.result_type(edges, float)
    lin = np.linspace(first, last, 3).dtype
    shifted = np.result_type(np.ones(2, edges), first)
    denom = _unsigned_subtract_dtype(last, first)
    index = ((np.ones(2, shifted) / denom.type(1)) * 3).dtype
    test = np.result_type(a, first)
    weak = any(type(v) in (int, float, bool) for v in (first, last))
    if test.kind in "iu" and weak:
        test = np.dtype(np.int64) if data != np.uint64 else np.dtype(np.float64)
    return HistTypes(edges, lin, shifted, denom, index, test)


def _widen(x: Any, d: float) -> Any:
    return x + d


def _range_samples(t: Type | None, data: np.dtype) -> tuple[Any, Any]:
    if t is None or isinstance(t, NoneT):
        return data.type(1), data.type(2)  # a.min(), a.max(): NumPy scalars
    if not (isinstance(t, TupleT) and len(t.items) == 2 and all(isinstance(i, ScalarT) for i in t.items)):
        raise TypingError(f"np.histogram(): range must be a tuple of two numbers, got {t}")
    lo, hi = sample(t.items[0], zero=True), sample(t.items[1])
    return lo, hi


def _hist_parts(site: Site | LowerSite) -> tuple[Bound, ArrayT, np.dtype, bool, Type]:
    b = Bound(site, _HIST, "np.histogram")
    b.reject_non_none("weights")
    a = operand(b.type("a"))
    if a.dtype.is_complex:
        raise TypingError("np.histogram() of complex data is not supported")
    data = np.dtype(np.uint8) if a.dtype.is_bool else a.dtype.np  # NumPy converts bools (with a warning)
    density = b.const("density", None)
    if density not in (None, True, False):
        raise TypingError("np.histogram(): density must be True, False or None")
    bt = b.type("bins")
    if b.is_const("bins") or not b.has("bins"):
        bins: Any = b.const("bins", 10)
        if isinstance(bins, tuple):
            bins = np.asarray(bins)
    elif isinstance(bt, ScalarT) and bt.dtype.is_integer:
        bins = 3
    elif isinstance(bt, (ArrayT, ListT, TupleT)):
        bins = sample(operand(bt, "bins"))
    else:
        raise TypingError(f"np.histogram(): bins must be an integer or an array of edges, got {bt}")
    if isinstance(bins, str):
        raise TypingError("np.histogram(): bins given as a method name is not supported; give a number or edges")
    rng = None
    if b.has("range") and not isinstance(b.type("range"), NoneT):
        rng = b.const("range") if b.is_const("range") else _range_samples(b.type("range"), data)
    result = probe_type(np.histogram, sample(a), bins=bins, range=rng, density=density)
    return b, a, data, bool(density), result


def _hist_infer(site: Site) -> Type:
    return _hist_parts(site)[4]


def _hist_lower(ls: LowerSite) -> str:
    b, a, data, density, _ = _hist_parts(ls)
    x = operand_expr(b.type("a"), b.expr("a"))  # type: ignore[arg-type]
    bt = b.type("bins")
    A = DType.of(data).cpp
    if isinstance(bt, (ArrayT, ListT, TupleT)):
        edges = operand(bt, "bins")
        c = DType.of(np.promote_types(data, edges.dtype.np)).cpp
        return f"ep::histogram_edges<{cbool(density)}, {c}, {A}>({x}, {operand_expr(bt, b.expr('bins'))})"
    rt = b.type("range")
    has_range = rt is not None and not isinstance(rt, NoneT)
    first, last = _range_samples(rt if has_range else None, data)
    normal = hist_types(data, first, last)
    wide = hist_types(data, _widen(first, -0.5), _widen(last, 0.5))
    if wide.edges != normal.edges:
        raise TypingError("np.histogram(): this combination of range and data types is not supported")
    empty = DType.of(np.linspace(0, 1, 3).dtype).cpp
    nb = f"static_cast<int64_t>({b.expr('bins')})" if b.has("bins") else "int64_t(10)"
    r = b.expr("range") if has_range else "ep::None{}"
    return (f"ep::histogram<{cbool(density)}, {normal.cpp()}, {wide.cpp()}, {empty}, {A}>"
            f"({x}, {nb}, {r})")


def declare(reg: Registry) -> None:
    reg.add(Operator("numpy.bincount", Family.SORTING, np.bincount, _bc_infer, _bc_lower, COUNT_HPP))
    reg.add(Operator("numpy.histogram", Family.SORTING, np.histogram, _hist_infer, _hist_lower, COUNT_HPP))


__all__ = ["declare", "hist_types", "HistTypes", "COUNT_HPP"]

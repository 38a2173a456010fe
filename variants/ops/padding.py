"""np.pad: modes constant (constant_values), edge, reflect, symmetric
(reflect_type 'even' / 'odd'), wrap and empty.

pad_width and constant_values may be a number, a (before, after) pair or one
pair per axis (tuples, or lists written in place), broadcast exactly as
NumPy's ``_as_pairs`` does; their values may be run-time numbers, their
structure is known at compile time. The mode is a compile-time string.
C++ kernel: variants/include/everypath/ops/pad.hpp.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from everypath.base.types import ArrayT, ListT, ScalarT, TupleT, Type
from everypath.variants.ops._manip import operand, operand_expr
from everypath.variants.ops.creation import fill_expr
from everypath.variants.ops.reductions import Bound, probe, sample_value
from everypath.variants.registry import Family, LowerSite, Operator, Registry, Site, TypingError, Variant

PAD = (Variant("loops", "everypath/ops/pad.hpp"),)

_MODES = {"constant": 0, "edge": 1, "reflect": 2, "symmetric": 3, "wrap": 4, "empty": 5}
_NAMES = ("array", "pad_width", "mode", "constant_values", "reflect_type", "end_values", "stat_length")


def _grid(t: Type | None, node: Any, expr: str) -> tuple[tuple[int, ...], list[tuple[ScalarT, str]]]:
    """(shape, leaves in C order as (type, C++ expression)) of a nested tuple/list of numbers."""
    if isinstance(t, ScalarT):
        return (), [(t, expr)]
    if isinstance(t, TupleT):
        kids = node.args if getattr(node, "target", None) == "ep.tuple" else [None] * len(t.items)
        subs = [_grid(it, kid, f"std::get<{i}>({expr})") for i, (it, kid) in enumerate(zip(t.items, kids))]
    elif isinstance(t, ListT) and getattr(node, "target", None) == "ep.list":
        subs = [_grid(t.elem, kid, f"ep::list_get({expr}, {i})") for i, kid in enumerate(node.args)]
    elif isinstance(t, ListT):
        raise TypingError("np.pad(): the length of this list is not known at compile time; pass a tuple")
    else:
        raise TypingError(f"np.pad(): expected numbers or tuples of numbers, got {t}")
    shapes = {s for s, _ in subs}
    if len(shapes) > 1:  # ragged: NumPy's own message
        probe(lambda: np.asarray(_ragged_sample(t, node)))
    inner = shapes.pop() if shapes else ()
    return (len(subs), *inner), [leaf for _, leaves in subs for leaf in leaves]


def _ragged_sample(t: Type | None, node: Any) -> Any:
    if isinstance(t, ScalarT):
        return sample_value(t)
    if isinstance(t, TupleT):
        kids = node.args if getattr(node, "target", None) == "ep.tuple" else [None] * len(t.items)
        return [_ragged_sample(it, kid) for it, kid in zip(t.items, kids)]
    return [_ragged_sample(t.elem, kid) for kid in node.args]  # type: ignore[union-attr]


def _nested_sample(shape: tuple[int, ...], leaves: list[tuple[ScalarT, str]]) -> Any:
    vals = [sample_value(t) for t, _ in leaves]
    if not shape:
        return vals[0]
    return np.array(vals, dtype=object).reshape(shape).tolist()


def _pairs(shape: tuple[int, ...], leaves: list[Any], ndim: int) -> list[Any]:
    """NumPy's _as_pairs: which leaf is (before, after) of every axis, flattened to 2 * ndim items."""
    size = len(leaves)
    if len(shape) < 3 and size == 1:
        return [leaves[0]] * (2 * ndim)
    if len(shape) < 3 and size == 2 and shape != (2, 1):
        return [leaves[0], leaves[1]] * ndim
    idx = np.broadcast_to(np.arange(size).reshape(shape), (ndim, 2))  # shapes were checked by probing np.pad
    return [leaves[i] for i in idx.ravel()]


def _parts(site: Site | LowerSite) -> tuple[Bound, ArrayT, str, Any, Any]:
    b = Bound(site, _NAMES, "np.pad")
    a = operand(b, "array")
    if not b.has("pad_width"):
        raise TypingError("pad() missing 1 required positional argument: 'pad_width'")
    mode = b.const("mode", "constant")
    if not isinstance(mode, str):
        raise TypingError("np.pad(): mode must be a string here (callable modes are not supported)")
    pw = _grid(b.type("pad_width"), _node(b, "pad_width"), b.expr("pad_width") if isinstance(site, LowerSite) else "")
    cv = None
    kwargs: dict[str, Any] = {}
    for name in _NAMES[3:]:
        if not b.has(name):
            continue
        if name == "constant_values":
            cv = _grid(b.type(name), _node(b, name), b.expr(name) if isinstance(site, LowerSite) else "")
            kwargs[name] = _nested_sample(*cv)
        elif name == "reflect_type":
            kwargs[name] = b.const(name)
        else:
            kwargs[name] = 1
    sample = np.zeros((1,) * a.ndim, a.dtype.np)
    probe(lambda: np.pad(sample, _nested_sample(*pw), mode, **kwargs))  # NumPy's own checks and messages
    if mode not in _MODES:
        raise TypingError(f"np.pad(mode='{mode}') is not supported")
    return b, a, mode, pw, cv


def _node(b: Bound, name: str) -> Any:
    w = b.where[name]
    return b.site.node.args[w] if isinstance(w, int) else b.site.node.kwargs[w]


def _infer(site: Site) -> Type:
    return _parts(site)[1]


def _lower(ls: LowerSite) -> str:
    b, a, mode, pw, cv = _parts(ls)
    n, T = a.ndim, a.dtype.cpp
    widths = [f"static_cast<ep::index_t>({e})" for _, e in _pairs(pw[0], pw[1], n)]
    values: list[str] = []
    if mode == "constant":
        leaves = cv[1] if cv is not None else [(ScalarT(a.dtype), f"{T}(0)")]
        pairs = _pairs(cv[0] if cv is not None else (), leaves, n)
        values = [f"ep::elem_cast<{T}>({fill_expr(t, e, a.dtype)})" for t, e in pairs]
    odd = "true" if b.const("reflect_type", "even") == "odd" else "false"
    return (f"ep::pad<{_MODES[mode]}, {odd}>({operand_expr(b, 'array')}, std::array<ep::index_t, {2 * n}>{{"
            f"{', '.join(widths)}}}, std::array<{T}, {2 * n}>{{{', '.join(values)}}})")


def declare(reg: Registry) -> None:
    reg.add(Operator("numpy.pad", Family.SHAPE, np.pad, _infer, _lower, PAD))


__all__ = ["declare"]

"""Argument helpers shared by the array-manipulation families (arrange, splitting,
editing, padding, construct): array-like operands, integer sequences whose
length is known at compile time, compile-time axes checked by NumPy itself.
"""
from __future__ import annotations

from typing import Any, Callable

from everypath.base.types import ArrayT, ListT, NoneT, ScalarT, TupleT, Type
from everypath.variants.ops.reductions import Bound, array_expr, array_operand, normalize_axis, probe
from everypath.variants.registry import TypingError


def arg_node(b: Bound, name: str) -> Any:
    w = b.where[name]
    return b.site.node.args[w] if isinstance(w, int) else b.site.node.kwargs[w]


def is_int(t: Type | None) -> bool:
    return isinstance(t, ScalarT) and (t.dtype.is_integer or t.dtype.is_bool)


def seq_len(b: Bound, name: str) -> int | None:
    """Items of an integer-sequence argument whose length is known at compile time
    (a tuple, or a list written in place); None for a single integer."""
    t = b.type(name)
    if is_int(t):
        return None
    if isinstance(t, TupleT) and all(is_int(i) for i in t.items):
        return len(t.items)
    if isinstance(t, ListT) and (t.elem is None or is_int(t.elem)):
        node = arg_node(b, name)
        if getattr(node, "target", None) == "ep.list":
            return len(node.args)
        raise TypingError(f"argument '{name}': the length of this list is not known at compile time; pass a tuple")
    raise TypingError(f"argument '{name}' must be an integer or a tuple of integers, got {t}")


def axis_checked(fn: Callable[[], Any]) -> Any:
    """NumPy's own axis normalisation; its AxisError/ValueError becomes the typing error."""
    return probe(fn)


def operand(b: Bound, name: str) -> ArrayT:
    if not b.has(name):
        raise TypingError(f"{b.site.key.replace('numpy.', 'np.')}() missing required argument '{name}'")
    return array_operand(b.type(name), name)


def operand_expr(b: Bound, name: str) -> str:
    return array_expr(b.type(name), b.expr(name))  # type: ignore[arg-type]


def const_axis(b: Bound, name: str, ndim: int, default: Any = None) -> int | None:
    """A compile-time int axis (None when absent or None)."""
    if not b.has(name) or isinstance(b.type(name), NoneT):
        return default
    return normalize_axis(b.const(name), ndim)


__all__ = ["arg_node", "is_int", "seq_len", "axis_checked", "operand", "operand_expr", "const_axis"]

"""Calls that take a key function: ``sorted(xs, key=f)``, ``xs.sort(key=f)``, ``max(xs, key=f)`` and
``min(xs, key=f)`` (also with ``reverse=`` / ``default=``), and ``max(a, b, ..., key=f)`` / ``min(...)`` over
positional values of one type.

The key is a compiled closure: the frontend (tracer/key_functions.py) turns any ``key=`` that is not a lambda
(``len``, a helper, ``d.get``) into one, so here it is always a closure, typed once for the item type and called
from the C++ (variants/include/everypath/keyed.hpp) once per item, as CPython does. Keys compare as Python
compares them: real numbers, str and tuples of those."""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Callable

from everypath.base.cpp import ctype
from everypath.base.types import (
    NONE, ArrayT, DictT, FuncT, IterT, ListT, RangeT, ScalarT, StrT, TupleT, Type, element_type,
)
from everypath.tracer.ir import Node, Opcode
from everypath.variants.registry import TypingError

HEADER = "everypath/keyed.hpp"


class Kind(Enum):
    SORTED = "sorted"
    SORT = "sort"
    MAX = "max"
    MIN = "min"


@dataclass(frozen=True)
class Form:
    """One keyed call: its name in messages and the keywords it takes besides key=."""

    kind: Kind
    name: str
    keywords: tuple[str, ...]


FORMS: dict[str, Form] = {
    "builtins.sorted": Form(Kind.SORTED, "sorted", ("key", "reverse")),
    "method.sort": Form(Kind.SORT, "list.sort", ("key", "reverse")),
    "builtins.max": Form(Kind.MAX, "max", ("key", "default")),
    "builtins.min": Form(Kind.MIN, "min", ("key", "default")),
}

# what `for x in <t>` may walk in the C++ (ep::each): lists, 1-d arrays, ranges, dicts (keys) and dict views
_SOURCES = (ListT, ArrayT, RangeT, DictT, IterT)
_VIEWS = ("dict_keys", "dict_values", "dict_items")


def keyed(n: Node) -> bool:
    """Whether n is one of the calls above with a key (``key=None`` is the plain call)."""
    if n.target not in FORMS:
        return False
    key = n.kwargs.get("key")
    return key is not None and not (key.op is Opcode.CONST and key.target is None)


def _orderable(t: Type | None) -> bool:
    if isinstance(t, TupleT):
        return all(_orderable(i) for i in t.items)
    return isinstance(t, StrT) or (isinstance(t, ScalarT) and not t.dtype.is_complex)


def _source_ok(t: Type) -> bool:
    if isinstance(t, ArrayT):
        return t.ndim == 1
    if isinstance(t, IterT):
        return t.kind in _VIEWS
    return isinstance(t, _SOURCES)


def _positional_item(form: Form, arg_types: list[Type], kw_types: dict[str, Type]) -> Type:
    """The one type of the values max(a, b, ..., key=f) / min(...) choose among."""
    if "default" in kw_types:  # CPython's TypeError, found when compiling
        raise TypingError(f"Cannot specify a default for {form.name}() with multiple positional arguments")
    kinds = list(dict.fromkeys(arg_types))
    if len(kinds) > 1:
        raise TypingError(f"{form.name}() with key= over values of different types ({', '.join(map(str, kinds))}) "
                          "is not supported: the result holds one type")
    return kinds[0]


def type_call(n: Node, arg_types: list[Type], kw_types: dict[str, Type],
              call_key: Callable[[FuncT, Type], Type | None]) -> Type | None:
    """The result type; call_key types the key closure for one item (None while it is not known yet)."""
    form = FORMS[n.target]  # type: ignore[index]
    extra = sorted(set(kw_types) - set(form.keywords))
    if extra:
        raise TypingError(f"{form.name}() got an unexpected keyword argument '{extra[0]}'")
    if form.kind is Kind.SORT:
        if not isinstance(arg_types[0], ListT):
            raise TypingError(f"method .sort(key=...) of {arg_types[0]} is not supported (a list's)")
        if len(arg_types) != 1:
            raise TypingError(f"list.sort() takes no positional arguments ({len(arg_types) - 1} given)")
    elif len(arg_types) != 1 and form.kind is Kind.SORTED:
        raise TypingError(f"sorted expected 1 argument, got {len(arg_types)}")
    elif not arg_types:
        raise TypingError(f"{form.name} expected at least 1 argument, got 0")
    if len(arg_types) > 1:  # max(a, b, key=f): the items are the arguments
        item = _positional_item(form, arg_types, kw_types)
    else:
        source = arg_types[0]
        if not _source_ok(source):
            raise TypingError(f"{form.name}(key=...) of {source} is not supported (a list, a 1-d array, a range, a "
                              "dict or a dict view)")
        item = element_type(source)
    key = kw_types["key"]
    if not isinstance(key, FuncT) or len(key.members) != 1:
        raise TypingError(f"{form.name}(): key= must be one function (got {key})")
    if "reverse" in kw_types and not (isinstance(kw_types["reverse"], ScalarT)
                                      and (kw_types["reverse"].dtype.is_bool or kw_types["reverse"].dtype.is_integer)):
        raise TypingError(f"{form.name}(): 'reverse' must be a bool, got {kw_types['reverse']}")
    if "default" in kw_types and kw_types["default"] != item:
        raise TypingError(f"{form.name}(): default= of type {kw_types['default']} where the items are {item} is not "
                          "supported (the result holds one type)")
    k = call_key(key, item)
    if k is None:
        return None
    if not _orderable(k):
        raise TypingError(f"{form.name}(): the key gives {k}, which compiled code cannot order (real numbers, str "
                          "or tuples of them)")
    return {Kind.SORTED: ListT(item), Kind.SORT: NONE}.get(form.kind, item)


def emit_call(fe: Any, n: Node) -> str | None:
    """The C++ of a keyed call, or None for any other call."""
    if not keyed(n):
        return None
    form = FORMS[n.target]  # type: ignore[index]
    fe.used_headers.add(HEADER)
    callee = fe.spec.callees[n]
    if len(n.args) > 1:  # max(a, b, key=f): each argument once, in order, as CPython's loop takes them
        item = ctype(fe.ty(n))
        key = f"[&](const {item}& ep_item) {{ return {callee.symbol}(ep_item); }}"
        values = ", ".join(f"static_cast<{item}>({fe.value(a)})" for a in n.args)
        return f"ep::extreme_of<{'true' if form.kind is Kind.MAX else 'false'}, {item}>({key}, {values})"
    src_node = n.args[0]
    source = fe.value(src_node)
    if isinstance(fe.ty(src_node), DictT):
        source = f"{source}.keys()"
    item = ctype(element_type(fe.ty(src_node)))
    key = f"[&](const {item}& ep_item) {{ return {callee.symbol}(ep_item); }}"
    reverse = f"static_cast<bool>({fe.value(n.kwargs['reverse'])})" if "reverse" in n.kwargs else "false"
    if form.kind is Kind.SORTED:
        return f"ep::sorted_by<{item}>({source}, {key}, {reverse})"
    if form.kind is Kind.SORT:
        return f"(ep::list_sort_by({source}, {key}, {reverse}), ep::None{{}})"
    greater = "true" if form.kind is Kind.MAX else "false"
    if "default" in n.kwargs:
        return f"ep::extreme_by_or<{greater}, {item}>({source}, {key}, {fe.value(n.kwargs['default'])})"
    message = f'"{form.name}() arg is an empty sequence"'
    return f"ep::extreme_by<{greater}, {item}>({source}, {key}, {message})"


__all__ = ["FORMS", "HEADER", "Kind", "emit_call", "keyed", "type_call"]

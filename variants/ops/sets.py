"""Python set: ``set()`` / ``set(list)``, its methods (``add``, ``discard``, ``remove``) and the operators a set
operand gives another meaning (``set:operator.or_`` is ``a | b``; lowering/infer.py routes a call there when
an operand is a set). C++: ep::Set in variants/include/everypath/set.hpp (a dict without values).

Order: CPython iterates a set in its hash order (for str: salted per process, PYTHONHASHSEED), which
compiled code does not reproduce, so a `for` over a set is refused (iterate over sorted(s)); a set result
is a real Python set, whose order is then CPython's own."""
from __future__ import annotations

import builtins

from everypath.base.types import BOOL, INT, NONE, ListT, SetT, Type
from everypath.variants.ops.dicts import check_key, check_lookup, refuse_enum_order
from everypath.variants.registry import Family, LowerSite, Operator, Registry, Site, TypingError, Variant

HEADER = "everypath/set.hpp"
VARIANTS = (Variant("loops", HEADER, cost_hint="reference"),)

OVERLOADED = frozenset({
    "operator.or_", "operator.and_", "operator.sub", "operator.contains", "operator.not_contains", "operator.eq",
    "operator.ne", "operator.not_", "builtins.len", "builtins.bool", "builtins.sorted", "builtins.list",
})
METHODS = frozenset({"add", "discard", "remove", "copy"})


def added(s: SetT, item: Type) -> SetT:
    """The set's type once `s.add(item)` ran."""
    check_key(item)
    if s.elem is not None and item != s.elem:
        raise TypingError(f"item is {item} but the set holds {s.elem}; a set keeps one item type "
                          "(CPython would keep each item's own type)")
    return SetT(item)


def _method_infer(site: Site) -> Type:
    meth = site.key.split(".", 1)[1]
    if site.kwargs or len(site.args) != (1 if meth == "copy" else 2):
        raise TypingError(f"set.{meth}() takes {'no' if meth == 'copy' else 'exactly one'} argument")
    if meth == "copy":
        return site.args[0]
    check_lookup(site.args[0].elem, site.args[1])  # type: ignore[attr-defined]
    if meth == "add":
        added(site.args[0], site.args[1])  # type: ignore[arg-type]
    return NONE


def _binary_infer(site: Site) -> Type:
    a, b = site.args
    if not (isinstance(a, SetT) and isinstance(b, SetT)):
        op = {"or_": "|", "and_": "&", "sub": "-", "eq": "==", "ne": "!="}[site.key.rsplit(".", 1)[1]]
        if site.key.endswith(("eq", "ne")):
            return BOOL
        raise TypingError(f"unsupported operand types for {op}: {a} and {b}")
    if a.elem is not None and b.elem is not None and a.elem != b.elem:
        raise TypingError(f"sets of {a.elem} and {b.elem} cannot be combined (a set keeps one item type)")
    return BOOL if site.key.endswith(("eq", "ne")) else SetT(a.elem or b.elem)


def _binary_lower(ls: LowerSite) -> str:
    name = ls.key.rsplit(".", 1)[1]
    a, b = ls.args
    if name in ("eq", "ne"):
        if not all(isinstance(t, SetT) for t in ls.arg_types):
            return "false" if name == "eq" else "true"
        return f"({a} {'==' if name == 'eq' else '!='} {b})"
    return f"ep::set_{name.rstrip('_')}({a}, {b})"


def _contains_infer(site: Site) -> Type:
    container, item = site.args
    if not isinstance(container, SetT):
        raise TypingError(f"'in' of a {container} is not supported")
    check_lookup(container.elem, item)
    return BOOL


def _items_infer(site: Site) -> Type:
    """sorted(s) of a set: its items in sorted order, so no hash order shows; list(s) would show it."""
    s = site.args[0]
    assert isinstance(s, SetT)
    if site.key == "set:builtins.list":
        raise TypingError("list(s) of a set is not supported: its order is CPython's hash order; use sorted(s)")
    site.check_kwargs(("reverse",))
    if len(site.args) != 1:
        raise TypingError(f"sorted expected 1 argument, got {len(site.args)}")
    if s.elem is None:
        raise TypingError("cannot infer the item type of an empty set")
    refuse_enum_order(s.elem)
    return ListT(s.elem)


def _items_lower(ls: LowerSite) -> str:
    return f"ep::dict_sorted({ls.args[0]}.items(), static_cast<bool>({ls.arg('reverse') or 'false'}))"


def set_infer(site: Site) -> Type:
    if site.kwargs:
        raise TypingError("set() takes no keyword arguments")
    if not site.args:
        return SetT(None)
    t = site.args[0]
    if len(site.args) == 1 and isinstance(t, ListT):
        if t.elem is not None:
            check_key(t.elem)
        return SetT(t.elem)
    if len(site.args) == 1 and isinstance(t, SetT):
        return t
    raise TypingError(f"set({', '.join(map(str, site.args))}) is not supported: set(), set(a_list) or set(a_set)")


def set_lower(ls: LowerSite) -> str:
    if not ls.args:
        return f"{ls.ctype(ls.result)}{{}}"
    return f"{ls.args[0]}.copy()" if isinstance(ls.arg_types[0], SetT) else f"ep::set_of({ls.args[0]})"


def declare(reg: Registry) -> None:
    B = Family.BUILTIN

    def add(key: str, infer, lower, ref: object = None) -> None:  # noqa: ANN001
        reg.add(Operator(key, B, ref, infer, lower, variants=VARIANTS))

    add("builtins.set", set_infer, set_lower, builtins.set)
    for meth in METHODS:
        add(f"set.{meth}", _method_infer, lambda ls, m=meth: f"{ls.args[0]}.{m}({', '.join(ls.args[1:])})")
    for name in ("or_", "and_", "sub", "eq", "ne"):
        add(f"set:operator.{name}", _binary_infer, _binary_lower)
    add("set:operator.contains", _contains_infer, lambda ls: f"{ls.args[0]}.contains({ls.args[1]})")
    add("set:operator.not_contains", _contains_infer, lambda ls: f"(!{ls.args[0]}.contains({ls.args[1]}))")
    add("set:builtins.len", lambda s: INT, lambda ls: f"int64_t({ls.args[0]}.size())")
    add("set:builtins.bool", lambda s: BOOL, lambda ls: f"({ls.args[0]}.size() != 0)")
    add("set:operator.not_", lambda s: BOOL, lambda ls: f"({ls.args[0]}.size() == 0)")
    for name in ("sorted", "list"):
        add(f"set:builtins.{name}", _items_infer, _items_lower)


__all__ = ["OVERLOADED", "METHODS", "HEADER", "declare", "added"]

"""Python list: its methods (``pop``, ``extend``, ``index``, ``sort``...) and the operators a list operand gives
another meaning (``list:operator.add`` is ``a + b`` of two lists; lowering/infer.py routes a call there when
an operand is a list and none is an array). C++: variants/include/everypath/list_methods.hpp, with CPython's
results and messages. ``append`` and ``in`` are older (lowering/emit_values.py, the element-wise table).

A list keeps one item type (ep::List<T>), so ``a + b`` and ``a.extend(b)`` need lists of one type."""
from __future__ import annotations

from typing import Callable

from everypath.base.types import BOOL, INT, NONE, ArrayT, ListT, RangeT, ScalarT, StrT, TupleT, Type
from everypath.variants.registry import Family, LowerSite, Operator, Registry, Site, TypingError, Variant

HEADER = "everypath/list_methods.hpp"
VARIANTS = (Variant("loops", HEADER, cost_hint="reference"),)

# operators and builtins routed to "list:<key>" when an operand is a list (and no operand is an array)
OVERLOADED = frozenset({
    "operator.add", "operator.iadd", "operator.mul", "operator.imul", "operator.eq", "operator.ne",
    "operator.lt", "operator.le", "operator.gt", "operator.ge", "operator.not_", "builtins.bool",
})
_CMP = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
_TUPLE_CMP = frozenset(f"operator.{name}" for name in ("lt", "le", "gt", "ge"))
# method: (positional parameter count allowed, result given the list's item type)
METHODS: dict[str, tuple[tuple[int, ...], Callable[[Type | None], Type]]] = {
    "pop": ((0, 1), lambda e: e), "extend": ((1,), lambda e: NONE), "index": ((1,), lambda e: INT),
    "count": ((1,), lambda e: INT), "insert": ((2,), lambda e: NONE), "remove": ((1,), lambda e: NONE),
    "reverse": ((0,), lambda e: NONE), "sort": ((0,), lambda e: NONE), "copy": ((0,), lambda e: ListT(e)),
    "clear": ((0,), lambda e: NONE),
}


def route(key: str, arg_types: list[Type]) -> str | None:
    """The prefix of the list's (or tuple's) own operator for a call of key, if it is one (NumPy's, when an
    array takes part; tuple == is older: lowering/emit_values.py)."""
    if any(isinstance(t, ArrayT) for t in arg_types):
        return None
    if key in OVERLOADED and any(isinstance(t, ListT) for t in arg_types):
        return "list"
    if key in _TUPLE_CMP and len(arg_types) == 2 and all(isinstance(t, TupleT) for t in arg_types):
        return "tuple"
    return None


def _is_int(t: Type | None) -> bool:
    return isinstance(t, ScalarT) and (t.dtype.is_integer or t.dtype.is_bool)


def _pyname(t: Type | None) -> str:
    if isinstance(t, ScalarT):
        return str(t) if t.weak else f"numpy.{t.dtype}"
    return {StrT: "str", ListT: "list"}.get(type(t), str(t))


def _same_items(a: ListT, b: ListT, what: str) -> Type | None:
    if a.elem is not None and b.elem is not None and a.elem != b.elem:
        raise TypingError(f"{what} of a list[{a.elem}] and a list[{b.elem}] is not supported: a list keeps one "
                          "item type")
    return a.elem if a.elem is not None else b.elem


def _item(lst: ListT, x: Type, meth: str) -> None:
    """x must be of the list's item type (a weak int where the items are floats would compare, but be a
    different Python object: refused rather than guessed)."""
    if lst.elem is not None and x != lst.elem and not (_is_int(x) and _is_int(lst.elem)):
        raise TypingError(f"list.{meth}() of a {_pyname(x)} on a list[{lst.elem}] is not supported")


def _binary_infer(site: Site) -> Type:
    name = site.key.rsplit(".", 1)[1]
    a, b = site.args
    if name in ("mul", "imul"):
        lst, n = (a, b) if isinstance(a, ListT) else (b, a)
        if not _is_int(n):
            raise TypingError(f"can't multiply sequence by non-int of type '{_pyname(n)}'")
        return lst
    if not (isinstance(a, ListT) and isinstance(b, ListT)):
        if name in ("eq", "ne"):
            return BOOL
        op = {"add": "+", "iadd": "+=", **_CMP}[name]
        raise TypingError(f"unsupported operand types for {op}: {_pyname(a)} and {_pyname(b)}")
    elem = _same_items(a, b, "+" if name in ("add", "iadd") else _CMP[name])
    return ListT(elem) if name in ("add", "iadd") else BOOL


def _binary_lower(ls: LowerSite) -> str:
    name = ls.key.rsplit(".", 1)[1]
    a, b = ls.args
    if name in ("mul", "imul"):
        lst, n = (a, b) if isinstance(ls.arg_types[0], ListT) else (b, a)
        return f"ep::list_{'irepeat' if name == 'imul' else 'repeat'}({lst}, int64_t({n}))"
    if not all(isinstance(t, ListT) for t in ls.arg_types):
        return "false" if name == "eq" else "true"
    if name in ("add", "iadd"):
        return f"ep::list_{'iadd' if name == 'iadd' else 'concat'}({a}, {b})"
    if name in ("eq", "ne"):
        return f"({'' if name == 'eq' else '!'}ep::list_eq({a}, {b}))"
    return f"ep::list_compare({a}, {b}, [](const auto& x, const auto& y) {{ return x {_CMP[name]} y; }})"


def _comparable(a: Type, b: Type) -> bool:
    if isinstance(a, TupleT) and isinstance(b, TupleT):
        return all(_comparable(x, y) for x, y in zip(a.items, b.items))
    real = (lambda t: isinstance(t, ScalarT) and not t.dtype.is_complex)
    return (real(a) and real(b)) or (isinstance(a, StrT) and isinstance(b, StrT))


def _tuple_infer(site: Site) -> Type:
    a, b = site.args
    if not _comparable(a, b):
        raise TypingError(f"'{_CMP[site.key.rsplit('.', 1)[1]]}' between {a} and {b} is not supported (items "
                          "compared in order must be real numbers or str)")
    return BOOL


def _tuple_lower(ls: LowerSite) -> str:
    op = _CMP[ls.key.rsplit(".", 1)[1]]
    return f"ep::tuple_compare({ls.args[0]}, {ls.args[1]}, [](const auto& x, const auto& y) {{ return x {op} y; }})"


def _sorted_str_infer(site: Site) -> Type:
    site.check_kwargs(("key", "reverse"))
    key = site.node.kwargs.get("key")
    if len(site.args) != 1 or (key is not None and not (key.op.value == "const" and key.target is None)):
        raise TypingError("sorted() of a str takes the str and reverse= only")
    return ListT(StrT())


def _repr(t: Type | None) -> str:
    """A C++ lambda writing an item as repr() does (for `x is not in list`)."""
    if isinstance(t, StrT):
        from everypath.variants.ops.strings import tables_current

        body = f"ep::str_repr<{'true' if tables_current() else 'false'}>(v)"
    elif isinstance(t, ScalarT) and t.dtype.is_bool:
        body = 'std::string(v ? "True" : "False")'
    elif isinstance(t, ScalarT) and t.dtype.is_float:
        body = "ep::py_float(static_cast<double>(v))"
    elif isinstance(t, ScalarT) and t.dtype.is_integer:
        body = "std::to_string(v)"
    else:
        body = 'std::string("the value")'
    return f"[](const auto& v) {{ return {body}; }}"


def _method_infer(site: Site) -> Type:
    meth = site.key.split(".", 1)[1]
    lst, args = site.args[0], site.args[1:]
    assert isinstance(lst, ListT)
    counts, result = METHODS[meth]
    if meth == "sort":
        site.check_kwargs(("reverse",))
        if "key" in site.kwargs:
            raise TypingError("list.sort(key=...) is not supported: use sorted(xs, key=...)")
    elif site.kwargs:
        raise TypingError(f"list.{meth}() takes no keyword arguments")
    if len(args) not in counts:
        raise TypingError(f"list.{meth}() takes {' or '.join(map(str, counts))} arguments ({len(args)} given)")
    if meth == "pop" and args and not _is_int(args[0]):
        raise TypingError(f"'{_pyname(args[0])}' object cannot be interpreted as an integer")
    if meth == "insert":
        if not _is_int(args[0]):
            raise TypingError(f"'{_pyname(args[0])}' object cannot be interpreted as an integer")
        _item(lst, args[1], meth)
    if meth in ("index", "count", "remove"):
        _item(lst, args[0], meth)
    if meth == "extend":
        other = args[0]
        if isinstance(other, RangeT):
            if lst.elem is not None and not _is_int(lst.elem):
                raise TypingError(f"list.extend(range) of a list[{lst.elem}] is not supported")
        elif isinstance(other, ListT):
            _same_items(lst, other, "list.extend()")
        else:
            raise TypingError(f"list.extend() of a {_pyname(other)} is not supported (a list or a range)")
    if meth in ("pop", "index", "count", "remove", "insert", "sort") and lst.elem is None:
        raise TypingError(f"cannot infer the item type of an empty list for list.{meth}()")
    return result(lst.elem)


def _as_item(ls: LowerSite, x: str) -> str:
    """An argument as the list's item type (a list method's argument meets the list's own items)."""
    lst = ls.arg_types[0]
    assert isinstance(lst, ListT)
    return f"static_cast<{ls.ctype(lst.elem)}>({x})"


def _index_lower(ls: LowerSite) -> str:
    lst = ls.arg_types[0]
    assert isinstance(lst, ListT)
    return f"ep::list_index({ls.args[0]}, {_as_item(ls, ls.args[1])}, {_repr(lst.elem)})"


# method -> its C++ given the call (receiver first); methods Python answers None for give ep::None after the work
_METHOD_LOWER: dict[str, Callable[[LowerSite], str]] = {
    "sort": lambda ls: f"(ep::list_sort({ls.args[0]}, static_cast<bool>({ls.arg('reverse') or 'false'})), "
                       "ep::None{})",
    "reverse": lambda ls: f"(std::reverse({ls.args[0]}.items->begin(), {ls.args[0]}.items->end()), ep::None{{}})",
    "clear": lambda ls: f"({ls.args[0]}.items->clear(), ep::None{{}})",
    "copy": lambda ls: f"ep::list_copy({ls.args[0]})",
    "pop": lambda ls: f"ep::list_pop({ls.args[0]}{''.join(f', ep::index_t({a})' for a in ls.args[1:])})",
    "count": lambda ls: f"ep::list_count({ls.args[0]}, {_as_item(ls, ls.args[1])})",
    "index": _index_lower,
    "remove": lambda ls: f"(ep::list_remove({ls.args[0]}, {_as_item(ls, ls.args[1])}), ep::None{{}})",
    "insert": lambda ls: f"(ep::list_insert({ls.args[0]}, ep::index_t({ls.args[1]}), {_as_item(ls, ls.args[2])}), "
                         "ep::None{})",
    "extend": lambda ls: f"(ep::list_extend({ls.args[0]}, {ls.args[1]}), ep::None{{}})",
}
assert set(_METHOD_LOWER) == set(METHODS)


def _method_lower(ls: LowerSite) -> str:
    assert isinstance(ls.arg_types[0], ListT)
    return _METHOD_LOWER[ls.key.split(".", 1)[1]](ls)


def declare(reg: Registry) -> None:
    B = Family.BUILTIN

    def add(key: str, infer: Callable[[Site], Type], lower: Callable[[LowerSite], str]) -> None:
        reg.add(Operator(key, B, None, infer, lower, variants=VARIANTS))

    for name in ("add", "iadd", "mul", "imul", *_CMP):
        add(f"list:operator.{name}", _binary_infer, _binary_lower)
    add("list:operator.not_", lambda s: BOOL, lambda ls: f"({ls.args[0]}.size() == 0)")
    add("list:builtins.bool", lambda s: BOOL, lambda ls: f"({ls.args[0]}.size() != 0)")
    for meth in METHODS:
        add(f"list.{meth}", _method_infer, _method_lower)
    for key in _TUPLE_CMP:
        add(f"tuple:{key}", _tuple_infer, _tuple_lower)
    add("str:builtins.sorted", _sorted_str_infer,
        lambda ls: f"ep::list_sorted_str({ls.args[0]}, static_cast<bool>({ls.arg('reverse') or 'false'}))")


__all__ = ["OVERLOADED", "METHODS", "HEADER", "declare", "route"]

"""Python dict: its methods (``dict.get``...), ``dict()``, and the operators and builtins a dict operand
gives another meaning (``dict:builtins.len`` is ``len(d)``, ``dict:operator.contains`` is ``k in d``:
lowering/infer.py routes a call there when an operand is a dict or a view of one).
C++: variants/include/everypath/dict.hpp, with CPython's results, order and messages.

Typing keeps CPython's exact types: a dict holds one key type and one value type, and a store of
another (an int value into a dict of floats, whose ints CPython would keep as ints) is refused rather
than converted. Lookups (``in``, ``d[k]``, ``get``, ``pop``, ``del``) take any key: 1.0 finds 1."""
from __future__ import annotations

import builtins

from everypath.base.types import BOOL, INT, NONE, ArrayT, DictT, EnumT, IterT, ListT, ScalarT, StrT, TupleT, Type
from everypath.variants.registry import Family, LowerSite, Operator, Registry, Site, TypingError, Variant

HEADER = "everypath/dict.hpp"
VARIANTS = (Variant("loops", HEADER, cost_hint="reference"),)

# operators and builtins whose call is routed to "dict:<key>" when one of its operands is a dict (or a view)
OVERLOADED = frozenset({
    "operator.contains", "operator.not_contains", "operator.eq", "operator.ne", "operator.not_",
    "builtins.len", "builtins.bool", "builtins.sorted", "builtins.list",
})
METHODS = frozenset({"get", "setdefault", "pop", "update", "copy", "keys", "values", "items", "clear"})
VIEWS = ("dict_keys", "dict_values", "dict_items")


def is_dictlike(t: object) -> bool:
    return isinstance(t, DictT) or (isinstance(t, IterT) and t.kind in VIEWS)


def check_key(t: Type) -> None:
    """A type CPython can hash and everypath can compare: numbers but complex, str, enum members (by member:
    in C++ the member's index, or an IntEnum's int), tuples of those."""
    if isinstance(t, ScalarT) and not t.dtype.is_complex:
        return
    if isinstance(t, (StrT, EnumT)):
        return
    if isinstance(t, TupleT):
        for i in t.items:
            check_key(i)
        return
    kind = {ArrayT: "numpy.ndarray", ListT: "list", DictT: "dict"}.get(type(t), str(t))
    raise TypingError(f"unhashable type: '{kind}'" if kind in ("numpy.ndarray", "list", "dict")
                      else f"{t} cannot be a dict key")


def check_lookup(have: Type | None, key: Type) -> None:
    """A key looked up among keys of type `have` (a dict's `in`, d[k], get, pop, del; a set's `in`, discard,
    remove): any number finds an equal number, but an enum member (other than an IntEnum's, which equals its
    int) equals only itself, and in C++ it is its index: a lookup mixing a member with another type would find
    the wrong entry, so it is refused (CPython finds nothing)."""
    check_key(key)
    if have is None or have == key:
        return
    if any(isinstance(t, EnumT) and not (t.by_value and isinstance(o, ScalarT))
           for t, o in ((have, key), (key, have))):
        raise TypingError(f"looking up a key of type {key} among keys of type {have}: CPython finds nothing (an enum "
                          f"member equals only itself), which compiled code does not reproduce; look up a {have}")


def fits(have: Type | None, new: Type | None) -> bool:
    """Whether `new` can go where `have` is stored without changing a type CPython would keep:
    equal, or one of them still unknown somewhere (an empty list or dict)."""
    if have is None or new is None:
        return True
    if isinstance(have, ListT) and isinstance(new, ListT):
        return fits(have.elem, new.elem)
    if isinstance(have, DictT) and isinstance(new, DictT):
        return fits(have.key, new.key) and fits(have.value, new.value)
    if isinstance(have, TupleT) and isinstance(new, TupleT):
        return len(have.items) == len(new.items) and all(map(fits, have.items, new.items))
    return have == new


def merge(have: Type | None, new: Type | None, what: str) -> Type | None:
    if not fits(have, new):
        raise TypingError(f"{what} is {new} but the dict's values are {have}; a dict keeps one value type "
                          "(CPython would keep each value's own type: convert it first)")
    if have is None or new is None:
        return have or new
    from everypath.base.types import join

    return join(have, new)


def stored(d: DictT, key: Type, value: Type) -> DictT:
    """The dict's type once `d[key] = value` ran (the key must be of the dict's key type)."""
    check_key(key)
    if d.key is not None and key != d.key:
        raise TypingError(f"key is {key} but the dict's keys are {d.key}; a dict keeps one key type "
                          "(store keys of one type)")
    return DictT(key, merge(d.value, value, "the value stored"))


def _dict(t: Type, what: str) -> DictT:
    if not isinstance(t, DictT):
        raise TypingError(f"{what} needs a dict, got {t}")
    return t


def _value(d: DictT) -> Type:
    if d.value is None:
        raise TypingError("cannot infer the value type of an empty dict (store into it first)")
    return d.value


def _nargs(site: Site, meth: str, lo: int, hi: int) -> None:
    n = len(site.args) - 1
    if site.kwargs:
        raise TypingError(f"dict.{meth}() takes no keyword arguments")
    if not lo <= n <= hi:
        want = f"{lo}" if lo == hi else f"from {lo} to {hi}"
        raise TypingError(f"dict.{meth}() takes {want} argument{'s' * (hi != 1)} ({n} given)")


# ---- methods ---------------------------------------------------------------------------
def get_infer(site: Site) -> Type:
    meth = site.key.split(".", 1)[1]
    _nargs(site, meth, 1, 2)
    d = site.args[0]
    assert isinstance(d, DictT)
    check_lookup(d.key, site.args[1])
    if len(site.args) == 2:
        if meth == "get":
            raise TypingError("d.get(key) without a default may return None: give the default, d.get(key, default)")
        return _value(d)
    got = merge(d.value, site.args[2], "the default's type")
    assert got is not None
    return got


def get_lower(ls: LowerSite) -> str:
    d, k = ls.args[0], ls.args[1]
    meth = ls.key.split(".", 1)[1]
    if len(ls.args) == 2:  # d.pop(k)
        return f"{d}.take({k})"
    return f"{d}.{meth}({k}, {ls.args[2]})"


def setdefault_infer(site: Site) -> Type:
    _nargs(site, "setdefault", 1, 2)
    if len(site.args) == 2:
        raise TypingError("d.setdefault(key) stores None: give the default, d.setdefault(key, default)")
    t = stored(site.args[0], site.args[1], site.args[2])  # type: ignore[arg-type]
    assert t.value is not None
    return t.value


def update_infer(site: Site) -> Type:
    _nargs(site, "update", 1, 1)
    other = _dict(site.args[1], "dict.update()")
    if other.key is not None and other.value is not None:
        stored(site.args[0], other.key, other.value)  # type: ignore[arg-type]
    return NONE


def _simple(result: str, lo: int = 0) -> tuple:
    def infer(site: Site) -> Type:
        meth = site.key.split(".", 1)[1]
        _nargs(site, meth, lo, lo)
        d = site.args[0]
        return {"copy": d, "clear": NONE}.get(meth) or IterT(f"dict_{meth}", (d,))  # type: ignore[return-value]

    return infer, (lambda ls: f"{ls.args[0]}.{result}()" if result != "clear" else f"({ls.args[0]}.clear(), ep::None{{}})")


# ---- dict(), and builtins/operators on a dict ------------------------------------------
def dict_infer(site: Site) -> Type:
    if site.kwargs:
        raise TypingError("dict(key=value, ...) is not supported; write {'key': value}")
    if not site.args:
        return DictT(None, None)
    if len(site.args) == 1 and isinstance(site.args[0], DictT):
        return site.args[0]
    if len(site.args) == 1 and isinstance(site.args[0], ListT) and isinstance(site.args[0].elem, TupleT):
        pair = site.args[0].elem  # dict(sorted(d.items())), dict(list_of_pairs): later pairs win, first place kept
        if len(pair.items) != 2:
            raise TypingError(f"dictionary update sequence element #0 has length {len(pair.items)}; 2 is required")
        check_key(pair.items[0])
        return DictT(pair.items[0], pair.items[1])
    raise TypingError(f"dict({', '.join(map(str, site.args))}) is not supported: dict() or dict(other_dict)")


def dict_lower(ls: LowerSite) -> str:
    if ls.args and isinstance(ls.arg_types[0], ListT):
        return f"ep::dict_from_pairs<{ls.ctype(ls.result)}>({ls.args[0]})"
    return f"{ls.args[0]}.copy()" if ls.args else f"{ls.ctype(ls.result)}{{}}"


def _source(ls: LowerSite, i: int = 0) -> str:
    """The keys (for `for k in d`, list(d), sorted(d)) or the view's list of a dict operand."""
    return f"{ls.args[i]}.keys()" if isinstance(ls.arg_types[i], DictT) else ls.args[i]


def _view_elem(t: Type) -> Type:
    from everypath.base.types import element_type

    return element_type(t)


def contains_infer(site: Site) -> Type:
    container, item = site.args
    if not isinstance(container, DictT):
        raise TypingError(f"'in' of a {container} is not supported; test membership in the dict itself")
    check_lookup(container.key, item)
    return BOOL


def contains_lower(ls: LowerSite) -> str:
    expr = f"{ls.args[0]}.contains({ls.args[1]})"
    return expr if ls.key.endswith(".contains") else f"(!{expr})"


def eq_infer(site: Site) -> Type:
    a, b = site.args
    if not (isinstance(a, DictT) and isinstance(b, DictT)):
        return BOOL  # a dict never equals a non-dict (lowered to a constant)
    if fits(a, b) and not _has_array(a.value, lists=True):
        return BOOL
    raise TypingError(f"comparing {a} with {b} is not supported (values must be of one type, without arrays or lists)")


def _has_array(t: Type | None, lists: bool = False) -> bool:
    """Whether values of type t hold an array (or, with lists, a list): no C++ == for those."""
    if isinstance(t, ArrayT):
        return True
    if isinstance(t, ListT):
        return lists or _has_array(t.elem)
    if isinstance(t, TupleT):
        return any(_has_array(i, lists) for i in t.items)
    if isinstance(t, DictT):
        return _has_array(t.value, lists)
    return False


def refuse_enum_order(elem: Type) -> None:
    """sorted() of plain enum members: C++ would order them by definition; CPython has no order for them."""
    if _plain_enum(elem):
        raise TypingError(f"sorted() of {elem} items: CPython raises TypeError ('<' not supported between "
                          f"members), so compiled code refuses it; sort by a key such as the member's value")


def _plain_enum(t: Type | None) -> bool:
    """Whether t is or holds (in a tuple) an enum member that has no order (an IntEnum's is its int's)."""
    if isinstance(t, EnumT):
        return not t.by_value
    return isinstance(t, TupleT) and any(_plain_enum(i) for i in t.items)


def eq_lower(ls: LowerSite) -> str:
    same = "==" if ls.key.endswith(".eq") else "!="
    if not all(isinstance(t, DictT) for t in ls.arg_types):
        return "false" if same == "==" else "true"
    return f"({ls.args[0]} {same} {ls.args[1]})"


def sorted_infer(site: Site) -> Type:
    site.check_kwargs(("reverse",))
    if len(site.args) != 1:
        raise TypingError(f"sorted expected 1 argument, got {len(site.args)}")
    elem = _view_elem(site.args[0])
    if _has_array(elem) or isinstance(elem, (ListT, DictT)) or (isinstance(elem, ScalarT) and elem.dtype.is_complex):
        raise TypingError(f"sorted() of {elem} items is not supported")
    refuse_enum_order(elem)
    return ListT(elem)


def sorted_lower(ls: LowerSite) -> str:
    reverse = ls.arg("reverse") or "false"
    return f"ep::dict_sorted({_source(ls)}, static_cast<bool>({reverse}))"


def list_infer(site: Site) -> Type:
    if len(site.args) != 1 or site.kwargs:
        raise TypingError("list() of a dict takes one argument")
    return ListT(_view_elem(site.args[0]))


def declare(reg: Registry) -> None:
    B = Family.BUILTIN

    def add(key: str, infer, lower, ref: object = None) -> None:  # noqa: ANN001
        reg.add(Operator(key, B, ref, infer, lower, variants=VARIANTS))

    add("builtins.dict", dict_infer, dict_lower, builtins.dict)
    add("dict.get", get_infer, get_lower)
    add("dict.pop", get_infer, get_lower)
    add("dict.setdefault", setdefault_infer, lambda ls: f"{ls.args[0]}.setdefault({ls.args[1]}, {ls.args[2]})")
    add("dict.update", update_infer, lambda ls: f"({ls.args[0]}.update({ls.args[1]}), ep::None{{}})")
    for meth in ("copy", "keys", "values", "items", "clear"):
        add(f"dict.{meth}", *_simple(meth))
    add("dict:operator.contains", contains_infer, contains_lower)
    add("dict:operator.not_contains", contains_infer, contains_lower)
    add("dict:operator.eq", eq_infer, eq_lower)
    add("dict:operator.ne", eq_infer, eq_lower)
    add("dict:builtins.len", lambda s: INT, lambda ls: f"int64_t({ls.args[0]}.size())")
    add("dict:builtins.bool", lambda s: BOOL, lambda ls: f"({ls.args[0]}.size() != 0)")
    add("dict:operator.not_", lambda s: BOOL, lambda ls: f"({ls.args[0]}.size() == 0)")
    add("dict:builtins.sorted", sorted_infer, sorted_lower)
    add("dict:builtins.list", list_infer, lambda ls: f"ep::dict_list({_source(ls)})")


__all__ = ["OVERLOADED", "METHODS", "HEADER", "declare", "is_dictlike", "stored", "check_key", "check_lookup",
           "refuse_enum_order", "fits"]

"""Python str: its methods (``str.split``...), the builtins that take or make one (str, ord, chr) and the
operators and builtins a str operand gives another meaning (``str:operator.add`` is ``a + b`` of two str,
``str:builtins.int`` is ``int(s)``: lowering/infer.py routes a call there when an operand is a str).
C++: variants/include/everypath/str*.hpp, with CPython's results and messages."""
from __future__ import annotations

import builtins
from functools import lru_cache
from typing import Callable

from everypath.base.types import BOOL, FLOAT, INT, ListT, NoneT, ScalarT, StrT, TupleT, Type
from everypath.variants.registry import Family, LowerSite, Operator, Registry, Site, TypingError, Variant

HEADER = "everypath/str_methods.hpp"
VARIANTS = (Variant("loops", HEADER, cost_hint="reference"),)
STR = StrT()
LIST_STR = ListT(STR)

# operators and builtins whose call is routed to "str:<key>" when one of its operands is a str
OVERLOADED = frozenset({
    "operator.add", "operator.iadd", "operator.mul", "operator.imul", "operator.eq", "operator.ne",
    "operator.lt", "operator.le", "operator.gt", "operator.ge", "operator.contains", "operator.not_contains",
    "operator.not_", "builtins.len", "builtins.int", "builtins.float", "builtins.bool", "builtins.sorted",
})


def _is_int(t: Type | None) -> bool:
    return isinstance(t, ScalarT) and (t.dtype.is_integer or t.dtype.is_bool)


def _pyname(t: Type | None) -> str:
    if isinstance(t, ScalarT):
        return str(t).removeprefix("np.") if t.weak else f"numpy.{t.dtype}"
    return {StrT: "str", NoneT: "NoneType", ListT: "list", TupleT: "tuple"}.get(type(t), str(t))


# ---- method signatures ----------------------------------------------------
def _params(site: Site, names: tuple[str, ...], required: int) -> list[Type | None]:
    """The types of a method's arguments (after the receiver) in parameter order; None where not given."""
    meth = site.key.split(".", 1)[1]
    pos = site.args[1:]
    if len(pos) > len(names):
        raise TypingError(f"str.{meth}() takes at most {len(names)} arguments ({len(pos)} given)")
    out: list[Type | None] = list(pos) + [None] * (len(names) - len(pos))
    for k, t in site.kwargs.items():
        if k not in names or meth not in ("split", "rsplit"):  # CPython 3.11: no other keywords
            raise TypingError(f"str.{meth}() takes no keyword argument '{k}'")
        out[names.index(k)] = t
    if any(t is None for t in out[:required]):
        raise TypingError(f"str.{meth}() takes at least {required} argument{'s' * (required > 1)} ({len(pos)} given)")
    return out


def _lower_params(ls: LowerSite, names: tuple[str, ...]) -> list[str]:
    out = list(ls.args[1:]) + [""] * (len(names) - len(ls.args) + 1)
    for k, v in ls.kwargs.items():
        out[names.index(k)] = v
    return out


def _want(t: Type | None, ok: Callable[[Type], bool], what: str, meth: str) -> None:
    if t is not None and not ok(t):
        raise TypingError(f"str.{meth}() argument must be {what}, not {_pyname(t)}")


def _str_or_none(t: Type) -> bool:
    return isinstance(t, (StrT, NoneT))


def _int_or_none(t: Type) -> bool:
    return _is_int(t) or isinstance(t, NoneT)


def method(names: tuple[str, ...], required: int, checks: tuple[tuple[Callable[[Type], bool], str], ...],
           result: Type) -> Callable[[Site], Type]:
    def infer(site: Site) -> Type:
        meth = site.key.split(".", 1)[1]
        for t, (ok, what) in zip(_params(site, names, required), checks):
            _want(t, ok, what, meth)
        return result

    return infer


def _call(fn: str, names: tuple[str, ...]) -> Callable[[LowerSite], str]:
    def lower(ls: LowerSite) -> str:
        given = [a for a in _lower_params(ls, names)]
        while given and not given[-1]:
            given.pop()
        return f"ep::{fn}({', '.join([ls.args[0], *(a or 'ep::None{}' for a in given)])})"

    return lower


@lru_cache(maxsize=1)
def tables_current() -> bool:
    """Whether str_unicode.hpp is this Python's Unicode version (else: ASCII and Latin-1 only)."""
    from everypath.variants.unicode_tables import current

    return current()


def _unicode_call(name: str) -> Callable[[LowerSite], str]:
    """Case mappings and character classes: the Unicode tables when they are this Python's version."""
    return lambda ls: f"ep::str_{name}<{'true' if tables_current() else 'false'}>({ls.args[0]})"


def _split_lower(ls: LowerSite) -> str:
    sep, maxsplit = _lower_params(ls, ("sep", "maxsplit"))
    sep_t = ls.kw_types.get("sep", ls.arg_types[1] if len(ls.arg_types) > 1 else None)
    m = f", int64_t({maxsplit})" if maxsplit else ""
    fn = "ep::str_" + ls.key.split(".", 1)[1]  # split / rsplit
    if sep_t is None or isinstance(sep_t, NoneT):
        return f"{fn}_ws({ls.args[0]}{m})"
    return f"{fn}({ls.args[0]}, {sep}{m})"


def _strip_lower(which: int) -> Callable[[LowerSite], str]:
    def lower(ls: LowerSite) -> str:
        chars = ls.args[1] if len(ls.args) > 1 else "ep::None{}"
        return f"ep::str_strip({ls.args[0]}, {which}, {chars})"

    return lower


def _pad_lower(which: int) -> Callable[[LowerSite], str]:
    def lower(ls: LowerSite) -> str:
        fill = f", {ls.args[2]}" if len(ls.args) > 2 else ""
        return f"ep::str_pad({ls.args[0]}, {ls.args[1]}, {which}{fill})"

    return lower


def _affix_infer(site: Site) -> Type:
    meth = site.key.split(".", 1)[1]
    if len(site.args) > 2:
        raise TypingError(f"str.{meth}() with start and end positions is not supported; slice the string first")
    (t,) = _params(site, ("prefix",), 1)
    if isinstance(t, StrT) or (isinstance(t, TupleT) and t.items and all(isinstance(i, StrT) for i in t.items)):
        return BOOL
    raise TypingError(f"{meth} first arg must be str or a tuple of str, not {_pyname(t)}")


def _join_infer(site: Site) -> Type:
    (t,) = _params(site, ("iterable",), 1)
    if isinstance(t, ListT) and (t.elem is None or isinstance(t.elem, StrT)):
        return STR
    if isinstance(t, TupleT) and all(isinstance(i, StrT) for i in t.items):
        return STR
    if isinstance(t, ListT):
        raise TypingError(f"sequence item 0: expected str instance, {_pyname(t.elem)} found")
    raise TypingError(f"str.join() takes a list or tuple of str here, not {_pyname(t)}")


# ---- builtins that make a str ----------------------------------------------
def str_infer(site: Site) -> Type:
    site.check_kwargs(())
    if len(site.args) > 1:
        raise TypingError("str() with an encoding is not supported")
    if site.args and not isinstance(site.args[0], (StrT, ScalarT, NoneT, TupleT, ListT)):
        raise TypingError(f"str() of {site.args[0]} is not supported")
    return STR


def repr_infer(site: Site) -> Type:
    site.check_kwargs(())
    if len(site.args) != 1:
        raise TypingError(f"repr() takes exactly one argument ({len(site.args)} given)")
    return str_infer(site)


def chr_infer(site: Site) -> Type:
    if len(site.args) != 1 or not _is_int(site.args[0]):
        raise TypingError(f"chr() takes an integer, not {_pyname(site.args[0]) if site.args else 'nothing'}")
    return STR


def ord_infer(site: Site) -> Type:
    if len(site.args) != 1 or not isinstance(site.args[0], StrT):
        raise TypingError(f"ord() expected string of length 1, but {_pyname(site.args[0] if site.args else None)} found")
    return INT


# ---- operators with a str operand ------------------------------------------
_CMP = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


def _binary_infer(site: Site) -> Type:
    name = site.key.split(".")[-1]
    a, b = site.args
    if name in _CMP:
        if isinstance(a, StrT) and isinstance(b, StrT) or name in ("eq", "ne"):
            return BOOL  # a str never equals a number: CPython says False, not an error
        raise TypingError(f"'{_CMP[name]}' not supported between instances of '{_pyname(a)}' and '{_pyname(b)}'")
    if name in ("add", "iadd"):
        if isinstance(a, StrT) and isinstance(b, StrT):
            return STR
        other = b if isinstance(a, StrT) else a
        raise TypingError(f'can only concatenate str (not "{_pyname(other)}") to str')
    if name in ("mul", "imul"):
        if (isinstance(a, StrT) and _is_int(b)) or (_is_int(a) and isinstance(b, StrT)):
            return STR
        other = b if isinstance(a, StrT) else a
        raise TypingError(f"can't multiply sequence by non-int of type '{_pyname(other)}'")
    raise AssertionError(name)


def _binary_lower(ls: LowerSite) -> str:
    name = ls.key.split(".")[-1]
    a, b = ls.args
    ta, tb = ls.arg_types
    if name in _CMP:
        if not (isinstance(ta, StrT) and isinstance(tb, StrT)):
            return "true" if name == "ne" else "false"
        return f"({a} {_CMP[name]} {b})"  # ep::Str's operators (or std::string's, for two f-strings): the same order
    if name in ("add", "iadd"):
        return f"({a} + {b})"
    return f"ep::str_repeat({a}, {b})" if isinstance(ta, StrT) else f"ep::str_repeat({b}, {a})"


def _contains_infer(site: Site) -> Type:
    container, item = site.args
    if isinstance(container, StrT):
        if not isinstance(item, StrT):
            raise TypingError(f"'in <string>' requires string as left operand, not {_pyname(item)}")
        return BOOL
    if isinstance(container, ListT) and isinstance(container.elem, StrT):
        return BOOL
    if isinstance(container, TupleT) and all(isinstance(i, StrT) for i in container.items):
        return BOOL
    raise TypingError(f"'in' between {_pyname(item)} and {container} is not supported")


def _contains_lower(ls: LowerSite) -> str:
    container, item = ls.args
    ct = ls.arg_types[0]
    if isinstance(ct, StrT):
        expr = f"ep::str_contains({container}, {item})"
    elif isinstance(ct, ListT):
        expr = f"ep::str_in_list({container}, {item})"
    else:
        expr = f"ep::str_in_tuple({container}, {item})"
    return expr if ls.key.endswith(".contains") else f"(!{expr})"


def _unary(result: Type, check: Callable[[list[Type]], str | None], lower: Callable[[LowerSite], str]
           ) -> tuple[Callable[[Site], Type], Callable[[LowerSite], str]]:
    def infer(site: Site) -> Type:
        problem = check(site.args)
        if problem:
            raise TypingError(problem)
        return result

    return infer, lower


def _one_str(name: str) -> Callable[[list[Type]], str | None]:
    return lambda args: None if len(args) == 1 else f"{name}() with a base is not supported; parse base 10"


def declare(reg: Registry) -> None:
    B = Family.BUILTIN

    def add(key: str, infer: Callable[[Site], Type], lower: Callable[[LowerSite], str], ref: object = None) -> None:
        reg.add(Operator(key, B, ref, infer, lower, variants=VARIANTS))

    # str(x) is written by lowering/pyformat.py, the one writer of Python text (lowering/emit_values.py)
    reg.add(Operator("builtins.str", B, builtins.str, str_infer, None, variants=VARIANTS))
    reg.add(Operator("builtins.repr", B, builtins.repr, repr_infer, None, variants=VARIANTS))
    add("builtins.chr", chr_infer, lambda ls: f"ep::str_chr({ls.args[0]})", builtins.chr)
    add("builtins.ord", ord_infer, lambda ls: f"ep::str_ord({ls.args[0]})", builtins.ord)
    for name in ("add", "iadd", "mul", "imul", *_CMP):
        add(f"str:operator.{name}", _binary_infer, _binary_lower)
    add("str:operator.contains", _contains_infer, _contains_lower)
    add("str:operator.not_contains", _contains_infer, _contains_lower)
    add("str:operator.not_", *_unary(BOOL, lambda a: None, lambda ls: f"(!ep::str_truthy({ls.args[0]}))"))
    add("str:builtins.bool", *_unary(BOOL, lambda a: None, lambda ls: f"ep::str_truthy({ls.args[0]})"))
    add("str:builtins.len", *_unary(INT, lambda a: None, lambda ls: f"ep::str_len({ls.args[0]})"))
    add("str:builtins.int", *_unary(INT, _one_str("int"), _unicode_call("to_int")))
    add("str:builtins.float", *_unary(FLOAT, _one_str("float"), _unicode_call("to_float")))

    s_, i_ = (_str_or_none, "str or None"), (_int_or_none, "an integer or None")
    want_str = (lambda t: isinstance(t, StrT), "str")
    want_int = (_is_int, "an integer")
    add("str.split", method(("sep", "maxsplit"), 0, (s_, want_int), LIST_STR), _split_lower)
    add("str.rsplit", method(("sep", "maxsplit"), 0, (s_, want_int), LIST_STR), _split_lower)
    add("str.join", _join_infer, lambda ls: f"ep::str_join({ls.args[0]}, {ls.args[1]})")
    for name, which in (("strip", 3), ("lstrip", 1), ("rstrip", 2)):
        add(f"str.{name}", method(("chars",), 0, (s_,), STR), _strip_lower(which))
    add("str.replace", method(("old", "new", "count"), 2, (want_str, want_str, want_int), STR),
        _call("str_replace", ("old", "new", "count")))
    add("str.startswith", _affix_infer, lambda ls: f"ep::str_startswith({ls.args[0]}, {ls.args[1]})")
    add("str.endswith", _affix_infer, lambda ls: f"ep::str_endswith({ls.args[0]}, {ls.args[1]})")
    for name in ("find", "rfind", "index", "rindex", "count"):
        add(f"str.{name}", method(("sub", "start", "end"), 1, (want_str, i_, i_), INT),
            _call(f"str_{name}", ("sub", "start", "end")))
    for name, which in (("ljust", 0), ("rjust", 1), ("center", 2)):
        add(f"str.{name}", method(("width", "fillchar"), 1, (want_int, want_str), STR), _pad_lower(which))
    add("str.zfill", method(("width",), 1, (want_int,), STR), lambda ls: f"ep::str_zfill({ls.args[0]}, {ls.args[1]})")
    for name, right in (("partition", "false"), ("rpartition", "true")):
        add(f"str.{name}", method(("sep",), 1, (want_str,), TupleT((STR, STR, STR))),
            lambda ls, right=right: f"ep::str_partition({ls.args[0]}, {ls.args[1]}, {right})")
    for name in ("lower", "upper"):
        add(f"str.{name}", method((), 0, (), STR), _unicode_call(name))
    for name in ("isdigit", "isalpha", "isspace", "isalnum", "isupper", "islower", "isascii"):
        add(f"str.{name}", method((), 0, (), BOOL), _unicode_call(name))
    add("str.splitlines", method(("keepends",), 0, ((lambda t: _is_int(t), "an integer"),), LIST_STR),
        _call("str_splitlines", ("keepends",)))


__all__ = ["OVERLOADED", "declare", "HEADER", "tables_current"]

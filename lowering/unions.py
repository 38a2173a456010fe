"""Typing and C++ of union values (base/types.py UnionT, variants/include/everypath/union.hpp; issue 14).

A load of a union local is typed as the members that hold there (lowering/narrowing.py: `is None` tests,
truthiness, guard clauses). Where the whole union is used (stored, returned, tested, put in a tuple or list,
passed to a function) it stays the union. Elsewhere an Optional (None or one kind) is read as its one other
member, checked: holding None raises the TypeError CPython raises at that operation (`unsupported operand
type(s) for +: 'NoneType' and 'int'`). A union of several other kinds read where no one of them is known is
a located compile error asking for a test first.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from everypath.base import unions as U
from everypath.base.cpp import EmitError, c_string, ctype
from everypath.base.errors import TypingError
from everypath.base.types import ArrayT, DType, EnumT, NoneT, RecordT, ScalarT, StrT, TupleT, Type, UnionT, join
from everypath.lowering import type_tests
from everypath.lowering.narrowing import Fact, IsA, load_facts
from everypath.tracer.classinfo import is_isinstance
from everypath.tracer.ir import FunctionRef, Node, Opcode

if TYPE_CHECKING:
    from everypath.lowering.emit import FunctionEmitter
    from everypath.lowering.infer import TypedFunction

HEADER = "everypath/union.hpp"

# calls that take a union operand whole (the others read one member)
_WHOLE = frozenset({"operator.is_", "operator.is_not", "ep.truth", "operator.not_", "ep.tuple"})
_SYMBOL = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%", "pow": "** or pow()",
           "matmul": "@", "lshift": "<<", "rshift": ">>", "or_": "|", "xor": "^", "and_": "&",
           "iadd": "+=", "isub": "-=", "imul": "*=", "itruediv": "/=", "ifloordiv": "//=", "imod": "%=",
           "ipow": "**=", "imatmul": "@=", "ilshift": "<<=", "irshift": ">>=", "ior": "|=", "ixor": "^=",
           "iand": "&="}
_COMPARE = {"lt": "<", "le": "<=", "gt": ">", "ge": ">="}
# operations on a union of several kinds switch over its tag, each branch typed as the member
# (lowering/union_dispatch.py); those in NONE_OK have an answer for None too (`None == 3` is False,
# str(None) is 'None'), the others raise CPython's TypeError in the None branch
DISPATCH_PREFIXES = ("operator.", "math.", "builtins.")
DISPATCH_TARGETS = frozenset({"ep.format", "ep.rconv", "ep.sconv", "ep.fspec"})
NONE_OK = frozenset({"operator.eq", "operator.ne", "builtins.str", "builtins.repr", "ep.format", "ep.rconv",
                     "ep.sconv", "ep.fspec"})


def dispatchable(target: Any) -> bool:
    return isinstance(target, str) and target not in _WHOLE and not is_isinstance(target) and (
        target.startswith(DISPATCH_PREFIXES) or target in DISPATCH_TARGETS)
_UNARY = {"neg": "-", "pos": "+", "invert": "~"}


# ---- typing ------------------------------------------------------------------------------------------------
def _narrow(t: UnionT, facts: tuple[Fact, ...]) -> Type:
    ms = list(t.members)
    for f in facts:
        if isinstance(f, IsA):  # isinstance(x, C): lowering/type_tests.py
            ms = type_tests.narrow(ms, f.keys, f.truth)
        else:
            ms = [m for m in ms if isinstance(m, NoneT) == f.truth]
    if not ms:  # contradictory tests (`if x is None and x is not None`): the branch never runs
        return t
    return U.make(ms)


def _takes_whole(user: Node, load: Node) -> bool:
    if user.op in (Opcode.STORE, Opcode.RETURN, Opcode.IF):
        return True
    if user.op is not Opcode.CALL:
        return False
    if isinstance(user.target, FunctionRef) or user.target in _WHOLE or is_isinstance(user.target):
        return True
    return user.target == "method.append" and user.args[0] is not load


def load_type(spec: "TypedFunction", n: Node, t: UnionT) -> Type:
    """The type a load of a union local has: the members its tests leave, the whole union where it is used
    whole, else the one member an Optional holds besides None (read with a check)."""
    narrowed = _narrow(t, load_facts(spec.fn).get(n, ()))
    if not isinstance(narrowed, UnionT) or all(_takes_whole(u, n) for u in n.users):
        return narrowed
    rest = [m for m in narrowed.members if not isinstance(m, NoneT)]
    users = [u for u in n.users if not _takes_whole(u, n)]
    if all(u.op is Opcode.CALL and dispatchable(u.target) for u in users) and (
            len(rest) > 1 or all(u.target in NONE_OK for u in users)):
        return narrowed  # a switch over the tag at the operation (lowering/union_dispatch.py)
    if len(rest) == 1:
        return rest[0]
    name = n.target.split("$")[0]
    raise TypingError(f"'{name}' may hold {narrowed} here; test which one first (`if {name} is None`) or keep "
                      "one kind of value in it (operations on several kinds at once are not supported yet)")


def check_operands(target: Any, arg_types: list[Type | None], n: Node) -> None:
    """A union value computed by an expression (a call's result) used directly where one kind is needed."""
    if isinstance(target, FunctionRef) or target in _WHOLE or target == "method.append" or is_isinstance(target):
        return
    if target in ("ep.list", "ep.dict"):  # items kept as they are: a list or dict of the union
        return
    for t in arg_types:
        if isinstance(t, UnionT):
            raise TypingError(f"this value may be {t} here, which {_op_name(target)} does not take; test which "
                              "one it holds first (`if v is None:`, `isinstance(v, int)`)")


def _op_name(target: Any) -> str:
    return f"'{target.split('.', 1)[-1]}'" if isinstance(target, str) else "this call"


def join_values(cur: Type | None, t: Type | None, what: str) -> Type:
    """The union a local or a return becomes when its values share no one C++ slot (else a located error).
    Scalars of different kinds share one slot (an int and a float stored are a float), except where a value
    stored already tells them apart (`x *= b ** e`, a helper's `int | float`): merging would lose which."""
    u = U.union_join(cur, t, keep_kinds=_kinds_apart(cur) or _kinds_apart(t))
    if u is not None:
        return u
    if U.too_many(cur, t):
        raise TypingError(f"{what} would hold more than {U.MAX_MEMBERS} kinds of values ({cur} and {t})")
    raise TypingError(f"{what} holds {cur} elsewhere but {t} here; a union may hold scalars, str, None, tuples "
                      "and records, not arrays, lists, dicts or sets")


def _kinds_apart(t: Type | None) -> bool:
    scalars = [m for m in U.members(t) if isinstance(m, ScalarT)] if t is not None else []
    return len({(m.dtype.kind, m.weak) for m in scalars}) > 1


def join_result(cur: Type | None, t: Type | None) -> Type:
    """A function's result over its returns. CPython returns each path's own value, whatever the annotation
    says: `return 0` on one path and `return x / 2` on another give an int or a float (a union), `return 0.0`
    beside `return a[i]` a float or an np.float64; NumPy scalars of one kind (np.float32, np.float64) still
    join to the wider as before."""
    if cur is None or t is None:
        return cur if t is None else t  # type: ignore[return-value]
    kinds_differ = isinstance(cur, ScalarT) and isinstance(t, ScalarT) and (
        cur.dtype.kind != t.dtype.kind or cur.weak != t.weak)
    if not kinds_differ and not isinstance(cur, UnionT) and not isinstance(t, UnionT):
        j = join(cur, t)
        if j is not None:
            return j
    u = U.union_join(cur, t, keep_kinds=True)
    return u if u is not None else join_values(cur, t, "this function's result")


def union_items(cur: Type | None, t: Type | None) -> Type | None:
    """The item type of a list display whose items share no one type (`[1, "a", None]`): their union, kinds
    kept apart as CPython keeps each item; None (the caller's refusal) when a union cannot hold them."""
    if cur is None or t is None or isinstance(cur, ArrayT) or isinstance(t, ArrayT):
        return None
    return U.union_join(cur, t, keep_kinds=True)


# ---- C++ ---------------------------------------------------------------------------------------------------
def involved(src: Type | None, dst: Type | None) -> bool:
    return _has_union(src) or _has_union(dst)


def _has_union(t: Type | None) -> bool:
    if isinstance(t, UnionT):
        return True
    return isinstance(t, TupleT) and any(_has_union(i) for i in t.items)


def _fits(src: Type, m: Type) -> bool:
    if src == m:
        return True
    if isinstance(src, ScalarT) and isinstance(m, ScalarT):
        return join(m, src) == m
    if isinstance(src, TupleT) and isinstance(m, TupleT) and len(src.items) == len(m.items):
        return all(_fits_any(s, d) for s, d in zip(src.items, m.items))
    return False


def _fits_any(src: Type, dst: Type) -> bool:
    if isinstance(src, UnionT):
        return all(_fits_any(s, dst) for s in src.members)
    return any(_fits(src, m) for m in U.members(dst))


def convert(fe: "FunctionEmitter", expr: str, src: Type, dst: Type) -> str:
    """expr (of type src) as a value of type dst, when either holds a union."""
    if src == dst:
        return expr
    if isinstance(src, UnionT):  # member by member (a narrower union into a wider one, a tuple item)
        d = ctype(dst)
        cases = " ".join(f"case {i}: return {d}({convert(fe, f'ep::union_at<{i}>(s)', m, dst)});"
                         for i, m in enumerate(src.members) if _fits_any(m, dst))
        return (f"[&](const auto& s) -> {d} {{ switch (s.index()) {{ {cases} default: break; }} "
                f"ep::raise(\"RuntimeError\", \"internal error: union member\"); }}({expr})")
    if isinstance(dst, UnionT):  # the member of src's own type first: an int into int | float stays an int
        order = sorted(range(len(dst.members)), key=lambda k: dst.members[k] != src)
        for i in order:
            m = dst.members[i]
            if _fits(src, m):
                return f"{ctype(dst)}(std::in_place_index<{i}>, {convert(fe, expr, src, m)})"
        raise EmitError(f"internal: {src} is no member of {dst}")
    if isinstance(src, TupleT) and isinstance(dst, TupleT):
        items = ", ".join(convert(fe, f"std::get<{i}>(s)", s, d) for i, (s, d) in enumerate(zip(src.items, dst.items)))
        return f"[&](const auto& s) {{ return {ctype(dst)}({items}); }}({expr})"
    return fe.plain_convert(expr, src, dst)


def load(fe: "FunctionEmitter", n: Node, var: UnionT, name: str) -> str:
    """A load of a union local typed as fewer members (narrowed or read as one): the checked member."""
    t = fe.ty(n)
    if isinstance(t, UnionT):
        return convert(fe, name, var, t)
    i = var.members.index(t)
    return f"ep::union_get<{i}>({name}, \"TypeError\", {c_string(none_message(fe, n))})"


def _other(fe: "FunctionEmitter", user: Node, n: Node) -> str:
    others = [a for a in user.args if a is not n]
    return U.python_name(fe.ty(others[0])) if others else "?"


def none_message(fe: "FunctionEmitter", n: Node, user: Node | None = None) -> str:
    """CPython's TypeError where n (holding None) meets user (by default its first user)."""
    user = user if user is not None else next(iter(n.users), None)
    if user is None:
        return "'NoneType' object is not usable here"
    if user.op is Opcode.GETITEM:
        return "cannot unpack non-iterable NoneType object" if user.meta.get("unpack") else \
            "'NoneType' object is not subscriptable"
    if user.op is Opcode.GETATTR:
        return f"'NoneType' object has no attribute '{user.target}'"
    if user.op is Opcode.FOR:
        return "'NoneType' object is not iterable"
    if user.op is Opcode.SETITEM:
        return "'NoneType' object does not support item assignment"
    key = user.target if isinstance(user.target, str) else ""
    op = key.split(".", 1)[-1]
    if key.startswith("operator.") and op in _SYMBOL:
        left, right = ("NoneType", _other(fe, user, n)) if user.args[0] is n else (_other(fe, user, n), "NoneType")
        return f"unsupported operand type(s) for {_SYMBOL[op]}: '{left}' and '{right}'"
    if key.startswith("operator.") and op in _COMPARE:
        left, right = ("NoneType", _other(fe, user, n)) if user.args[0] is n else (_other(fe, user, n), "NoneType")
        return f"'{_COMPARE[op]}' not supported between instances of '{left}' and '{right}'"
    if key.startswith("operator.") and op in _UNARY:
        return f"bad operand type for unary {_UNARY[op]}: 'NoneType'"
    if key == "builtins.len":
        return "object of type 'NoneType' has no len()"
    if key == "builtins.int":
        return "int() argument must be a string, a bytes-like object or a real number, not 'NoneType'"
    if key == "builtins.float":
        return "float() argument must be a string or a real number, not 'NoneType'"
    if key.startswith("method."):
        return f"'NoneType' object has no attribute '{op}'"
    return f"'NoneType' object cannot be used by {key.rsplit('.', 1)[-1]}()"


def is_none(fe: "FunctionEmitter", n: Node) -> str | None:
    """`x is None` / `x is not None` of a union value: its tag."""
    if n.op is not Opcode.CALL or n.target not in ("operator.is_", "operator.is_not"):
        return None
    ts = [fe.ty(a) for a in n.args]
    if not any(isinstance(t, UnionT) for t in ts):
        return None
    i = 0 if isinstance(ts[0], UnionT) else 1
    u = ts[i]
    assert isinstance(u, UnionT)
    tags = [k for k, m in enumerate(u.members) if isinstance(m, NoneT)]
    test = f"({fe.value(n.args[i])}.index() == {tags[0]})" if tags else "false"
    return test if n.target == "operator.is_" else f"(!{test})"


def _member_truth(v: str, t: Type) -> str:
    if isinstance(t, NoneT):
        return "false"
    if isinstance(t, ScalarT):
        return v if t.dtype is DType.BOOL else f"ep::sc::truthy({v})"
    if isinstance(t, StrT):
        return f"({v}.size() != 0)"
    if isinstance(t, TupleT):
        return "true" if t.items else "false"
    if isinstance(t, (RecordT, EnumT)):  # no __bool__ / __len__ on the user's classes: always true
        return "true"
    raise EmitError(f"cannot test the truth value of {t}")


def truth(v: str, t: UnionT) -> str:
    cases = " ".join(f"case {i}: return {_member_truth(f'ep::union_at<{i}>(s)', m)};" for i, m in enumerate(t.members))
    return f"[&](const auto& s) -> bool {{ switch (s.index()) {{ {cases} default: break; }} return false; }}({v})"


def put_results(expr: str, t: UnionT, slot: list[int], out: list[str], depth: int,
                put: Callable[[str, Type, list[int], list[str], int], None]) -> None:
    """A union result: its tag (one int64 slot), then every member's slots; only the held member's are filled
    (lowering/runtime/results.cpp boxes that one, so Python gets the exact type of the value)."""
    out.append(f"ep::put_scalar(results[{slot[0]}], int64_t({expr}.index()), {DType.INT64.abi});")
    slot[0] += 1
    cases = []
    for i, m in enumerate(t.members):
        inner: list[str] = []
        put(f"ep::union_at<{i}>({expr})", m, slot, inner, depth + 1)
        cases.append(f"case {i}: {{ {' '.join(inner)} break; }}")
    out.append(f"switch ({expr}.index()) {{ {' '.join(cases)} default: break; }}")


def arg_union(t: UnionT, slot: list[int], arg: Callable[[Type, list[int]], str]) -> str:
    """A union parameter read from the ABI: its tag (one int64 slot), then every member's slots; only the
    member the tag names was filled (lowering/runtime/arguments.cpp picks it by the argument's Python type)."""
    tag = slot[0]
    slot[0] += 1
    cases = " ".join(f"case {i}: return {ctype(t)}(std::in_place_index<{i}>, {arg(m, slot)});"
                     for i, m in enumerate(t.members))
    return (f"[&]() -> {ctype(t)} {{ switch (ep::arg_scalar<int64_t>(args[{tag}])) {{ {cases} default: break; }} "
            f"ep::raise(\"RuntimeError\", \"internal error: union argument tag\"); }}()")


__all__ = ["HEADER", "arg_union", "join_result", "union_items", "dispatchable", "NONE_OK", "load_type", "check_operands", "join_values", "involved", "convert", "load", "none_message",
           "is_none", "truth", "put_results"]

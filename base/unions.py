"""Union types: what a variable or a return holds when its values are of different kinds (issue 14).

`best = None` and later `best = (score, label)`, or an int on one path and a str on another, meet at a load
or at the function's return: `join` (base/types.py) finds no one C++ slot for both, so the value becomes a
tagged union (UnionT, ep::Union in C++) of at most MAX_MEMBERS members, each a kind the compiler keeps by value.
Members that do share a slot still join (an int and a float stored into one local are a float, as before).
"""
from __future__ import annotations

from everypath.base.types import (
    EnumT, NoneT, RecordT, ScalarT, StrT, TupleT, Type, UnionT, join,
)

MAX_MEMBERS = 4  # a switch over the tag per use; more kinds than this is a located refusal

# the kinds a union may hold: values copied by value, each with an exact Python type at the boundary
_MEMBER_KINDS = (ScalarT, StrT, NoneT, TupleT, RecordT, EnumT)
_KIND_ORDER = {NoneT: 0, ScalarT: 1, StrT: 2, EnumT: 3, RecordT: 4, TupleT: 5}


def members(t: Type) -> tuple[Type, ...]:
    return t.members if isinstance(t, UnionT) else (t,)


def member_allowed(t: Type) -> bool:
    if isinstance(t, TupleT):
        return all(member_allowed(i) or isinstance(i, UnionT) for i in t.items)
    return isinstance(t, _MEMBER_KINDS)


def _key(t: Type) -> tuple[int, str]:
    return _KIND_ORDER[type(t)], str(t)


def make(items: list[Type]) -> Type:
    """The union of these members (one member: itself), canonically ordered."""
    out = sorted(set(items), key=_key)
    return out[0] if len(out) == 1 else UnionT(tuple(out))


def _merges(r: ScalarT, m: ScalarT, keep_kinds: bool) -> bool:
    """Whether two scalar members share one slot: always for a local (an int and a float stored into it are
    a float); for a result only when they are of one Python class up to width (a bool, an int, a float, an
    np.float32 differ in CPython; an np.int32 and an np.int64 result join to the wider, as before)."""
    return not keep_kinds or (r.dtype.kind == m.dtype.kind and r.weak == m.weak)


def union_join(a: Type | None, b: Type | None, keep_kinds: bool = False) -> Type | None:
    """The least union holding a's and b's values; None when a member is of a kind a union cannot hold or
    there would be more than MAX_MEMBERS of them. keep_kinds: scalars of different kinds stay apart."""
    if a is None or b is None:
        return a if b is None else b
    out: list[Type] = []
    for m in (*members(a), *members(b)):
        if not member_allowed(m):
            return None
        for i, r in enumerate(out):
            if type(r) is type(m) and not isinstance(m, TupleT) and (
                    not isinstance(m, ScalarT) or _merges(r, m, keep_kinds)):  # type: ignore[arg-type]
                j = join(r, m)  # two scalars: the promoted one, as before
                if j is not None:
                    out[i] = j
                    break
            elif r == m:
                break
        else:
            out.append(m)
    if len(set(out)) > MAX_MEMBERS:
        return None
    return make(out)


def too_many(a: Type | None, b: Type | None) -> bool:
    """Whether the union of a and b is refused only because it would have too many members."""
    if a is None or b is None:
        return False
    ms = [*members(a), *members(b)]
    return all(member_allowed(m) for m in ms) and len(set(ms)) > MAX_MEMBERS


def without_none(t: UnionT) -> Type:
    return make([m for m in t.members if not isinstance(m, NoneT)])


def python_name(t: Type) -> str:
    """type(v).__name__ of a value of this member type, as CPython's messages spell it."""
    if isinstance(t, NoneT):
        return "NoneType"
    if isinstance(t, ScalarT):
        return {"bool": "bool", "int": "int", "float": "float", "complex": "complex"}.get(str(t), t.dtype.np_name)
    if isinstance(t, StrT):
        return "str"
    if isinstance(t, TupleT):
        return "tuple"
    if isinstance(t, (RecordT, EnumT)):
        return t.qualname.rsplit(".", 1)[-1]
    return str(t)


__all__ = ["MAX_MEMBERS", "members", "member_allowed", "make", "union_join", "too_many", "without_none",
           "python_name"]

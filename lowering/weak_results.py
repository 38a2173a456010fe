"""Python-or-NumPy-scalar locals (base/types.py MaybeWeakT) read as what they hold (issue 12).

A MaybeWeakT local keeps both halves and a run-time flag, set while it still holds the Python scalar
(`total = 0.0`) and cleared once it meets the NumPy scalar it yields to (`total += f32`). Most reads are typed
as the NumPy scalar (lowering/weak_locals.py keeps those where NEP 50 makes the two indistinguishable: the hot
`+=` in the loop never tests the flag's meaning, only picks the live half). Two kinds of read are instead typed
as the two-member union (Python scalar | NumPy scalar) built from the flag, so each path gets CPython's value
and type:

- whole reads, where the value leaves as it is: `return total`, `return total, count`, `[s, t]`, `{"s": s}`
  on their way to a return. The boundary boxes the member held: the Python float when the loop ran zero
  times, the np.float32 otherwise (lowering/unions.py put_results).
- reads where the two differ (`s = 0.1` then `s / n`, `math.sqrt(s)`, `h * 33` of an int over uint8) whose
  users are operations the union machinery dispatches (lowering/union_dispatch.py): one switch over the flag
  at the operation, each branch computed as CPython computes it.

A union of exactly such a pair stored into a local (a helper's result: `r = mean(x)`) makes that local a
MaybeWeakT again, so the caller keeps the fast reads too.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from everypath.base import unions as U
from everypath.base.cpp import cast, ctype
from everypath.base.types import MaybeWeakT, ScalarT, Type, UnionT, join_var
from everypath.lowering import unions
from everypath.tracer.ir import Node, Opcode

if TYPE_CHECKING:
    from everypath.lowering.emit import FunctionEmitter
    from everypath.lowering.infer import TypedFunction

# displays whose value leaves whole when the display itself does (items kept as they are, exact types)
_CONTAINERS = frozenset({"ep.tuple", "ep.list", "ep.dict"})


def pair(t: MaybeWeakT) -> UnionT:
    """The union a flag-built read has: the Python scalar and the NumPy scalar, canonically ordered."""
    u = U.make([t.weak_t, t.strong_t])
    assert isinstance(u, UnionT)
    return u


def as_local(t: Type | None) -> Type | None:
    """A (Python scalar | NumPy scalar it yields to) union stored into a local: that local is a MaybeWeakT."""
    if not isinstance(t, UnionT) or len(t.members) != 2 or not all(isinstance(m, ScalarT) for m in t.members):
        return t
    a, b = t.members
    assert isinstance(a, ScalarT) and isinstance(b, ScalarT)
    if a.weak == b.weak:
        return t
    m = join_var(a, b)
    return m if isinstance(m, MaybeWeakT) else t


def _leaves_whole(n: Node, user: Node) -> bool:
    if user.op is Opcode.RETURN:
        return True
    if user.op is not Opcode.CALL or user.kwargs or user.target not in _CONTAINERS:
        return False
    if user.target == "ep.dict" and any(a is n for a in user.args[::2]):
        return False  # a key: hashed and compared, not kept as it is
    return bool(user.users) and all(_leaves_whole(user, u) for u in user.users)


def whole_read(n: Node) -> bool:
    """A load whose value only leaves the function as it is (returned, or an item of a returned display) or
    is copied into another local (`r = s`, a conditional expression's value), which then holds the pair too."""
    return bool(n.users) and all(_leaves_whole(n, u) or u.op is Opcode.STORE for u in n.users)


def dispatchable_read(n: Node) -> bool:
    """A load every user of which either takes it whole or is an operation union_dispatch switches over."""
    return bool(n.users) and all(_leaves_whole(n, u) or (
        u.op is Opcode.CALL and not u.kwargs and unions.dispatchable(u.target)) for u in n.users)


def in_loop(n: Node) -> bool:
    """Whether n runs inside a loop of its function (a per-element switch there would cost every iteration)."""
    block = getattr(n, "block", None)
    while block is not None and block.parent is not None:
        if block.parent.op in (Opcode.FOR, Opcode.LOOP):
            return True
        block = getattr(block.parent, "block", None)
    return False


def load_type(spec: "TypedFunction", n: Node, t: MaybeWeakT) -> Type:
    """The type of a load of a MaybeWeakT local: the pair where it leaves whole or was found to differ."""
    if whole_read(n) or n in spec.weak_reads:
        return pair(t)
    return t.strong_t


def load(fe: "FunctionEmitter", name: str, t: MaybeWeakT, ut: UnionT) -> str:
    """The union built from the flag: the Python half while it is set, the NumPy half after."""
    u = ctype(ut)
    iw, i_s = ut.members.index(t.weak_t), ut.members.index(t.strong_t)
    return (f"({name}__weak ? {u}(std::in_place_index<{iw}>, {name}__w) "
            f": {u}(std::in_place_index<{i_s}>, {name}))")


def store(fe: "FunctionEmitter", name: str, expr: str, vt: UnionT, t: MaybeWeakT) -> None:
    """A (Python scalar | NumPy scalar) value into a MaybeWeakT local: the member held picks the half."""
    tmp = fe.fresh("wu")
    cases = []
    for i, m in enumerate(vt.members):
        assert isinstance(m, ScalarT)
        slot, dst = (f"{name}__w", t.weak) if m.weak else (name, t.strong)
        cases.append(f"case {i}: {slot} = {cast(f'ep::union_at<{i}>({tmp})', m, dst)}; "
                     f"{name}__weak = {'true' if m.weak else 'false'}; break;")
    fe.line(f"{{ const auto& {tmp} = {expr}; switch ({tmp}.index()) {{ {' '.join(cases)} default: break; }} }}")


__all__ = ["pair", "as_local", "whole_read", "dispatchable_read", "in_loop", "load_type", "load", "store"]

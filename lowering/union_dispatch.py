"""Operations on union values: a switch over the tag, each branch typed and emitted as its member (issue 14).

`x + 1` with x an int or a float is typed once per member (the operator's own rule picks the branch's
operator key and result type); the result is the one type the branches share, else the union of their
results, so `(int | float) + 1` is an int or a float as in CPython. A member the operation does not take
(`"s" + 1`) raises, in its branch, the TypeError the typing rule gives (CPython's message for operators). A None member answers `==` / `!=`
(None equals only None) and str() / repr() / f-strings ('None'); any other operation on None raises
CPython's TypeError in that branch (lowering/unions.py none_message). Which operations dispatch:
lowering/unions.py DISPATCH_PREFIXES.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from everypath.base import unions as U
from everypath.base.cpp import c_string, ctype
from everypath.base.errors import TypingError
from everypath.base.types import BOOL, NoneT, StrT, Type, UnionT
from everypath.lowering import unions
from everypath.lowering.emit_values import pyint_operand_checks
from everypath.tracer.ir import Node

if TYPE_CHECKING:
    from everypath.lowering.emit import FunctionEmitter
    from everypath.lowering.infer import TypedFunction

MAX_BRANCHES = 16  # the product of the members of a call's union operands
_NONE_TEXT = frozenset({"builtins.str", "builtins.repr", "ep.format", "ep.rconv", "ep.sconv"})


@dataclass(frozen=True)
class Branch:
    """One combination of members of a call's union operands, typed."""

    tags: tuple[int, ...]  # per union operand (Plan.operands), the member index
    result: Type | None  # None: the branch raises
    op_key: str | None  # the operator the branch resolves to
    constant: str | None = None  # C++ of an answer known at compile time (None == 3)
    raises: str | None = None  # CPython's TypeError message


@dataclass(frozen=True)
class Plan:
    operands: tuple[Node, ...]  # the distinct union-typed operands, switched over in this order
    branches: tuple[Branch, ...]


def dispatched(target: Any, arg_types: list[Type | None]) -> bool:
    return unions.dispatchable(target) and any(isinstance(t, UnionT) for t in arg_types)


def type_call(spec: "TypedFunction", n: Node, retype: Callable[[], Type | None]) -> Type | None:
    """Type n once per combination of its union operands' members; record the plan for the emitter."""
    operands = tuple(dict.fromkeys(a for a in n.args if isinstance(spec.types.get(a), UnionT)))
    if any(isinstance(spec.types.get(v), UnionT) for v in n.kwargs.values()):
        raise TypingError("a keyword argument that may hold several kinds of values is not supported; test which "
                          "one it holds first")
    members = [spec.types[a].members for a in operands]  # type: ignore[union-attr]
    count = 1
    for ms in members:
        count *= len(ms)
    if count > MAX_BRANCHES:
        raise TypingError(f"this operation combines {count} kinds of operands; at most {MAX_BRANCHES} are supported")
    saved = {a: spec.types[a] for a in operands}
    saved_key = spec.op_keys.get(n)
    branches: list[Branch] = []
    try:
        for tags in itertools.product(*(range(len(ms)) for ms in members)):
            for a, ms, k in zip(operands, members, tags):
                spec.types[a] = ms[k]
            branches.append(_branch(spec, n, tags, retype))
    finally:
        spec.types.update(saved)
        if saved_key is None:
            spec.op_keys.pop(n, None)
        else:
            spec.op_keys[n] = saved_key
    # a branch may itself give a union (`x ** e` of an int member: lowering/int_pow.py): its members join
    results = [m for b in branches if b.result is not None for m in U.members(b.result)]
    if not results:
        why = next((b.raises for b in branches if b.raises), "")
        raise TypingError(why or "this operation fails for every value its operands may hold")
    if any(not U.member_allowed(r) for r in results):
        bad = next(r for r in results if not U.member_allowed(r))
        raise TypingError(f"this operation gives {bad} for one kind of operand and {results[0]} for another; a "
                          "union may hold scalars, str, None, tuples and records")
    out = U.make(results)
    if len(U.members(out)) > U.MAX_MEMBERS:
        raise TypingError(f"this operation's result would hold more than {U.MAX_MEMBERS} kinds of values")
    spec.dispatch[n] = Plan(operands, tuple(branches))
    return out


def _branch(spec: "TypedFunction", n: Node, tags: tuple[int, ...], retype: Callable[[], Type | None]) -> Branch:
    ts = [spec.types.get(a) for a in n.args]
    if any(isinstance(t, NoneT) for t in ts) and not all(isinstance(t, NoneT) for t in ts):
        if n.target in ("operator.eq", "operator.ne"):  # None equals only None (CPython's identity test)
            return Branch(tags, BOOL, None, "false" if n.target == "operator.eq" else "true")
    if all(isinstance(t, NoneT) for t in ts) and n.target in ("operator.eq", "operator.ne"):
        return Branch(tags, BOOL, None, "true" if n.target == "operator.eq" else "false")
    if len(ts) == 1 and isinstance(ts[0], NoneT) and n.target in _NONE_TEXT:
        return Branch(tags, StrT(), None, 'std::string("None")')
    if any(isinstance(t, NoneT) for t in ts) and n.target not in unions.NONE_OK:
        return Branch(tags, None, None, raises="")  # the message needs the emitter's types: emit_call
    spec.op_keys.pop(n, None)
    try:
        r = retype()
    except TypingError as exc:  # `"s" + 1`: CPython's TypeError when that member is held, not a compile error
        return Branch(tags, None, None, raises=str(exc))
    return Branch(tags, r, spec.op_keys.get(n))


def emit_call(fe: "FunctionEmitter", n: Node, call: Callable[["FunctionEmitter", Node], str]) -> str | None:
    """The C++ of a dispatched call: nested switches over the operands' tags, one branch per combination."""
    plan: Plan | None = fe.spec.dispatch.get(n)
    if plan is None:
        return None
    rt = fe.ty(n)
    whole = {a: fe.value(a) for a in plan.operands}
    base = f"d{n.id if n.id >= 0 else len(fe.exprs)}"
    names = {a: f"{base}_{j}" for j, a in enumerate(plan.operands)}
    by_tags = {b.tags: b for b in plan.branches}

    def body(b: Branch) -> str:
        if b.constant is not None:
            return f"return {unions.convert(fe, b.constant, b.result, rt)};"  # type: ignore[arg-type]
        if b.result is None:
            return f"ep::raise(\"TypeError\", {c_string(b.raises or _none_message(fe, n, plan, b))});"
        saved = ({a: fe.spec.types[a] for a in plan.operands}, {a: fe.exprs.get(a) for a in plan.operands},
                 fe.spec.types[n], fe.spec.op_keys.get(n), fe.spec.dispatch.pop(n))
        try:
            for a, k in zip(plan.operands, b.tags):
                fe.spec.types[a] = fe.spec.types[a].members[k]  # type: ignore[union-attr]
                fe.exprs[a] = names[a]
            fe.spec.types[n] = b.result
            if b.op_key is not None:
                fe.spec.op_keys[n] = b.op_key
            expr = call(fe, n)
            # a Python int member meeting a narrower integer loop: NumPy 2's range check, in its branch
            checks = "".join(f"(void)ep::checked_int<{d.cpp}>({fe.value(a)}); " for a, d in pyint_operand_checks(fe, n))
        finally:
            fe.spec.types.update(saved[0])
            for a, e in saved[1].items():
                if e is None:
                    fe.exprs.pop(a, None)
                else:
                    fe.exprs[a] = e
            fe.spec.types[n] = saved[2]
            if saved[3] is not None:
                fe.spec.op_keys[n] = saved[3]
            fe.spec.dispatch[n] = saved[4]
        return f"{checks}return {unions.convert(fe, expr, b.result, rt)};"

    def switch(level: int, tags: tuple[int, ...]) -> str:
        if level == len(plan.operands):
            return body(by_tags[tags])
        a = plan.operands[level]
        u = fe.ty(a)
        assert isinstance(u, UnionT)
        cases = " ".join(f"case {k}: {{ const auto& {names[a]} = ep::union_at<{k}>({names[a]}_u); "
                         f"{switch(level + 1, (*tags, k))} }}" for k in range(len(u.members)))
        return f"switch ({names[a]}_u.index()) {{ {cases} default: break; }}"

    holders = " ".join(f"const auto& {names[a]}_u = {whole[a]};" for a in plan.operands)
    return (f"[&]() -> {ctype(rt)} {{ {holders} {switch(0, ())} "
            f"ep::raise(\"RuntimeError\", \"internal error: union tag\"); }}()")


def _none_message(fe: "FunctionEmitter", n: Node, plan: Plan, b: Branch) -> str:
    """CPython's TypeError for an operation that meets None, the operands typed as this branch's members."""
    saved = {a: fe.spec.types[a] for a in plan.operands}
    try:
        for a, k in zip(plan.operands, b.tags):
            fe.spec.types[a] = fe.spec.types[a].members[k]  # type: ignore[union-attr]
        none = next(a for a in n.args if isinstance(fe.ty(a), NoneT))
        return unions.none_message(fe, none, user=n)
    finally:
        fe.spec.types.update(saved)


__all__ = ["MAX_BRANCHES", "Branch", "Plan", "dispatched", "type_call", "emit_call"]

"""Definite assignment: which reads of a local may run before any store to it (CPython's UnboundLocalError)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from everypath.tracer.ir import Block, Node, Opcode

# None stands for "unreachable" (the top element: every name is assigned there)
State = frozenset[str] | None


def _meet(a: State, b: State) -> State:
    if a is None:
        return b
    if b is None:
        return a
    return a & b


def _names(pattern: Any) -> frozenset[str]:
    if isinstance(pattern, str):
        return frozenset({pattern})
    return frozenset(n for p in pattern for n in _names(p))


@dataclass
class _Loop:
    breaks: State = None  # meet of the states at each `break`


@dataclass(frozen=True)
class Unbound:
    """The reads that need a run-time check, and the names whose stores must set a flag."""

    checked: frozenset[Node] = frozenset()  # LOADs that may run before a store
    flagged: frozenset[str] = frozenset()

    def message(self, name: str) -> str:
        return f"cannot access local variable '{name.split('$')[0]}' where it is not associated with a value"


def analyse(body: Block, params: frozenset[str], locals_: frozenset[str],
            truth: Callable[[Node], bool | None]) -> Unbound:
    """Forward must/may analysis over the structured IR. `truth` gives compile-time-known conditions
    (branches the emitter drops are not paths). Loads of names that are not locals (globals, free
    variables) are never checked. Definitely assigned reads, the common case, cost nothing."""
    must_reads: dict[Node, None] = {}

    def block(b: Block, d: State, loops: list[_Loop]) -> State:
        for n in b.nodes:
            if d is None:
                return None  # the rest of the block never runs
            d = node(n, d, loops)
        return d

    def node(n: Node, d: frozenset[str], loops: list[_Loop]) -> State:
        op = n.op
        if op is Opcode.LOAD:
            if n.target in locals_ and n.target not in d:
                must_reads[n] = None
            return d
        if op is Opcode.STORE:
            return d | {n.target}
        if op is Opcode.IF:
            known = truth(n.args[0])
            then = block(n.blocks[0], d, loops) if known is not False else None
            other = block(n.blocks[1], d, loops) if known is not True else None
            return _meet(then, other)
        if op is Opcode.FOR:
            names = _names(n.target)
            block(n.blocks[0], d | names, loops + [_Loop()])
            return d  # zero iterations leave the body's stores (and the target) unbound
        if op is Opcode.LOOP:
            loop = _Loop()
            block(n.blocks[0], d, loops + [loop])
            return loop.breaks  # only a break leaves `while True`
        if op is Opcode.BREAK:
            loops[-1].breaks = _meet(loops[-1].breaks, d)
            return None
        if op in (Opcode.CONTINUE, Opcode.RETURN, Opcode.RAISE):
            return None
        if op is Opcode.TRY:  # tracer/exceptions.py: a handler or the finally may start before any store inside
            body, orelse, final, *handlers = n.blocks
            done = block(orelse, block(body, d, loops), loops)
            for h in handlers:
                done = _meet(done, block(h, d, loops))
            if not final.nodes:
                return done
            end = block(final, d, loops)  # what the body and handlers stored may be missing here
            return None if done is None or end is None else done | end
        for sub in n.blocks:  # any other structured node: conservatively, its body may not run
            block(sub, d, loops)
        return d

    block(body, frozenset(params), [])
    return Unbound(frozenset(must_reads), frozenset(n.target for n in must_reads))

"""Where a union local is known to hold some of its members only: `if x is None:` / `is not None` / `if x:` /
`isinstance(x, int)`
(also through `and` / `or` chains and guard clauses such as `if best is None: return 0`).

The typer is flow-insensitive (one type per variable web); this walk over the IR gives each load of a local
the facts that hold there, so lowering/unions.py can type the load as the members those facts leave. A fact
about x holds from the test until x is stored again; loops drop the facts on what their bodies store.
"""
from __future__ import annotations

from dataclasses import dataclass

from everypath.tracer.classinfo import is_isinstance, keys_of
from everypath.tracer.ir import Block, Function, Node, Opcode


@dataclass(frozen=True)
class IsNone:
    """`x is None` has this truth value here."""

    truth: bool


@dataclass(frozen=True)
class IsA:
    """`isinstance(x, C)` has this truth value here (keys: tracer/classinfo.py)."""

    keys: tuple[str, ...]
    truth: bool


Fact = IsNone | IsA
Facts = dict[str, tuple[Fact, ...]]
_EXITS = frozenset({Opcode.RETURN, Opcode.RAISE, Opcode.BREAK, Opcode.CONTINUE})
_CACHE: dict[int, tuple[Function, dict[Node, tuple[Fact, ...]]]] = {}


def load_facts(fn: Function) -> dict[Node, tuple[Fact, ...]]:
    """The facts on its variable at each load of fn that has any (computed once per function)."""
    hit = _CACHE.get(id(fn))
    if hit is not None and hit[0] is fn:
        return hit[1]
    walk = _Walk()
    walk.block(fn.body, {})
    _CACHE[id(fn)] = (fn, walk.loads)
    return walk.loads


def _merge(a: Facts, b: Facts) -> Facts:
    out = dict(a)
    for k, v in b.items():
        out[k] = tuple(dict.fromkeys(out.get(k, ()) + v))
    return out


def _meet(a: Facts, b: Facts) -> Facts:
    """What holds after either of two paths: the facts both have."""
    out: Facts = {}
    for k in a.keys() & b.keys():
        both = tuple(p for p in a[k] if p in b[k])
        if both:
            out[k] = both
    return out


def _stored(block: Block) -> set[str]:
    names: set[str] = set()
    for n in block.walk():
        if n.op is Opcode.STORE:
            names.add(n.target)
        elif n.op is Opcode.FOR:
            names |= _pattern_names(n.target)
    return names


def _pattern_names(p: object) -> set[str]:
    if isinstance(p, str):
        return {p}
    return {x for q in p for x in _pattern_names(q)} if isinstance(p, (tuple, list)) else set()


def _exits(block: Block) -> bool:
    if not block.nodes:
        return False
    last = block.nodes[-1]
    if last.op in _EXITS:
        return True
    return last.op is Opcode.IF and _exits(last.blocks[0]) and _exits(last.blocks[1])


class _Walk:
    def __init__(self) -> None:
        self.loads: dict[Node, tuple[Fact, ...]] = {}
        self.temps: dict[str, tuple[Facts, Facts]] = {}  # and/or temporaries: facts when true, when false

    def cond(self, c: Node) -> tuple[Facts, Facts]:
        """(facts when c is true, facts when c is false)."""
        if c.op is Opcode.CALL and c.target in ("operator.is_", "operator.is_not") and len(c.args) == 2:
            x, other = c.args if c.args[1].op is Opcode.CONST else (c.args[1], c.args[0])
            if x.op is Opcode.LOAD and other.op is Opcode.CONST and other.target is None:
                is_ = c.target == "operator.is_"
                return {x.target: (IsNone(is_),)}, {x.target: (IsNone(not is_),)}
        if c.op is Opcode.CALL and is_isinstance(c.target) and c.args[0].op is Opcode.LOAD:
            keys = keys_of(c.target)
            return {c.args[0].target: (IsA(keys, True),)}, {c.args[0].target: (IsA(keys, False),)}
        if c.op is Opcode.CALL and c.target == "operator.not_" and len(c.args) == 1:
            t, f = self.cond(c.args[0])
            return f, t
        if c.op is Opcode.CALL and c.target == "ep.truth" and len(c.args) == 1:
            return self.cond(c.args[0])
        if c.op is Opcode.LOAD:
            if c.target in self.temps:
                return self.temps[c.target]
            return {c.target: (IsNone(False),)}, {}  # a true value is not None
        return {}, {}

    def block(self, block: Block, facts: Facts) -> Facts:
        for n in block.nodes:
            facts = self.node(n, facts)
        return facts

    def node(self, n: Node, facts: Facts) -> Facts:
        op = n.op
        if op is Opcode.LOAD:
            if facts.get(n.target):
                self.loads[n] = facts[n.target]
            return facts
        if op is Opcode.STORE:
            out = {k: v for k, v in facts.items() if k != n.target}
            if n.target.startswith("bool$"):  # `a and b`: the truth of what it holds (tracer/frontend.py)
                self.temps[n.target] = self.cond(n.args[0])
            return out
        if op is Opcode.IF:
            c = n.args[0]
            t, f = self.cond(c)
            before = dict(self.temps)
            then_out = self.block(n.blocks[0], _merge(facts, t))
            then_temps = dict(self.temps)
            self.temps = dict(before)
            else_out = self.block(n.blocks[1], _merge(facts, f))
            else_temps = dict(self.temps)
            self.temps = before
            self._chain(c, t, f, then_temps, else_temps, n)
            then_exits, else_exits = _exits(n.blocks[0]), _exits(n.blocks[1])
            if then_exits and else_exits:
                return facts
            if then_exits:
                return else_out
            if else_exits:
                return then_out
            return _meet(then_out, else_out)
        if op in (Opcode.LOOP, Opcode.FOR):
            body = n.blocks[0]
            stored = _stored(body) | (_pattern_names(n.target) if op is Opcode.FOR else set())
            inside = {k: v for k, v in facts.items() if k not in stored}
            self.block(body, inside)
            return inside
        return facts

    def _chain(self, c: Node, t: Facts, f: Facts, then_temps: dict[str, tuple[Facts, Facts]],
               else_temps: dict[str, tuple[Facts, Facts]],
               n: Node) -> None:
        """An and/or temporary re-stored in one branch of `if tmp:` (tracer/frontend.py expr_BoolOp)."""
        in_then, in_else = _stored(n.blocks[0]), _stored(n.blocks[1])
        for tmp in {k for k in (in_then | in_else) if k.startswith("bool$")}:
            is_self = c.op is Opcode.LOAD and c.target == tmp
            if tmp in in_then and tmp not in in_else and tmp in then_temps and is_self:  # `a and b`
                self.temps[tmp] = (_merge(t, then_temps[tmp][0]), {})
            elif tmp in in_else and tmp not in in_then and tmp in else_temps and is_self:  # `a or b`
                self.temps[tmp] = ({}, _merge(f, else_temps[tmp][1]))
            else:
                self.temps.pop(tmp, None)


__all__ = ["IsNone", "IsA", "Fact", "load_facts"]

"""Pass: split each local variable into webs.

A web is a set of definitions (stores, loop bindings) connected through the
loads they reach. Different webs of one Python name never meet at a load, so
each can be its own variable with its own type: ``lut = np.floor(...)`` then
``lut = lut.astype(np.uint8)`` becomes two C++ variables instead of an error.
Reaching definitions are computed over the structured IR (if / for / loop with
break, continue, return and raise). Names read by closures keep one web
(closures read them by reference at call time).
"""
from __future__ import annotations

from typing import Any

from everypath.tracer.ir import Block, Function, Node, Opcode

Def = tuple[Node, str]  # a definition: the STORE or FOR node, and the name it binds
State = dict[str, frozenset[Def]]  # variable -> definitions that may reach here


def _join(states: list[State | None]) -> State | None:
    live = [s for s in states if s is not None]
    if not live:
        return None
    out: dict[str, frozenset[Def]] = {}
    for s in live:
        for k, v in s.items():
            out[k] = out.get(k, frozenset()) | v
    return out


def _names(pattern: Any) -> list[str]:
    if isinstance(pattern, str):
        return [pattern]
    return [n for p in pattern for n in _names(p)]


class _Loop:
    def __init__(self) -> None:
        self.breaks: list[State | None] = []
        self.continues: list[State | None] = []


class ReachingDefinitions:
    def __init__(self) -> None:
        self.reach: dict[Node, frozenset[Def]] = {}  # LOAD -> definitions reaching it
        self.defs: dict[str, list[Def]] = {}  # variable -> its definitions in program order
        self.loops: list[_Loop] = []

    def _define(self, name: str, node: Node, state: State) -> State:
        d = (node, name)
        if d not in self.defs.setdefault(name, []):
            self.defs[name].append(d)
        new = dict(state)
        new[name] = frozenset({d})
        return new

    def block(self, block: Block, state: State | None) -> State | None:
        for n in block.nodes:
            if state is None:
                return None  # unreachable code
            state = self.node(n, state)
        return state

    def node(self, n: Node, state: State) -> State | None:
        op = n.op
        if op is Opcode.LOAD:
            self.reach[n] = self.reach.get(n, frozenset()) | state.get(n.target, frozenset())
            return state
        if op is Opcode.STORE:
            return self._define(n.target, n, state)
        if op is Opcode.IF:
            return _join([self.block(n.blocks[0], state), self.block(n.blocks[1], state)])
        if op in (Opcode.FOR, Opcode.LOOP):
            loop = _Loop()
            self.loops.append(loop)
            head: State = state
            exit_states: list[State | None] = []
            for _ in range(100):  # to a fixpoint: definitions flow around the back edge
                loop.breaks, loop.continues = [], []
                body_in: State = head
                if op is Opcode.FOR:
                    for name in _names(n.target):
                        body_in = self._define(name, n, body_in)
                end = self.block(n.blocks[0], body_in)
                new_head = _join([state, end, *loop.continues])
                assert new_head is not None
                if new_head == head:
                    break
                head = new_head
            self.loops.pop()
            if op is Opcode.FOR:
                # the iterable runs out: before any iteration, or after one (head already
                # holds what the end of the body and every `continue` carry back)
                exit_states.append(head)
            exit_states.extend(loop.breaks)
            return _join(exit_states)
        if op is Opcode.BREAK:
            self.loops[-1].breaks.append(state)
            return None
        if op is Opcode.CONTINUE:
            self.loops[-1].continues.append(state)
            return None
        if op in (Opcode.RETURN, Opcode.RAISE):
            return None
        if op is Opcode.TRY:
            return self._try(n, state)
        return state

    def _try(self, n: Node, state: State) -> State | None:
        """try/except/else/finally (tracer/exceptions.py). A handler may start after any prefix of the body,
        and the finally after any point of the rest: there every definition inside may reach (a safe
        over-approximation: webs only merge)."""
        body, orelse, final, *handlers = n.blocks
        loops = [(lp, len(lp.breaks), len(lp.continues)) for lp in self.loops]
        anywhere = _join([state, _defs_in([body], state)])
        assert anywhere is not None
        ends = [self.block(orelse, self.block(body, state))]
        ends += [self.block(h, anywhere) for h in handlers]
        done = _join(ends)
        if not final.nodes:
            return done
        into = _join([done, _defs_in([body, orelse, *handlers], anywhere)])
        assert into is not None
        for lp, nb, nc in loops:  # a break / continue inside passes through the finally first
            lp.breaks[nb:] = [self.block(final, _join([b, into])) for b in lp.breaks[nb:]]
            lp.continues[nc:] = [self.block(final, _join([c, into])) for c in lp.continues[nc:]]
        end = self.block(final, into)
        return end if done is not None else None


def _defs_in(blocks: list[Block], state: State) -> State:
    """state plus every definition made anywhere in blocks."""
    out = dict(state)
    for b in blocks:
        for x in b.walk():
            names = [x.target] if x.op is Opcode.STORE else _names(x.target) if x.op is Opcode.FOR else []
            for name in names:
                out[name] = out.get(name, frozenset()) | {(x, name)}
    return out


def split_webs(fn: Function) -> None:
    rd = ReachingDefinitions()
    rd.block(fn.body, {})
    closure_reads: set[str] = set()
    for n in fn.body.walk():
        if n.op is Opcode.CLOSURE:
            closure_reads.update(n.target.freevars)
    parent: dict[Def, Def] = {}

    def find(x: Def) -> Def:
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    for defs in rd.reach.values():
        ds = list(defs)
        for d in ds[1:]:
            a, b = find(d), find(ds[0])
            if a != b:
                parent[a] = b
    renames: dict[Def, str] = {}
    for name, defs in rd.defs.items():
        if name in closure_reads or len(defs) < 2:
            continue
        roots: list[Def] = []
        for d in defs:  # program order: the first web keeps the Python name
            r = find(d)
            if r not in roots:
                roots.append(r)
        for k, r in enumerate(roots[1:], start=2):
            for d in defs:
                if find(d) == r:
                    renames[d] = f"{name}$w{k}"
    if not renames:
        return
    loads = [(n, rd.reach.get(n)) for n in fn.body.walk() if n.op is Opcode.LOAD]
    for n, defs in loads:
        if defs:
            d = next(iter(defs))
            if d in renames:
                n.target = renames[d]
    for (node, name), new in renames.items():
        fn.locals[new] = node.loc
        if node.op is Opcode.STORE:
            node.target = new
        else:
            node.target = _rename_pattern(node.target, name, new)


def _rename_pattern(pattern: Any, old: str, new: str) -> Any:
    if isinstance(pattern, str):
        return new if pattern == old else pattern
    return tuple(_rename_pattern(p, old, new) for p in pattern)

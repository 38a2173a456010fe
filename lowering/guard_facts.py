"""Lower bounds that hold because a condition was tested just before: `while j >= 0 and before(key, x[j])`.

lowering/bounds.py keeps flow-insensitive facts (true wherever a value exists); a loop counter that
steps down (`j -= 1`) has none. Where a read of `j` runs only after `j >= c` was found true and no
assignment to `j` lies in between, `j >= c` holds at the read, so `x[j]` and `x[j + 1]` need no sign
test. The walk goes from the read up through its enclosing blocks:

- in a block, statements before the read: an assignment to the name ends the search (the fact may be
  stale); `if t: pass else: break` (how a `while` condition is lowered) or `if t: raise` says `t` (or
  `not t`) held after it;
- at the top of an `if` branch: the `if`'s condition is true (false) there;
- leaving a loop body upward: facts from before the loop hold inside only when the loop assigns the
  name nowhere.

A tested condition `t` is a comparison of the name with an integer constant, or the temporary of an
`a and b and ...` chain (the frontend assigns `a`, then `b` inside `if temp:`): all of its operands hold
when it is true. Anything else teaches nothing, and the check stays.
"""
from __future__ import annotations

from typing import Callable

from everypath.tracer.ir import Block, Node, Opcode

# comparison key -> (lower bound of `name OP c` when true, when false) as a function of c
_WHEN_TRUE: dict[str, Callable[[int], int]] = {"operator.ge": lambda c: c, "operator.gt": lambda c: c + 1}
_WHEN_FALSE: dict[str, Callable[[int], int]] = {"operator.lt": lambda c: c, "operator.le": lambda c: c + 1}
# `c OP name`: the same facts with the comparison mirrored
_MIRROR = {"operator.le": "operator.ge", "operator.lt": "operator.gt", "operator.ge": "operator.le",
           "operator.gt": "operator.lt"}


def _assigns(n: Node, name: str) -> bool:
    """n (with everything nested in it) may assign name."""
    for m in (n, *(x for b in n.blocks for x in b.walk())):
        if m.op is Opcode.STORE and m.target == name:
            return True
        if m.op is Opcode.FOR and name in _names(m.target):
            return True
    return False


def _names(target: object) -> set[str]:
    if isinstance(target, str):
        return {target}
    if isinstance(target, tuple):
        return set().union(*(_names(t) for t in target))
    return set()


def _exits(b: Block) -> bool:
    return bool(b.nodes) and b.nodes[-1].op in (Opcode.BREAK, Opcode.RAISE, Opcode.RETURN, Opcode.CONTINUE)


class GuardFacts:
    """Lower bounds of integer names at a read, from the conditions that dominate it."""

    def __init__(self, key_of: Callable[[Node], str]) -> None:
        self.key_of = key_of  # the operator key of a CALL node (the typer's resolution)

    def lower_bound(self, load: Node) -> int | None:
        name = load.target
        cur = load
        best: int | None = None
        while cur.block is not None:
            b = cur.block
            pos = b.nodes.index(cur)
            for prev in reversed(b.nodes[:pos]):
                lb = self._after(prev, b, name)
                if lb is not None:
                    best = lb if best is None else max(best, lb)
                if _assigns(prev, name):
                    return best
            owner = b.parent
            if owner is None:
                return best
            if owner.op is Opcode.IF:
                lb = self._test(owner.args[0], owner, name, truth=b is owner.blocks[0])
                if lb is not None:
                    best = lb if best is None else max(best, lb)
            elif owner.op in (Opcode.LOOP, Opcode.FOR):
                if any(_assigns(x, name) for x in b.nodes) or (owner.op is Opcode.FOR and name in _names(owner.target)):
                    return best  # a fact from before the loop may not survive an iteration
            else:
                return best
            cur = owner
        return best

    def _after(self, stmt: Node, block: Block, name: str) -> int | None:
        """What `stmt` (an `if` one branch of which leaves the block) says about name after it."""
        if stmt.op is not Opcode.IF or len(stmt.blocks) != 2:
            return None
        then, orelse = stmt.blocks
        if _exits(orelse) and not _exits(then) and not any(_assigns(x, name) for x in then.nodes):
            return self._test(stmt.args[0], stmt, name, truth=True)
        if _exits(then) and not _exits(orelse) and not any(_assigns(x, name) for x in orelse.nodes):
            return self._test(stmt.args[0], stmt, name, truth=False)
        return None

    def _test(self, cond: Node, at: Node, name: str, truth: bool) -> int | None:
        """A lower bound of name implied by `cond` being `truth` where `at` (the if) runs."""
        if cond.op is Opcode.CALL and len(cond.args) == 2:
            return self._compare(cond, at, name, truth)
        if cond.op is Opcode.LOAD and truth:
            return self._chain(cond.target, at, name)
        return None

    def _compare(self, cond: Node, at: Node, name: str, truth: bool) -> int | None:
        key = self.key_of(cond)
        a, c = cond.args
        if c.op is Opcode.LOAD and c.target == name and a.op is Opcode.CONST:
            a, c, key = c, a, _MIRROR.get(key, "")
        if not (a.op is Opcode.LOAD and a.target == name and c.op is Opcode.CONST and type(c.target) is int):
            return None
        rule = (_WHEN_TRUE if truth else _WHEN_FALSE).get(key)
        if rule is None or not self._unchanged_between(a, at, name):
            return None
        return rule(c.target)

    def _chain(self, temp: str, at: Node, name: str) -> int | None:
        """`temp` is true at `at`: when temp is an and-chain's temporary, what its operands say."""
        b = at.block
        if b is None:
            return None
        nodes = b.nodes
        pos = nodes.index(at)
        first = next((i for i in range(pos - 1, -1, -1) if nodes[i].op is Opcode.STORE and nodes[i].target == temp),
                     None)
        if first is None:
            return None
        best: int | None = None
        for stmt in nodes[first:pos]:
            if stmt.op is Opcode.STORE and stmt.target == temp:
                lb = self._test(stmt.args[0], at, name, truth=True)
            elif stmt.op is Opcode.IF and stmt.args[0].op is Opcode.LOAD and stmt.args[0].target == temp:
                # `if temp: temp = next operand`: the then-branch's last store is the chain's next operand
                then, orelse = stmt.blocks
                if orelse.nodes or not then.nodes or then.nodes[-1].op is not Opcode.STORE:
                    return None  # an or-chain (or something else): true does not make each operand true
                if any(x.op is Opcode.STORE and x.target == temp for x in then.nodes[:-1]):
                    return None
                lb = self._test(then.nodes[-1].args[0], at, name, truth=True)
            elif stmt.op in (Opcode.STORE, Opcode.IF, Opcode.LOOP, Opcode.FOR) and _assigns(stmt, temp):
                return None  # temp re-bound some other way: not a chain we know
            else:
                lb = None
            if lb is not None:
                best = lb if best is None else max(best, lb)
        return best

    @staticmethod
    def _unchanged_between(read: Node, at: Node, name: str) -> bool:
        """No assignment to name between the comparison's read of it and `at`, both in one block
        (or the read nested in a branch of a statement of at's block that precedes at)."""
        b = at.block
        if b is None:
            return False
        cur = read
        while cur.block is not None and cur.block is not b:
            owner = cur.block.parent
            if owner is None:
                return False
            inner = cur.block.nodes
            if any(_assigns(x, name) for x in inner[inner.index(cur) + 1:]):
                return False
            cur = owner
        if cur.block is not b:
            return False
        i, j = b.nodes.index(cur), b.nodes.index(at)
        return i <= j and not any(_assigns(x, name) for x in b.nodes[i + 1:j])

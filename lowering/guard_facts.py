"""Facts that hold because a condition was tested just before: `while j >= 0 and before(key, x[j])`, `while lo < hi:`.

lowering/bounds.py keeps flow-insensitive facts (true wherever a value exists); a loop counter that
steps down (`j -= 1`) has none, and a bisection's `lo < hi` relates two variables. Where a read runs
only after a comparison was found true (or false) and none of the names it compares is assigned in
between, the comparison still holds at the read. The walk goes from the read up through its
enclosing blocks:

- in a block, statements before the read: an assignment to one of the names ends the search (the
  fact may be stale); `if t: pass else: break` (how a `while` condition is lowered) or `if t: raise`
  says `t` (or `not t`) held after it;
- at the top of an `if` branch: the `if`'s condition is true (false) there;
- leaving a loop body upward: facts from before the loop hold inside only when the loop assigns the
  names nowhere.

A tested condition is a comparison (`<`, `<=`, `>`, `>=`, `==`, `!=`), or the temporary of an
`a and b and ...` chain (the frontend assigns `a`, then `b` inside `if temp:`): all of its operands hold
when it is true. Each comparison is read as `p <= q + d` (`lo < hi` is `lo <= hi - 1`; `j >= 0` is
`0 <= j + 0`), which answers both questions asked here: a constant lower bound of one name
(`lower_bound`, `excluded`), and the offset between two names (`relation`). Anything else teaches
nothing, and the check stays.
"""
from __future__ import annotations

from typing import Callable

from everypath.tracer.ir import Block, Node, Opcode

# a comparison `a OP b` found `truth`: the facts `p <= q + d` it gives, as (p is a, d) pairs (p is b otherwise)
_ORDER: dict[tuple[str, bool], tuple[tuple[bool, int], ...]] = {
    ("operator.lt", True): ((True, -1),), ("operator.ge", False): ((True, -1),),
    ("operator.le", True): ((True, 0),), ("operator.gt", False): ((True, 0),),
    ("operator.gt", True): ((False, -1),), ("operator.le", False): ((False, -1),),
    ("operator.ge", True): ((False, 0),), ("operator.lt", False): ((False, 0),),
    ("operator.eq", True): ((True, 0), (False, 0)), ("operator.ne", False): ((True, 0), (False, 0)),
}
# a comparison whose truth says `a != b`
_UNEQUAL = frozenset({("operator.ne", True), ("operator.eq", False)})

Fact = tuple[Node, bool, Node]  # (a comparison, the truth it was found to have, the `if` that tested it)


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


def _int_const(n: Node) -> int | None:
    return n.target if n.op is Opcode.CONST and type(n.target) is int else None


class GuardFacts:
    """Bounds of integer names at a read, from the comparisons that dominate it."""

    def __init__(self, key_of: Callable[[Node], str]) -> None:
        self.key_of = key_of  # the operator key of a CALL node (the typer's resolution)

    # ---- the questions ------------------------------------------------------------------
    def lower_bound(self, load: Node) -> int | None:
        """The largest c with `load >= c` known where load runs (from `name >= c`, `c < name`, ...)."""
        name = load.target
        best: int | None = None
        for p, q, d in self._orders(load, name):
            c = _int_const(p) if q.op is Opcode.LOAD and q.target == name else None
            if c is not None:  # c <= name + d
                best = c - d if best is None else max(best, c - d)
        return best

    def excluded(self, load: Node) -> frozenset[int]:
        """Constants c with `load != c` known where load runs (`if n == 0: return` before it)."""
        name = load.target
        out: set[int] = set()
        for cmp, truth, at in self._facts(load, frozenset({name})):
            if (self.key_of(cmp), truth) in _UNEQUAL:
                a, b = cmp.args
                for x, c in ((a, b), (b, a)):
                    k = _int_const(c)
                    if k is not None and self._reads(x, name, at):
                        out.add(k)
        return frozenset(out)

    def above(self, load: Node) -> list[tuple[Node, int]]:
        """(q, d) with `load <= q + d` known where load runs (`while i < len(a)` gives (len(a), -1)); q is the
        comparison's other operand, evaluated at the test (whatever q stood for then, the read is below it)."""
        name = load.target
        return [(q, d) for p, q, d in self._orders(load, name)
                if p.op is Opcode.LOAD and p.target == name and not (q.op is Opcode.LOAD and q.target == name)]

    def relation(self, at: Node, x: str, y: str) -> int | None:
        """The smallest d with `x <= y + d` known where `at` runs (`while x < y:` gives -1), else None."""
        best: int | None = None
        for p, q, d in self._orders(at, x, y):
            if p.op is Opcode.LOAD and q.op is Opcode.LOAD and (p.target, q.target) == (x, y):
                best = d if best is None else min(best, d)
        return best

    # ---- comparisons as `p <= q + d` -----------------------------------------------------
    def _orders(self, read: Node, *names: str) -> list[tuple[Node, Node, int]]:
        """(p, q, d) with p <= q + d where read runs; p and q are the comparison's operands, and
        each operand that reads one of names reads the value it still has at `read`."""
        out = []
        for cmp, truth, at in self._facts(read, frozenset(names)):
            rules = _ORDER.get((self.key_of(cmp), truth), ())
            a, b = cmp.args
            live = [v for v in (a, b) if v.op is Opcode.LOAD and v.target in names]
            if not all(self._unchanged_between(v, at, v.target) for v in live):
                continue
            for a_first, d in rules:
                out.append((a, b, d) if a_first else (b, a, d))
        return out

    def _reads(self, v: Node, name: str, at: Node) -> bool:
        """v is a read of name whose value is unchanged until `at`."""
        return v.op is Opcode.LOAD and v.target == name and self._unchanged_between(v, at, name)

    # ---- the walk --------------------------------------------------------------------------
    def _facts(self, read: Node, names: frozenset[str]) -> list[Fact]:
        """Comparisons known true (false) where read runs, none of names assigned since the test."""
        out: list[Fact] = []
        cur = read
        while cur.block is not None:
            b = cur.block
            pos = b.nodes.index(cur)
            for prev in reversed(b.nodes[:pos]):
                out += self._after(prev, names)
                if any(_assigns(prev, n) for n in names):
                    return out
            owner = b.parent
            if owner is None:
                return out
            if owner.op is Opcode.IF:
                out += self._atoms(owner.args[0], owner, truth=b is owner.blocks[0])
            elif owner.op in (Opcode.LOOP, Opcode.FOR):
                if any(_assigns(x, n) for x in b.nodes for n in names) or \
                        (owner.op is Opcode.FOR and names & _names(owner.target)):
                    return out  # a fact from before the loop may not survive an iteration
            else:
                return out
            cur = owner
        return out

    def _after(self, stmt: Node, names: frozenset[str]) -> list[Fact]:
        """What `stmt` (an `if` one branch of which leaves the block) says after it."""
        if stmt.op is not Opcode.IF or len(stmt.blocks) != 2:
            return []
        then, orelse = stmt.blocks
        for stays, truth in ((then, True), (orelse, False)):
            leaves = orelse if truth else then
            if _exits(leaves) and not _exits(stays) and not any(_assigns(x, n) for x in stays.nodes for n in names):
                return self._atoms(stmt.args[0], stmt, truth)
        return []

    def _atoms(self, cond: Node, at: Node, truth: bool) -> list[Fact]:
        """The comparisons `cond` being `truth` where `at` (the if) runs makes known."""
        if cond.op is Opcode.CALL and len(cond.args) == 2:
            return [(cond, truth, at)]
        if cond.op is Opcode.LOAD and truth:
            return self._chain(cond.target, at)
        return []

    def _chain(self, temp: str, at: Node) -> list[Fact]:
        """`temp` is true at `at`: when temp is an and-chain's temporary, each operand is true."""
        b = at.block
        if b is None:
            return []
        nodes = b.nodes
        pos = nodes.index(at)
        first = next((i for i in range(pos - 1, -1, -1) if nodes[i].op is Opcode.STORE and nodes[i].target == temp),
                     None)
        if first is None:
            return []
        out: list[Fact] = []
        for stmt in nodes[first:pos]:
            if stmt.op is Opcode.STORE and stmt.target == temp:
                out += self._atoms(stmt.args[0], at, truth=True)
            elif stmt.op is Opcode.IF and stmt.args[0].op is Opcode.LOAD and stmt.args[0].target == temp:
                # `if temp: temp = next operand`: the then-branch's last store is the chain's next operand
                then, orelse = stmt.blocks
                if orelse.nodes or not then.nodes or then.nodes[-1].op is not Opcode.STORE:
                    return []  # an or-chain (or something else): true does not make each operand true
                if any(x.op is Opcode.STORE and x.target == temp for x in then.nodes[:-1]):
                    return []
                out += self._atoms(then.nodes[-1].args[0], at, truth=True)
            elif stmt.op in (Opcode.STORE, Opcode.IF, Opcode.LOOP, Opcode.FOR) and _assigns(stmt, temp):
                return []  # temp re-bound some other way: not a chain we know
        return out

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

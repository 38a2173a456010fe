"""Trailing counters and helpers' indices: more of a versioned loop's indices in range (lowering/unit_stride.py).

`i = lo; for j in range(lo, hi): if a[j] < p: swap(a, i, j); i += 1` (Lomuto's partition; compaction is
`k = 0; for j in range(n): if m[j]: out[k] = x[j]; k += 1`): `i` starts where `j` starts and grows by at most
one per iteration, so lo <= i <= j at the top of every iteration and i <= j + 1 after its increment. The fast
copy's one test `lo >= 0 && hi <= a.shape[0]` (`hi + 1 <= ...` for a use after the increment) then puts every
`a[i]` in range, as it does `a[j]`.

A helper's indices count too: `swap(a, i, j)` indexes its array parameter with its index parameters, so the
call stands for those accesses in the caller. Its checks live in the helper's own body, so the fast copy calls
a copy of the helper with them dropped (lowering/helper_clones.py).
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from everypath.base.types import ArrayT, DType, ScalarT
from everypath.lowering.borrowed import fixed_params, pattern_names
from everypath.lowering.indexing import plan_array_index
from everypath.tracer.ir import Node, Opcode

if TYPE_CHECKING:
    from everypath.lowering.infer import TypedFunction

_INCREMENTS = frozenset({"operator.add", "operator.iadd"})


@dataclass(frozen=True)
class Access:
    """One element index of a versioned loop: `array[..., index, ...]` at `axis`, directly or in a helper."""

    array: Node  # the array operand in the loop's own function
    axis: int
    index: Node  # the index operand in the loop's own function (the call's argument for a helper)
    call: Node | None = None  # the helper's call; None: the access is in the loop's own body
    triple: tuple[int, int, int] | None = None  # (array parameter, axis, index parameter) in the helper

    @property
    def direct(self) -> bool:
        return self.call is None


def _stores(nodes: Iterator[Node], name: str) -> list[Node]:
    def binds(n: Node) -> bool:
        if n.op is Opcode.STORE:
            return n.target == name
        return n.op is Opcode.FOR and name in pattern_names(n.target)
    return [n for n in nodes if binds(n)]


def _is_int(t: object) -> bool:
    # int64 only: a narrower counter could wrap before the loop variable ends (2**31 iterations of an int32)
    return isinstance(t, ScalarT) and t.dtype is DType.INT64


def _same_value(a: Node, b: Node) -> bool:
    """Both read one variable, or both are the same int constant."""
    if a.op is Opcode.LOAD and b.op is Opcode.LOAD:
        return a.target == b.target
    return (a.op is b.op is Opcode.CONST and type(a.target) is int and type(b.target) is int
            and a.target == b.target)


def _in_inner_loop(n: Node, loop: Node) -> bool:
    b = n.block
    while b is not None and b.parent is not None and b.parent is not loop:
        if b.parent.op in (Opcode.FOR, Opcode.LOOP):
            return True
        b = b.parent.block
    return False


def trailing_counters(spec: "TypedFunction", loop: Node) -> dict[str, Node]:
    """{variable: its increment} for each int variable that equals the range's start on entry to `loop` and is
    stored in its body only by one `c += 1` outside inner loops: start <= c <= the loop variable, every iteration."""
    rng, block = loop.args[0], loop.block
    if block is None:
        return {}
    start = rng.args[0] if len(rng.args) > 1 else None
    before = block.nodes[:block.nodes.index(loop)]
    body = list(loop.blocks[0].walk())
    found: dict[str, Node] = {}
    for inc in body:
        if not (inc.op is Opcode.STORE and isinstance(inc.target, str)):
            continue
        name, v = inc.target, inc.args[0]
        if not (v.op is Opcode.CALL and v.target in _INCREMENTS and len(v.args) == 2 and not v.kwargs):
            continue
        a, b = v.args if v.args[0].op is Opcode.LOAD else v.args[::-1]
        if not (a.op is Opcode.LOAD and a.target == name and b.op is Opcode.CONST and type(b.target) is int
                and b.target == 1 and _is_int(spec.types.get(a))):
            continue
        if _stores(iter(body), name) != [inc] or _in_inner_loop(inc, loop):
            continue
        # on entry: the last statement before the loop that binds `name` stores the range's start, and nothing
        # after it (up to the loop) rebinds `name` or the start's variable
        entry = next((i for i in range(len(before) - 1, -1, -1) if _stores(iter([before[i]]), name)), None)
        if entry is None or before[entry].op is not Opcode.STORE:
            continue
        value = before[entry].args[0]
        if start is None:
            ok = value.op is Opcode.CONST and type(value.target) is int and value.target == 0
        else:
            ok = _same_value(value, start)
        later = [m for s in before[entry + 1:] for m in _walk_one(s)]
        if ok and not _stores(iter(later), name) and not (
                start is not None and start.op is Opcode.LOAD and _stores(iter(later), str(start.target))):
            found[name] = inc
    return found


def _walk_one(n: Node) -> Iterator[Node]:
    yield n
    for b in n.blocks:
        yield from b.walk()


def element_indices(spec: "TypedFunction", n: Node) -> list[Node]:
    """The per-axis index operands of a GETITEM/SETITEM that reads or writes one array element; [] otherwise."""
    base, idx = n.args[0], n.args[1]
    if not isinstance(spec.types.get(base), ArrayT):
        return []
    try:
        if plan_array_index(spec.type_of(base), spec.type_of(idx)).kind != "element":
            return []
    except Exception:  # noqa: BLE001 - not an element access: nothing to prove
        return []
    return list(idx.args) if idx.op is Opcode.CALL and idx.target == "ep.tuple" else [idx]


def helper_access_nodes(callee: "TypedFunction") -> list[tuple[int, int, int, Node]]:
    """(array parameter, axis, index parameter, index node) of each element access in the helper whose array and
    index are parameters it never rebinds."""
    params = [p.name for p in callee.fn.params]
    fixed = fixed_params(callee)
    out: list[tuple[int, int, int, Node]] = []
    for n in callee.fn.body.walk():
        if n.op not in (Opcode.GETITEM, Opcode.SETITEM):
            continue
        base = n.args[0]
        if not (base.op is Opcode.LOAD and base.target in fixed):
            continue
        for k, m in enumerate(element_indices(callee, n)):
            if m.op is Opcode.LOAD and m.target in fixed:
                out.append((params.index(str(base.target)), k, params.index(str(m.target)), m))
    return out


_INLINE_NODES = 64  # a helper this small (IR nodes) is always inlined


def small_leaf(spec: "TypedFunction") -> bool:
    """A helper without loops or calls of its own, small: `swap(a, i, j)`. g++ keeps such a function out of
    line when its frame has an exception handler (the traceback's), and then the loop calling it keeps the
    helper's bounds checks that the loop's facts would have removed."""
    from everypath.base.types import GenT

    nodes = list(spec.fn.body.walk())
    return (not spec.callees and not spec.closures and len(nodes) <= _INLINE_NODES
            and not isinstance(spec.return_type, GenT)
            and not any(n.op in (Opcode.FOR, Opcode.LOOP, Opcode.TRY, Opcode.CLOSURE) for n in nodes))


def element_accesses(spec: "TypedFunction", loop: Node) -> list[Access]:
    """Every element index in the loop's body, and those of the helpers it calls with its own operands."""
    out: list[Access] = []
    for n in loop.blocks[0].walk():
        if n.op in (Opcode.GETITEM, Opcode.SETITEM):
            out.extend(Access(n.args[0], k, m) for k, m in enumerate(element_indices(spec, n)))
        elif n.op is Opcode.CALL and n in spec.callees and not n.kwargs:
            callee = spec.callees[n]
            if callee is spec or len(n.args) != len(callee.fn.params):
                continue
            for ai, k, ii in sorted({(ai, k, ii) for ai, k, ii, _ in helper_access_nodes(callee)}):
                out.append(Access(n.args[ai], k, n.args[ii], n, (ai, k, ii)))
    return out


def position(loop: Node) -> dict[Node, int]:
    """Program order inside the loop body (an access before a counter's increment sees it unincremented)."""
    return {n: i for i, n in enumerate(loop.blocks[0].walk())}

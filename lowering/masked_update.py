"""Masked updates: ``a[m] = f(a[m], scalars...)`` without gathering or scattering.

NumPy evaluates ``a[m] = -a[m]`` as gather (a new 1-d array of the selected
elements), compute, scatter. When the value is an element-wise expression whose
only array operands are reads ``a[m]`` of the same array through the same full
rank boolean mask (and whose other operands are scalars), every selected element
depends on itself alone, so the update can run in place, element by element:
``ep::mask_update(a, m, f, ...)``. Same results, no temporaries, one pass.

Planning happens before emission (FunctionEmitter._plan_masked): the reads and
the expression nodes are marked fused (never materialised), the setitem emits
the update. Anything that could observe the difference (a store between the
reads and the write, a read used elsewhere, an array operand that is not a
masked read) keeps NumPy's three-step form.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from everypath.base.types import ArrayT, DType, ScalarT
from everypath.tracer.ir import Block, Node, Opcode

if TYPE_CHECKING:
    from everypath.lowering.emit import FunctionEmitter


@dataclass(frozen=True)
class MaskedUpdate:
    setitem: Node
    root: Node  # the value expression
    reads: frozenset[Node]  # the a[m] getitems the update replaces by the element itself
    tree: frozenset[Node]  # element-wise nodes computed inside the update


def _same_ref(x: Node, y: Node) -> bool:
    return x is y or (x.op is Opcode.LOAD and y.op is Opcode.LOAD and x.target == y.target)


def _plan_one(fe: "FunctionEmitter", s: Node, block: Block) -> MaskedUpdate | None:
    from everypath.lowering.emit_values import element_operands, is_elementwise

    base, idx, val = s.args
    bt, it = fe.spec.types.get(base), fe.spec.types.get(idx)  # None in a branch decided at compile time
    if not (isinstance(bt, ArrayT) and isinstance(it, ArrayT) and it.dtype is DType.BOOL and it.ndim == bt.ndim):
        return None
    if bt.ndim == 0 or not (is_elementwise(fe, val) and isinstance(fe.ty(val), ArrayT)) or list(val.users) != [s]:
        return None
    tree: set[Node] = set()
    reads: set[Node] = set()
    stack = [val]
    while stack:
        n = stack.pop()
        if n.block is not block:
            return None
        if n.op is Opcode.GETITEM and _same_ref(n.args[0], base) and _same_ref(n.args[1], idx) \
                and len(n.users) == 1:
            reads.add(n)
            continue
        t = fe.ty(n)
        if isinstance(t, ScalarT):
            continue  # emitted as usual, enters the update as a value
        if not (is_elementwise(fe, n) and isinstance(t, ArrayT) and len(n.users) == 1):
            return None
        key = fe.spec.op_keys.get(n, "")
        if key.startswith("operator.i") and key != "operator.invert" and n.args[0].op is not Opcode.GETITEM:
            return None  # an in-place op on anything but the fresh gathered temporary
        tree.add(n)
        stack.extend(element_operands(fe, n))
    if not reads:
        return None
    # nothing between the first read and the write may store or have effects
    nodes = block.nodes
    first = min(nodes.index(m) for m in (*reads, *tree, *[r.args[k] for r in reads for k in (0, 1)])
                if m.block is block)
    window = set(tree) | reads
    for m in nodes[first:nodes.index(s)]:
        if m in window or m.op in (Opcode.LOAD, Opcode.CONST):
            continue
        if m.op is Opcode.CALL and isinstance(fe.ty(m), ScalarT) and is_elementwise(fe, m):
            continue
        return None
    return MaskedUpdate(s, val, frozenset(reads), frozenset(tree))


def plan_masked_updates(fe: "FunctionEmitter", block: Block, out: dict[Node, MaskedUpdate]) -> None:
    for n in block.nodes:
        for b in n.blocks:
            plan_masked_updates(fe, b, out)
        if n.op is Opcode.SETITEM:
            plan = _plan_one(fe, n, block)
            if plan is not None:
                out[n] = plan


def emit_masked_update(fe: "FunctionEmitter", plan: MaskedUpdate) -> None:
    """ep::mask_update(a, m, [&](auto x0, ...) { ... }, leaves...) with ep::Self{} standing for a[m]."""
    from everypath.lowering.emit_values import elem_type, element_operands, scalar_op

    leaves: list[str] = []

    def body(n: Node) -> str:
        operands = []
        for a in element_operands(fe, n):
            if a in plan.reads:
                leaves.append("ep::Self{}")
                operands.append((f"x{len(leaves) - 1}", elem_type(fe.ty(a))))
            elif a in plan.tree:
                operands.append((body(a), elem_type(fe.ty(a))))
            else:
                leaves.append(fe.value(a))
                operands.append((f"x{len(leaves) - 1}", elem_type(fe.ty(a))))
        return scalar_op(fe, n, operands)

    expr = body(plan.root)
    base, idx, _ = plan.setitem.args
    params = ", ".join(f"auto x{i}" for i in range(len(leaves)))
    call = (f"ep::mask_update({fe.value(base)}, {fe.value(idx)}, [&]({params}) {{ return {expr}; }}, "
            f"{', '.join(leaves)})")
    from everypath.variants.ops.elementwise import ELEMENTWISE_VARIANTS

    dtype = fe.ty(base).dtype.np.name
    fe.line(fe.site_call(plan.setitem, "fused:mask_update", dtype, [(ELEMENTWISE_VARIANTS[0], call)],
                         [fe.value(base)]) + ";")

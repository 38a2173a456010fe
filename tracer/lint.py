"""Structural checks of an IR function; a failed lint is always a compiler bug."""
from __future__ import annotations

from everypath.tracer.ir import VALUE_OPCODES, Block, Function, Node, Opcode

_BLOCK_COUNT = {Opcode.IF: 2, Opcode.FOR: 1, Opcode.LOOP: 1}
_ARITY = {
    Opcode.PARAM: 0, Opcode.CONST: 0, Opcode.LOAD: 0, Opcode.GETATTR: 1, Opcode.GETITEM: 2,
    Opcode.SETITEM: 3, Opcode.STORE: 1, Opcode.IF: 1, Opcode.FOR: 1, Opcode.LOOP: 0,
    Opcode.BREAK: 0, Opcode.CONTINUE: 0, Opcode.RETURN: 1, Opcode.CLOSURE: 0, Opcode.TRY: 0,
}


class LintError(AssertionError):
    pass


def lint(fn: Function) -> None:
    fn.number()
    seen: set[Node] = set()
    _lint_block(fn, fn.body, set(), seen, loop_depth=0)
    for n in seen:  # users must be exactly the nodes that use n
        for u in n.users:
            if u not in seen or n not in u.operands():
                raise LintError(f"{n.name} lists {u!r} as a user but it does not use it")


def _lint_block(fn: Function, block: Block, visible: set[Node], seen: set[Node], loop_depth: int) -> None:
    local_visible = set(visible)
    for n in block.nodes:
        if n.block is not block:
            raise LintError(f"{n.name} does not point back to its block")
        want = _ARITY.get(n.op)
        if want is not None and len(n.args) != want:
            raise LintError(f"{n.name} ({n.op.value}) has {len(n.args)} operands, expected {want}")
        blocks = 3 + len(n.target.handlers) if n.op is Opcode.TRY else _BLOCK_COUNT.get(n.op, 0)
        if len(n.blocks) != blocks:
            raise LintError(f"{n.name} ({n.op.value}) has {len(n.blocks)} blocks")
        for a in n.operands():
            if a not in local_visible:
                raise LintError(f"{n.name} uses {a.name}, which is not defined before it in scope")
            if a.op not in VALUE_OPCODES:
                raise LintError(f"{n.name} uses {a.name}, which is a statement, not a value")
            if n not in a.users:
                raise LintError(f"{a.name} does not list its user {n.name}")
        if n.op in (Opcode.BREAK, Opcode.CONTINUE) and loop_depth == 0:
            raise LintError(f"{n.name} ({n.op.value}) outside a loop")
        if n.op is Opcode.PARAM and block is not fn.body:
            raise LintError(f"{n.name} param nested inside a block")
        inner_depth = loop_depth + (1 if n.op in (Opcode.FOR, Opcode.LOOP) else 0)
        for b in n.blocks:
            if b.parent is not n:
                raise LintError(f"a block of {n.name} does not point back to it")
            _lint_block(fn, b, local_visible, seen, inner_depth)
        local_visible.add(n)
        seen.add(n)
        if n.op is Opcode.CLOSURE:
            lint(n.target)

"""The one canonical text form of the IR, used by golden tests and `everypath trace`."""
from __future__ import annotations

import os

from everypath.tracer.ir import Block, Function, Node, Opcode


def _operand_list(node: Node) -> str:
    parts = [a.name for a in node.args]
    parts += [f"{k}={v.name}" for k, v in node.kwargs.items()]
    return ", ".join(parts)


def _pattern(p: object) -> str:
    if isinstance(p, tuple):
        return "(" + ", ".join(_pattern(x) for x in p) + ")"
    return str(p)


def format_node(node: Node) -> str:
    op, t = node.op, node.target
    if op is Opcode.PARAM:
        text = f"{node.name} = param {t}"
    elif op is Opcode.CONST:
        text = f"{node.name} = const {t!r}"
    elif op is Opcode.CALL:
        text = f"{node.name} = call {t}({_operand_list(node)})"
    elif op is Opcode.GETATTR:
        text = f"{node.name} = getattr {node.args[0].name}.{t}"
    elif op is Opcode.GETITEM:
        text = f"{node.name} = getitem {node.args[0].name}[{node.args[1].name}]"
    elif op is Opcode.SETITEM:
        text = f"setitem {node.args[0].name}[{node.args[1].name}] = {node.args[2].name}"
    elif op is Opcode.LOAD:
        text = f"{node.name} = load {t}"
    elif op is Opcode.STORE:
        text = f"store {t} = {node.args[0].name}"
    elif op is Opcode.IF:
        text = f"if {node.args[0].name}:"
    elif op is Opcode.FOR:
        text = f"for {_pattern(t)} in {node.args[0].name}:"
    elif op is Opcode.LOOP:
        text = "loop:"
    elif op in (Opcode.BREAK, Opcode.CONTINUE):
        text = op.value
    elif op is Opcode.RETURN:
        text = f"return {node.args[0].name}"
    elif op is Opcode.RAISE:
        text = f"raise {t}({_operand_list(node)})"
    elif op is Opcode.CLOSURE:
        text = f"{node.name} = closure {t.qualname}"
    elif op is Opcode.TRY:
        text = "try:"
    else:  # pragma: no cover - every opcode is handled above
        raise AssertionError(op)
    ty = node.meta.get("type")
    if ty is not None:
        text = f"{text}  : {ty}"
    return f"{text}  # {os.path.basename(node.loc.filename)}:{node.loc.lineno}"


def _format_block(block: Block, indent: int, out: list[str]) -> None:
    pad = "  " * indent
    if not block.nodes:
        out.append(f"{pad}pass")
    for n in block.nodes:
        out.append(pad + format_node(n))
        if n.op is Opcode.IF:
            _format_block(n.blocks[0], indent + 1, out)
            if n.blocks[1].nodes:
                out.append(f"{pad}else:")
                _format_block(n.blocks[1], indent + 1, out)
        elif n.op is Opcode.TRY:  # tracer/exceptions.py: body, orelse, finalbody, handlers
            _format_block(n.blocks[0], indent + 1, out)
            for h, b in zip(n.target.handlers, n.blocks[3:]):
                out.append(f"{pad}except {', '.join(h.names) or '*'}" + (f" as {h.binding}:" if h.binding else ":"))
                _format_block(b, indent + 1, out)
            for word, b in (("else", n.blocks[1]), ("finally", n.blocks[2])):
                if b.nodes:
                    out.append(f"{pad}{word}:")
                    _format_block(b, indent + 1, out)
        elif n.op is Opcode.CLOSURE:
            for line in format_function(n.target).splitlines():
                out.append(pad + "  | " + line)
        else:
            for b in n.blocks:
                _format_block(b, indent + 1, out)


def format_function(fn: Function) -> str:
    fn.number()
    params = ", ".join(p.name for p in fn.params)
    free = f"  [free: {', '.join(fn.freevars)}]" if fn.freevars else ""
    out = [f"def {fn.qualname}({params}):{free}"]
    _format_block(fn.body, 1, out)
    return "\n".join(out)

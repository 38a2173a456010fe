"""`isinstance(x, C)`: the classes kept by name, not as values (issue 14).

As a value, `int` is the dtype int64 (tracer/frontend.py as_node), which cannot tell a Python int from an
np.int64; isinstance needs the class itself. The call becomes one node, `ep.isinstance:<keys>` over x alone,
where each key is `module:qualname` of a class (`builtins:int`, `builtins:NoneType`, `numpy:float32`,
`shapes:Point`); lowering/unions.py answers it from x's type (a union: from its tag at run time).
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from everypath.tracer.ir import Node, Opcode
from everypath.tracer.statics import Static

if TYPE_CHECKING:
    from everypath.tracer.frontend import FunctionBuilder

PREFIX = "ep.isinstance:"
_HINT = ("isinstance() arg 2 must be a class or a tuple of classes written in place (int, float, str, tuple, "
         "type(None), np.float32, a dataclass)")


def class_key(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def keys_of(target: str) -> tuple[str, ...]:
    """The class keys of an `ep.isinstance:` call target."""
    return tuple(target[len(PREFIX):].split(","))


def is_isinstance(target: object) -> bool:
    return isinstance(target, str) and target.startswith(PREFIX)


def _keys(b: "FunctionBuilder", e: ast.expr, in_union: bool = False) -> list[str]:
    if isinstance(e, ast.Tuple):  # (int, float)
        return [k for x in e.elts for k in _keys(b, x)]
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.BitOr):  # int | None: there None stands for NoneType
        return _keys(b, e.left, True) + _keys(b, e.right, True)
    if isinstance(e, ast.Constant) and e.value is None:
        if in_union:
            return ["builtins:NoneType"]
        raise b.error(e, "isinstance() arg 2 must be a type, a tuple of types, or a union (None is not a type: "
                         "write type(None))")
    if (isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id == "type" and len(e.args) == 1
            and isinstance(e.args[0], ast.Constant) and e.args[0].value is None and not e.keywords):
        return ["builtins:NoneType"]  # type(None)
    v = b.expr(e)
    if isinstance(v, Static) and isinstance(v.obj, type):
        return [class_key(v.obj)]
    raise b.error(e, _HINT)


def isinstance_call(b: "FunctionBuilder", e: ast.Call) -> Node:
    if len(e.args) != 2 or e.keywords:
        raise b.error(e, f"isinstance expected 2 arguments, got {len(e.args) + len(e.keywords)}")
    x = b.value(e.args[0])
    keys = list(dict.fromkeys(_keys(b, e.args[1])))
    return b.emit(Opcode.CALL, PREFIX + ",".join(keys), (x,), b.loc(e))


__all__ = ["PREFIX", "class_key", "keys_of", "is_isinstance", "isinstance_call"]

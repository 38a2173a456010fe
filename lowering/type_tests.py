"""`isinstance(x, C)` answered from x's type (tracer/classinfo.py keeps C by name; issue 14).

Each compile-time type stands for values of one Python class (a Python int, an np.int64, a str, a tuple, a
record class): isinstance is `issubclass` of that class, so CPython's own answers hold (an np.float64 is a
float, an np.int64 no int, a bool an int, an IntEnum member an int). A union's answer is its tag's: the
members whose class passes, tested at run time; anything else is a constant of the compile.
"""
from __future__ import annotations

import builtins
import sys
from typing import TYPE_CHECKING

import numpy as np

from everypath.base import unions as U
from everypath.base.errors import TypingError
from everypath.base.types import (
    BOOL, ArrayT, DictT, EnumT, ListT, NoneT, RecordT, ScalarT, SetT, StrT, TupleT, Type, UnionT,
)
from everypath.tracer.classinfo import keys_of
from everypath.tracer.ir import Node, Opcode

if TYPE_CHECKING:
    from everypath.lowering.emit import FunctionEmitter

_PY_SCALARS = {"bool": bool, "int": int, "float": float, "complex": complex}
# kinds whose values are always of one builtin class
_BUILTIN_CLASS: dict[type, type] = {StrT: str, NoneT: type(None), TupleT: tuple, ListT: list, DictT: dict, SetT: set}


def _resolve(key: str) -> type:
    """The class a `module:qualname` key names (the module is imported: the function's own code named it)."""
    module, _, qualname = key.partition(":")
    if key == "builtins:NoneType":  # type(None) is no attribute of builtins
        return type(None)
    obj: object = builtins if module == "builtins" else sys.modules.get(module)
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
    if not isinstance(obj, type):
        raise TypingError(f"isinstance() of class '{qualname}' is not supported: it must be importable as "
                          f"{module}.{qualname}")
    return obj


def python_class(t: Type) -> type:
    """The class of every value of type t, as type(v) gives it."""
    if isinstance(t, ScalarT):
        return _PY_SCALARS[str(t)] if t.weak else np.dtype(t.dtype.np_name).type
    if isinstance(t, ArrayT) and not t.torch:
        return np.ndarray
    if isinstance(t, (RecordT, EnumT)):
        return _resolve(f"{t.module}:{t.qualname}")
    cls = _BUILTIN_CLASS.get(type(t))
    if cls is None:
        raise TypingError(f"isinstance() of a value of type {t} is not supported")
    return cls


def passes(t: Type, keys: tuple[str, ...]) -> bool:
    """isinstance(v, classes) for every value v of the (non-union) type t."""
    return issubclass(python_class(t), tuple(_resolve(k) for k in keys))


def type_call(arg: Type, target: str) -> Type:
    """The typing rule: a bool; every member of a union must have a class (else the located error)."""
    for m in U.members(arg):
        passes(m, keys_of(target))
    return BOOL


def emit_call(fe: "FunctionEmitter", n: Node) -> str:
    x = n.args[0]
    t = fe.ty(x)
    keys = keys_of(n.target)
    if isinstance(t, UnionT):
        v = fe.value(x)
        tags = [i for i, m in enumerate(t.members) if passes(m, keys)]
        if len(tags) in (0, len(t.members)):
            return "true" if tags else "false"
        return "(" + " || ".join(f"{v}.index() == {i}" for i in tags) + ")"
    answer = "true" if passes(t, keys) else "false"
    if x.op in (Opcode.LOAD, Opcode.CONST):
        return answer
    return f"((void)({fe.value(x)}), {answer})"  # the operand's effects still happen


def narrow(ms: list[Type], keys: tuple[str, ...], truth: bool) -> list[Type]:
    """The members an `isinstance(x, keys)` test of this truth leaves."""
    return [m for m in ms if passes(m, keys) == truth]


__all__ = ["python_class", "passes", "type_call", "emit_call", "narrow"]

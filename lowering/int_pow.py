"""`int ** int` with an exponent that may be negative, and `pow(a, b, m)`: CPython's answers (issue 12).

CPython's `a ** b` of two ints is an int when b >= 0 and `float(a) ** float(b)` otherwise (`2 ** -1` is 0.5,
`(-2) ** -3` is -0.125, `0 ** -1` raises ZeroDivisionError). The typer first types every Python int power as
an int (variants/ops/elementwise.py python_result: only a negative constant exponent gives a float); once its
fixpoint is reached, `widen` asks lowering/int_ranges.py about each exponent, and a power whose exponent is
not proven >= 0 (`b ** e` of parameters; a loop counter over `range(n)` is proven) is typed again as the
union `float | int` (base/unions.py), which the union machinery stores, returns and dispatches over like any
other. The typer repeats until no power is widened (each round only adds powers, so it ends). `**=` and
`pow(a, b)` are the same operator; `pow(a, b, m)` of Python ints is CPython 3.8+'s modular power
(variants/include/everypath/pyint_pow.hpp).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from everypath.base import unions as U
from everypath.base.cpp import cast, ctype
from everypath.base.errors import TypingError
from everypath.base.types import FLOAT, INT, DType, ScalarT, Type, UnionT
from everypath.lowering.bounds import LowerBounds
from everypath.lowering.int_ranges import IntRanges
from everypath.tracer.ir import Node, Opcode

if TYPE_CHECKING:
    from everypath.lowering.emit import FunctionEmitter
    from everypath.lowering.infer import TypedFunction

HEADER = "everypath/pyint_pow.hpp"
POW_KEYS = frozenset({"operator.pow", "operator.ipow", "builtins.pow"})
MIXED = U.make([INT, FLOAT])  # what `a ** b` of Python ints may be when b may be negative
NOT_MINE = object()
_INT_KINDS = frozenset({DType.INT64, DType.BOOL})


def _python_int(t: Type | None) -> bool:
    return isinstance(t, ScalarT) and t.weak and t.dtype in _INT_KINDS


# ---- typing ------------------------------------------------------------------------------------------------
def type_call(spec: "TypedFunction", n: Node, arg_types: list[Type]) -> object:
    """The type of a power this module decides (a widened one, pow with a modulus), else NOT_MINE."""
    if n.target not in POW_KEYS:
        return NOT_MINE
    if n.target == "builtins.pow" and len(arg_types) == 3:
        spec.op_keys[n] = "builtins.pow"
        return _powmod_type(arg_types)
    if len(arg_types) == 2 and n in spec.mixed_pows and all(map(_python_int, arg_types)):
        spec.op_keys[n] = n.target
        return MIXED
    return NOT_MINE


def _powmod_type(ts: list[Type]) -> Type:
    if all(map(_python_int, ts)):
        return INT
    if all(isinstance(t, ScalarT) and t.weak for t in ts):  # CPython's TypeError, known from the types
        raise TypingError("pow() 3rd argument not allowed unless all arguments are integers")
    names = ", ".join(f"'{U.python_name(t)}'" for t in ts)
    raise TypingError(f"unsupported operand type(s) for ** or pow(): {names} (pow with a modulus takes Python ints "
                      "in compiled code)")


def _candidate(spec: "TypedFunction", n: Node) -> bool:
    """A power of Python ints still typed int whose exponent is not a constant >= 0."""
    if n.op is not Opcode.CALL or n.target not in POW_KEYS or len(n.args) != 2 or n in spec.mixed_pows:
        return False
    if not any(_python_int(m) and m.dtype is DType.INT64 for m in U.members(spec.types.get(n) or FLOAT)):
        return False
    # an operand that is a union (`y = 2 ** k` then `3 ** y`) is switched over: its int member meets this rule
    if not all(any(map(_python_int, U.members(spec.types[a]))) for a in n.args if spec.types.get(a) is not None):
        return False
    e = n.args[1]
    return not (e.op is Opcode.CONST and isinstance(e.target, int) and e.target >= 0)


def widen(specs: Iterable["TypedFunction"]) -> bool:
    """Type as `float | int` every int power whose exponent lowering/int_ranges.py cannot prove >= 0; True
    when one was (the typer then runs again, since every user of that power sees a new type)."""
    changed = False
    for spec in specs:
        cands = [n for n in spec.types if _candidate(spec, n)]
        if not cands:
            continue
        ranges = IntRanges(LowerBounds(spec))
        for n in cands:
            iv = ranges.interval(n.args[1])
            if iv is None or iv[0] < 0:
                spec.mixed_pows.add(n)
                changed = True
    return changed


# ---- C++ ---------------------------------------------------------------------------------------------------
def emit_call(fe: "FunctionEmitter", n: Node) -> str | None:
    """`ep::pyint::power_or_float<...>(a, b)` of a widened power, `ep::pyint::powmod(a, b, m)`; else None."""
    if n.op is not Opcode.CALL or n.target not in POW_KEYS:
        return None
    ts = [fe.ty(a) for a in n.args]
    if not all(map(_python_int, ts)):
        return None
    args = ", ".join(cast(fe.value(a), t, DType.INT64) for a, t in zip(n.args, ts))  # type: ignore[arg-type]
    if n.target == "builtins.pow" and len(n.args) == 3:
        fe.used_headers.add(HEADER)
        return f"ep::pyint::powmod({args})"
    rt = fe.ty(n)
    if n not in fe.spec.mixed_pows or not isinstance(rt, UnionT):
        return None
    fe.used_headers.add(HEADER)
    return f"ep::pyint::power_or_float<{ctype(rt)}, {rt.members.index(INT)}, {rt.members.index(FLOAT)}>({args})"


__all__ = ["HEADER", "MIXED", "NOT_MINE", "POW_KEYS", "emit_call", "type_call", "widen"]

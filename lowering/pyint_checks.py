"""Python int operators that could leave int64: lowered to ep::pyint's checked forms (OverflowError, not a wrap).

Only operations whose every operand is a Python int (or bool) are Python int arithmetic; NumPy integers, and
a Python int meeting one, follow NumPy and wrap (variants/include/everypath/scalar.hpp, ep::sc). Where
lowering/int_ranges.py bounds the exact result inside int64, the plain operator is emitted: loop counters,
`i + 1`, `h & 0xFFFFFFFF` cost nothing. A Python int constant beyond int64 in the source (`2 ** 70`) is a
located compile error instead.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from everypath.base.cpp import EmitError, cast
from everypath.base.types import ArrayT, DType, ScalarT
from everypath.lowering.int_ranges import INT64_MAX, INT64_MIN, op_name
from everypath.tracer.ir import Node, Opcode

if TYPE_CHECKING:
    from everypath.lowering.emit import FunctionEmitter

HEADER = "everypath/pyint.hpp"  # included by everypath.hpp, as every scalar op is
# operator name (lowering/int_ranges.op_name) -> ep::pyint function; `%`, `&`, `|`, `^`, `~` never overflow
CHECKED: dict[str, str] = {
    "add": "add", "sub": "sub", "mul": "mul", "floordiv": "floordiv", "pow": "power", "lshift": "lshift",
    "rshift": "rshift", "neg": "negative", "abs": "abs",
}
_INT_KINDS = frozenset({DType.INT64, DType.BOOL})


def checked_op(fe: "FunctionEmitter", n: Node, key: str, operands: list[tuple[str, ScalarT]],
               result: ScalarT) -> str | None:
    """`ep::pyint::mul(a, b)` for a Python int operation that may overflow; None where the plain
    lowering is exact (not Python ints, or a result proven to fit int64)."""
    name = op_name(key)
    fn = CHECKED.get(name or "")
    if fn is None or result.dtype is not DType.INT64 or not result.weak:
        return None
    if not all(t.weak and t.dtype in _INT_KINDS for _, t in operands) or len(operands) != len(n.args):
        return None
    if fe.int_ranges.fits(n):
        return None
    args = ", ".join(cast(e, t, DType.INT64) for e, t in operands)
    return f"ep::pyint::{fn}({args})"


def check_constant(fe: "FunctionEmitter", n: Node) -> None:
    """A Python int constant must fit int64, except where only NumPy uint64 operations use it (NumPy 2
    accepts `u64 & 0xFFFF_FFFF_FFFF_FFFF`)."""
    v = n.target
    if not isinstance(v, int) or isinstance(v, bool) or INT64_MIN <= v <= INT64_MAX:
        return
    t = fe.ty(n)
    if not (isinstance(t, ScalarT) and t.weak and t.dtype is DType.INT64):
        return
    if 0 <= v < 2**64 and n.users and all(_uint64_user(fe, u) for u in n.users):
        return
    raise EmitError(f"integer constant {v} does not fit int64 (everypath ints are int64; CPython would make a "
                    f"big int)")


def _uint64_user(fe: "FunctionEmitter", u: Node) -> bool:
    if u.op is not Opcode.CALL:
        return False
    for a in u.args:
        t = fe.spec.types.get(a)
        if isinstance(t, (ArrayT, ScalarT)) and not (isinstance(t, ScalarT) and t.weak) and t.dtype is DType.UINT64:
            return True
    return False


__all__ = ["CHECKED", "HEADER", "check_constant", "checked_op"]

"""Loop versioning on unit inner strides.

Arrays arrive as views with run-time strides, so in `for j in range(1, w - 1): out[i, j] =
img[i - 1, j + 1] + ...` g++ sees strided loads of unknown stride and does not vectorise.
An innermost `for` over a range (or one whose only inner loops have constant trip counts, which
g++ unrolls) whose body only reads and writes array elements and does scalar arithmetic is emitted twice: behind `if (a.strides[N-1] == 1 && ...)` with the last
stride the constant 1 (ep::get_unit), and the general loop after `else`. Results are the same
either way; only the contiguous case gets faster (the common one: fresh arrays and NumPy
arguments are C-contiguous).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from lowering.indexing import plan_array_index
from lowering.types import ArrayT, ScalarT
from tracer.ir import Node, Opcode

if TYPE_CHECKING:
    from lowering.emit import FunctionEmitter

_ALLOWED = frozenset({Opcode.CONST, Opcode.LOAD, Opcode.STORE, Opcode.GETITEM, Opcode.SETITEM, Opcode.CALL,
                      Opcode.IF, Opcode.BREAK, Opcode.CONTINUE, Opcode.FOR})


def _constant_range(n: Node) -> bool:
    """range(3), range(-1, 2): a loop g++ unrolls completely, so the loop around it is the one to vectorise."""
    return n.op is Opcode.CALL and n.target == "builtins.range" and all(a.op is Opcode.CONST for a in n.args)


def _array_name(n: Node) -> str | None:
    """The C++ name the emitter gives the array (lowering.emit.ident for locals)."""
    from lowering.emit import ident

    if n.op is Opcode.LOAD and isinstance(n.target, str):
        return ident(n.target)
    if n.op is Opcode.PARAM:
        return "a_" + n.target
    return None


def unit_stride_arrays(fe: "FunctionEmitter", loop: Node) -> dict[str, int] | None:
    """{C++ array name: ndim} to check before the fast version of loop, or None when the
    loop is not a candidate (nested loops, array-valued calls, wrapping indices, ...)."""
    from lowering.emit import ident
    from lowering.emit_values import _element_accessor_kind

    arrays: dict[str, int] = {}
    stored: set[str] = set()
    for n in loop.blocks[0].walk():
        if n.op not in _ALLOWED:
            return None
        if n.op is Opcode.STORE:
            stored.add(ident(str(n.target)))
        elif n.op is Opcode.FOR:
            if not _constant_range(n.args[0]):
                return None  # a loop nest: only the innermost loop is versioned
        elif n.op is Opcode.CALL:
            if _constant_range(n):
                continue
            result_ok = isinstance(fe.ty(n), ScalarT) or n.target == "ep.tuple"  # tuples: element indices
            if not isinstance(n.target, str) or any(not isinstance(fe.ty(a), ScalarT) for a in n.args) \
                    or n.kwargs or not result_ok:
                return None  # only scalar arithmetic: no operator call sites, no user calls
        elif n.op in (Opcode.GETITEM, Opcode.SETITEM):
            base, idx = n.args[0], n.args[1]
            bt = fe.ty(base)
            if not isinstance(bt, ArrayT):
                continue  # tuples, lists
            name = _array_name(base)
            try:
                kind = plan_array_index(bt, fe.spec.type_of(idx)).kind
            except Exception:
                return None
            if name is None or kind != "element" or _element_accessor_kind(fe, idx) != "ep::get_nonneg":
                return None
            if bt.ndim > 0:  # a 0-d element has no stride to check
                arrays[name] = bt.ndim
    if not arrays or stored & set(arrays):
        return None
    return arrays

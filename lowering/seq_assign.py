"""Tuples and lists stored into arrays: ``a[i] = (x, y)``, ``a[i, :] = [0, 0, 1]``, ``a[:, 0] = (1, 2, 3)``.

NumPy converts the sequence to an array of the destination's dtype, then
broadcasts it into the selection; a length mismatch is its ValueError
"could not broadcast input array from shape (3,) into shape (2,)" (raised at
run time by ep::copyto, variants/include/everypath/ops/convert.hpp), a
Python int out of the dtype's range its OverflowError.
"""
from __future__ import annotations

from everypath.base.types import ArrayT, DType, ListT, ScalarT, TupleT, Type
from everypath.variants.registry import TypingError

CONVERT_HEADER = "everypath/ops/convert.hpp"


def _nested(t: Type) -> tuple[tuple[int, ...], list[ScalarT]] | None:
    """(shape, leaves) of a nested tuple of scalars, None for anything else; ragged raises."""
    if isinstance(t, ScalarT):
        return (), [t]
    if not isinstance(t, TupleT):
        return None
    subs = [_nested(i) for i in t.items]
    if any(s is None for s in subs):
        return None
    shapes = {s[0] for s in subs if s is not None}
    if len(shapes) > 1:
        raise TypingError("setting an array element with a sequence. The requested array has an inhomogeneous shape")
    inner = shapes.pop() if shapes else ()
    return (len(t.items), *inner), [leaf for s in subs if s is not None for leaf in s[1]]


def is_sequence_value(t: Type) -> bool:
    return isinstance(t, (TupleT, ListT))


def sequence_as_array(t: Type) -> ArrayT:
    """The array NumPy would make of a tuple / list value (for the setitem checks)."""
    if isinstance(t, ListT):
        if isinstance(t.elem, ScalarT):
            return ArrayT(t.elem.dtype, 1)
        if t.elem is None:
            return ArrayT(DType.FLOAT64, 1)
        raise TypingError(f"cannot assign {t} into an array (only lists of scalars)")
    got = _nested(t)
    if got is None or not got[0]:
        raise TypingError(f"cannot assign {t} into an array")
    shape, leaves = got
    dt = DType.COMPLEX128 if any(leaf.dtype.is_complex for leaf in leaves) else DType.FLOAT64
    return ArrayT(dt, len(shape))


def sequence_array_expr(t: Type, expr: str, dst: DType) -> str:
    """C++ making an array of dtype dst from a tuple / list value (Python ints range-checked)."""
    T = dst.cpp
    if isinstance(t, ListT):
        if t.elem is None:
            return f"ep::empty<{T}, 1>({{0}})"
        check = "true" if _py_int_into(t.elem, dst) else "false"
        return f"ep::array_from_list<{T}, {check}>({expr})"
    got = _nested(t)
    assert got is not None
    shape, leaves = got
    dims = ", ".join(str(d) for d in shape)
    check = "true" if any(_py_int_into(leaf, dst) for leaf in leaves) else "false"
    return f"ep::array_from_tuple<{T}, {len(shape)}, {check}>({expr}, std::array<ep::index_t, {len(shape)}>{{{dims}}})"


def _py_int_into(t: Type | None, dt: DType) -> bool:
    from everypath.variants.ops.creation import _py_int_into as rule

    return rule(t, dt)

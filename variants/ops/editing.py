"""Editing arrays: np.append, np.insert (one integer index), np.delete (an
integer, a slice, an index array or a boolean mask), np.trim_zeros, and the
element methods ndarray.fill, ndarray.item and ndarray.tolist.

np.append / insert / delete make new arrays; trim_zeros is a view of its
input, as in NumPy. Values stored into an array are converted with NumPy's
rules, including the OverflowError for Python ints that do not fit.
C++ kernels: variants/include/everypath/ops/edit.hpp.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from everypath.base.types import NONE, ArrayT, DType, ListT, ScalarT, SliceT, TupleT, Type
from everypath.variants.ops._manip import axis_checked, const_axis, is_int, operand, operand_expr
from everypath.variants.ops.creation import fill_expr
from everypath.variants.ops.reductions import Bound, mask_of, probe, sample_value
from everypath.variants.probe import call_probe
from everypath.variants.registry import Family, LowerSite, Operator, Registry, Site, TypingError, Variant

EDIT = (Variant("loops", "everypath/ops/edit.hpp"),)

_PY_DTYPE = {"b": DType.BOOL, "i": DType.INT64, "u": DType.INT64, "f": DType.FLOAT64, "c": DType.COMPLEX128}


def _sample(t: Type | None) -> Any:
    """A NumPy stand-in for an array-like argument (Python scalars stay Python scalars)."""
    if isinstance(t, ListT) and t.elem is not None:
        return [_sample(t.elem)]
    return sample_value(t)  # type: ignore[arg-type]


def _py_int_into(t: Type | None, dt: DType) -> bool:
    """Python ints stored into a narrower integer dtype: NumPy 2 range-checks them (OverflowError)."""
    return isinstance(t, ScalarT) and t.weak and t.dtype is DType.INT64 and dt.is_integer and dt is not DType.INT64


def _index_int(t: Type | None, what: str) -> None:
    if not (isinstance(t, ScalarT) and t.dtype.is_integer):
        raise TypingError(f"np.{what}(): the index must be an integer here, got {t}")


# ---- append ------------------------------------------------------------------------------


def _append_parts(site: Site | LowerSite) -> tuple[Bound, int | None, ArrayT]:
    b = Bound(site, ("arr", "values", "axis"), "np.append")
    arr = operand(b, "arr")
    operand(b, "values")
    axis = None if not b.has("axis") else b.const("axis")
    res = call_probe(np.append, _sample(b.type("arr")), _sample(b.type("values")), axis=axis)
    assert isinstance(res, ArrayT)
    return b, (None if axis is None else axis % arr.ndim), res


def _append_infer(site: Site) -> Type:
    return _append_parts(site)[2]


def _append_lower(ls: LowerSite) -> str:
    b, axis, res = _append_parts(ls)
    pair = f"std::make_tuple({operand_expr(b, 'arr')}, {operand_expr(b, 'values')})"
    if axis is None:
        return f"ep::concatenate_flat<{res.dtype.cpp}>({pair})"
    return f"ep::concatenate<{res.dtype.cpp}, {res.ndim}>({pair}, {axis})"


# ---- insert / delete ---------------------------------------------------------------------


def _insert_parts(site: Site | LowerSite) -> tuple[Bound, ArrayT, int | None, int]:
    b = Bound(site, ("arr", "obj", "values", "axis"), "np.insert")
    arr = operand(b, "arr")
    _index_int(b.type("obj"), "insert")
    vt = b.type("values")
    if not (isinstance(vt, (ScalarT, ArrayT)) or (isinstance(vt, ListT) and isinstance(vt.elem, ScalarT))):
        raise TypingError(f"np.insert(): values must be a number, an array or a list of numbers, got {vt}")
    axis = const_axis(b, "axis", arr.ndim)
    nd = 1 if axis is None else arr.ndim
    vnd = vt.ndim if isinstance(vt, ArrayT) else (1 if isinstance(vt, ListT) else 0)
    if vnd > nd:
        raise TypingError("np.insert(): values with more dimensions than the array are not supported")
    kw = {} if axis is None else {"axis": axis}
    probe(lambda: np.insert(np.zeros((1,) * arr.ndim, arr.dtype.np), 0, _sample(vt), **kw))  # casting errors
    return b, arr, axis, vnd


def _insert_infer(site: Site) -> Type:
    _, arr, axis, _ = _insert_parts(site)
    return ArrayT(arr.dtype, 1 if axis is None else arr.ndim)


def _insert_lower(ls: LowerSite) -> str:
    b, arr, axis, _ = _insert_parts(ls)
    T = arr.dtype.cpp
    vt, v = b.type("values"), b.expr("values")
    if isinstance(vt, ScalarT):
        vals = f"ep::scalar_array(ep::elem_cast<{T}>({fill_expr(vt, v, arr.dtype)}))"
    elif isinstance(vt, ListT):
        check = "true" if _py_int_into(vt.elem, arr.dtype) else "false"
        vals = f"ep::array_from_list<{T}, {check}>({v})"
    else:
        vals = f"ep::as_dtype<{T}>({v})"
    a = operand_expr(b, "arr")
    if axis is None:
        a, axis = f"ep::ravel({a})", 0
    return f"ep::insert_at({a}, static_cast<ep::index_t>({b.expr('obj')}), {vals}, {axis})"


def _delete_parts(site: Site | LowerSite) -> tuple[Bound, ArrayT, int | None, str]:
    """(bound, array, axis, kernel) where the kernel is picked by the kind of obj."""
    b = Bound(site, ("arr", "obj", "axis"), "np.delete")
    arr = operand(b, "arr")
    axis = const_axis(b, "axis", arr.ndim)
    t = b.type("obj")
    if isinstance(t, ScalarT) and t.dtype.is_integer:
        return b, arr, axis, "delete_index"
    if isinstance(t, SliceT):
        return b, arr, axis, "delete_slice"
    if isinstance(t, ArrayT):
        if t.dtype.is_bool:
            return b, arr, axis, "delete_mask"
        if not t.dtype.is_integer:
            raise TypingError("arrays used as indices must be of integer (or boolean) type")
        return b, arr, axis, "delete_indices"
    items = t.items if isinstance(t, TupleT) else ((t.elem,) if isinstance(t, ListT) else None)
    if items and all(isinstance(i, ScalarT) and i.dtype.is_integer for i in items):
        return b, arr, axis, "delete_indices"
    raise TypingError(f"np.delete(): obj must be an integer, a slice, an integer array or a boolean mask, got {t}")


def _delete_infer(site: Site) -> Type:
    _, arr, axis, _ = _delete_parts(site)
    return ArrayT(arr.dtype, 1 if axis is None else arr.ndim)


def _delete_lower(ls: LowerSite) -> str:
    b, _, axis, kernel = _delete_parts(ls)
    a = operand_expr(b, "arr")
    if axis is None:
        a, axis = f"ep::ravel({a})", 0
    return f"ep::{kernel}({a}, {b.expr('obj')}, {axis})"


# ---- trim_zeros ------------------------------------------------------------------------------


def _trim_parts(site: Site | LowerSite) -> tuple[Bound, ArrayT, tuple[int, ...], str]:
    b = Bound(site, ("filt", "trim", "axis"), "np.trim_zeros")
    a = b.type("filt")
    if not isinstance(a, ArrayT):
        raise TypingError(f"np.trim_zeros(): expected an array, got {a}")
    trim = b.const("trim", "fb")
    if not isinstance(trim, str):
        raise TypingError("np.trim_zeros(): trim must be a string")
    trim = trim.lower()
    if trim not in {"fb", "bf", "f", "b"}:
        raise TypingError(f"unexpected character(s) in `trim`: {trim!r}")
    raw = b.const("axis", None)
    axes = tuple(range(a.ndim)) if raw is None else axis_checked(
        lambda: normalize_axis_tuple(raw, a.ndim, argname="axis"))
    return b, a, axes, trim


def _trim_infer(site: Site) -> Type:
    return _trim_parts(site)[1]


def _trim_lower(ls: LowerSite) -> str:
    b, _, axes, trim = _trim_parts(ls)
    x = b.expr("filt")
    if not axes:
        return x  # NumPy hands back the input itself
    front, back = ("true" if c in trim else "false" for c in "fb")
    return f"ep::trim_zeros<{mask_of(axes)}u, {front}, {back}>({x})"


# ---- ndarray.fill / ndarray.item -------------------------------------------------------------


def _fill_parts(site: Site | LowerSite) -> tuple[Bound, ArrayT, ScalarT]:
    b = Bound(site, ("a", "value"), "fill")
    a, v = b.type("a"), b.type("value")
    assert isinstance(a, ArrayT)
    if not isinstance(v, ScalarT):
        raise TypingError(f"fill(): value must be a number, got {v}")
    probe(lambda: np.zeros(1, a.dtype.np).fill(sample_value(v)))  # complex into real: NumPy's TypeError
    return b, a, v


def _fill_infer(site: Site) -> Type:
    _fill_parts(site)
    return NONE


def _fill_lower(ls: LowerSite) -> str:
    b, a, v = _fill_parts(ls)
    return f"ep::fill_with({b.expr('a')}, {fill_expr(v, b.expr('value'), a.dtype)})"


def _item_parts(site: Site | LowerSite) -> tuple[ArrayT, list[str | int], ScalarT]:
    """(array, where the indices are: one flat index, one per axis, or none; the Python scalar type)."""
    if site.node.kwargs:
        raise TypingError("item() takes no keyword arguments")
    a = site.type(0)
    assert isinstance(a, ArrayT)
    idx = list(range(1, len(site.node.args)))
    types = [site.type(i) for i in idx]
    if len(idx) == 1 and isinstance(types[0], TupleT):
        types = list(types[0].items)
        if len(types) != a.ndim:
            raise TypingError("incorrect number of indices for array")
    elif len(idx) > 1 and len(idx) != a.ndim:
        raise TypingError("incorrect number of indices for array")
    for t in types:
        if not is_int(t):
            name = {DType.FLOAT64: "float", DType.COMPLEX128: "complex"}.get(getattr(t, "dtype", None), str(t))
            raise TypingError(f"'{name}' object cannot be interpreted as an integer")
    return a, idx, ScalarT(_PY_DTYPE[a.dtype.kind], weak=True)


def _item_infer(site: Site) -> Type:
    return _item_parts(site)[2]


def _item_lower(ls: LowerSite) -> str:
    a, idx, res = _item_parts(ls)
    R, x = res.dtype.cpp, ls.args[0]
    if not idx:
        return f"ep::item_of<{R}>({x})"
    t = ls.type(1)
    if isinstance(t, TupleT):
        items = [f"std::get<{k}>({ls.args[1]})" for k in range(len(t.items))]
    elif len(idx) == 1:
        return f"ep::item_flat<{R}>({x}, static_cast<ep::index_t>({ls.args[1]}))"
    else:
        items = [ls.args[i] for i in idx]  # type: ignore[index]
    if not items:  # a.item(()) on a 0-d array
        return f"ep::item_of<{R}>({x})"
    return f"ep::item_at<{R}>({x}, {', '.join(items)})"


def _tolist_infer(site: Site) -> Type:
    """a.tolist(): nested lists of Python scalars (int for every integer dtype, float, bool, complex)."""
    if len(site.node.args) != 1 or site.node.kwargs:
        raise TypingError("tolist() takes no arguments")
    a = site.type(0)
    assert isinstance(a, ArrayT)
    t: Type = ScalarT(_PY_DTYPE[a.dtype.kind], weak=True)
    for _ in range(a.ndim):
        t = ListT(t)
    return t


def _tolist_lower(ls: LowerSite) -> str:
    a = ls.type(0)
    assert isinstance(a, ArrayT)
    return f"ep::tolist_of<{_PY_DTYPE[a.dtype.kind].cpp}>({ls.args[0]})"


def declare(reg: Registry) -> None:
    reg.add(Operator("numpy.append", Family.SHAPE, np.append, _append_infer, _append_lower, EDIT))
    reg.add(Operator("numpy.insert", Family.SHAPE, np.insert, _insert_infer, _insert_lower, EDIT))
    reg.add(Operator("numpy.delete", Family.SHAPE, np.delete, _delete_infer, _delete_lower, EDIT))
    reg.add(Operator("numpy.trim_zeros", Family.SHAPE, np.trim_zeros, _trim_infer, _trim_lower, EDIT))
    reg.add(Operator("ndarray.fill", Family.SHAPE, np.ndarray.fill, _fill_infer, _fill_lower, EDIT))
    reg.add(Operator("ndarray.item", Family.SHAPE, np.ndarray.item, _item_infer, _item_lower, EDIT))
    reg.add(Operator("ndarray.tolist", Family.SHAPE, np.ndarray.tolist, _tolist_infer, _tolist_lower, EDIT))


__all__ = ["declare"]

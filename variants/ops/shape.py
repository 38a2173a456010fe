"""Shape manipulation: np.reshape / ndarray.reshape, ndarray.astype, transpose,
ravel / flatten, expand_dims, squeeze (with axis), flip, and joining tuples or
lists of arrays (np.concatenate, stack, vstack, hstack).

Views stay views (sharing the owner) exactly where NumPy makes views;
reshape copies only when NumPy would. C++ kernels:
variants/include/everypath/ops/shape.hpp.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from everypath.base.types import ArrayT, DType, DTypeT, ListT, NoneT, ScalarT, TupleT, Type
from everypath.variants.ops.creation import shape_rank
from everypath.variants.ops.reductions import (
    Bound, array_expr, array_operand, dtype_arg, mask_of, normalize_axes, normalize_axis, probe,
)
from everypath.variants.registry import Family, LowerSite, Operator, Registry, Site, TypingError


def _array(t: Type | None, fname: str) -> ArrayT:
    if not isinstance(t, ArrayT):
        raise TypingError(f"{fname}: expected an array, got {t}")
    return t


# ---- reshape ------------------------------------------------------------------------


def _reshape_parts(site: Site | LowerSite) -> tuple[ArrayT, list[int | str], bool]:
    """(array, where the shape is given, whether it is a list of separate ints)."""
    key = site.key
    kw = site.node.kwargs
    for k in kw:
        if k not in ("order", "copy", "shape", "newshape"):
            raise TypingError(f"reshape() got an unexpected keyword argument '{k}'")
    if "order" in kw and site.const("order") not in ("C", "A"):
        raise TypingError("reshape: only order='C' is supported")
    if "copy" in kw and site.const("copy") is not None:
        raise TypingError("reshape(copy=...) is not supported")
    a = _array(site.type(0), "reshape")
    if key == "numpy.reshape":
        if len(site.node.args) > 2:
            raise TypingError("np.reshape() takes at most 2 positional arguments; pass the shape as a tuple")
        where: list[int | str] = [1] if len(site.node.args) == 2 else [k for k in ("shape", "newshape") if k in kw]
        if len(where) != 1:
            raise TypingError("np.reshape() needs exactly one shape")
        return a, where, False
    rest = list(range(1, len(site.node.args)))
    if "shape" in kw:
        rest.append("shape")
    if not rest:
        raise TypingError("reshape() missing required argument 'shape' (pos 1)")
    if len(rest) == 1:
        return a, rest, False
    return a, rest, True


def _reshape_rank(site: Site | LowerSite) -> tuple[ArrayT, int]:
    a, where, separate = _reshape_parts(site)
    if separate:
        for w in where:
            shape_rank(site.type(w))
            if not isinstance(site.type(w), ScalarT):
                raise TypingError("reshape: each dimension must be an integer")
        return a, len(where)
    return a, shape_rank(site.type(where[0]))


def _reshape_infer(site: Site) -> Type:
    a, n = _reshape_rank(site)
    return ArrayT(a.dtype, n)


def _reshape_lower(ls: LowerSite) -> str:
    _, where, separate = _reshape_parts(ls)
    n = ls.result.ndim  # type: ignore[union-attr]
    if separate:
        shape = "std::make_tuple(" + ", ".join(ls.arg(w) for w in where) + ")"  # type: ignore[misc]
    else:
        shape = ls.arg(where[0])
    return f"ep::reshape<{n}>({ls.args[0]}, {shape})"


# ---- astype -------------------------------------------------------------------------

_ASTYPE = ("a", "dtype", "order", "casting", "subok", "copy")


def _astype_infer(site: Site) -> Type:
    b = Bound(site, _ASTYPE, "astype")
    a = _array(b.type("a"), "astype")
    t = b.type("dtype")
    if not isinstance(t, DTypeT):
        raise TypingError(f"astype() needs a dtype (np.float32, int, ...), got {t}")
    casting = b.const("casting", "unsafe")
    if casting != "unsafe" and not np.can_cast(a.dtype.np, t.dtype.np, casting):
        raise TypingError(f"Cannot cast array data from dtype('{a.dtype}') to dtype('{t.dtype}') according to the "
                          f"rule '{casting}'")
    return ArrayT(t.dtype, a.ndim)


def _astype_lower(ls: LowerSite) -> str:
    b = Bound(ls, _ASTYPE)
    a: ArrayT = b.type("a")  # type: ignore[assignment]
    res: ArrayT = ls.result  # type: ignore[assignment]
    if b.const("copy", True) is False and a.dtype == res.dtype:
        return b.expr("a")
    return f"ep::astype<{res.dtype.cpp}>({b.expr('a')})"


# ---- transpose ----------------------------------------------------------------------------


def _transpose_axes(site: Site | LowerSite) -> tuple[ArrayT, tuple[int, ...] | None]:
    a = _array(site.type(0), "transpose")
    kw = site.node.kwargs
    if site.key == "numpy.transpose":
        if set(kw) - {"axes"}:
            raise TypingError("np.transpose() got an unexpected keyword argument")
        if len(site.node.args) > 2:
            raise TypingError("np.transpose() takes at most 2 positional arguments")
        where: list[int | str] = [1] if len(site.node.args) == 2 else (["axes"] if "axes" in kw else [])
    else:
        if kw:
            raise TypingError("ndarray.transpose() takes no keyword arguments")
        where = list(range(1, len(site.node.args)))
    if not where:
        return a, None
    if len(where) == 1:
        if isinstance(site.type(where[0]), NoneT):
            return a, None
        axes = site.const(where[0])
        if not isinstance(axes, tuple):
            axes = (axes,)
    else:
        axes = tuple(site.const(w) for w in where)
    if len(axes) != a.ndim:
        raise TypingError("axes don't match array")
    norm = tuple(normalize_axis(x, a.ndim) for x in axes)
    if len(set(norm)) != len(norm):
        raise TypingError("repeated axis in transpose")
    return a, norm


def _transpose_infer(site: Site) -> Type:
    a, _ = _transpose_axes(site)
    return a


def _transpose_lower(ls: LowerSite) -> str:
    _, axes = _transpose_axes(ls)
    if axes is None:
        return f"ep::transpose({ls.args[0]})"
    return f"ep::transpose_axes<{', '.join(map(str, axes))}>({ls.args[0]})"


# ---- ravel / flatten ---------------------------------------------------------------------


def _flat_infer(fname: str) -> Callable[[Site], Type]:
    def infer(site: Site) -> Type:
        b = Bound(site, ("a", "order"), fname)
        if b.has("order") and b.const("order") not in ("C", "A", "K"):
            raise TypingError(f"{fname}: only order='C' is supported")
        if fname == "flatten":
            a = _array(b.type("a"), fname)
        else:
            a = array_operand(b.type("a"))
        return ArrayT(a.dtype, 1)

    return infer


def _flat_lower(fname: str) -> Callable[[LowerSite], str]:
    def lower(ls: LowerSite) -> str:
        x = array_expr(ls.arg_types[0], ls.args[0])
        return f"ep::{fname}({x})"

    return lower


# ---- expand_dims / squeeze / flip ------------------------------------------------------


def _axes_arg(site: Site | LowerSite, fname: str, names: tuple[str, ...]) -> tuple[Bound, ArrayT, Any]:
    b = Bound(site, names, fname)
    a = _array(b.type(names[0]), fname)
    if not b.has("axis") or isinstance(b.type("axis"), NoneT):
        return b, a, None
    return b, a, b.const("axis")


def _expand_parts(site: Site | LowerSite) -> tuple[ArrayT, int, int]:
    _, a, axis = _axes_arg(site, "np.expand_dims", ("a", "axis"))
    if axis is None:
        raise TypingError("np.expand_dims() missing required argument 'axis'")
    raw = axis if isinstance(axis, tuple) else (axis,)
    out_nd = a.ndim + len(raw)
    norm = [normalize_axis(x, out_nd) for x in raw]
    if len(set(norm)) != len(norm):
        raise TypingError("repeated axis")
    return a, out_nd, mask_of(tuple(norm))


def _expand_infer(site: Site) -> Type:
    a, n, _ = _expand_parts(site)
    return ArrayT(a.dtype, n)


def _expand_lower(ls: LowerSite) -> str:
    _, n, m = _expand_parts(ls)
    return f"ep::expand_dims<{n}, {m}u>({ls.args[0]})"


def _squeeze_parts(site: Site | LowerSite) -> tuple[ArrayT, tuple[int, ...]]:
    _, a, axis = _axes_arg(site, "squeeze", ("a", "axis"))
    if axis is None:
        raise TypingError("squeeze() without axis= is not supported: the result rank must be known at compile "
                          "time; pass axis=")
    return a, normalize_axes(axis, a.ndim) or ()


def _squeeze_infer(site: Site) -> Type:
    a, axes = _squeeze_parts(site)
    return ArrayT(a.dtype, a.ndim - len(axes))


def _squeeze_lower(ls: LowerSite) -> str:
    a, axes = _squeeze_parts(ls)
    return f"ep::squeeze<{a.ndim - len(axes)}, {mask_of(axes)}u>({ls.args[0]})"


def _flip_parts(site: Site | LowerSite) -> tuple[ArrayT, int]:
    _, a, axis = _axes_arg(site, "np.flip", ("m", "axis"))
    axes = tuple(range(a.ndim)) if axis is None else normalize_axes(axis, a.ndim)
    return a, mask_of(axes or ())


def _flip_infer(site: Site) -> Type:
    a, _ = _flip_parts(site)
    return a


def _flip_lower(ls: LowerSite) -> str:
    _, m = _flip_parts(ls)
    return f"ep::flip<{m}u>({ls.args[0]})"


# ---- joining -----------------------------------------------------------------------------


def _seq_items(t: Type | None, fname: str) -> list[ArrayT]:
    if isinstance(t, TupleT):
        items = list(t.items)
    elif isinstance(t, ListT):
        if t.elem is None:
            raise TypingError("need at least one array to concatenate")
        items = [t.elem]
    else:
        raise TypingError(f"{fname}: expected a tuple or list of arrays, got {t}")
    if not items:
        raise TypingError("need at least one array to concatenate")
    for i in items:
        if not isinstance(i, ArrayT):
            raise TypingError(f"{fname}: expected arrays, got {i}")
    return items  # type: ignore[return-value]


def _join_dtype(items: list[ArrayT], dt: DType | None) -> DType:
    if dt is not None:
        return dt
    return DType.of(probe(lambda: np.result_type(*(i.dtype.np for i in items))))


def _same_ndim(items: list[ArrayT], nds: list[int] | None = None) -> int:
    nds = nds or [i.ndim for i in items]
    for k, nd in enumerate(nds):
        if nd != nds[0]:
            raise TypingError(f"all the input arrays must have same number of dimensions, but the array at index 0 "
                              f"has {nds[0]} dimension(s) and the array at index {k} has {nd} dimension(s)")
    return nds[0]


_CONCAT = ("arrays", "axis", "out", "dtype", "casting")


def _concat_parts(site: Site | LowerSite) -> tuple[Bound, list[ArrayT], int | None, DType]:
    b = Bound(site, _CONCAT, "np.concatenate")
    b.reject_non_none("out")
    items = _seq_items(b.type("arrays"), "np.concatenate")
    dt = _join_dtype(items, dtype_arg(b.type("dtype")))
    if b.has("axis") and isinstance(b.type("axis"), NoneT):
        return b, items, None, dt
    nd = _same_ndim(items)
    if nd == 0:
        raise TypingError("zero-dimensional arrays cannot be concatenated")
    return b, items, normalize_axis(b.const("axis", 0), nd), dt


def _concat_infer(site: Site) -> Type:
    _, items, axis, dt = _concat_parts(site)
    return ArrayT(dt, 1 if axis is None else items[0].ndim)


def _concat_lower(ls: LowerSite) -> str:
    b, items, axis, dt = _concat_parts(ls)
    if axis is None:
        return f"ep::concatenate_flat<{dt.cpp}>({b.expr('arrays')})"
    return f"ep::concatenate<{dt.cpp}, {items[0].ndim}>({b.expr('arrays')}, {axis})"


_STACK = ("arrays", "axis", "out", "dtype", "casting")


def _stack_parts(site: Site | LowerSite) -> tuple[Bound, list[ArrayT], int, DType]:
    b = Bound(site, _STACK, "np.stack")
    b.reject_non_none("out")
    items = _seq_items(b.type("arrays"), "np.stack")
    nd = _same_ndim(items)
    dt = _join_dtype(items, dtype_arg(b.type("dtype")))
    return b, items, normalize_axis(b.const("axis", 0), nd + 1), dt


def _stack_infer(site: Site) -> Type:
    _, items, _, dt = _stack_parts(site)
    return ArrayT(dt, items[0].ndim + 1)


def _stack_lower(ls: LowerSite) -> str:
    b, items, axis, dt = _stack_parts(ls)
    return f"ep::stack<{dt.cpp}, {items[0].ndim}>({b.expr('arrays')}, {axis})"


_VH = ("tup", "dtype", "casting")


def _vh_parts(fname: str, site: Site | LowerSite) -> tuple[Bound, list[ArrayT], int, DType, bool]:
    """(bound, items, result rank, dtype, joined along axis 0 of atleast_Nd copies)."""
    b = Bound(site, _VH, f"np.{fname}")
    items = _seq_items(b.type("tup"), f"np.{fname}")
    dt = _join_dtype(items, dtype_arg(b.type("dtype")))
    if fname == "vstack":
        nd = _same_ndim(items, [max(i.ndim, 2) for i in items])
        return b, items, nd, dt, True
    nds = [max(i.ndim, 1) for i in items]
    if nds[0] == 1:
        _same_ndim(items, nds)
        return b, items, 1, dt, True
    return b, items, _same_ndim(items, nds), dt, False


def _vh_infer(fname: str) -> Callable[[Site], Type]:
    def infer(site: Site) -> Type:
        _, _, nd, dt, _ = _vh_parts(fname, site)
        return ArrayT(dt, nd)

    return infer


def _vh_lower(fname: str) -> Callable[[LowerSite], str]:
    def lower(ls: LowerSite) -> str:
        b, _, nd, dt, lead = _vh_parts(fname, ls)
        if lead:
            return f"ep::vstack<{dt.cpp}, {nd}>({b.expr('tup')})"
        return f"ep::concatenate<{dt.cpp}, {nd}>({b.expr('tup')}, 1)"

    return lower


def declare(reg: Registry) -> None:
    reg.add(Operator("numpy.reshape", Family.SHAPE, np.reshape, _reshape_infer, _reshape_lower))
    reg.add(Operator("ndarray.reshape", Family.SHAPE, np.ndarray.reshape, _reshape_infer, _reshape_lower))
    reg.add(Operator("ndarray.astype", Family.SHAPE, np.ndarray.astype, _astype_infer, _astype_lower))
    reg.add(Operator("numpy.transpose", Family.SHAPE, np.transpose, _transpose_infer, _transpose_lower))
    reg.add(Operator("ndarray.transpose", Family.SHAPE, np.ndarray.transpose, _transpose_infer, _transpose_lower))
    reg.add(Operator("numpy.ravel", Family.SHAPE, np.ravel, _flat_infer("ravel"), _flat_lower("ravel"),
                     aliases=("ndarray.ravel",)))
    reg.add(Operator("ndarray.flatten", Family.SHAPE, np.ndarray.flatten, _flat_infer("flatten"),
                     _flat_lower("flatten")))
    reg.add(Operator("numpy.expand_dims", Family.SHAPE, np.expand_dims, _expand_infer, _expand_lower))
    reg.add(Operator("numpy.squeeze", Family.SHAPE, np.squeeze, _squeeze_infer, _squeeze_lower,
                     aliases=("ndarray.squeeze",)))
    reg.add(Operator("numpy.flip", Family.SHAPE, np.flip, _flip_infer, _flip_lower))
    reg.add(Operator("numpy.concatenate", Family.SHAPE, np.concatenate, _concat_infer, _concat_lower))
    reg.add(Operator("numpy.stack", Family.SHAPE, np.stack, _stack_infer, _stack_lower))
    reg.add(Operator("numpy.vstack", Family.SHAPE, np.vstack, _vh_infer("vstack"), _vh_lower("vstack")))
    reg.add(Operator("numpy.hstack", Family.SHAPE, np.hstack, _vh_infer("hstack"), _vh_lower("hstack")))


__all__ = ["declare"]

"""Rearranging arrays: np.tile, repeat (+ndarray.repeat), roll, rot90, fliplr,
flipud, moveaxis, swapaxes (+ndarray.swapaxes), matrix_transpose, atleast_1d/2d/3d,
broadcast_to and resize.

rot90, fliplr, flipud, moveaxis, swapaxes, matrix_transpose, atleast_Nd and broadcast_to are
views, as in NumPy; the others make new arrays. Axes are compile-time
constants (they decide the result's strides or rank); counts and shifts may
be run-time values. C++ kernels: variants/include/everypath/ops/arrange.hpp.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from everypath.base.types import ArrayT, ListT, NoneT, TupleT, Type
from everypath.variants.ops._manip import axis_checked, const_axis, is_int, operand, operand_expr, seq_len
from everypath.variants.ops.creation import shape_rank
from everypath.variants.ops.reductions import Bound, array_expr, array_operand, probe
from everypath.variants.registry import Family, LowerSite, Operator, Registry, Site, TypingError, Variant

ARRANGE = (Variant("loops", "everypath/ops/arrange.hpp"),)


# ---- tile / repeat ---------------------------------------------------------------------


def _tile_parts(site: Site | LowerSite) -> tuple[Bound, ArrayT, int, int]:
    b = Bound(site, ("A", "reps"), "np.tile")
    a = operand(b, "A")
    if not b.has("reps"):
        raise TypingError("tile() missing 1 required positional argument: 'reps'")
    k = seq_len(b, "reps")
    k = 1 if k is None else k
    return b, a, max(a.ndim, k), k


def _tile_infer(site: Site) -> Type:
    _, a, d, _ = _tile_parts(site)
    return ArrayT(a.dtype, d)


def _tile_lower(ls: LowerSite) -> str:
    b, _, d, k = _tile_parts(ls)
    return f"ep::tile<{d}, {k}>({operand_expr(b, 'A')}, {b.expr('reps')})"


def _repeat_parts(site: Site | LowerSite) -> tuple[Bound, ArrayT, int | None]:
    b = Bound(site, ("a", "repeats", "axis"), "repeat")
    a = operand(b, "a")
    if not b.has("repeats"):
        raise TypingError("repeat() missing required argument 'repeats'")
    t = b.type("repeats")
    if isinstance(t, ArrayT):
        if t.ndim > 1:
            raise TypingError("object too deep for desired array")
        if not np.can_cast(t.dtype.np, np.intp, "safe"):
            raise TypingError(f"Cannot cast array data from dtype('{t.dtype}') to dtype('int64') according to the "
                              "rule 'safe'")
    elif isinstance(t, ListT) and t.elem is not None and is_int(t.elem):
        pass
    elif not (is_int(t) or (isinstance(t, TupleT) and all(is_int(i) for i in t.items))):
        raise TypingError(f"repeat(): repeats must be integers, got {t}")
    return b, a, const_axis(b, "axis", a.ndim)


def _repeat_infer(site: Site) -> Type:
    _, a, axis = _repeat_parts(site)
    return ArrayT(a.dtype, 1 if axis is None else a.ndim)


def _repeat_lower(ls: LowerSite) -> str:
    b, _, axis = _repeat_parts(ls)
    x = operand_expr(b, "a")
    if axis is None:
        return f"ep::repeat_flat({x}, {b.expr('repeats')})"
    return f"ep::repeat({x}, {b.expr('repeats')}, {axis})"


# ---- roll -----------------------------------------------------------------------------------


def _roll_parts(site: Site | LowerSite) -> tuple[Bound, ArrayT, list[tuple[int, int | None]], tuple[int, ...] | None]:
    """(bound, array, (axis, item of shift or None for a scalar) pairs, axes or None for axis=None)."""
    b = Bound(site, ("a", "shift", "axis"), "np.roll")
    a = operand(b, "a")
    if not b.has("shift"):
        raise TypingError("roll() missing 1 required positional argument: 'shift'")
    n = seq_len(b, "shift")
    if not b.has("axis") or isinstance(b.type("axis"), NoneT):
        axes: tuple[int, ...] | None = None
        raw: Any = 0
    else:
        raw = b.const("axis")
        axes = axis_checked(lambda: normalize_axis_tuple(raw, a.ndim, allow_duplicate=True))
    ax_list = list(axes) if axes is not None else [0]
    ax_seq = isinstance(raw, tuple)
    shifts: list[int | None] = [None] if n is None else list(range(n))
    if n is not None and ax_seq and len(shifts) != len(ax_list) and 1 not in (len(shifts), len(ax_list)):
        raise TypingError("shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg 0 "
                          f"with shape ({len(shifts)},) and arg 1 with shape ({len(ax_list)},).")
    if len(shifts) == 1:
        shifts = shifts * len(ax_list)
    if len(ax_list) == 1:
        ax_list = ax_list * len(shifts)
    return b, a, list(zip(ax_list, shifts)), axes


def _roll_infer(site: Site) -> Type:
    _, a, _, _ = _roll_parts(site)
    return a


def _roll_lower(ls: LowerSite) -> str:
    b, a, pairs, axes = _roll_parts(ls)
    s = b.expr("shift")

    def item(i: int | None) -> str:
        return f"static_cast<ep::index_t>({s})" if i is None else f"ep::man::seq_at<{i}>({s})"

    x = operand_expr(b, "a")
    if axes is None:
        total = " + ".join(item(i) for _, i in pairs)
        return f"ep::roll_flat({x}, {total})"
    per_axis = []
    for k in range(a.ndim):
        terms = [item(i) for ax, i in pairs if ax == k]
        per_axis.append(" + ".join(terms) if terms else "ep::index_t(0)")
    return f"ep::roll({x}, std::array<ep::index_t, {a.ndim}>{{{', '.join(per_axis)}}})"


# ---- rot90 / fliplr / flipud / moveaxis / swapaxes (views) ----------------------------------


def _rot90_parts(site: Site | LowerSite) -> tuple[Bound, ArrayT, tuple[int, int]]:
    b = Bound(site, ("m", "k", "axes"), "np.rot90")
    a = operand(b, "m")
    if b.has("k") and not is_int(b.type("k")):
        raise TypingError(f"np.rot90(): k must be an integer, got {b.type('k')}")
    axes = b.const("axes", (0, 1))
    probe(lambda: np.rot90(np.empty((1,) * a.ndim), 1, tuple(axes)))
    return b, a, (axes[0] % a.ndim, axes[1] % a.ndim)


def _rot90_infer(site: Site) -> Type:
    return _rot90_parts(site)[1]


def _rot90_lower(ls: LowerSite) -> str:
    b, _, (a0, a1) = _rot90_parts(ls)
    k = b.expr("k") if b.has("k") else "1"
    return f"ep::rot90<{a0}, {a1}>({operand_expr(b, 'm')}, static_cast<int64_t>({k}))"


def _flip_lr_ud(fname: str) -> tuple[Callable[[Site], Type], Callable[[LowerSite], str]]:
    need, axis = (2, 1) if fname == "fliplr" else (1, 0)

    def parts(site: Site | LowerSite) -> tuple[Bound, ArrayT]:
        b = Bound(site, ("m",), f"np.{fname}")
        a = operand(b, "m")
        if a.ndim < need:
            raise TypingError(f"Input must be >= {need}-d.")
        return b, a

    def infer(site: Site) -> Type:
        return parts(site)[1]

    def lower(ls: LowerSite) -> str:
        b, _ = parts(ls)
        return f"ep::flip<{1 << axis}u>({operand_expr(b, 'm')})"

    return infer, lower


def _perm_parts(site: Site | LowerSite) -> tuple[Bound, ArrayT, list[int]]:
    """The transposition moveaxis / swapaxes make (NumPy's own axis checks and messages)."""
    if site.key == "numpy.moveaxis":
        b = Bound(site, ("a", "source", "destination"), "np.moveaxis")
        a = operand(b, "a")
        src = axis_checked(lambda: normalize_axis_tuple(b.const("source"), a.ndim, "source"))
        dst = axis_checked(lambda: normalize_axis_tuple(b.const("destination"), a.ndim, "destination"))
        if len(src) != len(dst):
            raise TypingError("`source` and `destination` arguments must have the same number of elements")
        order = [n for n in range(a.ndim) if n not in src]
        for d, s in sorted(zip(dst, src)):
            order.insert(d, s)
        return b, a, order
    b = Bound(site, ("a", "axis1", "axis2"), "swapaxes")
    a = operand(b, "a")
    i = axis_checked(lambda: normalize_axis_index(b.const("axis1"), a.ndim, "axis1"))
    j = axis_checked(lambda: normalize_axis_index(b.const("axis2"), a.ndim, "axis2"))
    order = list(range(a.ndim))
    order[i], order[j] = j, i
    return b, a, order


def _perm_infer(site: Site) -> Type:
    return _perm_parts(site)[1]


def _perm_lower(ls: LowerSite) -> str:
    b, a, order = _perm_parts(ls)
    x = operand_expr(b, "a")
    if order == list(range(a.ndim)):
        return x
    return f"ep::transpose_axes<{', '.join(map(str, order))}>({x})"


def _mt_infer(site: Site) -> Type:
    b = Bound(site, ("x",), "np.matrix_transpose")
    a = operand(b, "x")
    if a.ndim < 2:
        raise TypingError(f"Input array must be at least 2-dimensional, but it is {a.ndim}")
    return a


def _mt_lower(ls: LowerSite) -> str:
    a = _mt_infer(ls)  # type: ignore[arg-type]
    b = Bound(ls, ("x",), "np.matrix_transpose")
    order = [*range(a.ndim - 2), a.ndim - 1, a.ndim - 2]  # type: ignore[union-attr]
    return f"ep::transpose_axes<{', '.join(map(str, order))}>({operand_expr(b, 'x')})"


# ---- atleast_Nd / broadcast_to / resize ----------------------------------------------------

# where the new axes of a 0-, 1-, 2-d array go (result rank, bit mask of new axes)
_ATLEAST = {
    1: {0: (1, 0b1)},
    2: {0: (2, 0b11), 1: (2, 0b01)},
    3: {0: (3, 0b111), 1: (3, 0b101), 2: (3, 0b100)},
}


def _atleast(n: int) -> tuple[Callable[[Site], Type], Callable[[LowerSite], str]]:
    def one(t: Type) -> ArrayT:
        a = array_operand(t)
        rank = _ATLEAST[n].get(a.ndim, (a.ndim, 0))[0]
        return ArrayT(a.dtype, rank)

    def infer(site: Site) -> Type:
        if site.node.kwargs:
            raise TypingError(f"np.atleast_{n}d() takes no keyword arguments")
        if not site.args:
            return TupleT(())
        outs = [one(t) for t in site.args]
        return outs[0] if len(outs) == 1 else TupleT(tuple(outs))

    def lower(ls: LowerSite) -> str:
        parts = []
        for t, e in zip(ls.arg_types, ls.args):
            a = array_operand(t)
            x = array_expr(t, e)
            if a.ndim in _ATLEAST[n]:
                rank, m = _ATLEAST[n][a.ndim]
                x = f"ep::expand_dims<{rank}, {m}u>({x})"
            parts.append(x)
        if len(parts) == 1:
            return parts[0]
        return "std::make_tuple(" + ", ".join(parts) + ")"

    return infer, lower


def _bto_parts(site: Site | LowerSite) -> tuple[Bound, ArrayT, int]:
    b = Bound(site, ("array", "shape", "subok"), "np.broadcast_to")
    a = operand(b, "array")
    if not b.has("shape"):
        raise TypingError("broadcast_to() missing 1 required positional argument: 'shape'")
    m = shape_rank(b.type("shape"))
    if m == 0 and a.ndim > 0:
        raise TypingError("cannot broadcast a non-scalar to a scalar array")
    if m < a.ndim:
        raise TypingError("input operand has more dimensions than allowed by the axis remapping")
    return b, a, m


def _bto_infer(site: Site) -> Type:
    _, a, m = _bto_parts(site)
    return ArrayT(a.dtype, m)


def _bto_lower(ls: LowerSite) -> str:
    b, _, m = _bto_parts(ls)
    return f"ep::broadcast_to<{m}>({operand_expr(b, 'array')}, {b.expr('shape')})"


def _resize_parts(site: Site | LowerSite) -> tuple[Bound, ArrayT, int]:
    b = Bound(site, ("a", "new_shape"), "np.resize")
    a = operand(b, "a")
    if not b.has("new_shape"):
        raise TypingError("resize() missing 1 required positional argument: 'new_shape'")
    return b, a, shape_rank(b.type("new_shape"))


def _resize_infer(site: Site) -> Type:
    _, a, m = _resize_parts(site)
    return ArrayT(a.dtype, m)


def _resize_lower(ls: LowerSite) -> str:
    b, _, m = _resize_parts(ls)
    return f"ep::resize<{m}>({operand_expr(b, 'a')}, {b.expr('new_shape')})"


def declare(reg: Registry) -> None:
    def add(key: str, ref: Any, infer: Callable[[Site], Type], lower: Callable[[LowerSite], str],
            aliases: tuple[str, ...] = ()) -> None:
        reg.add(Operator(key, Family.SHAPE, ref, infer, lower, ARRANGE, aliases=aliases))

    add("numpy.tile", np.tile, _tile_infer, _tile_lower)
    add("numpy.repeat", np.repeat, _repeat_infer, _repeat_lower, ("ndarray.repeat",))
    add("numpy.roll", np.roll, _roll_infer, _roll_lower)
    add("numpy.rot90", np.rot90, _rot90_infer, _rot90_lower)
    add("numpy.fliplr", np.fliplr, *_flip_lr_ud("fliplr"))
    add("numpy.flipud", np.flipud, *_flip_lr_ud("flipud"))
    add("numpy.moveaxis", np.moveaxis, _perm_infer, _perm_lower)
    add("numpy.swapaxes", np.swapaxes, _perm_infer, _perm_lower, ("ndarray.swapaxes",))
    add("numpy.matrix_transpose", np.matrix_transpose, _mt_infer, _mt_lower)  # a view: the last two axes swapped
    for n in (1, 2, 3):
        add(f"numpy.atleast_{n}d", getattr(np, f"atleast_{n}d"), *_atleast(n))
    add("numpy.broadcast_to", np.broadcast_to, _bto_infer, _bto_lower)
    add("numpy.resize", np.resize, _resize_infer, _resize_lower)


__all__ = ["declare", "ARRANGE"]

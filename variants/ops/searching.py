"""Searching: np.searchsorted / ndarray.searchsorted, np.digitize, np.nonzero /
ndarray.nonzero, np.flatnonzero, np.argwhere, np.count_nonzero and
np.nanargmax / np.nanargmin.

searchsorted and digitize compare in the dtype NumPy converts both operands
to (the keys' dtype promoted with the sorted array's, Python scalars counting
as int64 / float64 / complex128), so results agree with NumPy bit for bit.
C++ kernels: variants/include/everypath/ops/search.hpp.
"""
from __future__ import annotations

import numpy as np

from everypath.base.types import ArrayT, DType, NoneT, ScalarT, Type
from everypath.variants.ops.reductions import Bound, const_bool, mask_of, normalize_axes, normalize_axis
from everypath.variants.ops.sorting import cbool, operand, operand_expr, probe_type, real_array, sample
from everypath.variants.registry import Family, LowerSite, Operator, Registry, Site, TypingError, Variant

SEARCH_HPP = (Variant("loops", "everypath/ops/search.hpp"),)


def compare_dtype(sorted_t: ArrayT, keys: Type | None) -> DType:
    """The dtype NumPy's searchsorted compares in: the keys' discovered dtype promoted with the array's."""
    keys_dt = np.asarray(sample(keys)).dtype
    return DType.of(np.promote_types(sorted_t.dtype.np, keys_dt))


def key_expr(t: Type, expr: str) -> str:
    """Keys as C++: scalars as they are, 0-d arrays as their element, sequences as arrays."""
    if isinstance(t, ScalarT):
        return expr
    if isinstance(t, ArrayT) and t.ndim == 0:
        return f"ep::item({expr})"
    return operand_expr(t, expr)


# ---------------------------------------------------------------------------
# searchsorted

_SS = ("a", "v", "side", "sorter")


def _ss_parts(site: Site | LowerSite) -> tuple[Bound, ArrayT, bool, Type]:
    fname = site.key.replace("numpy.", "np.")
    b = Bound(site, _SS, fname)
    if not b.has("v"):
        raise TypingError(f"{fname}() missing required argument 'v'")
    a = real_array(b.type("a"), fname) if site.key.startswith("ndarray.") else operand(b.type("a"))
    side = b.const("side", "left")
    sorter_t = b.type("sorter")
    sorter = None if sorter_t is None or isinstance(sorter_t, NoneT) else sample(operand(sorter_t), zero=True)
    result = probe_type(np.searchsorted, sample(a), sample(b.type("v")), side=side, sorter=sorter)
    return b, a, side == "right", result


def _ss_infer(site: Site) -> Type:
    return _ss_parts(site)[3]


def _ss_lower(ls: LowerSite) -> str:
    b, a, right, _ = _ss_parts(ls)
    c = compare_dtype(a, b.type("v")).cpp
    x = operand_expr(b.type("a"), b.expr("a"))  # type: ignore[arg-type]
    v = key_expr(b.type("v"), b.expr("v"))  # type: ignore[arg-type]
    st = b.type("sorter")
    if st is None or isinstance(st, NoneT):
        return f"ep::searchsorted<{cbool(right)}, {c}>({x}, {v})"
    s = operand_expr(st, b.expr("sorter"))
    return f"ep::searchsorted_sorter<{cbool(right)}, {c}>({x}, {v}, {s})"


# ---------------------------------------------------------------------------
# digitize

_DG = ("x", "bins", "right")


def _dg_parts(site: Site | LowerSite) -> tuple[Bound, ArrayT, Type]:
    b = Bound(site, _DG, "np.digitize")
    if not b.has("bins"):
        raise TypingError("np.digitize() missing required argument 'bins'")
    bins = operand(b.type("bins"), "bins")
    right = b.const("right", False) if b.is_const("right") else False
    rt = b.type("right")
    if rt is not None and not (isinstance(rt, ScalarT) and rt.dtype.is_bool):
        raise TypingError("np.digitize(): right must be True or False")
    result = probe_type(np.digitize, sample(b.type("x")), sample(bins), right=right)
    return b, bins, result


def _dg_infer(site: Site) -> Type:
    return _dg_parts(site)[2]


def _dg_lower(ls: LowerSite) -> str:
    b, bins, _ = _dg_parts(ls)
    c = compare_dtype(bins, b.type("x")).cpp
    x = key_expr(b.type("x"), b.expr("x"))  # type: ignore[arg-type]
    bx = operand_expr(b.type("bins"), b.expr("bins"))  # type: ignore[arg-type]
    if not b.has("right"):
        return f"ep::digitize<false, {c}>({x}, {bx})"
    if b.is_const("right"):
        return f"ep::digitize<{cbool(bool(b.const('right')))}, {c}>({x}, {bx})"
    r = b.expr("right")
    return f"({r} ? ep::digitize<true, {c}>({x}, {bx}) : ep::digitize<false, {c}>({x}, {bx}))"


# ---------------------------------------------------------------------------
# nonzero / flatnonzero / argwhere / count_nonzero


def _one_array(site: Site | LowerSite, name: str = "a") -> tuple[Bound, ArrayT]:
    fname = site.key.replace("numpy.", "np.")
    b = Bound(site, (name,), fname)
    if not b.has(name):
        raise TypingError(f"{fname}() missing required argument '{name}'")
    a = real_array(b.type(name), fname) if site.key.startswith("ndarray.") else operand(b.type(name))
    return b, a


def _nz_infer(site: Site) -> Type:
    b, a = _one_array(site)
    fn = {"numpy.nonzero": np.nonzero, "ndarray.nonzero": np.nonzero, "numpy.flatnonzero": np.flatnonzero,
          "numpy.argwhere": np.argwhere}[site.key]
    return probe_type(fn, sample(a))


def _nz_lower(ls: LowerSite) -> str:
    b, _ = _one_array(ls)
    x = operand_expr(b.type("a"), b.expr("a"))  # type: ignore[arg-type]
    fn = {"numpy.nonzero": "nonzero", "ndarray.nonzero": "nonzero", "numpy.flatnonzero": "flatnonzero",
          "numpy.argwhere": "argwhere"}[ls.key]
    return f"ep::{fn}({x})"


def _cnz_parts(site: Site | LowerSite) -> tuple[Bound, ArrayT, tuple[int, ...] | None, bool, Type]:
    b = Bound(site, ("a", "axis", "keepdims"), "np.count_nonzero")
    a = operand(b.type("a"))
    axis = b.const("axis", None)
    keep = const_bool(b, "keepdims")
    result = probe_type(np.count_nonzero, sample(a), axis=axis, keepdims=keep)
    return b, a, normalize_axes(axis, a.ndim), keep, result


def _cnz_infer(site: Site) -> Type:
    return _cnz_parts(site)[4]


def _cnz_lower(ls: LowerSite) -> str:
    b, a, axes, keep, result = _cnz_parts(ls)
    x = operand_expr(b.type("a"), b.expr("a"))  # type: ignore[arg-type]
    if isinstance(result, ScalarT):
        return f"ep::count_nonzero_all({x})"
    mask = mask_of(axes if axes is not None else tuple(range(a.ndim)))
    return f"ep::count_nonzero_axes<{mask}u, {cbool(keep)}>({x})"


# ---------------------------------------------------------------------------
# nanargmax / nanargmin

_NANARG = ("a", "axis", "out", "keepdims")


def _nanarg_parts(site: Site | LowerSite) -> tuple[Bound, ArrayT, int | None, bool, Type]:
    fname = site.key.replace("numpy.", "np.")
    b = Bound(site, _NANARG, fname)
    b.reject_non_none("out")
    a = operand(b.type("a"))
    axis = b.const("axis", None)
    keep = const_bool(b, "keepdims")
    result = probe_type(getattr(np, site.key.split(".")[1]), sample(a), axis=axis, keepdims=keep)
    return b, a, (None if axis is None else normalize_axis(axis, a.ndim)), keep, result


def _nanarg_infer(site: Site) -> Type:
    return _nanarg_parts(site)[4]


def _nanarg_lower(ls: LowerSite) -> str:
    b, a, axis, keep, _ = _nanarg_parts(ls)
    x = operand_expr(b.type("a"), b.expr("a"))  # type: ignore[arg-type]
    is_max = cbool(ls.key.endswith("max"))
    if axis is None:
        e = f"ep::nanarg_all<{is_max}>({x})"
        return f"ep::keep_all_dims<{a.ndim}>({e})" if keep else e
    return f"ep::nanarg_axis<{is_max}, {axis}, {cbool(keep)}>({x})"


def declare(reg: Registry) -> None:
    for key, ref in (("numpy.searchsorted", np.searchsorted), ("ndarray.searchsorted", np.ndarray.searchsorted)):
        reg.add(Operator(key, Family.SORTING, ref, _ss_infer, _ss_lower, SEARCH_HPP))
    reg.add(Operator("numpy.digitize", Family.SORTING, np.digitize, _dg_infer, _dg_lower, SEARCH_HPP))
    for key, ref in (("numpy.nonzero", np.nonzero), ("ndarray.nonzero", np.ndarray.nonzero),
                     ("numpy.flatnonzero", np.flatnonzero), ("numpy.argwhere", np.argwhere)):
        reg.add(Operator(key, Family.SORTING, ref, _nz_infer, _nz_lower, SEARCH_HPP))
    reg.add(Operator("numpy.count_nonzero", Family.SORTING, np.count_nonzero, _cnz_infer, _cnz_lower, SEARCH_HPP))
    for name in ("nanargmax", "nanargmin"):
        if f"numpy.{name}" not in reg.ops:
            reg.add(Operator(f"numpy.{name}", Family.SORTING, getattr(np, name), _nanarg_infer, _nanarg_lower,
                             SEARCH_HPP))


__all__ = ["declare", "compare_dtype", "key_expr", "SEARCH_HPP"]

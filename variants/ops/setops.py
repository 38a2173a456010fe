"""Set routines: np.unique (axis=None; return_index, return_inverse and
return_counts as compile-time flags, equal_nan), np.isin, np.intersect1d
(with return_indices), np.union1d, np.setdiff1d and np.setxor1d.

Result dtypes come from running NumPy on stand-in values; values are compared
in NumPy's common dtype of the operands. C++ kernels:
variants/include/everypath/ops/setops.hpp.
"""
from __future__ import annotations

import numpy as np

from everypath.base.types import ArrayT, DType, NoneT, ScalarT, Type
from everypath.variants.ops.reductions import Bound, const_bool
from everypath.variants.ops.sorting import cbool, dtype_of, operand, operand_expr, probe_type, sample
from everypath.variants.registry import Family, LowerSite, Operator, Registry, Site, TypingError, Variant

SETOPS_HPP = (Variant("loops", "everypath/ops/setops.hpp"),)

# ---------------------------------------------------------------------------
# unique

_UNIQUE = ("ar", "return_index", "return_inverse", "return_counts", "axis", "equal_nan", "sorted")


def _unique_parts(site: Site | LowerSite) -> tuple[Bound, tuple[bool, bool, bool], bool, Type]:
    b = Bound(site, _UNIQUE, "np.unique")
    if not b.has("ar"):
        raise TypingError("np.unique() missing required argument 'ar'")
    a = operand(b.type("ar"), "ar")
    if b.has("axis") and not isinstance(b.type("axis"), NoneT):
        raise TypingError("np.unique(axis=...) is not supported: only axis=None (the flattened array)")
    flags = (const_bool(b, "return_index"), const_bool(b, "return_inverse"), const_bool(b, "return_counts"))
    equal_nan = const_bool(b, "equal_nan", True)
    const_bool(b, "sorted", True)  # unsorted output may come in any order: sorted is one
    result = probe_type(np.unique, sample(a), return_index=flags[0], return_inverse=flags[1],
                        return_counts=flags[2], equal_nan=equal_nan)
    return b, flags, equal_nan, result


def _unique_infer(site: Site) -> Type:
    return _unique_parts(site)[3]


def _unique_lower(ls: LowerSite) -> str:
    b, flags, equal_nan, _ = _unique_parts(ls)
    x = operand_expr(b.type("ar"), b.expr("ar"))  # type: ignore[arg-type]
    if not any(flags):
        return f"ep::unique<{cbool(equal_nan)}>({x})"
    f = ", ".join(cbool(v) for v in flags)
    return f"ep::unique_all<{f}, {cbool(equal_nan)}>({x})"


# ---------------------------------------------------------------------------
# isin

_ISIN = ("element", "test_elements", "assume_unique", "invert", "kind")


def common_dtype(t1: Type | None, t2: Type | None) -> DType:
    """The dtype NumPy compares two operands in (both converted to arrays first)."""
    return DType.of(np.result_type(np.asarray(sample(t1)), np.asarray(sample(t2))))


def _isin_parts(site: Site | LowerSite) -> tuple[Bound, Type]:
    b = Bound(site, _ISIN, "np.isin")
    if not b.has("test_elements"):
        raise TypingError("np.isin() missing required argument 'test_elements'")
    e, t = operand(b.type("element"), "element"), operand(b.type("test_elements"), "test_elements")
    it = b.type("invert")
    if it is not None and not b.is_const("invert") and not (isinstance(it, ScalarT) and it.dtype is DType.BOOL):
        raise TypingError("np.isin(): invert must be True or False")
    result = probe_type(np.isin, sample(e), sample(t), assume_unique=const_bool(b, "assume_unique"),
                        kind=b.const("kind", None))
    return b, result


def _isin_infer(site: Site) -> Type:
    return _isin_parts(site)[1]


def _isin_lower(ls: LowerSite) -> str:
    b, _ = _isin_parts(ls)
    c = common_dtype(b.type("element"), b.type("test_elements")).cpp
    e = operand_expr(b.type("element"), b.expr("element"))  # type: ignore[arg-type]
    t = operand_expr(b.type("test_elements"), b.expr("test_elements"))  # type: ignore[arg-type]
    if not b.has("invert") or b.is_const("invert"):
        return f"ep::isin<{cbool(bool(b.const('invert', False)))}, {c}>({e}, {t})"
    inv = b.expr("invert")
    return f"({inv} ? ep::isin<true, {c}>({e}, {t}) : ep::isin<false, {c}>({e}, {t}))"


# ---------------------------------------------------------------------------
# intersect1d / union1d / setdiff1d / setxor1d

_NAMES = {
    "intersect1d": ("ar1", "ar2", "assume_unique", "return_indices"),
    "union1d": ("ar1", "ar2"),
    "setdiff1d": ("ar1", "ar2", "assume_unique"),
    "setxor1d": ("ar1", "ar2", "assume_unique"),
}


def _set_parts(site: Site | LowerSite) -> tuple[Bound, str, bool, bool, Type]:
    name = site.key.split(".")[1]
    b = Bound(site, _NAMES[name], f"np.{name}")
    for arg in ("ar1", "ar2"):
        if not b.has(arg):
            raise TypingError(f"np.{name}() missing required argument '{arg}'")
    a1, a2 = operand(b.type("ar1"), "ar1"), operand(b.type("ar2"), "ar2")
    kw = {}
    unique = const_bool(b, "assume_unique") if "assume_unique" in _NAMES[name] else False
    indices = const_bool(b, "return_indices") if name == "intersect1d" else False
    if "assume_unique" in _NAMES[name]:
        kw["assume_unique"] = unique
    if indices:
        kw["return_indices"] = True
    result = probe_type(getattr(np, name), sample(a1), sample(a2), **kw)
    return b, name, unique, indices, result


def _set_infer(site: Site) -> Type:
    return _set_parts(site)[4]


def _set_lower(ls: LowerSite) -> str:
    b, name, unique, indices, result = _set_parts(ls)
    x = operand_expr(b.type("ar1"), b.expr("ar1"))  # type: ignore[arg-type]
    y = operand_expr(b.type("ar2"), b.expr("ar2"))  # type: ignore[arg-type]
    au = cbool(unique)
    if name == "intersect1d" and indices:
        c = dtype_of(result.items[0]).cpp  # type: ignore[union-attr]
        return f"ep::intersect1d_indices<{au}, {c}>({x}, {y})"
    if name == "setdiff1d":  # membership in the common dtype; the result keeps ar1's
        c = common_dtype(ArrayT(dtype_of(result), 1), b.type("ar2")).cpp
        return f"ep::setdiff1d<{au}, {c}>({x}, {y})"
    c = dtype_of(result).cpp
    if name == "union1d":
        return f"ep::union1d<{c}>({x}, {y})"
    return f"ep::{name}<{au}, {c}>({x}, {y})"


def declare(reg: Registry) -> None:
    reg.add(Operator("numpy.unique", Family.SORTING, np.unique, _unique_infer, _unique_lower, SETOPS_HPP))
    reg.add(Operator("numpy.isin", Family.SORTING, np.isin, _isin_infer, _isin_lower, SETOPS_HPP))
    for name in _NAMES:
        reg.add(Operator(f"numpy.{name}", Family.SORTING, getattr(np, name), _set_infer, _set_lower, SETOPS_HPP))


__all__ = ["declare", "common_dtype", "SETOPS_HPP"]

"""Scans: np.cumsum / np.cumprod (and their ndarray methods) and np.diff.

Result dtypes are NumPy's (cumsum of int32 or bool gives int64, float32 stays
float32), found by running the same call on a small sample array. C++
kernels: variants/include/everypath/ops/scan.hpp.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from everypath.base.types import ArrayT, DType, NoneT, Type
from everypath.variants.ops.reductions import (
    Bound, array_expr, array_operand, dtype_arg, normalize_axis, probe,
)
from everypath.variants.registry import Family, LowerSite, Operator, PathNotApplicable, Registry, Site, TypingError, Variant

# threads: independent lanes in parallel (exact); one long integer lane by a
# two-pass prefix (exact: integer + and * wrap and are associative); one long
# float lane stays sequential (a regrouped float prefix rounds differently)
SCAN_VARIANTS = (
    Variant("loops", "everypath/everypath.hpp"),
    # loaded 2-core machine, float64 cumsum: axis=1 1.1-1.4x from 2^18, axis=0 0.7-1.4x (measured)
    Variant("threads", "everypath/paths/threads/scan.hpp", cost_hint="lanes split across cores", min_work=1 << 20),
)

_CUM = ("a", "axis", "dtype", "out")


def _cum_parse(name: str, site: Site | LowerSite) -> tuple[Bound, ArrayT, int | None, DType]:
    b = Bound(site, _CUM, f"np.{name}")
    b.reject_non_none("out")
    if not b.has("a"):
        raise TypingError(f"np.{name}() missing required argument 'a'")
    a = array_operand(b.type("a"))
    axis = None
    if b.has("axis") and not isinstance(b.type("axis"), NoneT):
        axis = normalize_axis(b.const("axis"), a.ndim)
    dt = dtype_arg(b.type("dtype"))
    kw = {"dtype": dt.np} if dt is not None else {}
    sample = np.ones((2,) * max(a.ndim, 1), a.dtype.np)
    out = DType.of(probe(lambda: getattr(np, name)(sample, **kw).dtype))
    return b, a, axis, out


def _cum_infer(name: str) -> Callable[[Site], Type]:
    def infer(site: Site) -> Type:
        _, a, axis, out = _cum_parse(name, site)
        return ArrayT(out, 1 if axis is None else a.ndim)

    return infer


def _cum_lower(name: str) -> Callable[[LowerSite], str]:
    def lower(ls: LowerSite) -> str:
        b, a, axis, out = _cum_parse(name, ls)
        x = array_expr(b.type("a"), b.expr("a"))  # type: ignore[arg-type]
        if ls.path not in ("loops", "threads"):
            raise PathNotApplicable(f"no {ls.path} scan kernel")
        if ls.path == "threads" and (axis is None or a.ndim == 1) and not out.is_integer:
            raise PathNotApplicable("a single float/bool/complex lane is scanned sequentially")
        if axis is None:
            return f"{ls.ns}::{name}_flat<{out.cpp}>({x})"
        return f"{ls.ns}::{name}_axis<{out.cpp}, {axis}>({x})"

    return lower


_DIFF = ("a", "n", "axis", "prepend", "append")


def _diff_parse(site: Site | LowerSite) -> tuple[Bound, ArrayT, int, int]:
    b = Bound(site, _DIFF, "np.diff")
    if b.has("prepend") or b.has("append"):
        raise TypingError("np.diff(prepend=..., append=...) is not supported")
    if not b.has("a"):
        raise TypingError("np.diff() missing required argument 'a'")
    a = array_operand(b.type("a"))
    if a.ndim == 0:
        raise TypingError("diff requires input that is at least one dimensional")
    n = b.const("n", 1)
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypingError("np.diff(): n must be an integer constant")
    if n < 0:
        raise TypingError(f"order must be non-negative but got {n!r}")
    axis = normalize_axis(b.const("axis", -1), a.ndim)
    return b, a, n, axis


def _diff_infer(site: Site) -> Type:
    _, a, _, _ = _diff_parse(site)
    sample = np.ones((3,) * a.ndim, a.dtype.np)
    out = DType.of(probe(lambda: np.diff(sample).dtype))
    return ArrayT(out, a.ndim)


def _diff_lower(ls: LowerSite) -> str:
    b, a, n, axis = _diff_parse(ls)
    x = array_expr(b.type("a"), b.expr("a"))  # type: ignore[arg-type]
    if n == 0:
        return x
    return f"ep::diff<{axis}>({x}, {n})"


def declare(reg: Registry) -> None:
    for name in ("cumsum", "cumprod"):
        reg.add(Operator(f"numpy.{name}", Family.SCAN, getattr(np, name), _cum_infer(name), _cum_lower(name),
                         SCAN_VARIANTS, aliases=(f"ndarray.{name}",)))
    reg.add(Operator("numpy.diff", Family.SCAN, np.diff, _diff_infer, _diff_lower))


__all__ = ["declare"]

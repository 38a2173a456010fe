"""np.polyval: a polynomial's values at x by Horner's rule, in NumPy's order of operations and dtypes.

``p`` is a 1-d array or a list of numbers; ``x`` an array, a list or a number (a number gives a NumPy
scalar, as np.polyval's 0-d arithmetic does). The result dtype is np.result_type of x's and p's dtypes
(both as arrays: Python numbers are int64/float64 there). C++: everypath/ops/polynomial.hpp.
"""
from __future__ import annotations

import numpy as np

from everypath.base.types import ArrayT, DType, ScalarT, Type
from everypath.variants.ops.reductions import Bound, array_expr, array_operand
from everypath.variants.registry import Family, LowerSite, Operator, Registry, Site, TypingError, Variant

POLY = (Variant("loops", "everypath/ops/polynomial.hpp", cost_hint="Horner, one pass over x"),)


def _parts(site: Site | LowerSite) -> tuple[Bound, ArrayT, ArrayT, DType]:
    b = Bound(site, ("p", "x"), "np.polyval")
    if not (b.has("p") and b.has("x")):
        raise TypingError(f"polyval() missing 1 required positional argument: '{'x' if b.has('p') else 'p'}'")
    p, x = array_operand(b.type("p"), "p"), array_operand(b.type("x"), "x")
    if p.ndim != 1:
        raise TypingError(f"np.polyval(): p must be 1-d (the coefficients), got a {p.ndim}-d array")
    for what, t in (("p", p), ("x", x)):
        if t.dtype.is_complex or t.dtype.np.kind not in "biuf":
            raise TypingError(f"np.polyval(): {what} of dtype {t.dtype} is not supported")
    r = DType.of(np.result_type(x.dtype.np, p.dtype.np))
    return b, p, x, r


def polyval_infer(site: Site) -> Type:
    _, _, x, r = _parts(site)
    return ScalarT(r) if x.ndim == 0 else ArrayT(r, x.ndim)


def polyval_lower(ls: LowerSite) -> str:
    b, p, x, r = _parts(ls)
    pe = array_expr(b.type("p"), b.expr("p"))  # type: ignore[arg-type]
    same = "true" if r is x.dtype else "false"
    if x.ndim == 0:
        xe = b.expr("x")
        xt = b.type("x")
        if isinstance(xt, ArrayT):  # a 0-d array
            xe = f"({xe}).data[0]"
        return f"ep::polyval_scalar<{r.cpp}, {same}>({pe}, static_cast<{x.dtype.cpp}>({xe}))"
    return f"ep::polyval<{r.cpp}, {same}>({pe}, {array_expr(b.type('x'), b.expr('x'))})"  # type: ignore[arg-type]


def declare(reg: Registry) -> None:
    reg.add(Operator("numpy.polyval", Family.ELEMENTWISE, np.polyval, polyval_infer, polyval_lower, POLY))


__all__ = ["declare"]

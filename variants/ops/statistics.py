"""Order statistics: np.median, np.percentile, np.quantile and np.nanmedian,
np.nanpercentile, np.nanquantile.

Typing runs the NumPy function itself on small stand-in values (so result
dtypes, NEP 50 weak ``q`` and NumPy's error messages are NumPy's own). ``axis``,
``keepdims`` and ``method`` are compile-time constants; the reduced axes
become a bit mask template argument, as for the reductions in reductions.py.
The C++ side (variants/include/everypath/ops/statistics.hpp) partially orders
each lane with nth_element at the positions it needs and replays NumPy's
interpolation formula in NumPy's dtypes, which lowering passes as template
arguments: R (result), V (virtual index), G (interpolation weight), QD (q).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from everypath.base.types import ArrayT, DType, NoneT, ScalarT, Type
from everypath.variants.ops.reductions import Bound, array_expr, array_operand, const_bool, mask_of, normalize_axes
from everypath.variants.probe import call_probe
from everypath.variants.registry import Family, LowerSite, Operator, Registry, Site, TypingError, Variant

HEADER = Variant("loops", "everypath/ops/statistics.hpp")

_MEDIAN = ("a", "axis", "out", "overwrite_input", "keepdims")
_QUANTILE = ("a", "q", "axis", "out", "overwrite_input", "method", "keepdims", "weights", "interpolation")
_METHODS = {"linear": 0, "lower": 1, "higher": 2, "nearest": 3, "midpoint": 4}


@dataclass(frozen=True)
class Call:
    """A parsed order-statistics call."""

    bound: Bound
    a: ArrayT
    axes: tuple[int, ...]  # reduced axes (all of them for axis=None)
    keep: bool
    result: Type
    method: str = "linear"
    q: Type | None = None  # the q operand's own type


def _sample_array(a: ArrayT) -> np.ndarray:
    return np.arange(1, 2 ** max(a.ndim, 0) + 1, dtype=np.float64).reshape((2,) * a.ndim).astype(a.dtype.np)


def _q_value(dtype: DType, pct: bool) -> Any:
    """A valid q of a dtype: NumPy then types the call (and raises its own errors)."""
    if dtype.is_bool:
        return True
    if dtype.is_float or dtype.is_complex:
        return 50.0 if pct else 0.5
    return 50 if pct else 1


def _sample_q(t: Type, pct: bool) -> Any:
    if isinstance(t, ScalarT):
        v = _q_value(t.dtype, pct)
        return ({DType.BOOL: bool, DType.INT64: int, DType.FLOAT64: float, DType.COMPLEX128: complex}[t.dtype](v)
                if t.weak else t.dtype.np.type(v))
    q = array_operand(t, "q")
    if q.ndim > 1:
        raise TypingError("q with more than one dimension is not supported (use a scalar or a 1-d q)")
    return np.full((2,) * q.ndim, _q_value(q.dtype, pct), q.dtype.np)


def _parse(name: str, site: Site | LowerSite) -> Call:
    quant = name in ("percentile", "quantile", "nanpercentile", "nanquantile")
    b = Bound(site, _QUANTILE if quant else _MEDIAN, f"np.{name}")
    if not b.has("a"):
        raise TypingError(f"np.{name}() missing required argument 'a'")
    if quant and not b.has("q"):
        raise TypingError(f"np.{name}() missing required argument 'q'")
    b.reject_non_none("out", "weights", "interpolation")
    a = array_operand(b.type("a"))
    axis_t = b.type("axis")
    given = axis_t is not None and not isinstance(axis_t, NoneT)
    keep = const_bool(b, "keepdims")
    const_bool(b, "overwrite_input")  # allowed: the input is never modified here
    method = b.const("method", "linear")
    kw: dict[str, Any] = {"axis": b.const("axis") if given else None, "keepdims": keep}
    args: list[Any] = [_sample_array(a)]
    q_t = None
    if quant:
        q_t = b.type("q")
        args.append(_sample_q(q_t, name.endswith("percentile")))
        kw["method"] = method
    result = call_probe(getattr(np, name), *args, **kw)  # first: NumPy's own errors and messages
    axes = normalize_axes(b.const("axis"), a.ndim) if given else None
    if quant and method not in _METHODS:
        raise TypingError(f"np.{name}(method={method!r}) is not supported (use one of {', '.join(_METHODS)})")
    all_axes = tuple(range(a.ndim)) if axes is None else axes
    return Call(b, a, all_axes, keep, result, method, q_t)


def _infer(name: str) -> Callable[[Site], Type]:
    def infer(site: Site) -> Type:
        return _parse(name, site).result

    return infer


def _rank_and_dtype(t: Type) -> tuple[int, DType]:
    if isinstance(t, ScalarT):
        return 0, t.dtype
    assert isinstance(t, ArrayT), t
    return t.ndim, t.dtype


def _q_dtypes(c: Call, name: str) -> tuple[str, str, str]:
    """(QD, V, G): q's dtype after percentile's /100, the virtual index's dtype and gamma's type."""
    assert c.q is not None
    pct = name.endswith("percentile")
    sample = _sample_q(c.q, pct)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        qd = np.asarray(np.true_divide(sample, 100) if pct else sample).dtype
        v = np.result_type(qd, 1.0) if c.method == "midpoint" else qd
    weak = isinstance(c.q, ScalarT) and c.q.weak and c.q.dtype in (DType.INT64, DType.FLOAT64)
    g = np.dtype(np.float64) if weak else v
    return DType.of(qd).cpp, DType.of(v).cpp, DType.of(g).cpp


def _lower(name: str) -> Callable[[LowerSite], str]:
    skip_nan = "true" if name.startswith("nan") else "false"

    def lower(ls: LowerSite) -> str:
        c = _parse(name, ls)
        x = array_expr(c.bound.type("a"), c.bound.expr("a"))  # type: ignore[arg-type]
        rank, r = _rank_and_dtype(c.result)
        keep = "true" if c.keep else "false"
        mask = f"{mask_of(c.axes)}u"
        if name in ("median", "nanmedian"):
            e = f"ep::stat::median<{r.cpp}, {skip_nan}, {mask}, {keep}>({x})"
        else:
            qd, v, g = _q_dtypes(c, name)
            q_t = c.bound.type("q")
            qn = 0 if isinstance(q_t, ScalarT) else array_operand(q_t, "q").ndim
            q = c.bound.expr("q") if isinstance(q_t, ScalarT) else array_expr(q_t, c.bound.expr("q"))  # type: ignore[arg-type]
            pct = "true" if name.endswith("percentile") else "false"
            e = (f"ep::stat::quantile<{r.cpp}, {_METHODS[c.method]}, {v}, {g}, {qd}, {pct}, {skip_nan}, {mask}, "
                 f"{keep}, {qn}>({x}, {q})")
        return f"ep::stat::item({e})" if rank == 0 and not isinstance(c.result, ArrayT) else e

    return lower


def declare(reg: Registry) -> None:
    for name in ("median", "percentile", "quantile", "nanmedian", "nanpercentile", "nanquantile"):
        reg.add(Operator(f"numpy.{name}", Family.REDUCTION, getattr(np, name), _infer(name), _lower(name),
                         variants=(HEADER,)))


__all__ = ["declare"]

"""Extra element-wise operators: ufuncs missing from the element-wise table
(np.logaddexp, logaddexp2, heaviside, ldexp, fmod, float_power, gcd, lcm,
nextafter, spacing) and element-wise NumPy functions that are not ufuncs
(np.sinc, i0, fix, isposinf, isneginf, isreal, iscomplex).

All of them take part in element-wise fusion: the emitter calls
``ep::sc::<name><T>(...)`` (variants/include/everypath/ops/ufuncs_extra.hpp)
inside the fused loop. Typing is NumPy's: ufuncs resolve their loop dtypes
with ``ufunc.resolve_dtypes``; the non-ufunc functions get a resolver that
runs the NumPy function on stand-in values (``ProbedLoop``).

The two-output ufuncs np.modf, np.frexp and np.divmod return tuples, which a
fused loop cannot produce; they are ordinary operators writing both result
arrays in one pass (``ep::ufx::map2``).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

import numpy as np

from everypath.base.types import ArrayT, DType, ScalarT, TupleT, Type
from everypath.variants.ops.elementwise import Ufunc, infer_ufunc, operand_dtype
from everypath.variants.registry import Family, LowerSite, Operator, Registry, Site, TypingError, Variant

HEADER = Variant("loops", "everypath/ops/ufuncs_extra.hpp")

_UFUNCS: dict[str, int] = {  # name -> number of inputs (the C++ function has the same name)
    "logaddexp": 2, "logaddexp2": 2, "heaviside": 2, "ldexp": 2, "fmod": 2, "float_power": 2,
    "gcd": 2, "lcm": 2, "nextafter": 2, "spacing": 1,
}
# non-ufunc element-wise functions: name -> whether they compute in the result dtype
# ("out": the operand is converted first, as np.sinc's pi * x does) or in the operand's own
_FUNCTIONS: dict[str, str] = {
    "sinc": "out", "i0": "out", "fix": "out", "isposinf": "in", "isneginf": "in", "isreal": "in", "iscomplex": "in",
}
_WEAK_SAMPLE = {int: 1, float: 1.0, complex: 1.0 + 0j, bool: True}


@dataclass(frozen=True)
class ProbedLoop:
    """ufunc.resolve_dtypes for an element-wise NumPy function that is not a ufunc:
    the result dtype comes from running the function on a one-element sample."""

    fn: Callable[..., Any]
    nin: int
    compute: str  # "out" or "in" (see _FUNCTIONS)

    @property
    def __name__(self) -> str:  # read by in-place typing errors, as for ufuncs
        return self.fn.__name__

    def resolve_dtypes(self, dtypes: tuple[Any, ...]) -> tuple[np.dtype, ...]:
        return _probe_loop(self.fn, self.compute, tuple(dtypes[: self.nin]))


@lru_cache(maxsize=None)
def _probe_loop(fn: Callable[..., Any], compute: str, ins: tuple[Any, ...]) -> tuple[np.dtype, ...]:
    samples = [_WEAK_SAMPLE[d] if isinstance(d, type) else np.ones(1, d) for d in ins]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = np.asarray(fn(*samples)).dtype
    except Exception as exc:  # noqa: BLE001 - NumPy's own refusal is the typing error
        raise TypeError(str(exc)) from None
    if compute == "out":
        return (out,) * len(ins) + (out,)
    return tuple(np.dtype(type(_WEAK_SAMPLE[d])) if isinstance(d, type) else np.dtype(d) for d in ins) + (out,)


def _checked(infer: Callable[[Site], Type]) -> Callable[[Site], Type]:
    """Loop dtypes NumPy has but we do not (longdouble, ...) are typing errors, not crashes."""

    def wrapped(site: Site) -> Type:
        try:
            return infer(site)
        except ValueError as exc:
            raise TypingError(f"{site.short()}: {exc}") from None

    return wrapped


def _zero_d(infer: Callable[[Site], Type]) -> Callable[[Site], Type]:
    """np.i0 goes through np.piecewise, so scalars come back as 0-d arrays."""

    def wrapped(site: Site) -> Type:
        t = infer(site)
        return ArrayT(t.dtype, 0) if isinstance(t, ScalarT) else t

    return wrapped


# ---- the two-output ufuncs -------------------------------------------------------

_TWO_OUT: dict[str, tuple[Any, int]] = {"modf": (np.modf, 1), "frexp": (np.frexp, 1), "divmod": (np.divmod, 2)}


def _two_out_dtypes(uf: Any, operands: list[Type]) -> tuple[DType, ...]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            dts = uf.resolve_dtypes(tuple(operand_dtype(t) for t in operands) + (None, None))
        return tuple(DType.of(d) for d in dts)
    except (TypeError, ValueError) as exc:
        raise TypingError(str(exc).replace("ufunc ", "np.")) from None


def _two_out_infer(name: str) -> Callable[[Site], Type]:
    uf, nin = _TWO_OUT[name]

    def infer(site: Site) -> Type:
        if len(site.args) != nin:
            raise TypingError(f"np.{name}() takes {nin} operands, got {len(site.args)}")
        if site.kwargs:
            raise TypingError(f"np.{name}(): keyword arguments (out=, where=, dtype=) are not supported yet")
        dts = _two_out_dtypes(uf, site.args)
        o1, o2 = dts[nin:]
        arrays = [t for t in site.args if isinstance(t, ArrayT)]
        if arrays:
            nd = max(a.ndim for a in arrays)
            return TupleT((ArrayT(o1, nd), ArrayT(o2, nd)))
        return TupleT((ScalarT(o1), ScalarT(o2)))

    return infer


def _two_out_lower(name: str) -> Callable[[LowerSite], str]:
    uf, nin = _TWO_OUT[name]

    def lower(ls: LowerSite) -> str:
        dts = _two_out_dtypes(uf, ls.arg_types)
        ins, (o1, o2) = dts[:nin], dts[nin:]
        params = ", ".join(f"auto x{i}" for i in range(nin))
        args = ", ".join(f"ep::elem_cast<{d.cpp}>(x{i})" for i, d in enumerate(ins))
        fn = f"[&]({params}) {{ return ep::sc::{name}<{ins[0].cpp}>({args}); }}"
        res = ls.result
        assert isinstance(res, TupleT)
        if isinstance(res.items[0], ScalarT):
            return f"ep::ufx::as_tuple(({fn})({', '.join(ls.args)}))"
        nd = res.items[0].ndim  # type: ignore[union-attr]
        return f"ep::ufx::map2<{o1.cpp}, {o2.cpp}, {nd}>({fn}, {', '.join(ls.args)})"

    return lower


def declare(reg: Registry) -> None:
    for name, nin in _UFUNCS.items():
        uf = getattr(np, name)
        spec = Ufunc(uf, name, None, nin)
        reg.add(Operator(f"numpy.{name}", Family.ELEMENTWISE, uf, _checked(infer_ufunc(spec, name, False)), None,
                         variants=(HEADER,), elementwise=spec))
    for name, compute in _FUNCTIONS.items():
        fn = getattr(np, name)
        spec = Ufunc(ProbedLoop(fn, 1, compute), name, None, 1)
        infer = _checked(infer_ufunc(spec, name, False))
        if name == "i0":
            infer = _zero_d(infer)
        reg.add(Operator(f"numpy.{name}", Family.ELEMENTWISE, fn, infer, None, variants=(HEADER,), elementwise=spec))
    for name in _TWO_OUT:
        reg.add(Operator(f"numpy.{name}", Family.ELEMENTWISE, _TWO_OUT[name][0], _two_out_infer(name),
                         _two_out_lower(name), variants=(HEADER,)))


__all__ = ["declare", "ProbedLoop"]

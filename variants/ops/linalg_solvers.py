"""numpy.linalg least squares and friends: lstsq, pinv, matrix_rank, cond,
matrix_power and multi_dot (typing by probing NumPy, as in linalg_decomp).

C++: variants/include/everypath/ops/decomp/solvers.hpp (through decomp.hpp); lstsq,
pinv and matrix_rank also on LAPACK (LAPACK_VARIANTS, paths/blas/lapack_solve.hpp).
"""
from __future__ import annotations

import math

import numpy as np

from everypath.base.types import ArrayT, ListT, NoneT, ScalarT, TupleT, Type
from everypath.variants.ops.linalg_decomp import HEADER, LAPACK_VARIANTS, Call, fn, real_of
from everypath.variants.ops.reductions import Bound
from everypath.variants.probe import call_probe
from everypath.variants.registry import Family, LowerSite, Operator, Registry, Site, TypingError

_LSTSQ = ("a", "b", "rcond")


def _lstsq_infer(site: Site) -> Type:
    return Call(site, _LSTSQ, ("a", "b"), "np.linalg.lstsq").probe(np.linalg.lstsq, _LSTSQ)


def _lstsq_lower(ls: LowerSite) -> str:
    c = Call(ls, _LSTSQ, ("a", "b"), "np.linalg.lstsq")
    rc = f"double({c.expr('rcond')}), false" if _given(c, "rcond") else "0.0, true"
    return f"{fn(ls, 'lstsq')}<{c.dtype().cpp}>({c.expr('a')}, {c.expr('b')}, {rc})"


_PINV = ("a", "rcond", "hermitian", "rtol")


def _pinv_call(site: Site | LowerSite) -> Call:
    c = Call(site, _PINV, ("a",), "np.linalg.pinv")
    if c.b.const("hermitian", False):
        raise TypingError("np.linalg.pinv(hermitian=True) is not supported")
    return c


def _given(c: Call, name: str) -> bool:
    return c.b.has(name) and not isinstance(c.b.type(name), NoneT)


def _pinv_infer(site: Site) -> Type:
    return _pinv_call(site).probe(np.linalg.pinv, _PINV)


def _pinv_lower(ls: LowerSite) -> str:
    c = _pinv_call(ls)
    if _given(c, "rcond"):
        args = f"double({c.expr('rcond')}), 0.0"
    elif _given(c, "rtol"):
        args = f"double({c.expr('rtol')}), 0.0"
    elif c.b.has("rtol"):  # rtol=None: max(M, N) * eps of a's dtype
        args = f"0.0, {float(np.finfo(c.arrays['a'].dtype.np).eps)!r}"
    else:
        args = "1e-15, 0.0"
    return f"{fn(ls, 'pinv')}<{c.dtype().cpp}>({c.expr('a')}, {args})"


_RANK = ("A", "tol", "hermitian", "rtol")


def _rank_call(site: Site | LowerSite) -> Call:
    c = Call(site, _RANK, ("A",), "np.linalg.matrix_rank")
    if c.b.const("hermitian", False):
        raise TypingError("np.linalg.matrix_rank(hermitian=True) is not supported")
    if _given(c, "rtol"):
        raise TypingError("np.linalg.matrix_rank(rtol=...) is not supported; pass tol")
    return c


def _rank_infer(site: Site) -> Type:
    return _rank_call(site).probe(np.linalg.matrix_rank, _RANK)


def _rank_lower(ls: LowerSite) -> str:
    c = _rank_call(ls)
    tol = f"double({c.expr('tol')}), false" if _given(c, "tol") else "0.0, true"
    RR = real_of(c.dtype()).cpp
    return f"{fn(ls, 'matrix_rank')}<{RR}>({c.expr('A')}, {tol})"


_POWER = ("a", "n")


def _power_infer(site: Site) -> Type:
    c = Call(site, _POWER, ("a",), "np.linalg.matrix_power")
    t = site.type(1) if len(site.args) > 1 else site.kwargs.get("n")
    if isinstance(t, ScalarT) and not (t.dtype.is_integer or t.dtype.is_bool):
        raise TypingError("exponent must be an integer")
    return c.probe(np.linalg.matrix_power, _POWER)


def _power_lower(ls: LowerSite) -> str:
    c = Call(ls, _POWER, ("a",), "np.linalg.matrix_power")
    return f"ep::linalg_matrix_power<{ls.result.dtype.cpp}>({c.expr('a')}, int64_t({c.expr('n')}))"  # type: ignore


_COND = ("x", "p")
_P_CODE = {None: 0, 2: 0, -2: 1, "fro": 2, "nuc": 3, math.inf: 4, -math.inf: 5, 1: 6, -1: 7}


def _cond_infer(site: Site) -> Type:
    c = Call(site, _COND, ("x",), "np.linalg.cond")
    p = c.b.const("p", None)
    if isinstance(p, bool) or p not in _P_CODE:
        call_probe(lambda: np.linalg.norm(np.eye(2), p))  # NumPy's error for a bad order
        raise TypingError(f"np.linalg.cond(p={p!r}) is not supported")
    return c.probe(np.linalg.cond, _COND)


def _cond_lower(ls: LowerSite) -> str:
    c = Call(ls, _COND, ("x",), "np.linalg.cond")
    RR = real_of(c.dtype()).cpp
    return f"ep::linalg_cond<{RR}, {_P_CODE[c.b.const('p', None)]}>({c.expr('x')})"


_MULTI = ("arrays", "out")


def _multi_items(site: Site | LowerSite) -> tuple[list[ArrayT], bool]:
    b = Bound(site, _MULTI, "np.linalg.multi_dot")
    b.reject_non_none("out")
    t = b.type("arrays")
    if isinstance(t, TupleT):
        items, is_list = list(t.items), False
    elif isinstance(t, ListT) and t.elem is not None:
        items, is_list = [t.elem, t.elem], True  # typed as the two-array call
    else:
        raise TypingError(f"np.linalg.multi_dot(): expected a tuple or list of arrays, got {t}")
    for i in items:
        if not isinstance(i, ArrayT):
            raise TypingError(f"np.linalg.multi_dot(): expected arrays, got {i}")
        if is_list and i.ndim > 2:
            raise TypingError(f"{i.ndim}-dimensional array given. Array must be two-dimensional")
    return items, is_list  # type: ignore[return-value]


def _multi_infer(site: Site) -> Type:
    items, _ = _multi_items(site)
    samples = [np.ones((2,) * i.ndim, i.dtype.np) for i in items]
    if len(items) == 2 and any(i.ndim > 2 for i in items):
        raise TypingError("np.linalg.multi_dot() of two arrays of rank > 2 is not supported")
    return call_probe(lambda: np.linalg.multi_dot(samples))


def _multi_lower(ls: LowerSite) -> str:
    items, is_list = _multi_items(ls)
    R = ls.result.dtype.cpp  # type: ignore[union-attr]
    seq = ls.arg(0) if ls.node.args else ls.kwargs["arrays"]
    if not is_list and len(items) == 2:
        return f"[&] {{ auto ep_s = {seq}; return ep::dot<{R}>(std::get<0>(ep_s), std::get<1>(ep_s)); }}()"
    return f"ep::linalg_multi_dot<{R}, {items[0].ndim}, {items[-1].ndim}>({seq})"


def declare(reg: Registry) -> None:
    L = Family.LINALG
    reg.add(Operator("numpy.linalg.lstsq", L, np.linalg.lstsq, _lstsq_infer, _lstsq_lower, variants=LAPACK_VARIANTS))
    reg.add(Operator("numpy.linalg.pinv", L, np.linalg.pinv, _pinv_infer, _pinv_lower, variants=LAPACK_VARIANTS))
    reg.add(Operator("numpy.linalg.matrix_rank", L, np.linalg.matrix_rank, _rank_infer, _rank_lower,
                     variants=LAPACK_VARIANTS))
    reg.add(Operator("numpy.linalg.matrix_power", L, np.linalg.matrix_power, _power_infer, _power_lower,
                     variants=(HEADER,)))
    reg.add(Operator("numpy.linalg.cond", L, np.linalg.cond, _cond_infer, _cond_lower, variants=(HEADER,)))
    reg.add(Operator("numpy.linalg.multi_dot", L, np.linalg.multi_dot, _multi_infer, _multi_lower,
                     variants=(HEADER,)))


__all__ = ["declare"]

"""Tensor products: np.kron, np.tensordot and np.einsum.

Typing probes NumPy on stand-in arrays (every axis of length 2) of the
operands' dtypes and ranks: result dtype and rank, and NumPy's own errors for
bad subscripts or axes. ``axes`` and the einsum subscripts must be
compile-time constants; they are resolved here into label lists, so the C++
kernels (variants/include/everypath/ops/tensor.hpp) get one spec per call.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from everypath.base.types import ArrayT, NoneT, ScalarT, Type
from everypath.variants.ops.reductions import Bound, array_expr, array_operand
from everypath.variants.probe import call_probe
from everypath.variants.registry import Family, LowerSite, Operator, Registry, Site, TypingError, Variant

HEADER = Variant("loops", "everypath/ops/tensor.hpp")


def _sample(t: ArrayT) -> Any:
    return np.ones((2,) * t.ndim, t.dtype.np) if t.ndim else t.dtype.np.type(1)


def _scalar_wrap(result: Type, expr: str) -> str:
    """A 0-d C++ array where NumPy hands back a scalar."""
    return f"({expr}).data[0]" if isinstance(result, ScalarT) else expr


# ---- kron ------------------------------------------------------------------------------


def _kron_parts(site: Site | LowerSite) -> tuple[Bound, ArrayT, ArrayT]:
    b = Bound(site, ("a", "b"), "np.kron")
    return b, array_operand(b.type("a"), "a"), array_operand(b.type("b"), "b")


def _kron_infer(site: Site) -> Type:
    _, a, bb = _kron_parts(site)
    return call_probe(lambda: np.kron(_sample(a), _sample(bb)))


def _kron_lower(ls: LowerSite) -> str:
    b, a, bb = _kron_parts(ls)
    R = ls.result.dtype.cpp  # type: ignore[union-attr]
    e = (f"ep::kron<{R}, {max(a.ndim, bb.ndim)}>({array_expr(b.type('a'), b.expr('a'))}, "  # type: ignore[arg-type]
         f"{array_expr(b.type('b'), b.expr('b'))})")  # type: ignore[arg-type]
    return _scalar_wrap(ls.result, e)


# ---- tensordot ----------------------------------------------------------------------------


def _td_axes(site: Site | LowerSite) -> tuple[Bound, ArrayT, ArrayT, list[int], list[int]]:
    b = Bound(site, ("a", "b", "axes"), "np.tensordot")
    a, bb = array_operand(b.type("a"), "a"), array_operand(b.type("b"), "b")
    if b.has("axes") and not b.is_const("axes"):
        raise TypingError("np.tensordot(): axes must be a compile-time constant")
    axes = b.const("axes", 2)
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        xa, xb = list(range(-int(axes), 0)), list(range(0, int(axes)))
    else:
        xa, xb = axes
        xa = list(xa) if isinstance(xa, (tuple, list)) else [xa]
        xb = list(xb) if isinstance(xb, (tuple, list)) else [xb]
    xa = [int(x) + a.ndim if int(x) < 0 else int(x) for x in xa]
    xb = [int(x) + bb.ndim if int(x) < 0 else int(x) for x in xb]
    return b, a, bb, xa, xb


def _td_infer(site: Site) -> Type:
    b, a, bb, _, _ = _td_axes(site)
    axes = b.const("axes", 2)
    t = call_probe(lambda: np.tensordot(_sample(a), _sample(bb), axes))
    _, _, _, xa, xb = _td_axes(site)
    if len(set(xa)) != len(xa) or len(set(xb)) != len(xb):
        raise TypingError("np.tensordot(): repeated axes are not supported")
    return t


def _td_lower(ls: LowerSite) -> str:
    b, a, bb, xa, xb = _td_axes(ls)
    R = ls.result.dtype.cpp  # type: ignore[union-attr]
    nd = ls.result.ndim if isinstance(ls.result, ArrayT) else 0
    k = len(xa)
    arr = lambda xs: f"std::array<int, {k}>{{{', '.join(map(str, xs))}}}"  # noqa: E731
    e = (f"ep::tensordot<{R}, {nd}>({array_expr(b.type('a'), b.expr('a'))}, "  # type: ignore[arg-type]
         f"{array_expr(b.type('b'), b.expr('b'))}, {arr(xa)}, {arr(xb)})")  # type: ignore[arg-type]
    return _scalar_wrap(ls.result, e)


# ---- einsum ----------------------------------------------------------------------------------


def einsum_labels(subscripts: str, ndims: list[int]) -> tuple[list[list[int]], list[int], str]:
    """(labels of each operand's axes, output labels, label letters); '...' becomes one label per
    broadcast axis (right-aligned), shown as '.'."""
    s = subscripts.replace(" ", "")
    ins, arrow, out = s.partition("->")
    terms = ins.split(",")
    n_ell = max((nd - len(t.replace("...", "")) for t, nd in zip(terms, ndims) if "..." in t), default=0)
    letters = "." * n_ell + "".join(sorted({c for c in ins if c.isalpha()}))
    ids = {c: n_ell + i for i, c in enumerate(letters[n_ell:])}

    def expand(term: str, nd: int) -> list[int]:
        if "..." not in term:
            return [ids[c] for c in term]
        head, _, tail = term.partition("...")
        e = nd - len(head) - len(tail)
        return [ids[c] for c in head] + list(range(n_ell - e, n_ell)) + [ids[c] for c in tail]

    ops = [expand(t, nd) for t, nd in zip(terms, ndims)]
    if arrow:
        outl = expand(out, len(out.replace("...", "")) + n_ell)
    else:
        counts = {c: ins.count(c) for c in ids}
        outl = list(range(n_ell)) + [ids[c] for c in sorted(ids) if counts[c] == 1]
    return ops, outl, letters


def _einsum_parts(site: Site | LowerSite) -> tuple[str, list[ArrayT]]:
    if not site.node.args:
        raise TypingError("np.einsum() needs subscripts")
    from everypath.tracer.ir import Opcode

    if site.node.args[0].op is not Opcode.CONST:
        raise TypingError("np.einsum(): the subscripts must be a compile-time string")
    subs = site.node.args[0].target
    if not isinstance(subs, str):
        raise TypingError("np.einsum(): only the subscripts-string form is supported")
    for k in site.node.kwargs:
        if k == "optimize":
            continue
        if k not in ("out", "dtype", "order", "casting") or not isinstance(site.type(k), NoneT):
            raise TypingError(f"np.einsum(): argument '{k}' is not supported")
    ops = [array_operand(site.type(i), f"operand {i - 1}") for i in range(1, len(site.node.args))]
    return subs, ops


def _einsum_infer(site: Site) -> Type:
    subs, ops = _einsum_parts(site)
    t = call_probe(lambda: np.einsum(subs, *[_sample(o) for o in ops]))
    if "." in subs.replace("...", "") or not all(c.isalpha() or c in ".,->" for c in subs.replace(" ", "")):
        raise TypingError(f"np.einsum(): invalid subscripts {subs!r}")
    return t


def _einsum_lower(ls: LowerSite) -> str:
    subs, ops = _einsum_parts(ls)
    labels, out, letters = einsum_labels(subs, [o.ndim for o in ops])
    R = ls.result.dtype.cpp  # type: ignore[union-attr]
    vec = lambda xs: "{" + ", ".join(map(str, xs)) + "}"  # noqa: E731
    spec = (f"ep::EinsumSpec{{{{{', '.join(f'std::vector<int>{vec(x)}' for x in labels)}}}, "
            f"std::vector<int>{vec(out)}, std::string(\"{letters}\")}}")
    args = ", ".join(array_expr(ls.arg_types[i], ls.args[i]) for i in range(1, len(ls.args)))
    return _scalar_wrap(ls.result, f"ep::einsum<{R}, {len(out)}>({spec}, {args})")


def declare(reg: Registry) -> None:
    L = Family.LINALG
    reg.add(Operator("numpy.kron", L, np.kron, _kron_infer, _kron_lower, variants=(HEADER,)))
    reg.add(Operator("numpy.tensordot", L, np.tensordot, _td_infer, _td_lower, variants=(HEADER,)))
    reg.add(Operator("numpy.einsum", L, np.einsum, _einsum_infer, _einsum_lower, variants=(HEADER,)))


__all__ = ["declare", "einsum_labels"]

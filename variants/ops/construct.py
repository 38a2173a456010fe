"""Building arrays from others: np.tri, tril, triu, diag, diagonal
(+ndarray.diagonal), diagflat, vander, indices, meshgrid, logspace, geomspace.

np.diagonal (and np.diag of a 2-d array) is a view, as NumPy's read-only
view; meshgrid(copy=False) gives broadcast views; everything else is new.
Sizes, offsets and counts may be run-time values; axes, flags and the
meshgrid indexing are compile-time constants. Result dtypes are NumPy's own
(probed). C++ kernels: variants/include/everypath/ops/construct.hpp.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from everypath.base.types import ArrayT, DType, NoneT, ScalarT, TupleT, Type
from everypath.variants.ops._manip import axis_checked, is_int, operand, operand_expr, seq_len
from everypath.variants.ops.reductions import Bound, array_expr, array_operand, const_bool, dtype_arg, probe, sample_value
from everypath.variants.registry import Family, LowerSite, Operator, Registry, Site, TypingError, Variant

CONSTRUCT = (Variant("loops", "everypath/ops/construct.hpp"),)


def _int_arg(b: Bound, name: str, none_ok: bool = False) -> None:
    t = b.type(name)
    if t is None or is_int(t) or (none_ok and isinstance(t, NoneT)):
        return
    raise TypingError(f"argument '{name}' must be an integer, got {t}")


def _k(b: Bound, name: str = "k") -> str:
    return f"static_cast<ep::index_t>({b.expr(name)})" if b.has(name) else "0"


# ---- tri / tril / triu ---------------------------------------------------------------------------


def _tri_infer(site: Site) -> Type:
    b = Bound(site, ("N", "M", "k", "dtype"), "np.tri")
    b.reject_non_none("like")
    if not b.has("N"):
        raise TypingError("tri() missing 1 required positional argument: 'N'")
    for n in ("N", "M", "k"):
        _int_arg(b, n, none_ok=n == "M")
    return ArrayT(dtype_arg(b.type("dtype")) or DType.FLOAT64, 2)


def _tri_lower(ls: LowerSite) -> str:
    b = Bound(ls, ("N", "M", "k", "dtype"))
    n = f"static_cast<ep::index_t>({b.expr('N')})"
    m = f"static_cast<ep::index_t>({b.expr('M')})" if b.has("M") and not isinstance(b.type("M"), NoneT) else n
    return f"ep::tri<{ls.result.dtype.cpp}>({n}, {m}, {_k(b)})"  # type: ignore[union-attr]


def _trilu(lower: bool) -> tuple[Callable[[Site], Type], Callable[[LowerSite], str]]:
    fname = "tril" if lower else "triu"

    def parts(site: Site | LowerSite) -> tuple[Bound, ArrayT]:
        b = Bound(site, ("m", "k"), f"np.{fname}")
        a = operand(b, "m")
        if a.ndim == 0:
            raise TypingError("tri() missing 1 required positional argument: 'N'")
        _int_arg(b, "k")
        return b, a

    def infer(site: Site) -> Type:
        _, a = parts(site)
        return ArrayT(a.dtype, max(a.ndim, 2))

    def lower_(ls: LowerSite) -> str:
        b, _ = parts(ls)
        return f"ep::tri_part<{'true' if lower else 'false'}>({operand_expr(b, 'm')}, {_k(b)})"

    return infer, lower_


# ---- diag / diagonal / diagflat --------------------------------------------------------------


def _diag_infer(site: Site) -> Type:
    b = Bound(site, ("v", "k"), "np.diag")
    a = operand(b, "v")
    _int_arg(b, "k")
    if a.ndim not in (1, 2):
        raise TypingError("Input must be 1- or 2-d.")
    return ArrayT(a.dtype, 3 - a.ndim)


def _diag_lower(ls: LowerSite) -> str:
    b = Bound(ls, ("v", "k"))
    a = operand(b, "v")
    x = operand_expr(b, "v")
    if a.ndim == 1:
        return f"ep::diag_from({x}, {_k(b)})"
    return f"ep::diagonal<0, 1>({x}, {_k(b)})"


def _diagonal_parts(site: Site | LowerSite) -> tuple[Bound, ArrayT, int, int]:
    b = Bound(site, ("a", "offset", "axis1", "axis2"), "diagonal")
    a = operand(b, "a")
    _int_arg(b, "offset")
    if a.ndim < 2:
        raise TypingError("diag requires an array of at least two dimensions")
    a1 = axis_checked(lambda: normalize_axis_index(b.const("axis1", 0), a.ndim, "axis1"))
    a2 = axis_checked(lambda: normalize_axis_index(b.const("axis2", 1), a.ndim, "axis2"))
    if a1 == a2:
        raise TypingError("axis1 and axis2 cannot be the same")
    return b, a, a1, a2


def _diagonal_infer(site: Site) -> Type:
    _, a, _, _ = _diagonal_parts(site)
    return ArrayT(a.dtype, a.ndim - 1)


def _diagonal_lower(ls: LowerSite) -> str:
    b, _, a1, a2 = _diagonal_parts(ls)
    return f"ep::diagonal<{a1}, {a2}>({operand_expr(b, 'a')}, {_k(b, 'offset')})"


def _diagflat_infer(site: Site) -> Type:
    b = Bound(site, ("v", "k"), "np.diagflat")
    _int_arg(b, "k")
    return ArrayT(operand(b, "v").dtype, 2)


def _diagflat_lower(ls: LowerSite) -> str:
    b = Bound(ls, ("v", "k"))
    return f"ep::diagflat({operand_expr(b, 'v')}, {_k(b)})"


# ---- vander / indices ------------------------------------------------------------------------------


def _vander_parts(site: Site | LowerSite) -> tuple[Bound, ArrayT, DType]:
    b = Bound(site, ("x", "N", "increasing"), "np.vander")
    x = operand(b, "x")
    if x.ndim != 1:
        raise TypingError("x must be a one-dimensional array or sequence.")
    _int_arg(b, "N", none_ok=True)
    if b.has("increasing") and not (isinstance(b.type("increasing"), ScalarT)):
        raise TypingError("np.vander(): increasing must be a bool")
    return b, x, DType.of(probe(lambda: np.vander(np.ones(2, x.dtype.np)).dtype))


def _vander_infer(site: Site) -> Type:
    return ArrayT(_vander_parts(site)[2], 2)


def _vander_lower(ls: LowerSite) -> str:
    b, _, dt = _vander_parts(ls)
    n = f"static_cast<ep::index_t>({b.expr('N')})" if b.has("N") and not isinstance(b.type("N"), NoneT) else \
        "ep::None{}"
    inc = f"static_cast<bool>({b.expr('increasing')})" if b.has("increasing") else "false"
    return f"ep::vander<{dt.cpp}>({operand_expr(b, 'x')}, {n}, {inc})"


def _indices_parts(site: Site | LowerSite) -> tuple[Bound, int, DType, bool]:
    b = Bound(site, ("dimensions", "dtype", "sparse"), "np.indices")
    if not b.has("dimensions"):
        raise TypingError("indices() missing 1 required positional argument: 'dimensions'")
    n = seq_len(b, "dimensions")
    if n is None:
        raise TypingError("'int' object is not iterable")
    return b, n, dtype_arg(b.type("dtype")) or DType.INT64, const_bool(b, "sparse")


def _indices_infer(site: Site) -> Type:
    _, n, dt, sparse = _indices_parts(site)
    if sparse:
        return TupleT(tuple(ArrayT(dt, n) for _ in range(n)))
    return ArrayT(dt, n + 1)


def _indices_lower(ls: LowerSite) -> str:
    b, n, dt, sparse = _indices_parts(ls)
    d = b.expr("dimensions")
    if sparse:
        return "std::make_tuple(" + ", ".join(f"ep::index_axis<{dt.cpp}, {n}, {k}>({d})" for k in range(n)) + ")"
    return f"ep::indices<{dt.cpp}, {n}>({d})"


# ---- meshgrid ---------------------------------------------------------------------------------------


def _mesh_parts(site: Site | LowerSite) -> tuple[list[ArrayT], list[int], bool, bool]:
    """(inputs, grid axis of each input, sparse, copy)."""
    kw = site.node.kwargs
    for k in kw:
        if k not in ("copy", "sparse", "indexing"):
            raise TypingError(f"meshgrid() got an unexpected keyword argument '{k}'")
    xs = [array_operand(site.type(i), "xi") for i in range(len(site.node.args))]
    indexing = site.const("indexing") if "indexing" in kw else "xy"
    if indexing not in ("xy", "ij"):
        raise TypingError("Valid values for `indexing` are 'xy' and 'ij'.")
    sparse = site.const("sparse") if "sparse" in kw else False
    copy = site.const("copy") if "copy" in kw else True
    if not isinstance(sparse, (bool, np.bool_)) or not isinstance(copy, (bool, np.bool_)):
        raise TypingError("np.meshgrid(): sparse and copy must be True or False")
    if sparse and not copy:
        raise TypingError("np.meshgrid(sparse=True, copy=False) is not supported (NumPy returns a list of "
                          "differently shaped views)")
    pos = list(range(len(xs)))
    if indexing == "xy" and len(xs) > 1:
        pos[0], pos[1] = 1, 0
    return xs, pos, bool(sparse), bool(copy)


def _mesh_infer(site: Site) -> Type:
    xs, _, _, _ = _mesh_parts(site)
    return TupleT(tuple(ArrayT(x.dtype, len(xs)) for x in xs))


def _mesh_lower(ls: LowerSite) -> str:
    xs, pos, sparse, copy = _mesh_parts(ls)
    d = len(xs)
    exprs = [array_expr(t, e) for t, e in zip(ls.arg_types, ls.args)]
    size_of = {p: f"ep::index_t(({e}).size())" for p, e in zip(pos, exprs)}
    grid = f"std::array<ep::index_t, {d}>{{{', '.join(size_of[k] for k in range(d))}}}"
    flags = f"{'true' if sparse else 'false'}, {'true' if copy else 'false'}"
    items = [f"ep::mesh_item<{d}, {p}, {flags}>({e}, {grid})" for p, e in zip(pos, exprs)]
    return "std::make_tuple(" + ", ".join(items) + ")"


# ---- logspace / geomspace ------------------------------------------------------------------------


def _space_parts(fname: str, site: Site | LowerSite) -> tuple[Bound, list[DType]]:
    """(bound, the kernel's dtypes: logspace (R, Y, P), geomspace (R, D))."""
    names = ("start", "stop", "num", "endpoint") + (("base",) if fname == "logspace" else ()) + ("dtype", "axis")
    b = Bound(site, names, f"np.{fname}")
    for n in ("start", "stop") + (("base",) if fname == "logspace" else ()):
        if b.has(n) and not isinstance(b.type(n), ScalarT):
            raise TypingError(f"np.{fname}(): '{n}' must be a number here (arrays are not supported)")
    if not (b.has("start") and b.has("stop")):
        raise TypingError(f"np.{fname}() missing required arguments 'start' and 'stop'")
    _int_arg(b, "num")
    if b.has("axis") and b.const("axis") != 0:
        raise TypingError(f"np.{fname}(axis=...) is not supported")
    if b.has("endpoint") and not isinstance(b.type("endpoint"), ScalarT):
        raise TypingError(f"np.{fname}(): endpoint must be a bool")
    s0, s1 = sample_value(b.type("start")), sample_value(b.type("stop"))  # type: ignore[arg-type]
    dt = dtype_arg(b.type("dtype"))
    kw = {} if dt is None else {"dtype": dt.np}
    if fname == "logspace":
        base = sample_value(b.type("base")) if b.has("base") else 10.0  # type: ignore[arg-type]
        y = DType.of(probe(lambda: np.linspace(s0, s1, 5).dtype))
        p = DType.of(probe(lambda: np.logspace(s0, s1, 5, base=base).dtype))
        r = DType.of(probe(lambda: np.logspace(s0, s1, 5, base=base, **kw).dtype))
        return b, [r, y, p]
    d = DType.of(probe(lambda: np.result_type(np.asanyarray(s0), np.asanyarray(s1), 5.0, np.zeros((), kw.get("dtype")))))
    r = DType.of(probe(lambda: np.geomspace(s0, s1, 5, **kw).dtype))
    return b, [r, d]


def _space_infer(fname: str) -> Callable[[Site], Type]:
    def infer(site: Site) -> Type:
        return ArrayT(_space_parts(fname, site)[1][0], 1)

    return infer


def _space_lower(fname: str) -> Callable[[LowerSite], str]:
    def lower(ls: LowerSite) -> str:
        b, dts = _space_parts(fname, ls)
        num = f"static_cast<ep::index_t>({b.expr('num')})" if b.has("num") else "50"
        endpoint = f"static_cast<bool>({b.expr('endpoint')})" if b.has("endpoint") else "true"
        args = f"{b.expr('start')}, {b.expr('stop')}, {num}, {endpoint}"
        if fname == "logspace":
            args += f", {b.expr('base') if b.has('base') else '10.0'}"
        return f"ep::{fname}<{', '.join(d.cpp for d in dts)}>({args})"

    return lower


def declare(reg: Registry) -> None:
    def add(key: str, ref: Any, infer: Callable[[Site], Type], lower: Callable[[LowerSite], str],
            aliases: tuple[str, ...] = (), family: Family = Family.CREATION) -> None:
        reg.add(Operator(key, family, ref, infer, lower, CONSTRUCT, aliases=aliases))

    add("numpy.tri", np.tri, _tri_infer, _tri_lower)
    add("numpy.tril", np.tril, *_trilu(True))
    add("numpy.triu", np.triu, *_trilu(False))
    add("numpy.diag", np.diag, _diag_infer, _diag_lower)
    add("numpy.diagonal", np.diagonal, _diagonal_infer, _diagonal_lower, ("ndarray.diagonal",), Family.SHAPE)
    add("numpy.diagflat", np.diagflat, _diagflat_infer, _diagflat_lower)
    add("numpy.vander", np.vander, _vander_infer, _vander_lower)
    add("numpy.indices", np.indices, _indices_infer, _indices_lower)
    add("numpy.meshgrid", np.meshgrid, _mesh_infer, _mesh_lower)
    add("numpy.logspace", np.logspace, _space_infer("logspace"), _space_lower("logspace"))
    add("numpy.geomspace", np.geomspace, _space_infer("geomspace"), _space_lower("geomspace"))


__all__ = ["declare"]

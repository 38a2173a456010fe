"""Generator.choice, Generator.permutation and Generator.shuffle (NumPy's exact draws:
variants/include/everypath/ops/random_sample.hpp).

choice takes an int or a 1-d array `a`, an optional 1-d `p` (array or list) and
replace=True or False (without p); axis must be 0. permutation and shuffle work along
axis 0 of arrays of any rank; shuffle writes into its argument, like NumPy.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from everypath.base.cpp import float_literal
from everypath.base.types import INT, ArrayT, DType, ListT, NONE, NoneT, ScalarT, Type
from everypath.variants.ops.random import RANDOM, bind, gen, shape_arg, size_rank
from everypath.variants.ops.reductions import Bound
from everypath.variants.registry import Family, LowerSite, Operator, Registry, Site, TypingError

_CHOICE = ("self", "a", "size", "replace", "p", "axis", "shuffle")


def _axis0(b: Bound, ndim: int) -> None:
    """axis must name axis 0 (the only one supported) of an array of rank ndim."""
    axis = b.const("axis", 0)
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypingError(f"'{type(axis).__name__}' object cannot be interpreted as an integer")
    if not -max(ndim, 1) <= axis < max(ndim, 1) or ndim == 0:
        raise TypingError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    if axis % ndim != 0:
        raise TypingError(f"{b.site.key}(): only axis=0 is supported")


def _const_bool(b: Bound, name: str, default: bool) -> bool:
    v = b.const(name, default)
    if not isinstance(v, (bool, np.bool_)):
        raise TypingError(f"Generator.choice(): '{name}' must be the constant True or False")
    return bool(v)


def _cpp(flag: bool) -> str:
    return "true" if flag else "false"


def _p_atol(t: Type) -> float:
    """choice's tolerance on sum(p): float64's sqrt(eps), or a float array's own if larger."""
    atol = np.sqrt(np.finfo(np.float64).eps)
    if isinstance(t, ArrayT) and t.dtype.is_float:
        atol = max(atol, np.sqrt(np.finfo(t.dtype.np).eps))
    return float(atol)


@dataclass(frozen=True)
class Choice:
    """A choice call, bound and checked."""

    b: Bound
    a_arr: ArrayT | None  # None: `a` is an int population
    p: Type | None  # the probabilities' type (array or list), None without p
    replace: bool
    shuffle: bool
    rank: int | None  # of `size`; None for size=None


def _choice_parse(site: Site | LowerSite) -> Choice:
    b = bind(site, _CHOICE)
    if not b.has("a"):
        raise TypingError("Generator.choice() missing required argument 'a'")
    a = b.type("a")
    a_arr: ArrayT | None = None
    if isinstance(a, ArrayT) and a.ndim == 1:
        a_arr = a
        _axis0(b, 1)
    elif isinstance(a, ArrayT):
        raise TypingError("Generator.choice(): only 1-d arrays (or an int) are supported for 'a'")
    elif not (isinstance(a, ScalarT) and (a.dtype.is_integer or a.dtype.is_bool)):
        raise TypingError(f"Generator.choice(): 'a' must be an int or a 1-d array, got {a}")
    replace = _const_bool(b, "replace", True)
    p = b.type("p")
    if isinstance(p, NoneT):
        p = None
    if p is not None:
        if isinstance(p, ArrayT) and p.ndim != 1:
            raise TypingError("p must be 1-dimensional")
        elem = p.dtype if isinstance(p, ArrayT) else (p.elem.dtype if isinstance(p, ListT) and
                                                       isinstance(p.elem, ScalarT) else None)
        if elem is None or elem.is_complex:
            raise TypingError(f"Generator.choice(): 'p' must be a 1-d array or list of numbers, got {p}")
        if not replace:
            raise TypingError("Generator.choice(replace=False, p=...) is not supported")
    return Choice(b, a_arr, p, replace, _const_bool(b, "shuffle", True), size_rank(b))


def _choice_infer(site: Site) -> Type:
    c = _choice_parse(site)
    if c.a_arr is None:
        return INT if c.rank is None else ArrayT(DType.INT64, c.rank)
    return ScalarT(c.a_arr.dtype) if c.rank is None else ArrayT(c.a_arr.dtype, c.rank)


def _choice_lower(ls: LowerSite) -> str:
    c = _choice_parse(ls)
    a = c.b.expr("a")
    pop = "static_cast<int64_t>(" + (a if c.a_arr is None else f"({a}).shape[0]") + ")"
    p_expr = "ep::None{}" if c.p is None else c.b.expr("p")
    atol = float_literal(_p_atol(c.p)) if c.p is not None else "0.0"
    rank = c.rank or 0
    shape = "std::array<ep::index_t, 0>{}" if c.rank is None else shape_arg(c.b, rank)
    idx = (f"ep::rng_choice_index<{rank}>({gen(ls)}, {pop}, {_cpp(c.a_arr is None)}, {p_expr}, {atol}, "
           f"{_cpp(c.replace)}, {_cpp(c.shuffle)}, {shape})")
    out = idx if c.a_arr is None else f"ep::rng_take({a}, {idx})"
    return f"({out}).data[0]" if c.rank is None else out  # size=None: the one value


# ---- permutation / shuffle -------------------------------------------------------------------


def _perm_parse(site: Site | LowerSite, name: str) -> tuple[Bound, ArrayT | None]:
    """(bound arguments, the array; None for permutation of an int)."""
    b = bind(site, ("self", "x", "axis"))
    if not b.has("x"):
        raise TypingError(f"Generator.{name}() missing required argument 'x'")
    x = b.type("x")
    # NumPy: an int (a Python bool is one) is a range; a np.bool_ is a 0-d array
    if name == "permutation" and isinstance(x, ScalarT) and (x.dtype.is_integer or (x.dtype.is_bool and x.weak)):
        return b, None
    if name == "permutation" and isinstance(x, ScalarT) and not x.dtype.is_complex:
        _axis0(b, 0)  # NumPy: np.asarray(x) is 0-d
    if not isinstance(x, ArrayT):
        raise TypingError(f"Generator.{name}(): 'x' must be an array{' or an int' if name == 'permutation' else ''}, "
                          f"got {x}")
    _axis0(b, x.ndim)
    return b, x


def _perm_infer(site: Site) -> Type:
    _, x = _perm_parse(site, "permutation")
    return ArrayT(DType.INT64, 1) if x is None else x


def _perm_lower(ls: LowerSite) -> str:
    b, x = _perm_parse(ls, "permutation")
    if x is None:
        return f"ep::rng_permutation_int({gen(ls)}, static_cast<int64_t>({b.expr('x')}))"
    return f"ep::rng_permutation({gen(ls)}, {b.expr('x')})"


def _shuffle_infer(site: Site) -> Type:
    _perm_parse(site, "shuffle")
    return NONE


def _shuffle_lower(ls: LowerSite) -> str:
    b, _ = _perm_parse(ls, "shuffle")
    return f"ep::rng_shuffle({gen(ls)}, {b.expr('x')})"


def declare(reg: Registry) -> None:
    g = np.random.Generator
    reg.add(Operator("Generator.choice", Family.RANDOM, g.choice, _choice_infer, _choice_lower, RANDOM))
    reg.add(Operator("Generator.permutation", Family.RANDOM, g.permutation, _perm_infer, _perm_lower, RANDOM))
    reg.add(Operator("Generator.shuffle", Family.RANDOM, g.shuffle, _shuffle_infer, _shuffle_lower, RANDOM))

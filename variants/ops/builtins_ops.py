"""Python builtins, ``math``, NumPy scalar constructors and the custom element-wise
ops (np.where, np.clip) that are not ufuncs."""
from __future__ import annotations

import builtins
import math

import numpy as np

from everypath.base.cpp import EmitError
from everypath.base.types import (
    BOOL, COMPLEX, FLOAT, INT, ArrayT, DType, IterT, ListT, RangeT, ScalarT, StrT, TupleT, Type, element_type,
    join,
)
from everypath.variants.ops.elementwise import ELEMENTWISE_VARIANTS, Ufunc, infer_ufunc, loop_dtypes
from everypath.variants.probe import call_probe, probe
from everypath.variants.registry import Family, LowerSite, Operator, Registry, Site, TypingError


def _is_int(t: Type) -> bool:
    return isinstance(t, ScalarT) and (t.dtype.is_integer or t.dtype.is_bool)


def _is_real(t: Type) -> bool:
    return isinstance(t, ScalarT) and not t.dtype.is_complex


# ---- range / len / iteration helpers ---------------------------------------
def range_infer(site: Site) -> Type:
    site.check_kwargs(())
    if not 1 <= len(site.args) <= 3:
        raise TypingError(f"range expected 1 to 3 arguments, got {len(site.args)}")
    for t in site.args:
        if not _is_int(t):
            raise TypingError(f"'{t}' object cannot be interpreted as an integer")
    return RangeT()


def range_lower(ls: LowerSite) -> str:
    a = [f"int64_t({x})" for x in ls.args]
    if len(a) == 1:
        a = ["int64_t(0)", a[0], "int64_t(1)"]
    elif len(a) == 2:
        a.append("int64_t(1)")
    return f"ep::make_range({', '.join(a)})"


def len_infer(site: Site) -> Type:
    (t,) = site.args
    if isinstance(t, ArrayT):
        if t.ndim == 0:
            raise TypingError("len() of unsized object")
        return INT
    if isinstance(t, (ListT, TupleT, RangeT)):
        return INT
    raise TypingError(f"object of type '{t}' has no len()")


def len_lower(ls: LowerSite) -> str:
    t, x = ls.arg_types[0], ls.args[0]
    if isinstance(t, ArrayT):
        return f"int64_t({x}.shape[0])"
    if isinstance(t, TupleT):
        return f"int64_t({len(t.items)})"
    return f"int64_t({x}.size())"


def _iterable_elem(t: Type) -> Type:
    return element_type(t)


def enumerate_infer(site: Site) -> Type:
    site.check_kwargs(("start",))
    _iterable_elem(site.args[0])
    starts = [*site.args[1:], *site.kwargs.values()]
    if len(starts) > 1:
        raise TypingError("enumerate() takes at most 2 arguments")
    if starts and not _is_int(starts[0]):
        raise TypingError("enumerate() start must be an integer")
    return IterT("enumerate", (site.args[0],))


def zip_infer(site: Site) -> Type:
    if site.kwargs:
        raise TypingError("zip() keyword arguments are not supported")
    for t in site.args:
        _iterable_elem(t)
    return IterT("zip", tuple(site.args))


def reversed_infer(site: Site) -> Type:
    (t,) = site.args
    if not isinstance(t, (ArrayT, ListT, RangeT, StrT)):  # str: code points from the last (lowering/emit.py)
        raise TypingError(f"reversed() of {t} is not supported")
    return IterT("reversed", (t,))


def ndindex_infer(site: Site) -> Type:
    rank = 0
    for t in site.args:
        if isinstance(t, TupleT) and all(_is_int(i) for i in t.items):
            rank += len(t.items)
        elif _is_int(t):
            rank += 1
        else:
            raise TypingError("np.ndindex takes integers or one shape tuple")
    return IterT("ndindex", (), ndim=rank)


def _no_lower(ls: LowerSite) -> str:
    # a user's construct the emitter cannot express (enumerate(reversed(s)), zip(x, reversed(y))): a located error
    name = ls.key.removeprefix("builtins.")
    raise EmitError(f"{name}(...) is supported only as the iterable of a for loop itself, not inside another call "
                    f"or iterator here; for a reversed walk use `for i in range(len(x) - 1, -1, -1)`")


# ---- min / max / sum / any / all -------------------------------------------
def minmax_infer(site: Site) -> Type:
    site.check_kwargs(())
    if len(site.args) == 1:
        elem = _iterable_elem(site.args[0])
        if not isinstance(elem, ScalarT):
            raise TypingError(f"{site.short()}() over {site.args[0]} is not supported")
        return elem
    out: Type | None = None
    for t in site.args:
        if not _is_real(t):
            raise TypingError(f"{site.short()}() arguments must be real numbers, got {t}")
        out = join(out, t)
    assert out is not None
    return out


def minmax_lower(ls: LowerSite) -> str:
    fn = "ep::py_" + ls.key.split(".")[1]
    rt = ls.result
    assert isinstance(rt, ScalarT)
    if len(ls.args) == 1:
        return f"{fn}_of<{rt.dtype.cpp}>({ls.args[0]})"
    return f"{fn}<{rt.dtype.cpp}>({{{', '.join(f'static_cast<{rt.dtype.cpp}>({a})' for a in ls.args)}}})"


def sum_infer(site: Site) -> Type:
    elem = _iterable_elem(site.args[0])
    start = site.args[1] if len(site.args) > 1 else site.kwargs.get("start", INT)
    if not isinstance(elem, ScalarT) or not isinstance(start, ScalarT):
        raise TypingError(f"sum() over {site.args[0]} is not supported")
    add = infer_ufunc(Ufunc(np.add, "add"), "operator.add", True)
    acc = start
    for _ in range(3):  # acc = acc + elem, to a fixpoint
        fake = Site("operator.add", site.node, [acc, elem], {})
        nxt = join(acc, add(fake))
        if nxt == acc:
            break
        acc = nxt  # type: ignore[assignment]
    return acc


def sum_lower(ls: LowerSite) -> str:
    rt = ls.result
    assert isinstance(rt, ScalarT)
    start = ls.args[1] if len(ls.args) > 1 else ls.kwargs.get("start", "int64_t(0)")
    if rt.weak and rt.dtype is DType.INT64:  # Python ints: OverflowError beyond int64 (everypath/pyint.hpp)
        return f"ep::pyint::sum({ls.args[0]}, static_cast<int64_t>({start}))"
    return f"ep::py_sum<{rt.dtype.cpp}>({ls.args[0]}, static_cast<{rt.dtype.cpp}>({start}))"


def sorted_infer(site: Site) -> Type:
    """sorted(iterable, reverse=...) of real scalars: a new list (NumPy elements stay NumPy scalars)."""
    site.check_kwargs(("key", "reverse"))
    if len(site.args) != 1:
        raise TypingError(f"sorted expected 1 argument, got {len(site.args)}")
    key = site.node.kwargs.get("key")
    if key is not None and not (key.op.value == "const" and key.target is None):
        raise TypingError("sorted(key=...) is not supported yet: sort the values themselves")
    rev = site.type("reverse")
    if rev is not None and not _is_int(rev):
        raise TypingError(f"sorted(): 'reverse' must be a bool, got {rev}")
    elem = _iterable_elem(site.args[0])
    if not _orderable(elem):
        raise TypingError(f"sorted() of {site.args[0]} is not supported (its items must be real numbers, str, "
                          "or tuples of them)")
    return ListT(elem)


def _orderable(t: Type) -> bool:
    """Items `<` orders as CPython does: real numbers, str, tuples of them (compared item by item)."""
    if isinstance(t, TupleT):
        return all(_orderable(i) for i in t.items)
    return _is_real(t) or isinstance(t, StrT)


def sorted_lower(ls: LowerSite) -> str:
    rt = ls.result
    assert isinstance(rt, ListT) and rt.elem is not None
    reverse = ls.arg("reverse") or "false"
    return f"ep::py_sorted<{ls.ctype(rt.elem)}>({ls.args[0]}, static_cast<bool>({reverse}))"


def anyall_infer(site: Site) -> Type:
    _iterable_elem(site.args[0])
    return BOOL


def anyall_lower(ls: LowerSite) -> str:
    return f"ep::py_{ls.key.split('.')[1]}({ls.args[0]})"


# ---- conversions -------------------------------------------------------
def int_infer(site: Site) -> Type:
    if not site.args:
        return INT
    (t,) = site.args
    if isinstance(t, ScalarT) and not t.dtype.is_complex:
        return INT
    raise TypingError(f"int() argument must be a real number, not '{t}'")


def int_lower(ls: LowerSite) -> str:
    if not ls.args:
        return "int64_t(0)"
    t = ls.arg_types[0]
    if isinstance(t, ScalarT) and t.dtype.is_float:
        return f"ep::py::to_int(double({ls.args[0]}))"
    if isinstance(t, ScalarT) and t.dtype is DType.UINT64:  # above 2**63 - 1: OverflowError, not a negative int
        return f"ep::pyint::from_u64({ls.args[0]})"
    return f"static_cast<int64_t>({ls.args[0]})"


def float_infer(site: Site) -> Type:
    if site.args and not _is_real(site.args[0]):
        raise TypingError(f"float() argument must be a real number, not '{site.args[0]}'")
    return FLOAT


def bool_infer(site: Site) -> Type:
    if site.args and not isinstance(site.args[0], (ScalarT, ListT, TupleT)):
        raise TypingError(f"bool() of {site.args[0]} is not supported (use .any() or .all() for arrays)")
    return BOOL


def complex_infer(site: Site) -> Type:
    for t in site.args:
        if not isinstance(t, ScalarT):
            raise TypingError(f"complex() argument must be a number, not '{t}'")
    return COMPLEX


def complex_lower(ls: LowerSite) -> str:
    if not ls.args:
        return "std::complex<double>(0.0, 0.0)"
    if len(ls.args) == 1:
        return f"std::complex<double>({ls.args[0]})"
    return f"(std::complex<double>({ls.args[0]}) + std::complex<double>(0.0, 1.0) * std::complex<double>({ls.args[1]}))"


def cast_lower(ls: LowerSite) -> str:
    rt = ls.result
    assert isinstance(rt, ScalarT)
    if not ls.args:
        return f"{rt.dtype.cpp}{{}}"
    t = ls.arg_types[0]
    if rt.dtype is DType.BOOL:
        return f"ep::sc::truthy({ls.args[0]})" if isinstance(t, ScalarT) else f"({ls.args[0]}.size() != 0)"
    if isinstance(t, ScalarT) and t.dtype.is_complex and not rt.dtype.is_complex:
        return f"static_cast<{rt.dtype.cpp}>(({ls.args[0]}).real())"
    return f"static_cast<{rt.dtype.cpp}>({ls.args[0]})"


def abs_infer(site: Site) -> Type:
    (t,) = site.args
    if isinstance(t, ScalarT) and t.weak:
        return FLOAT if t.dtype.is_complex else (INT if t.dtype is DType.BOOL else t)
    return infer_ufunc(Ufunc(np.absolute, "absolute", None, 1), "numpy.absolute", False)(site)


def round_infer(site: Site) -> Type:
    t = site.args[0]
    if not _is_real(t):
        raise TypingError(f"type {t} doesn't define __round__")
    if len(site.args) == 1 or (site.has(1) and site.const(1, None) is None):
        return INT if (not isinstance(t, ScalarT) or t.weak or True) else t
    return t if not (isinstance(t, ScalarT) and t.weak and t.dtype.is_integer) else INT


def round_lower(ls: LowerSite) -> str:
    if len(ls.args) == 1:
        return f"ep::py_round(double({ls.args[0]}))"
    rt = ls.result
    assert isinstance(rt, ScalarT)
    return f"static_cast<{rt.dtype.cpp}>(ep::py_round_digits(double({ls.args[0]}), int64_t({ls.args[1]})))"


def divmod_infer(site: Site) -> Type:
    fd = infer_ufunc(Ufunc(np.floor_divide, "floordiv", "floordiv"), "operator.floordiv", True)(site)
    md = infer_ufunc(Ufunc(np.remainder, "mod", "mod"), "operator.mod", True)(site)
    return TupleT((fd, md))


def divmod_lower(ls: LowerSite) -> str:
    q = ls.result.items[0] if isinstance(ls.result, TupleT) else None
    if isinstance(q, ScalarT) and q.weak and q.dtype is DType.INT64:  # divmod(INT64_MIN, -1): OverflowError
        return f"ep::pyint::divmod({', '.join(f'int64_t({a})' for a in ls.args)})"
    return f"ep::py_divmod({', '.join(ls.args)})"


# ---- math ---------------------------------------------------------------
_MATH_FLOAT1 = ("sqrt", "exp", "log2", "log10", "log1p", "expm1", "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
                "cosh", "tanh", "asinh", "acosh", "atanh", "fabs", "erf", "erfc", "gamma", "lgamma", "degrees",
                "radians", "exp2", "cbrt")
_MATH_FLOAT2 = ("atan2", "pow", "hypot", "copysign", "fmod")
_MATH_INT1 = ("floor", "ceil", "trunc")
_MATH_BOOL1 = ("isnan", "isinf", "isfinite")


def math_infer(site: Site) -> Type:
    name = site.key.split(".")[1]
    nargs = 2 if name in _MATH_FLOAT2 else 1
    if name == "log":
        nargs = len(site.args)
        if nargs not in (1, 2):
            raise TypingError("math.log() takes 1 or 2 arguments")
    if name == "gcd":
        if not all(_is_int(t) for t in site.args):
            raise TypingError("math.gcd() arguments must be integers")
        return INT
    if len(site.args) != nargs:
        raise TypingError(f"math.{name}() takes {nargs} argument{'s' if nargs > 1 else ''} ({len(site.args)} given)")
    for t in site.args:
        if not _is_real(t):
            raise TypingError(f"must be real number, not {t}")
    if name in _MATH_INT1:
        return INT
    if name in _MATH_BOOL1:
        return BOOL
    return FLOAT


def math_lower(ls: LowerSite) -> str:
    name = ls.key.split(".")[1]
    if name == "gcd":
        return f"ep::pymath::gcd({', '.join(f'int64_t({a})' for a in ls.args)})"
    if name == "sqrt" and ls.never_negative(ls.node.args[0]):
        return f"std::sqrt(double({ls.args[0]}))"  # no domain check to raise: the loop stays vectorisable
    return f"ep::pymath::{name}({', '.join(f'double({a})' for a in ls.args)})"


# ---- NumPy scalar constructors and custom element-wise ops ----------------
def np_scalar_infer(dtype: DType):
    def infer(site: Site) -> Type:
        if not site.args:
            return ScalarT(dtype)
        (t,) = site.args
        if isinstance(t, ArrayT):
            return ArrayT(dtype, t.ndim)
        if isinstance(t, ScalarT):
            if t.dtype.is_complex and not dtype.is_complex:
                raise TypingError(f"cannot convert complex to {dtype}")
            return ScalarT(dtype)
        raise TypingError(f"np.{dtype}() of {t} is not supported")

    return infer


def np_scalar_lower(ls: LowerSite) -> str:
    rt = ls.result
    if isinstance(rt, ArrayT):
        return f"ep::astype<{rt.dtype.cpp}>({ls.args[0]})"
    return cast_lower(ls)


def where_infer(site: Site) -> Type:
    if len(site.args) != 3:
        raise TypingError("np.where with one argument (nonzero) is not supported yet; pass x and y")
    res = call_probe(np.where, *(probe(t) for t in site.args))
    if not isinstance(res, ArrayT):
        raise TypingError("unexpected np.where result")
    return res


def clip_infer(site: Site) -> Type:
    site.check_kwargs(())
    if len(site.args) != 3:
        raise TypingError("np.clip needs a, a_min and a_max")
    for i in (1, 2):
        if site.args[i].__class__.__name__ == "NoneT":
            raise TypingError("np.clip with None bounds is not supported yet")
    res = call_probe(np.clip, *(probe(t) for t in site.args))
    arrays = [t for t in site.args if isinstance(t, ArrayT)]
    if arrays and isinstance(res, ArrayT):
        return ArrayT(res.dtype, max(a.ndim for a in arrays))
    return res


def declare(reg: Registry) -> None:
    B = Family.BUILTIN
    add = reg.add
    add(Operator("builtins.range", B, builtins.range, range_infer, range_lower))
    add(Operator("builtins.len", B, builtins.len, len_infer, len_lower))
    add(Operator("builtins.enumerate", B, builtins.enumerate, enumerate_infer, _no_lower))
    add(Operator("builtins.zip", B, builtins.zip, zip_infer, _no_lower))
    add(Operator("builtins.reversed", B, builtins.reversed, reversed_infer, _no_lower))
    add(Operator("numpy.ndindex", B, np.ndindex, ndindex_infer, _no_lower))
    add(Operator("builtins.min", B, builtins.min, minmax_infer, minmax_lower))
    add(Operator("builtins.max", B, builtins.max, minmax_infer, minmax_lower))
    add(Operator("builtins.sum", B, builtins.sum, sum_infer, sum_lower))
    add(Operator("builtins.sorted", B, builtins.sorted, sorted_infer, sorted_lower))
    add(Operator("builtins.any", B, builtins.any, anyall_infer, anyall_lower))
    add(Operator("builtins.all", B, builtins.all, anyall_infer, anyall_lower))
    add(Operator("builtins.int", B, builtins.int, int_infer, int_lower))
    add(Operator("builtins.float", B, builtins.float, float_infer, cast_lower))
    add(Operator("builtins.bool", B, builtins.bool, bool_infer, cast_lower))
    add(Operator("builtins.complex", B, builtins.complex, complex_infer, complex_lower))
    add(Operator("builtins.abs", Family.ELEMENTWISE, builtins.abs, abs_infer, None,
                 elementwise=Ufunc(np.absolute, "absolute", None, 1), variants=ELEMENTWISE_VARIANTS))
    add(Operator("builtins.round", B, builtins.round, round_infer, round_lower))
    add(Operator("builtins.divmod", B, builtins.divmod, divmod_infer, divmod_lower))
    add(Operator("builtins.pow", Family.ELEMENTWISE, builtins.pow, infer_ufunc(Ufunc(np.power, "power", "power"),
                 "operator.pow", True), None, elementwise=Ufunc(np.power, "power", "power"),
                 variants=ELEMENTWISE_VARIANTS))
    for name in (*_MATH_FLOAT1, *_MATH_FLOAT2, *_MATH_INT1, *_MATH_BOOL1, "log", "gcd"):
        add(Operator(f"math.{name}", Family.MATH, getattr(math, name), math_infer, math_lower))
    for dt in DType:
        name = dt.np_name
        add(Operator(f"numpy.{name}", B, getattr(np, name), np_scalar_infer(dt), np_scalar_lower))
    add(Operator("numpy.where", Family.ELEMENTWISE, np.where, where_infer, None,
                 elementwise=Ufunc(None, "where", None, 3), variants=ELEMENTWISE_VARIANTS))
    add(Operator("numpy.clip", Family.ELEMENTWISE, np.clip, clip_infer, None, elementwise=Ufunc(None, "clip", None, 3),
                 variants=ELEMENTWISE_VARIANTS, aliases=("ndarray.clip",)))


__all__ = ["declare", "loop_dtypes"]

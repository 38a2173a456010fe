"""Array creation: np.zeros/ones/empty/full, their *_like forms, arange, linspace,
eye/identity, np.copy/ndarray.copy and np.array/np.asarray.

Result dtypes are NumPy's own, found by calling the same function on
representative values of the argument types (Python scalars for weak ones,
so NEP 50 applies). C++ kernels: variants/include/everypath/ops/creation.hpp.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from everypath.base.types import INT, ArrayT, DType, ListT, NoneT, ScalarT, TupleT, Type
from everypath.variants.ops.reductions import Bound, array_operand, dtype_arg, probe, sample_value
from everypath.variants.registry import Family, LowerSite, Operator, Registry, Site, TypingError


def _is_int(t: Type | None) -> bool:
    return isinstance(t, ScalarT) and t.dtype.is_integer


def shape_rank(t: Type | None) -> int:
    """The rank a shape argument makes: an int is 1-d, a tuple of ints has one axis per item."""
    if _is_int(t):
        return 1
    if isinstance(t, TupleT):
        for item in t.items:
            if not _is_int(item):
                raise TypingError(f"'{_pyname(item)}' object cannot be interpreted as an integer")
        return len(t.items)
    raise TypingError(f"'{_pyname(t)}' object cannot be interpreted as an integer")


def _pyname(t: Type | None) -> str:
    if isinstance(t, ScalarT):
        return str(t) if t.weak else f"numpy.{t.dtype}"
    if isinstance(t, ArrayT):
        return "numpy.ndarray"
    if isinstance(t, ListT):
        return "list"
    return str(t)


def shape_expr(t: Type, expr: str, n: int) -> str:
    return f"ep::to_shape<{n}>({expr})"


def _py_int_into(t: Type | None, dt: DType) -> bool:
    """A Python int stored into a narrower integer dtype: NumPy 2 range-checks it (OverflowError)."""
    return isinstance(t, ScalarT) and t.weak and t.dtype is DType.INT64 and dt.is_integer and dt is not DType.INT64


def fill_expr(t: Type | None, expr: str, dt: DType) -> str:
    if _py_int_into(t, dt):
        return f"ep::checked_int<{dt.cpp}>({expr})"
    return expr


def _result_ctype(ls: LowerSite) -> str:
    return ls.result.dtype.cpp  # type: ignore[union-attr]


# ---- zeros / ones / empty / full -------------------------------------------

_SHAPE_NAMES = ("shape", "dtype", "order")


def _check_order(b: Bound) -> None:
    if b.has("order") and b.const("order") not in ("C", "K", "A", None):
        raise TypingError("only order='C' is supported")


def _shape_infer(fname: str) -> Callable[[Site], Type]:
    def infer(site: Site) -> Type:
        b = Bound(site, _SHAPE_NAMES, f"np.{fname}")
        b.reject_non_none("like")
        if not b.has("shape"):
            raise TypingError(f"np.{fname}() missing required argument 'shape'")
        _check_order(b)
        n = shape_rank(b.type("shape"))
        dt = dtype_arg(b.type("dtype")) or DType.FLOAT64
        return ArrayT(dt, n)

    return infer


def _shape_lower(fname: str) -> Callable[[LowerSite], str]:
    kernel = {"zeros": "zeros", "ones": "ones", "empty": "empty_shape"}[fname]

    def lower(ls: LowerSite) -> str:
        b = Bound(ls, _SHAPE_NAMES)
        res: ArrayT = ls.result  # type: ignore[assignment]
        return f"ep::{kernel}<{res.dtype.cpp}, {res.ndim}>({b.expr('shape')})"

    return lower


_FULL_NAMES = ("shape", "fill_value", "dtype", "order")


def _fill_check(t: Type | None, fname: str) -> None:
    if not isinstance(t, ScalarT):
        raise TypingError(f"np.{fname}(): fill_value must be a scalar here, got {t}")


def _full_infer(site: Site) -> Type:
    b = Bound(site, _FULL_NAMES, "np.full")
    b.reject_non_none("like")
    if not b.has("shape") or not b.has("fill_value"):
        raise TypingError("np.full() missing required arguments 'shape' and 'fill_value'")
    _check_order(b)
    n = shape_rank(b.type("shape"))
    fill = b.type("fill_value")
    _fill_check(fill, "full")
    dt = dtype_arg(b.type("dtype"))
    if dt is None:
        dt = DType.of(probe(lambda: np.full(1, sample_value(fill)).dtype))  # type: ignore[arg-type]
    return ArrayT(dt, n)


def _full_lower(ls: LowerSite) -> str:
    b = Bound(ls, _FULL_NAMES)
    res: ArrayT = ls.result  # type: ignore[assignment]
    fill = fill_expr(b.type("fill_value"), b.expr("fill_value"), res.dtype)
    return f"ep::full_value<{res.dtype.cpp}, {res.ndim}>({b.expr('shape')}, {fill})"


# ---- *_like ------------------------------------------------------------------

_LIKE_NAMES = ("a", "dtype", "order", "subok", "shape")
_FULL_LIKE_NAMES = ("a", "fill_value", "dtype", "order", "subok", "shape")


def _like_infer(fname: str) -> Callable[[Site], Type]:
    names = _FULL_LIKE_NAMES if fname == "full_like" else _LIKE_NAMES

    def infer(site: Site) -> Type:
        b = Bound(site, names, f"np.{fname}")
        b.reject_non_none("shape")
        if not b.has("a"):
            raise TypingError(f"np.{fname}() missing required argument 'a'")
        at = b.type("a")
        if isinstance(at, ListT):
            raise TypingError(f"np.{fname}() of a list is not supported; pass an array")
        a = array_operand(at)
        if fname == "full_like":
            if not b.has("fill_value"):
                raise TypingError("np.full_like() missing required argument 'fill_value'")
            _fill_check(b.type("fill_value"), fname)
        dt = dtype_arg(b.type("dtype")) or a.dtype
        return ArrayT(dt, a.ndim)

    return infer


def _like_lower(fname: str) -> Callable[[LowerSite], str]:
    names = _FULL_LIKE_NAMES if fname == "full_like" else _LIKE_NAMES

    def lower(ls: LowerSite) -> str:
        b = Bound(ls, names)
        res: ArrayT = ls.result  # type: ignore[assignment]
        T, n = res.dtype.cpp, res.ndim
        shape = f"ep::shape_of({b.expr('a')})"
        if fname == "empty_like":
            return f"ep::empty<{T}, {n}>({shape})"
        value = {"zeros_like": "0", "ones_like": "1"}.get(fname) or fill_expr(b.type("fill_value"),
                                                                            b.expr("fill_value"), res.dtype)
        return f"ep::full<{T}, {n}>({shape}, ep::elem_cast<{T}>({value}))"

    return lower


# ---- arange -----------------------------------------------------------------------


_ARANGE = ("start", "stop", "step", "dtype")


def _arange_parts(site: Site | LowerSite) -> tuple[list[int | str | None], DType | None]:
    """Where start, stop and step are (None: start 0 / step 1), and the dtype argument."""
    b = Bound(site, _ARANGE, "np.arange")
    b.reject_non_none("like", "device")
    if not b.has("start") and not b.has("stop"):
        raise TypingError("np.arange() requires stop to be specified.")
    if b.has("stop"):
        parts = [b.where.get("start"), b.where["stop"], b.where.get("step")]
    else:  # np.arange(5) / np.arange(5, step=2): the only number is stop
        parts = [None, b.where["start"], b.where.get("step")]
    return parts, dtype_arg(b.type("dtype"))


def _arange_infer(site: Site) -> Type:
    parts, dt = _arange_parts(site)
    samples = []
    for w, default in zip(parts, (0, None, 1)):
        if w is None:
            samples.append(default)
            continue
        t = site.type(w)
        if not isinstance(t, ScalarT):
            raise TypingError(f"np.arange(): arguments must be numbers, got {t}")
        if t.dtype.is_complex:
            raise TypingError("np.arange() of complex numbers is not supported")
        samples.append(sample_value(t))
    kw = {"dtype": dt.np} if dt is not None else {}
    out = probe(lambda: np.arange(samples[0], samples[1], samples[2], **kw).dtype)
    return ArrayT(DType.of(out), 1)


def _arange_lower(ls: LowerSite) -> str:
    parts, _ = _arange_parts(ls)
    start = ls.arg(parts[0]) if parts[0] is not None else "int64_t{0}"
    step = ls.arg(parts[2]) if parts[2] is not None else "int64_t{1}"
    res: DType = ls.result.dtype  # type: ignore[union-attr]
    e = f"ep::arange<{res.cpp}>({start}, {ls.arg(parts[1])}, {step})"  # type: ignore[arg-type]
    # NumPy stores start and start + step into the dtype first: Python ints are range-checked
    t0 = ls.type(parts[0]) if parts[0] is not None else INT
    t2 = ls.type(parts[2]) if parts[2] is not None else INT
    checks = []
    if _py_int_into(t0, res):
        checks.append(f"ep::checked_int<{res.cpp}>({start})")
        if _py_int_into(t2, res):
            checks.append(f"ep::checked_int<{res.cpp}>({start} + {step})")
    return f"({', '.join(checks)}, {e})" if checks else e


# ---- linspace -------------------------------------------------------------------

_LINSPACE = ("start", "stop", "num", "endpoint", "retstep", "dtype", "axis")


def _linspace_types(site: Site | LowerSite) -> tuple[Bound, DType, DType]:
    b = Bound(site, _LINSPACE, "np.linspace")
    b.reject_non_none("device")
    if not (b.has("start") and b.has("stop")):
        raise TypingError("np.linspace() missing required arguments 'start' and 'stop'")
    for n in ("start", "stop"):
        if not isinstance(b.type(n), ScalarT):
            raise TypingError(f"np.linspace(): '{n}' must be a number here (array endpoints are not supported)")
    if b.has("num") and not _is_int(b.type("num")):
        raise TypingError(f"'{_pyname(b.type('num'))}' object cannot be interpreted as an integer")
    if b.is_const("num") and b.const("num") < 0:
        raise TypingError(f"Number of samples, {b.const('num')}, must be non-negative.")
    if b.has("retstep") and b.const("retstep") is not False:
        raise TypingError("np.linspace(retstep=True) is not supported")
    if b.has("axis") and b.const("axis") != 0:
        raise TypingError("np.linspace(axis=...) is not supported")
    if b.has("endpoint"):
        t = b.type("endpoint")
        if not (isinstance(t, ScalarT) and t.dtype.is_bool):
            raise TypingError("np.linspace(): endpoint must be a bool")
    s0, s1 = sample_value(b.type("start")), sample_value(b.type("stop"))  # type: ignore[arg-type]
    comp = DType.of(probe(lambda: np.linspace(s0, s1, 5).dtype))
    dt = dtype_arg(b.type("dtype"))
    res = DType.of(probe(lambda: np.linspace(s0, s1, 5, dtype=dt.np).dtype)) if dt is not None else comp
    return b, comp, res


def _linspace_infer(site: Site) -> Type:
    _, _, res = _linspace_types(site)
    return ArrayT(res, 1)


def _linspace_lower(ls: LowerSite) -> str:
    b, comp, res = _linspace_types(ls)
    num = f"static_cast<ep::index_t>({b.expr('num')})" if b.has("num") else "50"
    endpoint = f"static_cast<bool>({b.expr('endpoint')})" if b.has("endpoint") else "true"
    return f"ep::linspace<{res.cpp}, {comp.cpp}>({b.expr('start')}, {b.expr('stop')}, {num}, {endpoint})"


# ---- eye / identity -----------------------------------------------------------------

_EYE = ("N", "M", "k", "dtype", "order")


def _eye_infer(site: Site) -> Type:
    b = Bound(site, _EYE, "np.eye")
    b.reject_non_none("like", "device")
    if not b.has("N"):
        raise TypingError("np.eye() missing required argument 'N'")
    for n in ("N", "k"):
        if b.has(n) and not _is_int(b.type(n)):
            raise TypingError(f"'{_pyname(b.type(n))}' object cannot be interpreted as an integer")
    if b.has("M") and not (_is_int(b.type("M")) or isinstance(b.type("M"), NoneT)):
        raise TypingError(f"'{_pyname(b.type('M'))}' object cannot be interpreted as an integer")
    _check_order(b)
    return ArrayT(dtype_arg(b.type("dtype")) or DType.FLOAT64, 2)


def _eye_lower(ls: LowerSite) -> str:
    b = Bound(ls, _EYE)
    n = b.expr("N")
    m = b.expr("M") if b.has("M") and not isinstance(b.type("M"), NoneT) else n
    k = b.expr("k") if b.has("k") else "0"
    return f"ep::eye<{_result_ctype(ls)}>({n}, {m}, {k})"


_IDENTITY = ("n", "dtype")


def _identity_infer(site: Site) -> Type:
    b = Bound(site, _IDENTITY, "np.identity")
    b.reject_non_none("like")
    if not b.has("n") or not _is_int(b.type("n")):
        raise TypingError("np.identity() needs an integer n")
    return ArrayT(dtype_arg(b.type("dtype")) or DType.FLOAT64, 2)


def _identity_lower(ls: LowerSite) -> str:
    b = Bound(ls, _IDENTITY)
    n = b.expr("n")
    return f"ep::eye<{_result_ctype(ls)}>({n}, {n}, 0)"


# ---- copy / array / asarray ---------------------------------------------------------

_COPY = ("a", "order", "subok")


def _copy_infer(site: Site) -> Type:
    b = Bound(site, _COPY, "np.copy")
    if not b.has("a"):
        raise TypingError("np.copy() missing required argument 'a'")
    return array_operand(b.type("a"))


def _copy_lower(ls: LowerSite) -> str:
    b = Bound(ls, _COPY)
    t = b.type("a")
    x = b.expr("a")
    if isinstance(t, ArrayT):
        return f"ep::copy({x})"
    from everypath.variants.ops.reductions import array_expr

    return array_expr(t, x)  # type: ignore[arg-type]  # scalars and lists make new arrays anyway


_ARRAY = ("object", "dtype", "copy", "order", "subok", "ndmin")
_ASARRAY = ("a", "dtype", "order", "device", "copy")


def _nested_shape(t: Type) -> tuple[tuple[int, ...], list[Type]]:
    """(shape, leaf scalar types) of a nested tuple of scalars; TypingError when ragged."""
    if isinstance(t, ScalarT):
        return (), [t]
    if isinstance(t, TupleT):
        subs = [_nested_shape(i) for i in t.items]
        shapes = {s for s, _ in subs}
        if len(shapes) > 1:
            raise TypingError("setting an array element with a sequence. The requested array has an inhomogeneous "
                              "shape")
        inner = shapes.pop() if shapes else ()
        return (len(t.items), *inner), [leaf for _, ls in subs for leaf in ls]
    raise TypingError(f"np.array() of {t} is not supported")


def _tuple_of_arrays(t: Type) -> bool:
    return isinstance(t, TupleT) and bool(t.items) and all(isinstance(i, ArrayT) for i in t.items)


def _array_common(fname: str, site: Site | LowerSite) -> tuple[Bound, Type, ArrayT]:
    names = _ARRAY if fname == "array" else _ASARRAY
    b = Bound(site, names, f"np.{fname}")
    b.reject_non_none("like", "device")
    first = names[0]
    if not b.has(first):
        raise TypingError(f"np.{fname}() missing required argument '{first}'")
    _check_order(b)
    if b.has("ndmin") and b.const("ndmin") not in (0, None):
        raise TypingError("np.array(ndmin=...) is not supported")
    if b.has("subok") and b.const("subok") not in (True, False):
        raise TypingError("subok must be a constant bool")
    t = b.type(first)
    dt = dtype_arg(b.type("dtype"))
    assert t is not None
    if isinstance(t, ArrayT):
        return b, t, ArrayT(dt or t.dtype, t.ndim)
    if isinstance(t, ScalarT):
        base = DType.of(probe(lambda: np.array(sample_value(t)).dtype))
        return b, t, ArrayT(dt or base, 0)
    if isinstance(t, ListT):
        if t.elem is None:
            if dt is None:
                return b, t, ArrayT(DType.FLOAT64, 1)
            return b, t, ArrayT(dt, 1)
        if isinstance(t.elem, ScalarT):
            base = DType.of(probe(lambda: np.array([sample_value(t.elem)]).dtype))  # type: ignore[arg-type]
            return b, t, ArrayT(dt or base, 1)
        if isinstance(t.elem, ArrayT):
            return b, t, ArrayT(dt or t.elem.dtype, t.elem.ndim + 1)
        raise TypingError(f"np.{fname}() of {t} is not supported")
    if _tuple_of_arrays(t):
        items: tuple[ArrayT, ...] = t.items  # type: ignore[assignment]
        if len({i.ndim for i in items}) != 1:
            raise TypingError("setting an array element with a sequence. The requested array has an inhomogeneous shape")
        base = DType.of(probe(lambda: np.result_type(*(i.dtype.np for i in items))))
        return b, t, ArrayT(dt or base, items[0].ndim + 1)
    if isinstance(t, TupleT):
        shape, leaves = _nested_shape(t)

        def nest(tt: Type) -> Any:
            if isinstance(tt, TupleT):
                return [nest(i) for i in tt.items]
            return sample_value(tt)

        base = DType.of(probe(lambda: np.array(nest(t)).dtype))
        return b, t, ArrayT(dt or base, len(shape))
    raise TypingError(f"np.{fname}() of {t} is not supported")


def _array_infer(fname: str) -> Callable[[Site], Type]:
    def infer(site: Site) -> Type:
        b, t, res = _array_common(fname, site)
        cp = b.const("copy", True if fname == "array" else None)
        if cp is False and isinstance(t, ArrayT) and res.dtype != t.dtype:
            raise TypingError("Unable to avoid copy while creating an array as requested.")
        if cp is False and not isinstance(t, ArrayT):
            raise TypingError("Unable to avoid copy while creating an array as requested.")
        return res

    return infer


def _array_lower(fname: str) -> Callable[[LowerSite], str]:
    def lower(ls: LowerSite) -> str:
        b, t, res = _array_common(fname, ls)
        x = b.expr("object" if fname == "array" else "a")
        T = res.dtype.cpp
        if isinstance(t, ArrayT):
            cp = b.const("copy", True if fname == "array" else None)
            if res.dtype != t.dtype:
                return f"ep::as_dtype<{T}>({x})"
            return f"ep::copy({x})" if cp is True else x
        if isinstance(t, ScalarT):
            return f"ep::scalar_array(ep::elem_cast<{T}>({fill_expr(t, x, res.dtype)}))"
        if isinstance(t, ListT):
            if t.elem is None:
                return f"ep::empty<{T}, 1>({{0}})"
            check = "true" if _py_int_into(t.elem, res.dtype) else "false"
            return f"ep::array_from_list<{T}, {check}>({x})"
        if _tuple_of_arrays(t):
            return f"ep::stack<{T}, {res.ndim - 1}>({x}, 0)"
        shape, leaves = _nested_shape(t)
        dims = ", ".join(str(d) for d in shape)
        check = "true" if any(_py_int_into(leaf, res.dtype) for leaf in leaves) else "false"
        return (f"ep::array_from_tuple<{T}, {len(shape)}, {check}>({x}, "
                f"std::array<ep::index_t, {len(shape)}>{{{dims}}})")

    return lower


def declare(reg: Registry) -> None:
    for name in ("zeros", "ones", "empty"):
        reg.add(Operator(f"numpy.{name}", Family.CREATION, getattr(np, name), _shape_infer(name), _shape_lower(name)))
    reg.add(Operator("numpy.full", Family.CREATION, np.full, _full_infer, _full_lower))
    for name in ("zeros_like", "ones_like", "empty_like", "full_like"):
        reg.add(Operator(f"numpy.{name}", Family.CREATION, getattr(np, name), _like_infer(name), _like_lower(name)))
    reg.add(Operator("numpy.arange", Family.CREATION, np.arange, _arange_infer, _arange_lower))
    reg.add(Operator("numpy.linspace", Family.CREATION, np.linspace, _linspace_infer, _linspace_lower))
    reg.add(Operator("numpy.eye", Family.CREATION, np.eye, _eye_infer, _eye_lower))
    reg.add(Operator("numpy.identity", Family.CREATION, np.identity, _identity_infer, _identity_lower))
    reg.add(Operator("numpy.copy", Family.CREATION, np.copy, _copy_infer, _copy_lower, aliases=("ndarray.copy",)))
    reg.add(Operator("numpy.array", Family.CREATION, np.array, _array_infer("array"), _array_lower("array")))
    reg.add(Operator("numpy.asarray", Family.CREATION, np.asarray, _array_infer("asarray"), _array_lower("asarray")))


__all__ = ["declare", "shape_rank"]

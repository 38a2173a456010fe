"""Attributes of values (``a.shape``, ``a.T``, ``z.real``, ...): typing and lowering.

``attribute_type(base, name)`` is the type of ``base.name`` (TypingError with
Python's AttributeError message for unknown names); ``attribute_lower``
writes it in C++ given the base's C++ expression (used once per helper call;
the helpers live in variants/include/everypath/ops/shape.hpp).
"""
from __future__ import annotations

from typing import Callable

from everypath.base.types import FLOAT, INT, ArrayT, DType, DTypeT, ScalarT, TupleT, Type
from everypath.variants.registry import TypingError

_REAL_OF = {DType.COMPLEX64: DType.FLOAT32, DType.COMPLEX128: DType.FLOAT64}

_ARRAY_ATTRS = ("shape", "ndim", "size", "dtype", "T", "mT", "real", "imag", "itemsize", "nbytes")
_SCALAR_ATTRS = ("real", "imag", "dtype", "ndim", "shape", "size", "itemsize", "nbytes", "T")


def _owner_name(t: Type) -> str:
    if isinstance(t, ArrayT):
        return "numpy.ndarray"
    if isinstance(t, ScalarT):
        return {DType.BOOL: "bool", DType.INT64: "int", DType.FLOAT64: "float",
                DType.COMPLEX128: "complex"}[t.dtype] if t.weak else f"numpy.{t.dtype}"
    return {"TupleT": "tuple", "ListT": "list", "NoneT": "NoneType", "StrT": "str", "SliceT": "slice",
            "RangeT": "range", "DTypeT": "numpy.dtype", "FuncT": "function"}.get(type(t).__name__, str(t))


def _no_attr(base: Type, name: str) -> TypingError:
    return TypingError(f"'{_owner_name(base)}' object has no attribute '{name}'")


def _matrix_t(base: ArrayT) -> Type:
    if base.ndim < 2:
        raise TypingError("matrix transpose with ndim < 2 is undefined")
    return base


def _weak_part(base: ScalarT) -> Type:
    if base.dtype is DType.COMPLEX128:
        return FLOAT
    return INT if base.dtype is DType.BOOL else base  # True.real == 1


# name -> the type of array.name
_ARRAY_TYPE: dict[str, Callable[[ArrayT], Type]] = {
    "shape": lambda b: TupleT((INT,) * b.ndim),
    "ndim": lambda b: INT, "size": lambda b: INT, "itemsize": lambda b: INT, "nbytes": lambda b: INT,
    "dtype": lambda b: DTypeT(b.dtype),
    "T": lambda b: b,
    "mT": _matrix_t,
    "real": lambda b: ArrayT(_REAL_OF.get(b.dtype, b.dtype), b.ndim),
    "imag": lambda b: ArrayT(_REAL_OF.get(b.dtype, b.dtype), b.ndim),
}
# name -> the type of a NumPy scalar's .name (np.float32(1).shape); Python scalars have only .real and .imag
_NP_SCALAR_TYPE: dict[str, Callable[[ScalarT], Type]] = {
    "real": lambda b: ScalarT(_REAL_OF.get(b.dtype, b.dtype)),
    "imag": lambda b: ScalarT(_REAL_OF.get(b.dtype, b.dtype)),
    "dtype": lambda b: DTypeT(b.dtype),
    "shape": lambda b: TupleT(()),
    "ndim": lambda b: INT, "size": lambda b: INT, "itemsize": lambda b: INT, "nbytes": lambda b: INT,
    "T": lambda b: b,
}
_WEAK_SCALAR_TYPE: dict[str, Callable[[ScalarT], Type]] = {"real": _weak_part, "imag": _weak_part}


def attribute_type(base: Type, name: str) -> Type:
    if isinstance(base, ArrayT):
        array_rule = _ARRAY_TYPE.get(name)
        if array_rule is not None:
            return array_rule(base)
    elif isinstance(base, ScalarT):
        scalar_rule = (_WEAK_SCALAR_TYPE if base.weak else _NP_SCALAR_TYPE).get(name)
        if scalar_rule is not None:
            return scalar_rule(base)
    raise _no_attr(base, name)


def _matrix_t_lower(b: ArrayT, e: str) -> str:
    n = b.ndim
    axes = ", ".join(str(k) for k in (*range(n - 2), n - 1, n - 2))
    return f"ep::transpose_axes<{axes}>({e})"


def _is_py_bool(b: ScalarT) -> bool:
    return b.weak and b.dtype is DType.BOOL


# name -> C++ of array.name given (array type, its C++ expression, the C++ of the result type when asked)
_ARRAY_LOWER: dict[str, Callable[[ArrayT, str, Callable[[], str]], str]] = {
    "shape": lambda b, e, r: f"ep::shape_tuple({e})",
    "ndim": lambda b, e, r: f"int64_t{{{b.ndim}}}",
    "size": lambda b, e, r: f"static_cast<int64_t>(({e}).size())",
    "itemsize": lambda b, e, r: f"int64_t{{{b.dtype.np.itemsize}}}",
    "nbytes": lambda b, e, r: f"static_cast<int64_t>(({e}).size() * {b.dtype.np.itemsize})",
    "dtype": lambda b, e, r: f"{r()}{{}}",
    "T": lambda b, e, r: f"ep::transpose({e})",
    "mT": lambda b, e, r: _matrix_t_lower(b, e),
    "real": lambda b, e, r: f"ep::real_of({e})",
    "imag": lambda b, e, r: f"ep::imag_of({e})",
}
_SCALAR_LOWER: dict[str, Callable[[ScalarT, str, Callable[[], str]], str]] = {
    "real": lambda b, e, r: f"static_cast<int64_t>({e})" if _is_py_bool(b) else f"ep::scalar_real({e})",
    "imag": lambda b, e, r: "int64_t{0}" if _is_py_bool(b) else f"ep::scalar_imag({e})",
    "dtype": lambda b, e, r: f"{r()}{{}}",
    "shape": lambda b, e, r: "std::tuple<>{}",
    "ndim": lambda b, e, r: "int64_t{0}",
    "size": lambda b, e, r: "int64_t{1}",
    "itemsize": lambda b, e, r: f"int64_t{{{b.dtype.np.itemsize}}}",
    "nbytes": lambda b, e, r: f"int64_t{{{b.dtype.np.itemsize}}}",
    "T": lambda b, e, r: e,
}
assert set(_ARRAY_LOWER) == set(_ARRAY_TYPE) == set(_ARRAY_ATTRS) and set(_SCALAR_LOWER) == set(_SCALAR_ATTRS)


def attribute_lower(base_type: Type, base_expr: str, name: str, result: Type, ctype: Callable[[Type], str]) -> str:
    if isinstance(base_type, ArrayT) and name in _ARRAY_LOWER:
        return _ARRAY_LOWER[name](base_type, base_expr, lambda: ctype(result))
    if isinstance(base_type, ScalarT) and name in _SCALAR_LOWER:
        return _SCALAR_LOWER[name](base_type, base_expr, lambda: ctype(result))
    raise AssertionError(f"attribute {name} of {base_type} was not typed")


__all__ = ["attribute_type", "attribute_lower"]

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


def attribute_type(base: Type, name: str) -> Type:
    if isinstance(base, ArrayT):
        if name == "shape":
            return TupleT((INT,) * base.ndim)
        if name in ("ndim", "size", "itemsize", "nbytes"):
            return INT
        if name == "dtype":
            return DTypeT(base.dtype)
        if name == "T":
            return base
        if name == "mT":
            if base.ndim < 2:
                raise TypingError("matrix transpose with ndim < 2 is undefined")
            return base
        if name in ("real", "imag"):
            return ArrayT(_REAL_OF.get(base.dtype, base.dtype), base.ndim)
        raise _no_attr(base, name)
    if isinstance(base, ScalarT):
        if name in ("real", "imag"):
            if base.weak:
                if base.dtype is DType.COMPLEX128:
                    return FLOAT
                return INT if base.dtype is DType.BOOL else base  # True.real == 1
            return ScalarT(_REAL_OF.get(base.dtype, base.dtype))
        if not base.weak:
            if name == "dtype":
                return DTypeT(base.dtype)
            if name == "shape":
                return TupleT(())
            if name in ("ndim", "size", "itemsize", "nbytes"):
                return INT
            if name == "T":
                return base
        raise _no_attr(base, name)
    raise _no_attr(base, name)


def attribute_lower(base_type: Type, base_expr: str, name: str, result: Type, ctype: Callable[[Type], str]) -> str:
    if isinstance(base_type, ArrayT):
        e = base_expr
        if name == "shape":
            return f"ep::shape_tuple({e})"
        if name == "ndim":
            return f"int64_t{{{base_type.ndim}}}"
        if name == "size":
            return f"static_cast<int64_t>(({e}).size())"
        if name == "itemsize":
            return f"int64_t{{{base_type.dtype.np.itemsize}}}"
        if name == "nbytes":
            return f"static_cast<int64_t>(({e}).size() * {base_type.dtype.np.itemsize})"
        if name == "dtype":
            return f"{ctype(result)}{{}}"
        if name == "T":
            return f"ep::transpose({e})"
        if name == "mT":
            n = base_type.ndim
            axes = ", ".join(str(k) for k in (*range(n - 2), n - 1, n - 2))
            return f"ep::transpose_axes<{axes}>({e})"
        if name == "real":
            return f"ep::real_of({e})"
        if name == "imag":
            return f"ep::imag_of({e})"
    if isinstance(base_type, ScalarT):
        e = base_expr
        if name == "real":
            if base_type.weak and base_type.dtype is DType.BOOL:
                return f"static_cast<int64_t>({e})"
            return f"ep::scalar_real({e})"
        if name == "imag":
            if base_type.weak and base_type.dtype is DType.BOOL:
                return "int64_t{0}"
            return f"ep::scalar_imag({e})"
        if name == "dtype":
            return f"{ctype(result)}{{}}"
        if name == "shape":
            return "std::tuple<>{}"
        if name in ("ndim",):
            return "int64_t{0}"
        if name == "size":
            return "int64_t{1}"
        if name in ("itemsize", "nbytes"):
            return f"int64_t{{{base_type.dtype.np.itemsize}}}"
        if name == "T":
            return e
    raise AssertionError(f"attribute {name} of {base_type} was not typed")


__all__ = ["attribute_type", "attribute_lower"]

"""Attributes of arrays and scalars: typing and C++ lowering."""
from __future__ import annotations

from typing import Callable

from lowering.types import FLOAT, INT, ArrayT, DType, DTypeT, ScalarT, TupleT, Type
from variants.registry import TypingError

_REAL = {DType.COMPLEX64: DType.FLOAT32, DType.COMPLEX128: DType.FLOAT64}


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
        if name in ("real", "imag"):
            return ArrayT(_REAL.get(base.dtype, base.dtype), base.ndim)
        raise TypingError(f"'numpy.ndarray' object has no attribute '{name}' (or it is not supported yet)")
    if isinstance(base, ScalarT):
        if name in ("real", "imag"):
            dt = _REAL.get(base.dtype, base.dtype)
            return FLOAT if base.weak and base.dtype.is_complex else ScalarT(dt, base.weak)
        raise TypingError(f"'{base}' object has no attribute '{name}'")
    raise TypingError(f"'{base}' object has no attribute '{name}'")


def attribute_lower(base_t: Type, base: str, name: str, result: Type, ctype: Callable[[Type], str]) -> str:
    if isinstance(base_t, ArrayT):
        n = base_t.ndim
        if name == "shape":
            return "std::make_tuple(" + ", ".join(f"int64_t({base}.shape[{k}])" for k in range(n)) + ")"
        if name == "ndim":
            return f"int64_t({n})"
        if name == "size":
            return f"int64_t({base}.size())"
        if name == "itemsize":
            return f"int64_t(sizeof({base_t.dtype.cpp}))"
        if name == "nbytes":
            return f"int64_t({base}.size() * sizeof({base_t.dtype.cpp}))"
        if name == "dtype":
            return "ep::None{}"
        if name == "T":
            return f"ep::transpose({base})"
        if name in ("real", "imag"):
            if base_t.dtype.is_complex:
                return f"ep::complex_part<{1 if name == 'imag' else 0}>({base})"
            return base if name == "real" else f"ep::full<{base_t.dtype.cpp}, {n}>({base}.shape, 0)"
    if isinstance(base_t, ScalarT) and name in ("real", "imag"):
        if base_t.dtype.is_complex:
            return f"({base}).{name}()"
        return base if name == "real" else f"{base_t.dtype.cpp}(0)"
    raise TypingError(f"attribute {name} cannot be lowered")

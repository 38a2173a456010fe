"""Typing by asking NumPy: build tiny stand-in values of compile-time types,
call the real NumPy function on them and read back the result's type.

This keeps typing rules exact (dtype promotion, NEP 50 weak scalars, result
rank) without re-implementing NumPy's tables by hand.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np

from everypath.base.types import (
    ArrayT, DType, DTypeT, NoneT, ScalarT, StrT, TupleT, Type, PY_SCALAR_DTYPE,
)
from everypath.variants.registry import TypingError

_WEAK = {DType.BOOL: True, DType.INT64: 1, DType.FLOAT64: 1.0, DType.COMPLEX128: 1 + 0j}


def probe(t: Type, const: Any = ...) -> Any:
    """A small real value standing for type t (the constant itself when known)."""
    if const is not ...:
        return const
    if isinstance(t, ScalarT):
        return _WEAK[t.dtype] if t.weak else t.dtype.np.type(1)
    if isinstance(t, ArrayT):
        return np.ones((1,) * t.ndim, dtype=t.dtype.np)
    if isinstance(t, TupleT):
        return tuple(probe(i) for i in t.items)
    if isinstance(t, NoneT):
        return None
    if isinstance(t, DTypeT):
        return t.dtype.np
    if isinstance(t, StrT):
        return ""
    raise TypingError(f"unsupported argument of type {t}")


def type_of_result(value: Any) -> Type:
    if isinstance(value, np.ndarray):
        return ArrayT(DType.of(value.dtype), value.ndim)
    if isinstance(value, np.generic):
        return ScalarT(DType.of(value.dtype))
    if isinstance(value, (bool, int, float, complex)):
        return ScalarT(PY_SCALAR_DTYPE[type(value)], weak=True)
    if isinstance(value, tuple):
        return TupleT(tuple(type_of_result(v) for v in value))
    raise TypingError(f"unsupported result {type(value).__name__}")


def call_probe(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Type:
    """Run fn on probe values; NumPy's own error becomes the typing error."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return type_of_result(fn(*args, **kwargs))
    except TypingError:
        raise
    except Exception as exc:  # NumPy's message is the most helpful one we can give
        raise TypingError(str(exc)) from None

"""Which operators take float16 (np.float16 arrays and scalars, torch.float16 tensors) operands.

float16 is an element type like the others (base/types.py DType.FLOAT16, C++ ``ep::half`` in
variants/include/everypath/half.hpp, which rounds once per operation as NumPy's float16 loops do). The
operators whose C++ is written against that semantics and checked against NumPy bit for bit
(tests/lowering/test_half.py) are listed here; any other operator meeting a float16 value is a located
typing error naming it, never a C++ build failure or a silently different rounding.
"""
from __future__ import annotations

import numpy as np

from everypath.base.errors import TypingError
from everypath.base.types import ArrayT, DictT, DType, ListT, ScalarT, SetT, TupleT, Type
from everypath.variants.registry import Family, Operator, Site

# Whole families: element-wise ufuncs (one rounding per ufunc), creation with dtype=, shape and view ops
# (they move elements without arithmetic), builtins on scalars (float(h), int(h), abs, comparisons).
_FAMILIES = frozenset({Family.ELEMENTWISE, Family.CREATION, Family.SHAPE, Family.BUILTIN, Family.MATH})

# Element-wise operators whose float16 loop NumPy does not run through float32 the way ep::half does
# (frexp/ldexp/nextafter/spacing have float16-specific loops; the others are compositions in NumPy's
# Python code whose intermediate dtypes differ).
_ELEMENTWISE_REFUSED = frozenset({
    "numpy.frexp", "numpy.ldexp", "numpy.nextafter", "numpy.spacing", "numpy.modf", "numpy.i0",
    "numpy.sinc", "numpy.polyval", "numpy.float_power", "numpy.isclose", "numpy.allclose", "numpy.divmod",
    "numpy.nan_to_num", "numpy.logaddexp", "numpy.logaddexp2", "numpy.heaviside",
})

# Reductions: NumPy's float16 sum (float32 pairwise per inner loop, rounded into the float16 output),
# mean (float32 accumulator, one rounding at the end), max/min (exact), any/all, argmax/argmin.
_REDUCTIONS = frozenset({
    f"{ns}.{name}" for ns in ("numpy", "ndarray")
    for name in ("sum", "mean", "max", "min", "amax", "amin", "any", "all", "argmax", "argmin")
})


# torch.float16 functions whose float parameters (slope, alpha, beta) ATen keeps in float while the
# compiled loop receives them rounded to float16, or whose float formula differs from ours (gelu: erf
# vectorised, inf gives NaN): refused on float16 tensors rather than off in the last bits
_TORCH_HALF_REFUSED = frozenset({
    "torch.nn.functional.gelu", "torch.nn.functional.leaky_relu", "torch.nn.functional.elu",
    "torch.nn.functional.softplus",
})


def has_half(t: Type | None) -> bool:
    """Whether a type holds float16 anywhere (an array, a scalar, or inside a tuple/list/dict/set)."""
    if isinstance(t, (ArrayT, ScalarT)):
        return t.dtype is DType.FLOAT16
    if isinstance(t, TupleT):
        return any(has_half(i) for i in t.items)
    if isinstance(t, (ListT, SetT)):
        return has_half(t.elem)
    if isinstance(t, DictT):
        return has_half(t.key) or has_half(t.value)
    return False


def supports_half(op: Operator) -> bool:
    if op.key in _REDUCTIONS:
        return True
    if op.family is Family.ELEMENTWISE:
        return op.key not in _ELEMENTWISE_REFUSED
    return op.family in _FAMILIES and op.family is not Family.ELEMENTWISE


def _torch_scalar_refusal(op: Operator, site: Site) -> str | None:
    """Why a torch.float16 call cannot match ATen: a Python number that float16 cannot hold exactly.

    ATen computes `half_tensor * 0.1` in float with the scalar as a float (one rounding, at the end);
    NumPy, and the compiled loop, round the scalar to float16 first. A constant float16 holds exactly
    (`x * 0.5`, `x + 3`) gives the same bits either way."""
    if op.key in _TORCH_HALF_REFUSED:
        return f"{op.key.removeprefix('torch.nn.functional.')}() on torch.float16 tensors is not supported"
    where: list[tuple[int | str, Type]] = [*enumerate(site.args), *site.kwargs.items()]
    for i, t in where:
        if not (isinstance(t, ScalarT) and t.weak and not t.dtype.is_bool):
            continue
        try:
            v = site.const(i)
        except TypingError:
            return "a Python number that is not a compile-time constant meets a torch.float16 tensor"
        if isinstance(v, complex) or float(np.float16(v)) != v:
            return f"the Python number {v!r} is not exact in float16, and torch computes with it unrounded"
    return None


def check(op: Operator, site: Site, result: Type | None) -> Type | None:
    """The operator's result type, or a TypingError when float16 meets an operator not written for it."""
    operands = [*site.args, *site.kwargs.values()]
    if not (has_half(result) or any(has_half(t) for t in operands)):
        return result
    if not supports_half(op):
        name = op.key.replace("numpy.", "np.")
        raise TypingError(f"{name} does not support float16 in compiled code (float16 works with element-wise "
                          "operators, astype, creation, shape operations and sum/mean/max/min/any/all/argmax/argmin); "
                          "convert first, e.g. x.astype(np.float32)")
    if any(isinstance(t, ArrayT) and t.torch and t.dtype is DType.FLOAT16 for t in operands):
        why = _torch_scalar_refusal(op, site)
        if why is not None:
            raise TypingError(f"{why}: compute in float32 (x.float()) and convert back with .half()")
    return result

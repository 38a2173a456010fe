"""Fused element-wise expressions on the simd path (xsimd batches, ep::vsc).

An expression qualifies when every operand and the result share one floating
dtype (float32 or float64: no casts inside the body) and every operation is in
VSC_OPS; comparisons and logical operations may only build the condition of a
np.where. The body is generic C++ (``ep::vsc::exp(x0)``) that compiles for a
batch and for a scalar, so tails and strided operands reuse it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from everypath.base.types import ArrayT, DType, ScalarT
from everypath.tracer.ir import Node

if TYPE_CHECKING:
    from everypath.lowering.emit import FunctionEmitter

VSC_OPS = frozenset({
    "add", "sub", "mul", "truediv", "negative", "positive", "square", "reciprocal", "absolute", "fabs", "sqrt",
    "cbrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "arcsin", "arccos",
    "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "floor", "ceil", "trunc", "rint",
    "arctan2", "hypot", "copysign", "fmax", "fmin", "maximum", "minimum", "sign", "where",
    # torch's (variants/include/everypath/ops/torch_ops.hpp)
    "torch_max", "torch_min", "torch_relu", "torch_sigmoid", "torch_silu", "torch_hardswish",
})
MASK_OPS = frozenset({"lt", "le", "gt", "ge", "eq", "ne", "logical_and", "logical_or", "logical_not"})
FLOATS = frozenset({DType.FLOAT32, DType.FLOAT64})


class NotVectorisable(Exception):
    pass


def _dtype(t: object) -> DType:
    if isinstance(t, (ArrayT, ScalarT)):
        return t.dtype
    raise NotVectorisable(f"operand of type {t}")


def simd_body(fe: "FunctionEmitter", n: Node, leaves: list[str], mask: bool = False) -> str:
    """ep::vsc expression for fused node n (leaves collects the operands); NotVectorisable if it is not."""
    from everypath.lowering.emit_values import fast_power_name, is_inplace_array

    key = fe.spec.op_keys.get(n, "")
    from everypath.variants.registry import lookup_operator

    uf = lookup_operator(key).elementwise
    name = uf.cpp if uf is not None else ""
    if is_inplace_array(fe, n):
        raise NotVectorisable("in-place update")
    if key.startswith("operator.") and all(isinstance(fe.ty(a), ScalarT) and fe.ty(a).weak for a in n.args):
        raise NotVectorisable("Python-scalar arithmetic")
    out = _dtype(fe.ty(n))
    if name in MASK_OPS:
        if not mask:
            raise NotVectorisable(f"{name} outside a where() condition")
    elif name not in VSC_OPS:
        raise NotVectorisable(f"{name} has no batch form")
    elif out not in FLOATS:
        raise NotVectorisable(f"result dtype {out}")
    fast = fast_power_name(fe, n, key)
    if fast is not None:  # x ** 2 is square(x) in NumPy (fast_scalar_power), not pow
        name = fast
        args = n.args[:1]
    else:
        args = n.args
    parts = []
    for i, a in enumerate(args):
        as_mask = (name == "where" and i == 0) or (name in ("logical_and", "logical_or", "logical_not"))
        if a in fe.fused:
            if not as_mask and _dtype(fe.ty(a)) is not _float_of(fe, n):  # minimum(cos(x32), np.cos(0.4)): a cast
                raise NotVectorisable(f"operand dtype {_dtype(fe.ty(a))}")
            parts.append(simd_body(fe, a, leaves, mask=as_mask))
            continue
        t = fe.ty(a)
        dt = _dtype(t)
        weak = isinstance(t, ScalarT) and t.weak  # Python scalars take the expression's dtype (NEP 50)
        if as_mask or dt.is_complex or (not weak and dt is not _float_of(fe, n)):
            raise NotVectorisable(f"operand dtype {dt}")
        leaves.append(fe.value(a))
        parts.append(f"x{len(leaves) - 1}")
    return f"ep::vsc::{name}({', '.join(parts)})"


def _float_of(fe: "FunctionEmitter", n: Node) -> DType:
    """The one floating dtype of the expression rooted at n (comparisons: their operands')."""
    t = fe.ty(n)
    dt = _dtype(t)
    if dt in FLOATS:
        return dt
    for a in n.args:
        adt = _dtype(fe.ty(a))
        if adt in FLOATS:
            return adt
    raise NotVectorisable(f"dtype {dt}")


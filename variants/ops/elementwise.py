"""Element-wise operators, declared as one table.

Typing asks NumPy itself: ``ufunc.resolve_dtypes`` with Python scalar types
standing for weak (Python) scalars gives exactly NumPy 2's NEP 50 loop
dtypes. When every operand is a Python scalar and the operator is a Python
operator (``a + b``), Python's own semantics apply instead (int stays int,
``/`` gives float, division by zero raises ZeroDivisionError).

Lowering is done by the emitter (lowering.emit_elementwise), which fuses
chains of these into one loop; this table only names each op's scalar C++
function: ``ep::sc::<name>`` (NumPy semantics) and ``ep::py::<name>``
(Python semantics for Python scalars).
"""
from __future__ import annotations

import operator
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from everypath.base.types import BOOL, COMPLEX, FLOAT, INT, ArrayT, DType, ScalarT, Type
from everypath.variants.registry import Family, Operator, Registry, Requirements, Site, TypingError, Variant


# every fused element-wise expression can run on these paths (lowering.emit_values.elementwise_paths)
ELEMENTWISE_VARIANTS = (
    Variant("loops", "everypath/everypath.hpp", cost_hint="fused loop, compiler-vectorised, libmvec math"),
    Variant("simd", "everypath/paths/simd/map.hpp", cost_hint="xsimd batches (float expressions)"),
    # default policy: threads only for very large arrays; on a loaded 2-core machine a
    # descheduled team member costs milliseconds (measured), so the selector decides
    Variant("threads", "everypath/paths/threads/map.hpp", cost_hint="OpenMP split of the fused loop",
            min_work=1 << 22),
    Variant("cuda", "everypath/paths/cuda/map.cuh", Requirements(device="cuda"),
            cost_hint="grid-stride kernel per fused expression", min_work=1 << 20),
)


@dataclass(frozen=True)
class Ufunc:
    """An element-wise op: its NumPy ufunc and its scalar C++ function names."""

    ufunc: Any
    cpp: str  # ep::sc::<cpp> (NumPy semantics)
    py: str | None = None  # ep::py::<py> when Python semantics differ for Python scalars
    nin: int = 2


# key -> (ufunc, cpp name, python-semantics name or None)
_BINARY: dict[str, tuple[Any, str, str | None]] = {
    "operator.add": (np.add, "add", None),
    "operator.sub": (np.subtract, "sub", None),
    "operator.mul": (np.multiply, "mul", None),
    "operator.truediv": (np.true_divide, "truediv", "truediv"),
    "operator.floordiv": (np.floor_divide, "floordiv", "floordiv"),
    "operator.mod": (np.remainder, "mod", "mod"),
    "operator.pow": (np.power, "power", "power"),
    "operator.lshift": (np.left_shift, "lshift", None),
    "operator.rshift": (np.right_shift, "rshift", None),
    "operator.and_": (np.bitwise_and, "band", None),
    "operator.or_": (np.bitwise_or, "bor", None),
    "operator.xor": (np.bitwise_xor, "bxor", None),
    "operator.eq": (np.equal, "eq", None),
    "operator.ne": (np.not_equal, "ne", None),
    "operator.lt": (np.less, "lt", None),
    "operator.le": (np.less_equal, "le", None),
    "operator.gt": (np.greater, "gt", None),
    "operator.ge": (np.greater_equal, "ge", None),
}
_NUMPY_BINARY: dict[str, tuple[Any, str]] = {
    "add": (np.add, "add"), "subtract": (np.subtract, "sub"), "multiply": (np.multiply, "mul"),
    "divide": (np.divide, "truediv"), "true_divide": (np.true_divide, "truediv"),
    "floor_divide": (np.floor_divide, "floordiv"), "mod": (np.mod, "mod"), "remainder": (np.remainder, "mod"),
    "power": (np.power, "power"), "maximum": (np.maximum, "maximum"), "minimum": (np.minimum, "minimum"),
    "fmax": (np.fmax, "fmax"), "fmin": (np.fmin, "fmin"), "arctan2": (np.arctan2, "arctan2"),
    "hypot": (np.hypot, "hypot"), "copysign": (np.copysign, "copysign"),
    "logical_and": (np.logical_and, "logical_and"), "logical_or": (np.logical_or, "logical_or"),
    "logical_xor": (np.logical_xor, "logical_xor"), "bitwise_and": (np.bitwise_and, "band"),
    "bitwise_or": (np.bitwise_or, "bor"), "bitwise_xor": (np.bitwise_xor, "bxor"),
    "left_shift": (np.left_shift, "lshift"), "right_shift": (np.right_shift, "rshift"),
    "equal": (np.equal, "eq"), "not_equal": (np.not_equal, "ne"), "less": (np.less, "lt"),
    "less_equal": (np.less_equal, "le"), "greater": (np.greater, "gt"), "greater_equal": (np.greater_equal, "ge"),
}
_NUMPY_UNARY: dict[str, str] = {
    "exp": "exp", "exp2": "exp2", "expm1": "expm1", "log": "log", "log2": "log2", "log10": "log10",
    "log1p": "log1p", "sqrt": "sqrt", "cbrt": "cbrt", "square": "square", "sin": "sin", "cos": "cos",
    "tan": "tan", "arcsin": "arcsin", "arccos": "arccos", "arctan": "arctan", "sinh": "sinh", "cosh": "cosh",
    "tanh": "tanh", "arcsinh": "arcsinh", "arccosh": "arccosh", "arctanh": "arctanh", "absolute": "absolute",
    "abs": "absolute", "fabs": "fabs", "floor": "floor", "ceil": "ceil", "trunc": "trunc", "rint": "rint",
    "sign": "sign", "negative": "negative", "positive": "positive", "reciprocal": "reciprocal",
    "isnan": "isnan", "isinf": "isinf", "isfinite": "isfinite", "logical_not": "logical_not",
    "conjugate": "conjugate", "conj": "conjugate", "signbit": "signbit", "invert": "invert",
    "bitwise_not": "invert", "deg2rad": "deg2rad", "rad2deg": "rad2deg", "degrees": "rad2deg",
    "radians": "deg2rad",
}
_OPERATOR_UNARY: dict[str, tuple[Any, str, str | None]] = {
    "operator.neg": (np.negative, "negative", "negative"),
    "operator.pos": (np.positive, "positive", "positive"),
    "operator.invert": (np.invert, "invert", "invert"),
}


def operand_dtype(t: Type) -> Any:
    """What stands for an operand in ufunc.resolve_dtypes: a dtype, or a Python type for weak scalars."""
    if isinstance(t, ScalarT) and t.weak and t.dtype is not DType.BOOL:
        return {DType.INT64: int, DType.FLOAT64: float, DType.COMPLEX128: complex}[t.dtype]
    if isinstance(t, (ScalarT, ArrayT)):
        return t.dtype.np
    raise TypingError(f"expected a number or an array, got {t}")


def loop_dtypes(uf: Any, operands: list[Type]) -> tuple[DType, ...]:
    """The (inputs..., output) dtypes NumPy's ufunc would loop in."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            dts = uf.resolve_dtypes(tuple(operand_dtype(t) for t in operands) + (None,))
    except TypeError as exc:
        raise TypingError(str(exc).replace("ufunc ", "np.")) from None
    try:
        return tuple(DType.of(d) for d in dts)
    except ValueError as exc:  # a loop dtype with no everypath twin (longdouble, ...): a located refusal, not a crash
        name = getattr(uf, "__name__", "ufunc")
        raise TypingError(f"np.{name} of {', '.join(str(t) for t in operands)} computes in "
                          f"{', '.join(str(d) for d in dts)}: {exc}") from None


def _base_name(key: str) -> str:
    """operator.iand -> and_, operator.add -> add (in-place keys share their operator's rules)."""
    name = key.split(".")[1]
    if key.startswith("operator.i") and key != "operator.invert" and key != "operator.is_":
        name = name[1:]
        if name in ("and", "or"):
            name += "_"
    return name


def python_result(key: str, operands: list[Type], site: Site) -> Type:
    """Python's own result type for operators on Python scalars."""
    kinds = {t.dtype for t in operands}  # type: ignore[union-attr]
    name = _base_name(key)
    if name in ("eq", "ne", "lt", "le", "gt", "ge", "not_"):
        if DType.COMPLEX128 in kinds and name in ("lt", "le", "gt", "ge"):
            raise TypingError("'<' not supported between complex numbers")
        return BOOL
    if name in ("and_", "or_", "xor") and kinds == {DType.BOOL}:
        return BOOL
    if name in ("and_", "or_", "xor", "lshift", "rshift", "invert") and not kinds <= {DType.BOOL, DType.INT64}:
        raise TypingError(f"unsupported operand type(s) for {name}: {' and '.join(str(t) for t in operands)}")
    if DType.COMPLEX128 in kinds:
        if name in ("floordiv", "mod"):
            raise TypingError("complex numbers do not support // and %")
        return COMPLEX
    if DType.FLOAT64 in kinds or name == "truediv":
        return FLOAT
    if name == "pow":
        exp = site.node.args[1]
        from everypath.tracer.ir import Opcode

        if exp.op is Opcode.CONST and isinstance(exp.target, int) and exp.target < 0:
            return FLOAT
    return INT


def infer_ufunc(spec: Ufunc, key: str, python_op: bool):
    def infer(site: Site) -> Type:
        ops = site.args
        if len(ops) != spec.nin:
            raise TypingError(f"{site.short()}() takes {spec.nin} operands, got {len(ops)}")
        if site.kwargs:
            raise TypingError(f"{site.short()}(): keyword arguments (out=, where=, dtype=) are not supported yet")
        for t in ops:
            if not isinstance(t, (ScalarT, ArrayT)):
                raise TypingError(f"unsupported operand type for {site.short()}: {t}")
        if python_op and all(isinstance(t, ScalarT) and t.weak for t in ops):
            return python_result(key, ops, site)
        out = loop_dtypes(spec.ufunc, ops)[-1]
        arrays = [t for t in ops if isinstance(t, ArrayT)]
        if arrays:
            return ArrayT(out, max(a.ndim for a in arrays))
        return ScalarT(out)

    return infer


def infer_inplace(spec: Ufunc, key: str):
    base = infer_ufunc(spec, key, python_op=True)

    def infer(site: Site) -> Type:
        target = site.args[0]
        out = base(site)
        if isinstance(target, ArrayT):
            if not isinstance(out, (ArrayT, ScalarT)) or (isinstance(site.args[1], ArrayT) and site.args[1].ndim > target.ndim):
                raise TypingError(f"non-broadcastable operand for in-place {site.short()}")
            if out.dtype != target.dtype and not np.can_cast(out.dtype.np, target.dtype.np, "same_kind"):
                raise TypingError(f"Cannot cast ufunc '{spec.ufunc.__name__}' output from dtype('{out.dtype}') to "
                                  f"dtype('{target.dtype}') with casting rule 'same_kind'")
            return target
        return out

    return infer


def python_not(site: Site) -> Type:
    (t,) = site.args
    if isinstance(t, ArrayT):
        raise TypingError("the truth value of an array is ambiguous; use np.logical_not")
    return BOOL


def declare(reg: Registry) -> None:
    for key, (uf, cpp, py) in _BINARY.items():
        spec = Ufunc(uf, cpp, py, 2)
        reg.add(Operator(key, Family.ELEMENTWISE, getattr(operator, key.split(".")[1]), infer_ufunc(spec, key, True),
                         None, elementwise=spec, variants=ELEMENTWISE_VARIANTS))
        if key.split(".")[1] not in ("eq", "ne", "lt", "le", "gt", "ge"):
            ikey = "operator.i" + key.split(".")[1].rstrip("_")
            reg.add(Operator(ikey, Family.ELEMENTWISE, getattr(operator, ikey.split(".")[1]), infer_inplace(spec, ikey),
                             None, elementwise=spec, variants=ELEMENTWISE_VARIANTS))
    from everypath.variants.ops.linalg import PRODUCT_VARIANTS

    reg.add(Operator("operator.matmul", Family.LINALG, operator.matmul, _matmul_infer(), _matmul_lower,
                     PRODUCT_VARIANTS))
    reg.add(Operator("operator.imatmul", Family.LINALG, operator.imatmul, _matmul_infer(), _matmul_lower,
                     PRODUCT_VARIANTS))
    for key, (uf, cpp, py) in _OPERATOR_UNARY.items():
        spec = Ufunc(uf, cpp, py, 1)
        reg.add(Operator(key, Family.ELEMENTWISE, getattr(operator, key.split(".")[1]), infer_ufunc(spec, key, True),
                         None, elementwise=spec, variants=ELEMENTWISE_VARIANTS))
    reg.add(Operator("operator.not_", Family.ELEMENTWISE, operator.not_, python_not, None,
                     elementwise=Ufunc(np.logical_not, "logical_not", "not_", 1), variants=ELEMENTWISE_VARIANTS))
    for name, (uf, cpp) in _NUMPY_BINARY.items():
        spec = Ufunc(uf, cpp, None, 2)
        reg.add(Operator(f"numpy.{name}", Family.ELEMENTWISE, uf, infer_ufunc(spec, name, False), None, elementwise=spec, variants=ELEMENTWISE_VARIANTS))
    for name, cpp in _NUMPY_UNARY.items():
        uf = getattr(np, name)
        spec = Ufunc(uf, cpp, None, 1)
        reg.add(Operator(f"numpy.{name}", Family.ELEMENTWISE, uf, infer_ufunc(spec, name, False), None, elementwise=spec, variants=ELEMENTWISE_VARIANTS))


def _matmul_infer():
    def infer(site: Site) -> Type:  # resolved lazily: linalg is its own family module
        from everypath.variants.ops.linalg import matmul_type

        return matmul_type(site)

    return infer


def _matmul_lower(ls):  # type: ignore[no-untyped-def]
    from everypath.variants.ops.linalg import matmul_lower

    return matmul_lower(ls)


__all__ = ["Ufunc", "declare", "loop_dtypes", "operand_dtype", "INT", "FLOAT"]

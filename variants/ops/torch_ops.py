"""torch element-wise functions and reductions on tensors.

Element-wise functions (and Python operators on tensors, which call them: see _torch.torch_key) join
the fused element-wise loops: their ``Ufunc`` has no NumPy ufunc, so the emitter casts every operand to
the result dtype torch picked (torch computes in that dtype too) and calls ``ep::sc::<cpp>``.
Comparisons and abs compute in a dtype other than their result's; a small stand-in answers
``resolve_dtypes`` for them the way a ufunc would, from torch itself. Functions with keyword
parameters (clamp) are lowered on their own (ep::tch::map, torch's broadcast error).

Reductions (torch.sum/mean/amax/amin and their methods) take ``dim`` (an int or a tuple) and
``keepdim`` as compile-time constants and always give a tensor (0-d when every dim is reduced); the
NumPy kernels of reduce.hpp do the arithmetic, torch's checks come first (variants/include/everypath/
ops/torch_tensor.hpp).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from everypath.base.types import ArrayT, DType, ScalarT, Type
from everypath.variants.ops._torch import (
    OPS, Ref, bind, const_dim, cpp_bool, need_tensor, replay, torch, torch_dtype,
)
from everypath.variants.ops.elementwise import ELEMENTWISE_VARIANTS, Ufunc
from everypath.variants.ops.reductions import array_expr, mask_of
from everypath.variants.registry import Family, LowerSite, Operator, Registry, Site, TypingError, Variant

# the fused element-wise loops' paths (lowering.emit_values.elementwise_paths): loops with torch's scalar
# functions, simd where the expression has a batch form (float32/float64; lowering/simd_body.py), threads
ELEMENTWISE = (Variant("loops", OPS.header, cost_hint="fused loop with torch's scalar functions"),
               *(v for v in ELEMENTWISE_VARIANTS if v.path in ("simd", "threads")))

# key -> (C++ scalar function, number of tensor/number operands, keyword arguments accepted with these values)
_BINARY: dict[str, tuple[str, tuple[str, ...], dict[str, Any]]] = {
    "torch.add": ("add", ("input", "other", "alpha"), {"alpha": 1}),
    "torch.sub": ("sub", ("input", "other", "alpha"), {"alpha": 1}),
    "torch.mul": ("mul", ("input", "other"), {}),
    "torch.div": ("truediv", ("input", "other", "rounding_mode"), {"rounding_mode": None}),
    "torch.floor_divide": ("torch_floordiv", ("input", "other"), {}),
    "torch.remainder": ("torch_mod", ("input", "other"), {}),
    "torch.pow": ("torch_pow", ("input", "exponent"), {}),
    "torch.maximum": ("torch_max", ("input", "other"), {}),
    "torch.minimum": ("torch_min", ("input", "other"), {}),
    "torch.bitwise_and": ("band", ("input", "other"), {}),
    "torch.bitwise_or": ("bor", ("input", "other"), {}),
    "torch.bitwise_xor": ("bxor", ("input", "other"), {}),
    "torch.bitwise_left_shift": ("lshift", ("input", "other"), {}),
    "torch.bitwise_right_shift": ("rshift", ("input", "other"), {}),
}
_COMPARE = ("eq", "ne", "lt", "le", "gt", "ge")
_UNARY: dict[str, str] = {
    "neg": "negative", "positive": "positive", "bitwise_not": "invert", "exp": "exp", "exp2": "exp2",
    "expm1": "expm1", "log": "log", "log2": "log2", "log10": "log10", "log1p": "log1p", "sqrt": "sqrt",
    "sin": "sin", "cos": "cos", "tan": "tan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "floor": "floor",
    "ceil": "ceil", "trunc": "trunc", "round": "rint", "square": "square", "reciprocal": "reciprocal",
    "sign": "sign", "relu": "torch_relu", "sigmoid": "torch_sigmoid",
}
_ALIASES: dict[str, tuple[str, ...]] = {
    "torch.sub": ("torch.subtract",), "torch.mul": ("torch.multiply",),
    "torch.div": ("torch.divide", "torch.true_divide"), "torch.neg": ("torch.negative",),
    "torch.abs": ("torch.absolute",), "torch.sigmoid": ("torch.nn.functional.sigmoid",),
    "torch.tanh": ("torch.nn.functional.tanh",), "torch.clamp": ("torch.clip",),
}


class TorchLoop:
    """Stands for a ufunc where the loop dtype is not the result dtype (comparisons, abs): answers
    ``resolve_dtypes`` as NumPy would, from torch (variants.ops.elementwise.loop_dtypes calls it)."""

    def __init__(self, path: str, compare: bool) -> None:
        self.ref, self.compare, self.__name__ = Ref(path), compare, path.split(".")[-1]

    def resolve_dtypes(self, dtypes: tuple[Any, ...]) -> tuple[np.dtype, ...]:
        t = torch()
        vals = [d(1) if isinstance(d, type) else t.ones(1, dtype=torch_dtype(DType.of(d))) for d in dtypes[:-1]]
        out = np.dtype(str(self.ref(*vals).dtype).removeprefix("torch."))
        if self.compare:
            common = np.dtype(str(t.result_type(*vals)).removeprefix("torch."))
            return common, common, out
        return (np.dtype(str(vals[0].dtype).removeprefix("torch.")), out)


def _keys(key: str) -> tuple[str, ...]:
    """Aliases of a torch function: tensor methods of the same name, other spellings."""
    name = key.split(".")[-1]
    return (*_ALIASES.get(key, ()), f"tensor.{name}")


def elementwise_infer(key: str, names: tuple[str, ...], nin: int, fixed: dict[str, Any]):
    ref = Ref(key)

    def infer(site: Site) -> Type:
        fname = key.replace("torch.nn.functional.", "F.")
        b = bind(site, names, fname)
        if len(site.node.args) != nin:
            raise TypingError(f"{fname}() takes {nin} positional argument{'s' * (nin > 1)} here; pass "
                              f"{', '.join(names[nin:]) or 'nothing else'} by keyword")
        for k in site.node.kwargs:
            if k not in fixed:
                raise TypingError(f"{fname}(): operand '{k}' must be passed positionally")
            if b.const(k) != fixed[k]:
                raise TypingError(f"{fname}(): {k}={b.const(k)!r} is not supported (only {k}={fixed[k]!r})")
        for t in site.args:
            if not isinstance(t, (ArrayT, ScalarT)):
                raise TypingError(f"{fname}(): unsupported operand {t}")
        return replay(b, ref)

    return infer


def clamp_infer(site: Site) -> Type:
    b = bind(site, ("input", "min", "max"), "torch.clamp")
    need_tensor(b.type("input"), "clamp")
    return replay(b, Ref("torch.clamp"))


def clamp_lower(ls: LowerSite) -> str:
    b = bind(ls, ("input", "min", "max"), "torch.clamp")
    r = ls.result
    R = r.dtype.cpp  # type: ignore[union-attr]
    ops = [b.expr("input")]
    bounds = [n for n in ("min", "max") if b.has(n) and not _is_none(b.type(n))]
    ops += [b.expr(n) for n in bounds]
    params = ", ".join(f"auto v{i}" for i in range(len(ops)))
    cast = [f"static_cast<{R}>(v{i})" for i in range(len(ops))]
    fn = {("min", "max"): "torch_clamp", ("min",): "torch_clamp_min", ("max",): "torch_clamp_max"}[tuple(bounds)]
    return f"ep::tch::map<{R}, {r.ndim}>([&]({params}) {{ return ep::sc::{fn}<{R}>({', '.join(cast)}); }}, " \
           f"{', '.join(ops)})"  # type: ignore[union-attr]


def _is_none(t: Type | None) -> bool:
    return t is None or type(t).__name__ == "NoneT"


# ---- reductions ----------------------------------------------------------------------------------
_RED_NAMES = {"sum": ("input", "dim", "keepdim", "dtype"), "mean": ("input", "dim", "keepdim", "dtype"),
              "amax": ("input", "dim", "keepdim"), "amin": ("input", "dim", "keepdim")}


def _reduction(name: str, site: Site | LowerSite) -> tuple[Any, ArrayT, tuple[int, ...], bool, bool]:
    """(bound call, input, reduced dims, keepdim, whether dims were named)."""
    b = bind(site, _RED_NAMES[name], f"torch.{name}")
    x = need_tensor(b.type("input"), name)
    dims = const_dim(b, "dim", x.ndim)
    dims = () if dims is None else (dims if isinstance(dims, tuple) else (dims,))
    if len(set(dims)) != len(dims):
        raise TypingError(f"dim {next(d for d in dims if dims.count(d) > 1)} appears multiple times in the list of dims")
    given = bool(dims)
    if x.ndim == 0 or not dims:
        dims = tuple(range(x.ndim))  # dim=None or (): every dim
    keep = b.const("keepdim", False)
    if not isinstance(keep, bool):
        raise TypingError(f"{name}(): argument 'keepdim' must be bool, not {type(keep).__name__}")
    return b, x, tuple(sorted(dims)), keep, given


def reduction_infer(name: str):
    ref = Ref(f"torch.{name}")

    def infer(site: Site) -> Type:
        _reduction(name, site)
        return replay(bind(site, _RED_NAMES[name], f"torch.{name}"), ref)

    return infer


def reduction_lower(name: str):
    def lower(ls: LowerSite) -> str:
        b, x, dims, keep, given = _reduction(name, ls)
        R = ls.result.dtype.cpp  # type: ignore[union-attr]
        return (f"ep::tch::{name}<{R}, {mask_of(dims)}u, {cpp_bool(keep)}, {cpp_bool(given)}>"
                f"({array_expr(x, b.expr('input'))})")

    return lower


def declare(reg: Registry) -> None:
    E = Family.ELEMENTWISE
    for key, (cpp, names, fixed) in _BINARY.items():
        reg.add(Operator(key, E, Ref(key), elementwise_infer(key, names, 2, fixed), None, ELEMENTWISE,
                         elementwise=Ufunc(None, cpp, None, 2), aliases=_keys(key)))
    for name in _COMPARE:
        key = f"torch.{name}"
        reg.add(Operator(key, E, Ref(key), elementwise_infer(key, ("input", "other"), 2, {}), None, ELEMENTWISE,
                         elementwise=Ufunc(TorchLoop(key, True), name, None, 2), aliases=_keys(key)))
    for name, cpp in _UNARY.items():
        key = f"torch.{name}"
        reg.add(Operator(key, E, Ref(key), elementwise_infer(key, ("input",), 1, {}), None, ELEMENTWISE,
                         elementwise=Ufunc(None, cpp, None, 1), aliases=_keys(key)))
    reg.add(Operator("torch.abs", E, Ref("torch.abs"), elementwise_infer("torch.abs", ("input",), 1, {}), None, ELEMENTWISE,
                     elementwise=Ufunc(TorchLoop("torch.abs", False), "absolute", None, 1), aliases=_keys("torch.abs")))
    reg.add(Operator("torch.where", E, Ref("torch.where"),
                     elementwise_infer("torch.where", ("condition", "input", "other"), 3, {}), None, ELEMENTWISE,
                     elementwise=Ufunc(None, "where", None, 3), aliases=("tensor.where",)))
    for name in ("relu", "silu", "hardswish"):  # F.relu(x, inplace=False), F.silu, F.hardswish
        key = f"torch.nn.functional.{name}"
        reg.add(Operator(key, E, Ref(key), elementwise_infer(key, ("input", "inplace"), 1, {"inplace": False}),
                         None, ELEMENTWISE, elementwise=Ufunc(None, f"torch_{name}", None, 1)))
    reg.add(Operator("torch.clamp", E, Ref("torch.clamp"), clamp_infer, clamp_lower, (OPS,),
                     aliases=_keys("torch.clamp") + ("tensor.clip",)))
    for name in _RED_NAMES:
        reg.add(Operator(f"torch.{name}", Family.REDUCTION, Ref(f"torch.{name}"), reduction_infer(name),
                         reduction_lower(name), (OPS,), aliases=(f"tensor.{name}",)))


__all__ = ["declare", "TorchLoop", "elementwise_infer"]

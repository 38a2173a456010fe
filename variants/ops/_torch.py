"""What the torch operator families share (torch_ops, torch_shape, torch_nn, torch_conv).

Typing asks torch itself, as variants/probe.py asks NumPy: the call is replayed on tiny tensors of the
operands' dtypes and ranks (constants as themselves), and the result's dtype and rank are read back, so
torch's promotion rules (float32 tensor + Python float stays float32, int / int is float32, sums of
int32 are int64, 0-d tensors weigh like scalars) are torch's own. torch's error for the probe is the
typing error. torch is imported on first use only: a program that calls torch has imported it already.

Calls on tensors are resolved here too (torch_key): ``x.sum()`` is ``tensor.sum``, ``x + y`` is
``torch.add``; NumPy functions are refused on tensors rather than typed by NumPy's rules.
"""
from __future__ import annotations

import functools
from typing import Any, Callable

from everypath.base.types import (
    ArrayT, DType, DTypeT, ListT, NoneT, ScalarT, StrT, TupleT, Type, PY_SCALAR_DTYPE,
)
from everypath.tracer.ir import Opcode
from everypath.variants.ops.reductions import Bound
from everypath.variants.registry import LowerSite, Site, TypingError, Variant

OPS = Variant("loops", "everypath/ops/torch_ops.hpp", cost_hint="torch semantics on everypath arrays")
NN = Variant("loops", "everypath/ops/torch_nn.hpp", cost_hint="torch.nn.functional kernels")

# Python operators on tensors -> the torch function they call (in-place operators keep NumPy's in-place
# loop: the target's dtype is fixed either way)
OPERATORS = {
    "operator.add": "torch.add", "operator.sub": "torch.sub", "operator.mul": "torch.mul",
    "operator.truediv": "torch.div", "operator.floordiv": "torch.floor_divide", "operator.mod": "torch.remainder",
    "operator.pow": "torch.pow", "operator.and_": "torch.bitwise_and", "operator.or_": "torch.bitwise_or",
    "operator.xor": "torch.bitwise_xor", "operator.lshift": "torch.bitwise_left_shift",
    "operator.rshift": "torch.bitwise_right_shift", "operator.eq": "torch.eq", "operator.ne": "torch.ne",
    "operator.lt": "torch.lt", "operator.le": "torch.le", "operator.gt": "torch.gt", "operator.ge": "torch.ge",
    "operator.neg": "torch.neg", "operator.pos": "torch.positive", "operator.invert": "torch.bitwise_not",
    "operator.matmul": "torch.matmul", "builtins.abs": "torch.abs",
}


@functools.cache
def torch() -> Any:
    import torch as t

    return t


class Ref:
    """A torch callable named by its path, resolved on first use (declaring operators must not import torch)."""

    def __init__(self, path: str) -> None:
        self.path = path

    def resolve(self) -> Callable[..., Any]:
        obj: Any = torch()
        for part in self.path.split(".")[1:]:
            obj = getattr(obj, part)
        return obj

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.resolve()(*args, **kwargs)

    def __repr__(self) -> str:
        return self.path


def torch_key(key: str, arg_types: list[Type]) -> str:
    """The operator key of a call with a tensor among its operands."""
    if key.startswith("method.") and isinstance(arg_types[0], ArrayT) and arg_types[0].torch:
        return "tensor." + key.split(".", 1)[1]
    if key.startswith("operator.i") and key not in OPERATORS and not isinstance(arg_types[0], ArrayT):
        name = key.split(".")[1][1:]  # x = 1; x += t: not in place, x becomes a tensor
        return OPERATORS.get(f"operator.{name}", OPERATORS.get(f"operator.{name}_", key))
    if key.startswith(("numpy.", "ndarray.")):
        fn = key.split(".", 1)[1]
        raise TypingError(f"np.{fn}() on a torch.Tensor: torch's rules apply to tensors, so call the torch "
                          f"function (torch.{fn}, or x.{fn}()), or convert with x.numpy() first")
    return OPERATORS.get(key, key)


def is_tensor(t: Type | None) -> bool:
    return isinstance(t, ArrayT) and t.torch


def tensor_t(dtype: DType, ndim: int) -> ArrayT:
    return ArrayT(dtype, ndim, torch=True)


def torch_dtype(dt: DType) -> Any:
    return getattr(torch(), dt.np_name)


def dtype_of(td: Any) -> DType:
    try:
        return DType.of(str(td).removeprefix("torch."))
    except (TypeError, ValueError):
        raise TypingError(f"dtype {td} is not supported (it has no NumPy equivalent)") from None


def sample(t: Type | None, const: Any = ..., shape: tuple[int, ...] | None = None) -> Any:
    """A tiny real value standing for a value of type t (the constant itself when known)."""
    if const is not ...:
        return const
    if isinstance(t, ArrayT):
        shp = (1,) * t.ndim if shape is None else shape
        if t.torch:
            return torch().ones(shp, dtype=torch_dtype(t.dtype))
        import numpy as np

        return np.ones(shp, dtype=t.dtype.np)
    if isinstance(t, ScalarT):
        if t.weak:
            return {DType.BOOL: True, DType.INT64: 1, DType.FLOAT64: 1.0, DType.COMPLEX128: 1 + 0j}[t.dtype]
        return t.dtype.np.type(1)
    if isinstance(t, TupleT):
        return tuple(sample(i) for i in t.items)
    if isinstance(t, ListT):
        return [] if t.elem is None else [sample(t.elem), sample(t.elem)]
    if isinstance(t, NoneT):
        return None
    if isinstance(t, DTypeT):
        return torch_dtype(t.dtype)
    if isinstance(t, StrT):
        return ""
    raise TypingError(f"unsupported argument of type {t}")


def result_type(v: Any) -> Type:
    """The compile-time type of what a torch call returned."""
    t = torch()
    if isinstance(v, t.Tensor):
        return tensor_t(dtype_of(v.dtype), v.dim())
    if isinstance(v, (bool, int, float, complex)):
        return ScalarT(PY_SCALAR_DTYPE[type(v)], weak=True)
    if isinstance(v, tuple):  # torch.Size too
        return TupleT(tuple(result_type(i) for i in v))
    from everypath.variants.probe import type_of_result

    return type_of_result(v)


def probe_call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Type:
    """Call torch on sample values; torch's own error (first line) becomes the typing error."""
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = fn(*args, **kwargs)
    except TypingError:
        raise
    except Exception as exc:  # noqa: BLE001 - torch's message is the most helpful one we can give
        raise TypingError(str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__) from None
    return result_type(value)


def const_of(site: Site | LowerSite, where: int | str) -> Any:
    """The constant value of an argument, or ... when it is computed at run time."""
    node = site.node.args[where] if isinstance(where, int) else site.node.kwargs[where]
    return node.target if node.op is Opcode.CONST else ...


def bind(site: Site | LowerSite, names: tuple[str, ...], fname: str) -> Bound:
    return Bound(site, names, fname)


def replay(b: Bound, fn: Callable[..., Any], shapes: dict[str, tuple[int, ...]] | None = None,
           values: dict[str, Any] | None = None) -> Type:
    """Type a bound call by making it on samples: positional arguments stay positional."""
    shapes, values = shapes or {}, values or {}
    pos: list[tuple[int, Any]] = []
    kw: dict[str, Any] = {}
    for name, where in b.where.items():
        v = values[name] if name in values else sample(b.type(name), const_of(b.site, where), shapes.get(name))
        if isinstance(where, int):
            pos.append((where, v))
        else:
            kw[name] = v
    return probe_call(fn, *(v for _, v in sorted(pos, key=lambda p: p[0])), **kw)


def need_tensor(t: Type | None, fname: str, what: str = "input") -> ArrayT:
    if not is_tensor(t):
        raise TypingError(f"{fname}(): argument '{what}' must be Tensor, not {t}")
    return t  # type: ignore[return-value]


def const_dim(b: Bound, name: str, ndim: int, default: Any = None) -> Any:
    """A dim argument (an int, or a tuple of ints) as a compile-time constant, normalised like torch."""
    if not b.has(name):
        return default
    v = b.const(name)
    if v is None:
        return None
    items = v if isinstance(v, (tuple, list)) else (v,)
    out = []
    rng = max(ndim, 1)  # torch wraps dims of 0-d tensors as if they had one
    for d in items:
        if isinstance(d, bool) or not isinstance(d, int):
            raise TypingError(f"argument '{name}' must be an int or a tuple of ints, got {d!r}")
        if not -rng <= d < rng:
            raise TypingError(f"Dimension out of range (expected to be in range of [{-rng}, {rng - 1}], but got {d})")
        out.append(d % rng)
    return tuple(out) if isinstance(v, (tuple, list)) else out[0]


def cpp_bool(v: bool) -> str:
    return "true" if v else "false"


__all__ = ["OPS", "NN", "OPERATORS", "Ref", "torch", "torch_key", "is_tensor", "tensor_t", "torch_dtype", "dtype_of",
           "sample", "result_type", "probe_call", "replay", "bind", "const_of", "need_tensor", "const_dim", "cpp_bool"]

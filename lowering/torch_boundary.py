"""torch.Tensor arguments and results at the boundary of a compiled function.

Inside compiled code a tensor is an array marked as a torch tensor (lowering.types.ArrayT.torch). At
the boundary a CPU, strided tensor that does not require grad crosses as the NumPy view
``tensor.numpy()`` (same memory: in-place updates are seen by the caller), and results typed as
tensors come back through ``torch.from_numpy`` (same memory again; a result that is an argument
itself comes back as that very tensor object). Tensors autograd tracks, tensors on another device and
dtypes NumPy lacks (bfloat16, float16 here, quantized) are refused with a TypeError naming the
parameter, before anything is compiled.

Fused element-wise loops are shared with NumPy code and report NumPy's broadcasting ValueError;
for a function on tensors it is re-raised as the RuntimeError torch gives for the same shapes.
"""
from __future__ import annotations

import re
import sys
from typing import Any, Callable

_BROADCAST = "operands could not be broadcast together with shapes "


def check_arguments(fname: str, names: list[str], values: tuple[Any, ...]) -> None:
    """TypeError (naming the parameter) for any tensor argument that cannot cross as a NumPy view."""
    torch = sys.modules.get("torch")
    if torch is None:
        return
    for name, value in zip(names, values):
        _check(torch, fname, name, value)


def _check(torch: Any, fname: str, label: str, v: Any) -> None:
    if isinstance(v, tuple):
        for i, item in enumerate(v):
            _check(torch, fname, f"{label}[{i}]", item)
        return
    if not isinstance(v, torch.Tensor):
        return
    where = f"{fname}() argument '{label}'"
    if v.requires_grad:
        raise TypeError(f"{where}: the tensor requires grad, and autograd cannot follow compiled code; "
                        "pass x.detach() (or create it under torch.no_grad())")
    if v.device.type != "cpu":
        raise TypeError(f"{where}: the tensor is on device '{v.device}'; compiled code runs on the CPU: pass x.cpu()")
    if v.layout is not torch.strided:
        raise TypeError(f"{where}: {v.layout} tensors are not supported; pass x.to_dense()")
    from everypath.base.annotations import describe_value_type

    if describe_value_type(v) is None:
        raise TypeError(f"{where}: dtype {v.dtype} has no NumPy equivalent everypath supports; "
                        "convert it (x.float(), x.double(), ...)")


def has_tensor(desc: dict[str, Any]) -> bool:
    """Whether a signature type descriptor (lowering.signature.type_descriptor) holds a torch tensor."""
    if desc["kind"] == "array":
        return bool(desc.get("torch"))
    if desc["kind"] == "tuple":
        return any(has_tensor(i) for i in desc["items"])
    return False


def wrap(native: Callable[..., Any], sig: dict[str, Any]) -> Callable[..., Any]:
    """The native entry point taking and returning tensors where the signature has them."""
    params = sig["params"]
    if not any(has_tensor(p["type"]) for p in params) and not has_tensor(sig["result"]):
        return native
    import numpy as np
    import torch

    by_name = {p["name"]: p["type"] for p in params}

    def to_numpy(v: Any, desc: dict[str, Any], seen: dict[int, Any]) -> Any:
        if desc["kind"] == "array" and desc.get("torch") and isinstance(v, torch.Tensor):
            a = v.resolve_conj().resolve_neg().numpy()  # a view unless the tensor is a lazy conj/neg view
            seen[id(a)] = v
            return a
        if desc["kind"] == "tuple" and isinstance(v, tuple) and len(v) == len(desc["items"]):
            return tuple(to_numpy(x, d, seen) for x, d in zip(v, desc["items"]))
        return v  # not a tensor: the runtime checks it against the signature

    def to_torch(v: Any, desc: dict[str, Any], seen: dict[int, Any]) -> Any:
        if desc["kind"] == "array" and desc.get("torch"):
            if id(v) in seen:
                return seen[id(v)]  # the argument itself: the same tensor object, as eager code returns it
            return torch.from_numpy(np.asarray(v))
        if desc["kind"] == "tuple":
            return tuple(to_torch(x, d, seen) for x, d in zip(v, desc["items"]))
        return v

    def call(*args: Any, **kwargs: Any) -> Any:
        seen: dict[int, Any] = {}
        args = tuple(to_numpy(a, params[i]["type"], seen) if i < len(params) else a for i, a in enumerate(args))
        kwargs = {k: to_numpy(v, by_name[k], seen) if k in by_name else v for k, v in kwargs.items()}
        try:
            out = native(*args, **kwargs)
        except ValueError as exc:
            if str(exc).startswith(_BROADCAST):
                raise RuntimeError(torch_broadcast_message(str(exc))) from None
            raise
        return to_torch(out, sig["result"], seen)

    return call


def torch_broadcast_message(numpy_message: str) -> str:
    """torch's wording for shapes NumPy could not broadcast: operands folded left to right as
    TensorIterator does, the first mismatch from the right reported (c10 infer_size)."""
    shapes = [tuple(int(d) for d in m.split(",") if d) for m in re.findall(r"\(([\d,]*)\)", numpy_message)]
    acc: tuple[int, ...] = shapes[0] if shapes else ()
    for s in shapes[1:]:
        n = max(len(acc), len(s))
        out = []
        for i in range(n - 1, -1, -1):
            k = n - 1 - i
            a = acc[len(acc) - 1 - k] if k < len(acc) else 1
            b = s[len(s) - 1 - k] if k < len(s) else 1
            if a != b and a != 1 and b != 1:
                return f"The size of tensor a ({a}) must match the size of tensor b ({b}) at non-singleton dimension {i}"
            out.append(b if a == 1 else a)
        acc = tuple(reversed(out))
    return numpy_message  # not a mismatch torch would see: keep NumPy's text


__all__ = ["check_arguments", "has_tensor", "wrap", "torch_broadcast_message"]

"""torch.Tensor arguments and results at the boundary of a compiled function.

Inside compiled code a tensor is an array marked as a torch tensor (lowering.types.ArrayT.torch). At
the boundary a CPU, strided tensor that does not require grad crosses as the NumPy view
``tensor.numpy()`` (same memory: in-place updates are seen by the caller), and results typed as
tensors come back through ``torch.from_numpy`` (same memory again; a result that is an argument
itself comes back as that very tensor object). Tensors autograd tracks, tensors on another device and
dtypes NumPy lacks (bfloat16, quantized) are refused with a TypeError naming the
parameter, before anything is compiled.

Fused element-wise loops are shared with NumPy code and report NumPy's broadcasting ValueError;
for a function on tensors it is re-raised as the RuntimeError torch gives for the same shapes.

The conversions are made in C by the runtime (lowering/runtime/tensors.cpp), and the dispatcher checks a
tensor's dtype and rank itself (lowering/calls.py key_spec 'T'), so a call on tensors costs about what one
on arrays does plus ``numpy()`` and ``from_numpy`` (a few µs, not the ~60 µs of doing it here per call);
this module keeps the refusals' wording (tensor_view, check_arguments) and torch's broadcast message.
"""
from __future__ import annotations

import re
import sys
from typing import Any, Callable

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


def tensor_view(fname: str, label: str, v: Any) -> Any:
    """The NumPy view a tensor argument crosses as, where ``tensor.numpy()`` refused it: the runtime
    (lowering/runtime/tensors.cpp) calls this, so the refusal is our TypeError naming the parameter,
    and a lazy conj/neg view crosses resolved."""
    import torch

    _check(torch, fname, label, v)
    return v.resolve_conj().resolve_neg().numpy()


def has_tensor(desc: dict[str, Any]) -> bool:
    """Whether a signature type descriptor (lowering.signature.type_descriptor) holds a torch tensor."""
    if desc["kind"] == "array":
        return bool(desc.get("torch"))
    if desc["kind"] == "tuple":
        return any(has_tensor(i) for i in desc["items"])
    return False


def wrap(native: Callable[..., Any], sig: dict[str, Any]) -> Callable[..., Any]:
    """The native entry point for a signature: the runtime Function itself, which converts tensors in C
    (tensors.cpp), so that the dispatcher calls it without Python; wrapped in Python where PIL images cross
    (lowering/pil_boundary.py). A runtime built before it did (a stale lowering/_runtime*.so) is refused for
    signatures with tensors rather than given arrays for tensors."""
    from everypath.lowering import _runtime

    if not getattr(_runtime, "TORCH_TENSORS", False) and \
            (any(has_tensor(p["type"]) for p in sig["params"]) or has_tensor(sig["result"])):
        raise ImportError("everypath.lowering._runtime predates torch.Tensor support: rebuild it "
                          "(python setup.py build_ext --inplace)")
    from everypath.lowering.pil_boundary import wrap as wrap_images  # PIL images: converted in Python

    return wrap_images(native, sig)


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


__all__ = ["check_arguments", "has_tensor", "tensor_view", "wrap", "torch_broadcast_message"]

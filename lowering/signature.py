"""The signature descriptor handed to the runtime module (see lowering/runtime/, the pybind11 module)."""
from __future__ import annotations

from typing import Any

from everypath.base.annotations import annotation_text
from everypath.lowering.infer import TypedFunction
from everypath.base.types import ArrayT, ListT, NoneT, ScalarT, TupleT, Type


def type_descriptor(t: Type) -> dict[str, Any]:
    if isinstance(t, ScalarT):
        return {"kind": "scalar", "dtype": t.dtype.np_name, "py": t.weak}
    if isinstance(t, ArrayT):
        return {"kind": "array", "dtype": t.dtype.np_name, "ndim": t.ndim, **({"torch": True} if t.torch else {})}
    if isinstance(t, TupleT):
        return {"kind": "tuple", "items": [type_descriptor(i) for i in t.items]}
    if isinstance(t, ListT):
        assert t.elem is not None
        return {"kind": "list", "elem": type_descriptor(t.elem)}
    if isinstance(t, NoneT):
        return {"kind": "none"}
    raise TypeError(f"{t} cannot cross the C ABI")


def _spelled(written: str | None, t: Type) -> str:
    """The annotation as the user wrote it, expanded when it is an alias (`Vec (np.ndarray[...])`)."""
    canonical = annotation_text(t)
    if not written or written == canonical:
        return canonical
    return f"{written} ({canonical})" if written.replace("numpy.", "np.") != canonical else written


def signature(spec: TypedFunction, mutated: set[str], annotations: dict[str, str]) -> dict[str, Any]:
    params = []
    for p, t in zip(spec.fn.params, spec.arg_types):
        d: dict[str, Any] = {
            "name": p.name, "type": type_descriptor(t), "annotation": _spelled(annotations.get(p.name), t),
            "mutated": p.name in mutated,
        }
        if p.has_default:
            d["default"] = p.default
        params.append(d)
    rt = spec.return_type if spec.return_type is not None else NoneT()
    return {"name": spec.fn.name, "params": params, "result": type_descriptor(rt)}

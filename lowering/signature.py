"""The signature descriptor handed to the runtime module (see lowering/runtime/, the pybind11 module)."""
from __future__ import annotations

from typing import Any

from everypath.base.annotations import annotation_text, literal_values
from everypath.base.types import (
    ArrayT, DictT, DTypeT, EnumT, GenT, ImageT, ListT, MaybeWeakT, NoneT, RecordT, ScalarT, SetT, StrT, TupleT, Type,
)
from everypath.lowering.infer import TypedFunction
from everypath.base.types import UnionT
from everypath.tracer.ir import Opcode


# How the runtime builds a record result (lowering/runtime/results.cpp): by default cls(*fields); a plain class
# without running __init__ again (object.__new__, then each attribute set, as copy.copy does); a pydantic model
# by cls(**fields), so that pydantic validates it.
_BUILD = {"class": {"build": "new"}, "pydantic": {"build": "keywords"}}


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
    if isinstance(t, DictT):
        assert t.key is not None and t.value is not None
        return {"kind": "dict", "key": type_descriptor(t.key), "value": type_descriptor(t.value)}
    if isinstance(t, SetT):
        assert t.elem is not None
        return {"kind": "set", "elem": type_descriptor(t.elem)}
    if isinstance(t, NoneT):
        return {"kind": "none"}
    if isinstance(t, StrT):
        return {"kind": "str"}
    if isinstance(t, EnumT):  # the member's index (lowering/unit.py maps IntEnum values), boxed back to the member
        return {"kind": "enum", "module": t.module, "qualname": t.qualname}
    if isinstance(t, RecordT):
        return {"kind": "record", "module": t.module, "qualname": t.qualname, "fields": list(t.fields),
                "items": [type_descriptor(i) for i in t.items], **_BUILD.get(t.kind, {}),
                **({} if t.frozen else {"shared": True})}  # a result's identity slot first (lowering/unit.py)
    if isinstance(t, ImageT):  # its array; lowering/pil_boundary.py converts (mode "": Image.fromarray infers it)
        return {**type_descriptor(t.array), "image": t.mode or ""}
    if isinstance(t, UnionT):  # a tag slot, then each member's slots (lowering/runtime/results.cpp)
        return {"kind": "union", "items": [type_descriptor(m) for m in t.members]}
    if isinstance(t, GenT):  # a lazy iterator of its items (lowering/runtime/generators.cpp)
        return {"kind": "generator", "item": type_descriptor(t.item)}
    raise TypeError(f"{t} cannot cross the C ABI")


def _allowed(ann: Any) -> list[Any] | None:
    """A Literal[...] parameter's values, which the runtime checks each call against (ValueError otherwise)."""
    values = literal_values(ann.obj) if ann is not None else None
    return list(values) if values is not None else None


def _spelled(written: str | None, t: Type) -> str:
    """The annotation as the user wrote it, expanded when it is an alias (`Vec (np.ndarray[...])`)."""
    canonical = annotation_text(t)
    if written and isinstance(t, UnionT):  # `int | None` as written (the canonical order is None | int)
        return written.replace("numpy.", "np.")
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
        allowed = _allowed(p.annotation)
        if allowed is not None:
            d["type"]["allowed"] = allowed
        if p.has_default:
            d["default"] = p.default
        params.append(d)
    rt = spec.return_type if spec.return_type is not None else NoneT()
    sig: dict[str, Any] = {"name": spec.fn.name, "params": params, "result": type_descriptor(rt)}
    if runs_briefly(spec):
        sig["release_gil"] = False  # absent: the runtime releases it
    return sig


def _small(t: Type | None) -> bool:
    """A value of a fixed, small size: copying or computing on it takes constant time."""
    if isinstance(t, TupleT):
        return all(_small(i) for i in t.items)
    return isinstance(t, (ScalarT, MaybeWeakT, NoneT, DTypeT))


def runs_briefly(spec: TypedFunction) -> bool:
    """Whether the entry's work is bounded whatever its inputs: straight-line code on scalars and single
    array elements (no loops, no calls into other functions, no whole-array operation). The runtime then
    keeps the GIL during the call: dropping and re-taking it costs more (~80 ns) than such a kernel runs,
    and no other thread could do anything useful meanwhile. Anything that may take long releases it."""
    for node in spec.fn.body.walk():
        if node.op in (Opcode.FOR, Opcode.LOOP, Opcode.CLOSURE):
            return False
        if node.op is Opcode.CALL:  # operators and library calls on scalars only; user functions may recurse
            if not isinstance(node.target, str) or not all(_small(spec.types.get(n)) for n in (node, *node.operands())):
                return False
        elif node.op is Opcode.GETITEM:  # one element, not a slice or a fancy index
            if not _small(spec.types.get(node)):
                return False
        elif node.op is Opcode.SETITEM:  # one element stored, not a slice or a mask
            if not all(_small(spec.types.get(n)) for n in node.args[1:]):
                return False
    return True

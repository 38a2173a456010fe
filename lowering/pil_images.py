"""PIL images inside compiled code: their typing rules and their C++ (docs/semantics.md, "Images (PIL)").

An image (base.types.ImageT) is in C++ the array ``np.asarray(img)`` gives. What compiled code may do with
one is what code written for PIL does before and after its NumPy work: read ``size``, ``width``, ``height``
and ``mode``; convert it with ``np.asarray`` / ``np.array`` (the NumPy operators then take the array); pass
it to helpers, hold it in tuples; make one with ``Image.fromarray(a[, mode])`` and return it. Anything else
(arithmetic, PIL methods such as ``img.convert``) is refused at its line: PIL's images have no arithmetic,
and PIL's methods are not compiled. The boundary (lowering/pil_boundary.py) turns images into arrays and
back.
"""
from __future__ import annotations

from typing import Any

from everypath.base.cpp import c_string, ctype
from everypath.base.errors import CompileError
from everypath.base.images import ImageError, fromarray, image_class
from everypath.base.types import INT, ArrayT, ImageT, NoneT, StrT, TupleT, Type
from everypath.tracer.ir import Node, Opcode
from everypath.variants.registry import LowerSite, Site, TypingError, lookup_operator

FROMARRAY = "PIL.Image.fromarray"
HEADER = "everypath/pil.hpp"
NOT_MINE = object()
# np.asarray(img) and friends: the registry's rule for the image's array (np.asarray is a view of it, as
# lowering/effects.py knows, so writing into it is refused at the call like the read-only array CPython gives)
CONVERTERS = frozenset({"numpy.asarray", "numpy.array", "numpy.asanyarray", "numpy.ascontiguousarray"})
_CARRIERS = frozenset({"ep.tuple", "ep.list", "ep.call"})  # calls that only hold or pass an image along
_ATTRIBUTES = ("size", "width", "height", "mode")


def _has_image(types: Any) -> bool:
    return any(isinstance(t, ImageT) for t in types)


def _mode_arg(n: Node) -> str | None:
    node = n.args[1] if len(n.args) > 1 else n.kwargs.get("mode")
    if node is None:
        return None
    if node.op is not Opcode.CONST or not isinstance(node.target, (str, type(None))):
        raise TypingError("Image.fromarray(): the mode must be a compile-time constant str (or None)")
    return node.target


# ---- typing ----------------------------------------------------------------------------------------
def call_type(spec: Any, n: Node, arg_types: list[Type], kw_types: dict[str, Type]) -> Any:
    """The type of a call that makes or takes an image (NOT_MINE for every other call)."""
    target = n.target
    if target == FROMARRAY:
        if not n.args or len(n.args) > 2 or set(n.kwargs) - {"mode"}:
            raise TypingError("Image.fromarray() takes the array and, optionally, the mode (fromarray(a, 'RGB'))")
        if not isinstance(arg_types[0], ArrayT) or arg_types[0].torch:
            raise TypingError(f"Image.fromarray() takes a NumPy array in compiled code, not {arg_types[0]}")
        try:
            return fromarray(arg_types[0], _mode_arg(n)).image
        except ImageError as exc:
            raise TypingError(str(exc)) from None
    if not _has_image((*arg_types, *kw_types.values())) or target in _CARRIERS:
        return NOT_MINE
    if target in CONVERTERS and isinstance(arg_types[0], ImageT) and not _has_image((*arg_types[1:], *kw_types.values())):
        spec.op_keys[n] = target
        img = arg_types[0]
        return lookup_operator(target).infer(Site(target, n, [img.array, *arg_types[1:]], kw_types))
    if target in ("operator.is_", "operator.is_not") and any(isinstance(t, NoneT) for t in arg_types):
        return NOT_MINE  # `img is None`: decided at compile time
    raise TypingError(_refusal(target))


def _refusal(target: Any) -> str:
    name = str(target)
    if name.startswith("method."):
        meth = name.split(".", 1)[1]
        known = hasattr(image_class(), meth)
        what = f"PIL.Image.Image.{meth}()" if known else f"'Image' object has no attribute '{meth}'; PIL.Image.Image.{meth}()"
        return (f"{what} is not supported in compiled code: call it before or after the compiled function, "
                "or compute on np.asarray(img)")
    shown = name.replace("numpy.", "np.").replace("operator.", "the operator ").replace("builtins.", "")
    return (f"{shown} of a PIL image is not supported in compiled code (a PIL image has no arithmetic): "
            "call np.asarray(img) first, or np.array(img) for a copy to write into")


def attribute_type(base: ImageT, name: str) -> Type:
    if name == "size":
        return TupleT((INT, INT))
    if name in ("width", "height"):
        return INT
    if name == "mode":
        if base.mode is None:
            raise TypingError("the mode of Image.fromarray(a) for a 3-d uint8 array depends on its channel count, "
                              "known at run time only: give the mode, Image.fromarray(a, 'RGB')")
        return StrT()
    cls = image_class()
    if cls is not None and not hasattr(cls, name):
        raise TypingError(f"'Image' object has no attribute '{name}'")
    raise TypingError(f"PIL.Image.Image.{name} is not supported in compiled code (only {', '.join(_ATTRIBUTES)})")


# ---- C++ ---------------------------------------------------------------------------------------------
def emit_call(fe: Any, n: Node) -> str | None:
    target = n.target
    if target == FROMARRAY:
        src = n.args[0]
        fa = fromarray(fe.ty(src), _mode_arg(n))
        fe.used_headers.add(HEADER)
        return (f"ep::pil::fromarray({fe.value(src)}, {fa.ok}u, {fa.value_error}u, {fa.share}u, "
                f"{c_string(fa.value_message)}, {c_string(fa.typestr)})")
    if target not in CONVERTERS or not n.args or not isinstance(fe.ty(n.args[0]), ImageT):
        return None
    op = lookup_operator(target)
    arg_types = [fe.ty(a) for a in n.args]
    arg_types[0] = arg_types[0].array
    site = LowerSite(
        key=target, node=n, args=[fe.value(a) for a in n.args], kwargs={k: fe.value(v) for k, v in n.kwargs.items()},
        arg_types=arg_types, kw_types={k: fe.ty(v) for k, v in n.kwargs.items()}, result=fe.ty(n),
        ctype=ctype, site=f"{n.loc.filename}:{n.loc.lineno}", never_negative=fe.bounds.never_negative,
    )
    return fe.lower_call(op, site)


def emit_attribute(base_t: Type, expr: str, name: str) -> str | None:
    if not isinstance(base_t, ImageT):
        return None
    width, height = f"static_cast<int64_t>(({expr}).shape[1])", f"static_cast<int64_t>(({expr}).shape[0])"
    if name == "size":
        return f"std::make_tuple({width}, {height})"
    if name == "mode":
        assert base_t.mode is not None
        return f"ep::Str({c_string(base_t.mode)})"
    return width if name == "width" else height


# ---- portable builds ---------------------------------------------------------------------------------
def _holds_image(t: Any) -> bool:
    return isinstance(t, ImageT) or (isinstance(t, TupleT) and any(_holds_image(i) for i in t.items))


def refuse_portable(spec: Any) -> None:
    """A portable target (export, bundle) has no PIL at run time to make or read images: located refusal."""
    for p, t in zip(spec.fn.params, spec.arg_types):
        if _holds_image(t):
            raise CompileError.at(p.loc, f"parameter '{p.name}' is a PIL image, which crosses only the Python "
                                         "runtime's boundary: for a portable build (export, bundle) take "
                                         "np.ndarray[...] and call it with np.asarray(img)",
                                  ("building for a portable target",))
    if _holds_image(spec.return_type):
        loc = spec.fn.returns.loc if spec.fn.returns is not None else spec.fn.loc
        raise CompileError.at(loc, f"{spec.fn.qualname} returns a PIL image, which crosses only the Python runtime's "
                                   "boundary: for a portable build (export, bundle) return the array and call "
                                   "Image.fromarray on it in Python", ("building for a portable target",))


__all__ = ["CONVERTERS", "FROMARRAY", "HEADER", "NOT_MINE", "attribute_type", "call_type", "emit_attribute",
           "emit_call", "refuse_portable"]

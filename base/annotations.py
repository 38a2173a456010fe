"""PEP 484 annotations -> compile-time types.

Annotations are evaluated (at compile time, in the function's own namespace)
to Python objects, then mapped here. Array ranks come from the shape tuple
(``np.ndarray[tuple[int, int], np.dtype[np.float64]]`` is 2-d); an open rank
(``npt.NDArray[np.float32]``) is completed from the call's arguments or by
sandboxed observation.
"""
from __future__ import annotations

import ast
import sys
import types
import typing
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from everypath.base.errors import CompileError, SourceLocation
from everypath.base.types import (
    BOOL, COMPLEX, FLOAT, INT, NONE, ArrayT, DType, ListT, ScalarT, StrT, TupleT, Type,
)


@dataclass(frozen=True)
class Annotation:
    """An evaluated annotation: the object, its source text and where it was written."""

    obj: Any
    text: str
    loc: SourceLocation


@dataclass(frozen=True)
class OpenArrayT:
    """An array whose rank the annotation leaves open; completed before inference."""

    dtype: DType | None  # None: dtype open too (npt.NDArray[Any])
    torch: bool = False  # annotated torch.Tensor: dtype and rank both come from the call

    def __str__(self) -> str:
        return "torch.Tensor" if self.torch else f"{self.dtype or '?'}[...]"


class _Namespace(dict):
    def __init__(self, lookup: Callable[[str], Any]) -> None:
        super().__init__()
        self._lookup = lookup

    def __missing__(self, key: str) -> Any:
        return self._lookup(key)


def evaluate_annotation(node: ast.AST | None, lookup: Callable[[str], Any], smap: Callable[[ast.AST], SourceLocation],
                        evaluated: Any = None) -> Annotation | None:
    """Evaluate an annotation expression at compile time (string annotations included).

    ``evaluated`` is the object Python itself already made (from ``__annotations__``),
    used when it is not a string."""
    if node is None:
        return None
    loc = smap(node)
    text = ast.unparse(node)
    if evaluated is not None and not isinstance(evaluated, str):
        return Annotation(evaluated, text, loc)
    expr: ast.AST = node
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value
        expr = ast.parse(node.value, mode="eval").body
    try:
        code = compile(ast.Expression(body=expr), loc.filename, "eval")  # type: ignore[arg-type]
        obj = eval(code, {"__builtins__": __builtins__}, _Namespace(lookup))  # noqa: S307 - user's own annotation
    except Exception as exc:
        raise CompileError.at(loc, f"cannot evaluate annotation '{text}': {exc}", ("reading annotations",)) from None
    return Annotation(obj, text, loc)


def _dtype_of(obj: Any, ann: Annotation) -> DType | None:
    if obj is typing.Any:
        return None
    origin = typing.get_origin(obj)
    if origin is np.dtype:
        (inner,) = typing.get_args(obj)
        return _dtype_of(inner, ann)
    try:
        return DType.of(obj)
    except (TypeError, ValueError):
        raise CompileError.at(ann.loc, f"unsupported array dtype in annotation '{ann.text}'", ("reading annotations",)) from None


def to_type(ann: Annotation, obj: Any = None) -> Type | OpenArrayT:
    obj = ann.obj if obj is None else obj
    simple = {int: INT, float: FLOAT, bool: BOOL, complex: COMPLEX, str: StrT(), None: NONE, type(None): NONE}
    if isinstance(obj, typing.Hashable) and obj in simple:
        return simple[obj]
    if isinstance(obj, type) and issubclass(obj, np.generic):
        try:
            return ScalarT(DType.of(obj))
        except ValueError:
            pass
    origin, args = typing.get_origin(obj), typing.get_args(obj)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            raise CompileError.at(ann.loc, f"variable-length tuple annotation '{ann.text}' is not supported; give each item",
                                  ("reading annotations",))
        return TupleT(tuple(_checked(to_type(ann, a), ann) for a in args))
    if origin is list and len(args) == 1:
        return ListT(_checked(to_type(ann, args[0]), ann))
    if origin is set and len(args) == 1:
        from everypath.base.types import SetT

        return SetT(_checked(to_type(ann, args[0]), ann))
    if origin is dict and len(args) == 2:
        from everypath.base.types import DictT

        return DictT(_checked(to_type(ann, args[0]), ann), _checked(to_type(ann, args[1]), ann))
    if obj is np.ndarray:
        return OpenArrayT(None)
    if obj is not None and obj is _torch_attr("Tensor"):
        return OpenArrayT(None, torch=True)
    if origin is np.ndarray:
        shape, dtype_ann = args if len(args) == 2 else (typing.Any, args[0] if args else typing.Any)
        dtype = _dtype_of(dtype_ann, ann)
        ndim = _rank_of(shape)
        if ndim is None or dtype is None:
            return OpenArrayT(dtype)
        return ArrayT(dtype, ndim)
    if isinstance(obj, types.UnionType) or origin is typing.Union:
        raise CompileError.at(ann.loc, f"union annotation '{ann.text}' is not supported; annotate one type",
                              ("reading annotations",))
    raise CompileError.at(ann.loc, f"unsupported annotation '{ann.text}'", ("reading annotations",))


def _rank_of(shape: Any) -> int | None:
    if shape is typing.Any:
        return None
    if typing.get_origin(shape) is tuple:
        args = typing.get_args(shape)
        if args == ((),) or args == ():
            return 0
        if len(args) == 2 and args[1] is Ellipsis:
            return None
        return len(args)
    return None


def _checked(t: Type | OpenArrayT, ann: Annotation) -> Type:
    if isinstance(t, OpenArrayT):
        raise CompileError.at(ann.loc, f"arrays of open rank inside '{ann.text}' are not supported", ("reading annotations",))
    return t


def describe_value_type(value: Any) -> Type | None:
    """The compile-time type of a concrete Python value (used to complete open annotations)."""
    if isinstance(value, np.generic):  # first: np.float64 subclasses float, np.complex128 complex
        try:
            return ScalarT(DType.of(value.dtype))
        except ValueError:
            return None
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        return INT
    if isinstance(value, float):
        return FLOAT
    if isinstance(value, complex):
        return COMPLEX
    if value is None:
        return NONE
    if isinstance(value, str):
        return StrT()
    tensor_t, dtype_t = _torch_attr("Tensor"), _torch_attr("dtype")
    if tensor_t is not None and isinstance(value, (tensor_t, dtype_t)):  # a tensor (crosses as a NumPy view), torch.float32
        from everypath.base.types import DTypeT

        is_dtype = isinstance(value, dtype_t)
        try:
            dt = DType.of(str(value if is_dtype else value.dtype).removeprefix("torch."))
        except (TypeError, ValueError):
            return None  # bfloat16, float16, quantized ...: no NumPy twin
        return DTypeT(dt) if is_dtype else ArrayT(dt, value.dim(), torch=True)
    if isinstance(value, np.ndarray):
        try:
            return ArrayT(DType.of(value.dtype), value.ndim)
        except ValueError:
            return None
    if isinstance(value, np.generic):
        try:
            return ScalarT(DType.of(value.dtype))
        except ValueError:
            return None
    if isinstance(value, tuple):
        items = tuple(describe_value_type(v) for v in value)
        return None if any(i is None for i in items) else TupleT(items)  # type: ignore[arg-type]
    return None


def annotation_text(t: Type) -> str:
    """How a type is spelled as a Python annotation, for error messages."""
    if isinstance(t, ArrayT) and t.torch:
        return "torch.Tensor"
    if isinstance(t, ArrayT):
        shape = "tuple[" + ", ".join(["int"] * t.ndim) + "]" if t.ndim else "tuple[()]"
        return f"np.ndarray[{shape}, np.dtype[np.{t.dtype}]]"
    if isinstance(t, TupleT):
        return "tuple[" + ", ".join(annotation_text(i) for i in t.items) + "]"
    return str(t)


def _torch_attr(name: str) -> Any:
    """torch.<name>, or None while the program has not imported torch (importing it here would cost every compile)."""
    torch = sys.modules.get("torch")
    return getattr(torch, name, None) if torch is not None else None

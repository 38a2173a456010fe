"""PEP 484 annotations -> compile-time types.

Annotations are evaluated (at compile time, in the function's own namespace)
to Python objects, then mapped here. Array ranks come from the shape tuple
(``np.ndarray[tuple[int, int], np.dtype[np.float64]]`` is 2-d); an open rank
(``npt.NDArray[np.float32]``) is completed from the call's arguments or by
sandboxed observation.
"""
from __future__ import annotations

import ast
import enum
import sys
import types
import typing
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from everypath.base.errors import CompileError, SourceLocation
from everypath.base.types import (
    BOOL, COMPLEX, FLOAT, INT, NONE, ArrayT, DType, ImageT, ListT, ScalarT, StrT, TupleT, Type,
)
from everypath.base.images import is_image_class


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
    image: bool = False  # annotated PIL.Image.Image: the argument's mode decides (base/images.py)

    def __str__(self) -> str:
        return "PIL.Image.Image" if self.image else "torch.Tensor" if self.torch else f"{self.dtype or '?'}[...]"


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


def literal_values(obj: Any) -> tuple[Any, ...] | None:
    """The values of a Literal[...] annotation (Annotated[...] around it seen through), else None."""
    if typing.get_origin(obj) is typing.Annotated:
        return literal_values(typing.get_args(obj)[0])
    if typing.get_origin(obj) is typing.Literal:
        out: list[Any] = []
        for a in typing.get_args(obj):  # Literal[Literal["a"], "b"] is flattened by typing already
            out.append(a)
        return tuple(out)
    return None


def _literal_type(ann: Annotation, values: tuple[Any, ...]) -> Type:
    kinds = {type(v) for v in values}
    if type(None) in kinds:
        raise CompileError.at(ann.loc, f"Literal with None in '{ann.text}' is not supported yet (a str-or-None "
                                       "parameter needs union types); give the literals only and a default",
                              ("reading annotations",))
    if len(kinds) != 1 or not kinds <= {str, int, bool}:
        raise CompileError.at(ann.loc, f"Literal values in '{ann.text}' must all be str, all int or all bool",
                              ("reading annotations",))
    return {str: StrT(), int: INT, bool: BOOL}[kinds.pop()]


def _class_type(ann: Annotation, cls: type) -> Type:
    """An enum or record class of the user's module as a parameter, field or result type."""
    from everypath.base import classes

    if classes.is_enum_class(cls):
        why = classes.enum_refusal(cls)
        if why:
            raise CompileError.at(ann.loc, why, ("reading annotations",))
        return classes.enum_type(cls)
    return record_type(cls, ann)


def record_type(cls: type, ann: Annotation) -> Type:
    """A @dataclass / NamedTuple class as a RecordT: its fields typed by their own annotations."""
    from everypath.base import classes
    from everypath.base.types import RecordT

    why = classes.record_refusal(cls)
    if why:
        raise CompileError.at(ann.loc, why, ("reading annotations",))
    try:
        info = classes.record_info(cls)
    except CompileError:  # located in the class itself (base/plain_classes.py: an attribute set on some paths)
        raise
    except Exception as exc:  # a field annotation that does not evaluate
        raise CompileError.at(ann.loc, f"cannot read the field annotations of '{cls.__qualname__}': {exc}",
                              ("reading annotations",)) from None
    items = []
    for name, field_ann in zip(info.fields, info.annotations):
        inner = Annotation(field_ann, f"{cls.__qualname__}.{name}: {getattr(field_ann, '__name__', field_ann)}", ann.loc)
        t = to_type(inner)
        if isinstance(t, OpenArrayT):
            raise CompileError.at(ann.loc, f"field '{name}' of '{cls.__qualname__}' is an array of open rank: give "
                                           "its rank (np.ndarray[tuple[int, int], np.dtype[np.float32]])",
                                  ("reading annotations",))
        items.append(t)
    module, qualname = classes.where(cls)
    return RecordT(module, qualname, info.fields, tuple(items), info.kind, info.frozen)


def to_type(ann: Annotation, obj: Any = None) -> Type | OpenArrayT:
    obj = ann.obj if obj is None else obj
    if typing.get_origin(obj) is typing.Annotated:  # the metadata is for tools: the compiler reads the type
        inner, *meta = typing.get_args(obj)
        if is_image_class(inner) and meta and isinstance(meta[0], str):  # Annotated[Image.Image, "RGB"]: that mode
            return _image_mode(ann, meta[0])
        return to_type(ann, inner)
    if is_image_class(obj):  # PIL.Image.Image: its array's dtype and rank follow from the argument's mode
        return OpenArrayT(None, image=True)
    values = literal_values(obj)
    if values is not None:
        return _literal_type(ann, values)
    from everypath.base import classes

    if classes.is_enum_class(obj) or classes.is_record_class(obj):
        return _class_type(ann, obj)
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
    if isinstance(obj, types.UnionType) or origin is typing.Union:  # `int | None`, Optional[str]: base/unions.py
        return _union_type(ann, args)
    raise CompileError.at(ann.loc, f"unsupported annotation '{ann.text}'", ("reading annotations",))


def _union_type(ann: Annotation, args: tuple[Any, ...]) -> Type:
    """A union annotation: each member as annotated, kept apart (`int | float` keeps an int an int, as CPython)."""
    from everypath.base import unions

    if any(literal_values(a) is not None for a in args):  # its values are checked per call for a plain parameter
        raise CompileError.at(ann.loc, f"Literal inside the union annotation '{ann.text}' is not supported yet; "
                                       "annotate the Literal alone and give it a default", ("reading annotations",))
    members = [_checked(to_type(ann, a), ann) for a in args]
    bad = [m for m in members if not unions.member_allowed(m)]
    if bad:
        raise CompileError.at(ann.loc, f"union annotation '{ann.text}': a union may hold scalars, str, None, tuples, "
                                       f"enums and records, not {bad[0]}", ("reading annotations",))
    if len(set(members)) > unions.MAX_MEMBERS:
        raise CompileError.at(ann.loc, f"union annotation '{ann.text}' has more than {unions.MAX_MEMBERS} members",
                              ("reading annotations",))
    return unions.make(members)


def _image_mode(ann: Annotation, mode: str) -> Type:
    from everypath.base.images import ImageError, mode_type

    try:
        return mode_type(mode)
    except ImageError as exc:
        raise CompileError.at(ann.loc, f"'{ann.text}': {exc}", ("reading annotations",)) from None


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
    if isinstance(t, OpenArrayT) and t.image:  # tuple[Image.Image, ...] results: each image's mode from the body
        return t  # type: ignore[return-value]
    if isinstance(t, OpenArrayT):
        raise CompileError.at(ann.loc, f"arrays of open rank inside '{ann.text}' are not supported", ("reading annotations",))
    return t


def describe_value_type(value: Any) -> Type | None:
    """The compile-time type of a concrete Python value (used to complete open annotations)."""
    from everypath.base import classes

    if isinstance(value, enum.Enum):  # first: an IntEnum member is an int, a StrEnum member a str
        cls = type(value)
        return classes.enum_type(cls) if classes.is_enum_class(cls) and classes.enum_refusal(cls) is None else None
    if classes.is_record_class(type(value)):
        try:
            return record_type(type(value), Annotation(type(value), type(value).__qualname__, SourceLocation("<value>", 0, 0)))
        except CompileError:
            return None
    if "PIL.Image" in sys.modules:  # a PIL image crosses as its array (base/images.py)
        from everypath.base.images import value_type

        image = value_type(value)
        if image is not None:
            return image
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
    if isinstance(t, ImageT):
        return "PIL.Image.Image" if t.mode is None else f"Annotated[PIL.Image.Image, {t.mode!r}]"
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

"""Which methods of the user's plain classes the call graph must trace (base/plain_classes.py).

The tracer cannot tell which class `b.area()` calls into (that is the typer's work, lowering/classes.py), so
after every reachable function is traced the walk adds, for each plain class the program names (in an
annotation, a construction, a field of such a class), its __init__ when it is constructed and each method,
property getter or staticmethod whose name the program calls or reads as an attribute. A method nobody uses
is never traced, so a __repr__ written for Python alone does not have to compile.
"""
from __future__ import annotations

import types
import typing
from dataclasses import dataclass
from typing import Any, Callable

from everypath.base.classes import is_class_record, resolve_class
from everypath.base.plain_classes import called_functions, class_info, class_refusal, is_plain_class
from everypath.tracer.ir import Function, FunctionRef, Opcode
from everypath.tracer.statics import Static, user_function_ref

NEW_PREFIX = "ep.record:"  # a record construction (tracer/frontend.py, lowering/records.py NEW)
OBJECT_IDENTITY = {"operator.is_": "ep.is_object", "operator.is_not": "ep.is_not_object"}  # `a is b`, no constant
_COMPARISONS = {"operator.eq": "__eq__", "operator.ne": "__eq__"}  # `a == b` on instances calls __eq__


@dataclass(frozen=True)
class BoundClassmethod:
    """`Box.from_xywh` (`cls.from_xywh` inside one, `b.from_xywh` on an instance): a classmethod with its class.
    It is traced as a function whose `cls` names the class itself, not a run-time parameter (subclasses are
    refused, so cls is always that class): `cls(...)` constructs a Box, `cls.UNIT` reads its constant."""

    cls: type
    fn: types.FunctionType

    @property
    def __name__(self) -> str:  # Static.describe: "BoundClassmethod Box.from_xywh cannot be used as a value"
        return f"{self.cls.__qualname__}.{self.fn.__name__}"


def classmethod_ref(cls: type, fn: types.FunctionType) -> FunctionRef:
    """The traced function of a classmethod: its first parameter bound to the class (tracer/frontend.py build_def)."""
    return user_function_ref(fn, ((fn.__code__.co_varnames[0], cls),))


def classmethod_call(builder: Any, bound: BoundClassmethod, args: list[Any], kwargs: dict[str, Any], e: Any) -> Any:
    ref = classmethod_ref(bound.cls, bound.fn)
    ref = builder.on_function(ref, bound.fn) or ref
    builder.note_call_site(ref, e)
    return builder.emit(Opcode.CALL, ref, tuple(args), builder.loc(e), kwargs)


def _classes_in(obj: Any, out: dict[type, None]) -> None:
    """The plain classes an annotation object names, and those their attributes' annotations name."""
    if isinstance(obj, type) and is_class_record(obj):
        if obj in out:
            return
        out[obj] = None
        if is_plain_class(obj):
            try:
                anns = class_info(obj).annotations
            except Exception:  # noqa: BLE001 - refused classes are reported, located, by the typer
                return
            for a in anns:
                _classes_in(a, out)
        return
    for arg in typing.get_args(obj):
        _classes_in(arg, out)


def _uses(fn: Function, classes: dict[type, None], built: set[type], names: set[str]) -> None:
    for p in fn.params:
        if p.annotation is not None:
            _classes_in(getattr(p.annotation, "obj", None), classes)
    if fn.returns is not None:
        _classes_in(getattr(fn.returns, "obj", None), classes)
    for n in fn.body.walk():
        if n.op is Opcode.CALL and isinstance(n.target, str):
            if n.target.startswith(NEW_PREFIX):
                module, qualname = n.target[len(NEW_PREFIX):].split(":", 1)
                cls = resolve_class(module, qualname)
                if cls is not None:
                    _classes_in(cls, classes)
                    built.add(cls)
            elif n.target.startswith("method."):
                names.add(n.target[len("method."):])
            elif n.target in _COMPARISONS:
                names.add(_COMPARISONS[n.target])
        elif n.op is Opcode.GETATTR and isinstance(n.target, str):
            names.add(n.target)
        elif n.op is Opcode.CLOSURE and isinstance(n.target, Function):  # `key=lambda b: b.width()`
            _uses(n.target, classes, built, names)


def add_methods(functions: dict[FunctionRef, Function],
                on_function: Callable[[FunctionRef, types.FunctionType], FunctionRef]) -> bool:
    """Hand the methods the traced program reaches to on_function; True when some were new."""
    classes: dict[type, None] = {}
    built: set[type] = set()
    names: set[str] = set()
    for fn in list(functions.values()):
        _uses(fn, classes, built, names)
    added = False
    for cls in classes:
        if not is_plain_class(cls) or class_refusal(cls) is not None:  # refused, located, by the typer
            continue
        for attr, f in called_functions(cls).items():
            if attr in names or (attr == "__init__" and cls in built):
                ref = classmethod_ref(cls, f) if isinstance(vars(cls)[attr], classmethod) else user_function_ref(f)
                if ref not in functions:
                    on_function(ref, f)
                    added = True
    return added


def class_attribute(builder: Any, cls: type, e: Any) -> Any:
    """`Box.SCALE` (a class constant), `Box.make` (a staticmethod) or `Box.area` (a method called with its
    instance) read from the class itself in compiled code."""
    from everypath.base.plain_classes import is_constant

    value = vars(cls)[e.attr]
    if isinstance(value, classmethod) and isinstance(value.__func__, types.FunctionType):
        if not value.__func__.__code__.co_argcount:
            raise builder.error(e, f"classmethod '{cls.__qualname__}.{e.attr}' takes no parameter for its class")
        return Static(BoundClassmethod(cls, value.__func__), None)
    if isinstance(value, staticmethod):
        value = value.__func__
    if isinstance(value, types.FunctionType):
        return builder.static_value(value, e)
    if is_constant(value):
        return builder.const(value, builder.loc(e))
    raise builder.error(e, f"class attribute '{cls.__qualname__}.{e.attr}' is a {type(value).__name__}: compiled code "
                           "reads class constants (int, float, bool, str, None and tuples of them), methods and "
                           "staticmethods")

"""Plain classes and pydantic models in compiled code: construction, methods, properties, class constants
and comparisons (docs/semantics.md, "Records"; the class's shape is base/plain_classes.py).

A plain class instance is a std::shared_ptr to its struct (a reference, as in Python: two names bound to one
instance see each other's stores). `Box(a, b)` makes a default-initialised struct and runs the class's own
`__init__`, compiled as a function taking the instance first; a method is such a function too (`b.area()` is
`Box.area(b)`), a property's getter likewise. A pydantic model is a struct of its fields built from the keyword
arguments; pydantic itself builds and validates the caller's instance (lowering/runtime/results.cpp).
"""
from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

from everypath.base.annotations import Annotation, record_type
from everypath.base.classes import resolve_class
from everypath.base.cpp import literal, struct_name
from everypath.base.plain_classes import Kind, is_constant, member
from everypath.base.types import BOOL, RecordT, Type
from everypath.tracer.class_methods import classmethod_ref
from everypath.tracer.ir import FunctionRef, Node
from everypath.variants.registry import TypingError

if TYPE_CHECKING:
    from everypath.lowering.emit import FunctionEmitter
    from everypath.lowering.infer import ProgramTyper, TypedFunction

NOT_MINE = object()
NEW = "ep.record:"  # lowering/records.py NEW: the tracer spells every record construction so
_IDENTITY = {"operator.is_": True, "operator.is_not": False, "ep.is_object": True, "ep.is_not_object": False}
_EQUALITY = {"operator.eq": True, "operator.ne": False}


def is_class(t: Any) -> bool:
    return isinstance(t, RecordT) and t.kind == Kind.PLAIN


def _cls(t: RecordT) -> type:
    cls = resolve_class(t.module, t.qualname)
    if cls is None:
        raise TypingError(f"class '{t.qualname}' is not defined in module '{t.module}'")
    return cls


def _function(typer: "ProgramTyper", fn: types.FunctionType, cls: type | None = None) -> Any:
    """The traced function of a method (of a classmethod of cls: its cls bound, tracer/class_methods.py)."""
    ref = classmethod_ref(cls, fn) if cls is not None else FunctionRef(fn.__module__, fn.__qualname__)
    traced = typer.functions.get(ref)
    if traced is None:  # tracer/class_methods.py traces every method the program names
        raise TypingError(f"method {fn.__qualname__} was not traced (an internal error: please report it)")
    return traced


def _new_class(n: Node) -> tuple[type, RecordT] | None:
    module, qualname = n.target[len(NEW):].split(":", 1)
    cls = resolve_class(module, qualname)
    if cls is None:
        return None
    t = record_type(cls, Annotation(cls, qualname, n.loc))
    return (cls, t) if isinstance(t, RecordT) and t.kind in (Kind.PLAIN, Kind.PYDANTIC) else None


# ---- typing ----------------------------------------------------------------------------------------
def call_type(typer: "ProgramTyper", spec: "TypedFunction", n: Node, arg_types: list[Type],
              kw_types: dict[str, Type]) -> Any:
    """The type of a call these rules own (NOT_MINE otherwise)."""
    target = n.target
    if not isinstance(target, str):
        return NOT_MINE
    if target.startswith(NEW):
        found = _new_class(n)
        if found is None:
            return NOT_MINE
        cls, t = found
        if t.kind == Kind.PYDANTIC:
            if arg_types:
                raise TypingError(f"{t.qualname}() takes keyword arguments only (pydantic BaseModel.__init__)")
            from everypath.lowering.records import construct_type

            return construct_type(n, arg_types, kw_types)
        typer._call_user(spec, n, _function(typer, vars(cls)["__init__"]), [t, *arg_types], kw_types)
        return t
    if target.startswith("method.") and arg_types and is_class(arg_types[0]):
        t = arg_types[0]
        name = target[len("method."):]
        value = member(_cls(t), name)  # type: ignore[arg-type]
        if isinstance(value, staticmethod):
            return typer._call_user(spec, n, _function(typer, value.__func__), arg_types[1:], kw_types)
        if isinstance(value, classmethod):  # b.from_xywh(...): the instance only names its class
            return typer._call_user(spec, n, _function(typer, value.__func__, _cls(t)), arg_types[1:], kw_types)
        if isinstance(value, types.FunctionType):
            return typer._call_user(spec, n, _function(typer, value), arg_types, kw_types)
        if name in t.fields or value is not None:  # type: ignore[union-attr]
            raise TypingError(f"'{t}.{name}' is not a method: calling it is not supported")
        raise TypingError(f"'{t}' object has no attribute '{name}'")
    if (target in _IDENTITY or target in _EQUALITY) and any(is_class(a) for a in arg_types):
        a, b = arg_types
        eq = member(_cls(a), "__eq__") if is_class(a) else None  # type: ignore[arg-type]
        if target in _EQUALITY and isinstance(eq, types.FunctionType) and a == b:
            result = typer._call_user(spec, n, _function(typer, eq), arg_types, {})
            if result != BOOL:
                raise TypingError(f"{a}.__eq__ returns {result} here: compiled code compares with an __eq__ that "
                                  "returns bool")
        return BOOL
    if target in ("ep.is_object", "ep.is_not_object"):  # tracer/class_methods.py OBJECT_IDENTITY
        raise TypingError(f"'is' / 'is not' are only supported against None and enum members, and between "
                          f"instances of the user's classes (here: {arg_types[0]} and {arg_types[1]})")
    return NOT_MINE


def attribute_type(typer: "ProgramTyper", spec: "TypedFunction", n: Node, t: RecordT) -> Any:
    """b.x (a field: lowering/records.py), b.area (a property), b.SCALE (a class constant); NOT_MINE for fields."""
    name = n.target
    if name in t.fields:
        return NOT_MINE
    value = member(_cls(t), name)
    if isinstance(value, property):
        return typer._call_user(spec, n, _function(typer, value.fget), [t], {})  # type: ignore[arg-type]
    if value is not None and is_constant(value):
        from everypath.lowering.infer import const_type

        return const_type(value)
    if isinstance(value, (types.FunctionType, staticmethod, classmethod)):
        raise TypingError(f"method '{t}.{name}' used as a value: call it (bound methods are not values in "
                          "compiled code)")
    raise TypingError(f"'{t}' object has no attribute '{name}' (compiled classes have the attributes their "
                      "__init__ always sets)")


# ---- C++ -------------------------------------------------------------------------------------------
def _bound(fe: "FunctionEmitter", callee: Any, first: list[str], args: list[Node], kwargs: dict[str, Node]) -> str:
    """The argument list of a call whose first len(first) parameters are given as C++ expressions."""
    from everypath.lowering.infer import const_type

    out = list(first)
    for i, p in enumerate(callee.fn.params[len(first):]):
        if i < len(args):
            out.append(fe.value(args[i]))
        elif p.name in kwargs:
            out.append(fe.value(kwargs[p.name]))
        else:
            out.append(literal(p.default, const_type(p.default)))
    return ", ".join(out)


def emit_call(fe: "FunctionEmitter", n: Node) -> str | None:
    target = n.target
    if not isinstance(target, str):
        return None
    if target.startswith(NEW):
        t = fe.spec.type_of(n)
        if not is_class(t):
            return None
        callee = fe.spec.callees[n]
        s = struct_name(t)
        return (f"([&] {{ auto ep_self = std::make_shared<{s}>(); "
                f"{callee.symbol}({_bound(fe, callee, ['ep_self'], list(n.args), dict(n.kwargs))}); "
                "return ep_self; }())")
    types_ = [fe.spec.type_of(a) for a in n.args]
    if target.startswith("method.") and types_ and is_class(types_[0]):
        callee = fe.spec.callees[n]
        static = isinstance(member(_cls(types_[0]), target[len("method."):]), (staticmethod, classmethod))
        args = list(n.args[1:]) if static else list(n.args)
        return f"{callee.symbol}({', '.join(fe.bound_args(callee, args, dict(n.kwargs)))})"
    if (target in _IDENTITY or target in _EQUALITY) and any(is_class(a) for a in types_):
        if n in fe.spec.callees:  # the class's own __eq__
            callee = fe.spec.callees[n]
            call = f"{callee.symbol}({', '.join(fe.bound_args(callee, list(n.args), {}))})"
            return call if _EQUALITY[target] else f"(!{call})"
        positive = _IDENTITY.get(target, _EQUALITY.get(target))
        if types_[0] != types_[1]:  # instances of different classes (or an instance and another value)
            return "false" if positive else "true"
        op = "==" if positive else "!="  # one object or not: the shared pointers' identity (object.__eq__)
        return f"({fe.value(n.args[0])} {op} {fe.value(n.args[1])})"
    return None


def emit_attribute(fe: "FunctionEmitter", n: Node) -> str | None:
    base = n.args[0]
    t = fe.spec.type_of(base)
    if not is_class(t) or n.target in t.fields:
        return None
    if n in fe.spec.callees:  # a property's getter
        return f"{fe.spec.callees[n].symbol}({fe.value(base)})"
    return literal(member(_cls(t), n.target), fe.ty(n))  # a class constant

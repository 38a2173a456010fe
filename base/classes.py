"""User classes compiled code knows by their shape: enum.Enum classes and records (@dataclass, typing.NamedTuple).

A class is named by where it was defined (module, qualname) so that a build read back from the cache finds it
again (lowering/runtime/signature.cpp resolves the same pair through sys.modules). What compiled code cannot
reproduce (inheritance, __post_init__, fields left out of __init__, Flag enums) is refused with the reason.
"""
from __future__ import annotations

import dataclasses
import enum
import sys
from dataclasses import dataclass
from typing import Any

from everypath.base.types import EnumT

_VALUE_TYPES = (bool, int, float, str)
_NO_DEFAULT = object()


def is_enum_class(obj: Any) -> bool:
    return isinstance(obj, type) and issubclass(obj, enum.Enum) and len(obj.__members__) > 0


def is_namedtuple_class(obj: Any) -> bool:
    return isinstance(obj, type) and issubclass(obj, tuple) and isinstance(getattr(obj, "_fields", None), tuple)


def is_record_class(obj: Any) -> bool:
    """A class compiled code lays out as a struct: a dataclass, a NamedTuple, or (base/plain_classes.py) a plain
    class of the user's module or a pydantic model."""
    from everypath.base import plain_classes

    return isinstance(obj, type) and (dataclasses.is_dataclass(obj) or is_namedtuple_class(obj)
                                      or plain_classes.is_plain_class(obj) or plain_classes.is_pydantic_model(obj))


def is_class_record(obj: Any) -> bool:
    """A plain class or pydantic model (base/plain_classes.py), not a dataclass or NamedTuple."""
    from everypath.base import plain_classes

    return plain_classes.is_plain_class(obj) or plain_classes.is_pydantic_model(obj)


def where(cls: type) -> tuple[str, str]:
    return cls.__module__, cls.__qualname__


def resolve_class(module: str, qualname: str) -> type | None:
    """The class defined at (module, qualname) in this process, or None."""
    obj: Any = sys.modules.get(module)
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
    return obj if isinstance(obj, type) else None


def enum_refusal(cls: type) -> str | None:
    """Why compiled code cannot take this enum class (None: it can)."""
    if issubclass(cls, enum.Flag):
        return f"enum.Flag class '{cls.__qualname__}' is not supported (its members combine into new values); use enum.Enum"
    if "<locals>" in cls.__qualname__:
        return f"enum class '{cls.__qualname__}' is defined inside a function; define it at module level"
    return None


def enum_type(cls: type) -> EnumT:
    members = list(cls)  # canonical members (aliases excluded), definition order
    base = "int" if issubclass(cls, int) else "str" if issubclass(cls, str) else "enum"
    values = tuple(m.value for m in members)
    if not all(type(v) in _VALUE_TYPES for v in values):
        values = ()  # .value refused (lowering/records.py)
    module, qualname = where(cls)
    return EnumT(module, qualname, tuple(m.name for m in members), values, base)


@dataclass(frozen=True)
class RecordInfo:
    """A record class as compiled code sees it: its fields, in order, with their annotations and defaults."""

    cls: type
    fields: tuple[str, ...]
    annotations: tuple[Any, ...]  # the evaluated annotation objects
    defaults: tuple[Any, ...]  # _NO_DEFAULT where a field has none; a factory default is refused at construction
    kind: str  # "dataclass" | "namedtuple"
    frozen: bool

    def default(self, name: str) -> Any:
        return self.defaults[self.fields.index(name)]

    @staticmethod
    def missing(value: Any) -> bool:
        return value is _NO_DEFAULT


def record_refusal(cls: type) -> str | None:
    """Why compiled code cannot lay this class out as a struct (None: it can)."""
    if is_class_record(cls):
        from everypath.base.plain_classes import class_refusal

        return class_refusal(cls)
    name = cls.__qualname__
    if "<locals>" in name:
        return f"record class '{name}' is defined inside a function; define it at module level"
    if is_namedtuple_class(cls):
        if cls.__bases__ != (tuple,):
            return f"NamedTuple '{name}' inherits from another class, which is not supported"
        return None
    bases = [b for b in cls.__mro__[1:] if b is not object]
    if bases:
        return f"dataclass '{name}' inherits from {bases[0].__qualname__}: inheritance is not supported"
    if "__post_init__" in vars(cls):
        return f"dataclass '{name}' defines __post_init__, which compiled code does not run: not supported"
    init = vars(cls).get("__init__")
    generated = getattr(getattr(init, "__code__", None), "co_qualname", "").startswith("__create_fn__")
    if not generated:  # the class's own __init__ (dataclass keeps one written in the class body)
        return f"dataclass '{name}' has its own __init__ (or none): not supported"
    for f in dataclasses.fields(cls):
        if not f.init:
            return f"dataclass '{name}': field '{f.name}' is not an __init__ parameter (init=False): not supported"
        if f.kw_only:
            return f"dataclass '{name}': keyword-only field '{f.name}' is not supported"
    return None


def record_info(cls: type) -> RecordInfo:
    import typing

    if is_class_record(cls):  # a plain class or pydantic model: the same shape (base/plain_classes.py)
        from everypath.base.plain_classes import class_info

        return class_info(cls)  # type: ignore[return-value]

    hints = typing.get_type_hints(cls, include_extras=True)
    if is_namedtuple_class(cls):
        names = tuple(cls._fields)  # type: ignore[attr-defined]
        dflt = cls._field_defaults  # type: ignore[attr-defined]
        return RecordInfo(cls, names, tuple(hints.get(n, Any) for n in names),
                          tuple(dflt.get(n, _NO_DEFAULT) for n in names), "namedtuple", True)
    fs = dataclasses.fields(cls)
    return RecordInfo(cls, tuple(f.name for f in fs), tuple(hints.get(f.name, f.type) for f in fs),
                      tuple(f.default if f.default is not dataclasses.MISSING else _NO_DEFAULT for f in fs),
                      "dataclass", bool(cls.__dataclass_params__.frozen))  # type: ignore[attr-defined]

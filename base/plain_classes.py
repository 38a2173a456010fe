"""Plain classes (`class Box:` with an `__init__`) and pydantic models as records compiled code lays out as structs.

A plain class's attributes are the ones its `__init__` assigns (`self.x = ...`) on every path, in the order of
their first assignment; each is typed by an annotation (`x: float` in the class body, `self.x: float = ...`), else
by the annotated `__init__` parameter it is set from, else by the constant it is set to. What compiled code cannot
lay out as one fixed struct (an attribute set on some paths only or outside `__init__`, metaclasses, inheritance,
`__slots__`, dunder methods other than `__init__`/`__repr__`/`__eq__`) is refused, located at the user's line.
A pydantic model's fields are its `model_fields`; pydantic itself builds the caller's instance (validation).
"""
from __future__ import annotations

import ast
import inspect
import os
import sys
import sysconfig
import types
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from everypath.base.class_source import Source, loc, self_name, source
from everypath.base.errors import CompileError
from everypath.base.init_reads import check_reads

ALLOWED_DUNDERS = ("__init__", "__repr__", "__eq__")
_CLASS_DICT_ENTRIES = frozenset({  # what `class C:` itself puts in vars(C)
    "__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__annotations__", "__firstlineno__",
    "__static_attributes__", "__hash__", "__orig_bases__", "__parameters__", "__type_params__",
    "__annotate__", "__annotate_func__", "__annotations_cache__", "__classdictcell__",
})
_DESCRIPTORS = (staticmethod, classmethod, property)  # data such as copyreg's __slotnames__ is no method
_CONSTANT_TYPES = (bool, int, float, str, type(None))


class Kind:
    """RecordT.kind of the classes this module describes (base/classes.py keeps "dataclass" and "namedtuple")."""

    PLAIN = "class"
    PYDANTIC = "pydantic"


@lru_cache(maxsize=1)
def _library_roots() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    return tuple(os.path.realpath(paths[k]) + os.sep for k in ("stdlib", "platstdlib", "purelib", "platlib"))


def _user_module(name: str) -> bool:
    """A module the user wrote (not builtins, the standard library or an installed package)."""
    if name in ("builtins", "typing", "abc"):
        return False
    file = getattr(sys.modules.get(name), "__file__", None)
    return file is None and name == "__main__" or (file is not None and
                                                   not os.path.realpath(file).startswith(_library_roots()))


def is_pydantic_model(obj: Any) -> bool:
    pydantic = sys.modules.get("pydantic")
    return (pydantic is not None and isinstance(obj, type) and issubclass(obj, pydantic.BaseModel)
            and obj is not pydantic.BaseModel)


def is_plain_class(obj: Any) -> bool:
    """A class of the user's own module that is not an enum, dataclass, NamedTuple or pydantic model."""
    import dataclasses
    import enum

    if not isinstance(obj, type) or issubclass(obj, (enum.Enum, tuple, BaseException)):
        return False
    if dataclasses.is_dataclass(obj) or is_pydantic_model(obj):
        return False
    return _user_module(obj.__module__)


def _describe(value: Any) -> str:
    for wrapper in (staticmethod, classmethod, property):
        if isinstance(value, wrapper):
            return wrapper.__name__
    return "method" if isinstance(value, types.FunctionType) else type(value).__name__


def plain_refusal(cls: type) -> str | None:
    """Why compiled code cannot lay this plain class out as a struct (None: it can)."""
    name = cls.__qualname__
    if type(cls) is not type:
        return f"class '{name}' has metaclass {type(cls).__qualname__}: metaclasses are not supported"
    if "<locals>" in name:
        return f"class '{name}' is defined inside a function; define it at module level"
    if cls.__bases__ != (object,):
        return f"class '{name}' inherits from {cls.__bases__[0].__qualname__}: inheritance is not supported " \
               "(only from object)"
    own = vars(cls)
    if "__slots__" in own:
        return f"class '{name}' defines __slots__: not supported (compiled code lays out the attributes __init__ sets)"
    if not isinstance(own.get("__init__"), types.FunctionType):
        return f"class '{name}' has no __init__ of its own: compiled code lays out the attributes __init__ sets"
    for attr, value in own.items():
        if attr in _CLASS_DICT_ENTRIES or attr in ALLOWED_DUNDERS:
            continue
        if attr.startswith("__") and attr.endswith("__") and (callable(value) or isinstance(value, _DESCRIPTORS)):
            return f"class '{name}' defines {attr}: dunder methods other than {', '.join(ALLOWED_DUNDERS)} are " \
                   "not supported in compiled code"
        if isinstance(value, property) and (value.fset is not None or value.fdel is not None):
            return f"class '{name}': property '{attr}' has a setter or deleter, which is not supported"
    return None


@dataclass(frozen=True)
class ClassInfo:
    """A plain class or pydantic model as compiled code sees it (the shape base/classes.RecordInfo has)."""

    cls: type
    fields: tuple[str, ...]
    annotations: tuple[Any, ...]
    defaults: tuple[Any, ...]  # pydantic defaults (a plain class has none: __init__ runs compiled)
    kind: str
    frozen: bool

    def default(self, name: str) -> Any:
        return self.defaults[self.fields.index(name)]

    @staticmethod
    def missing(value: Any) -> bool:
        from everypath.base.classes import RecordInfo

        return RecordInfo.missing(value)


# ---- the attributes __init__ sets ---------------------------------------------------------------
def _stores(stmt: ast.stmt, me: str) -> list[tuple[str, ast.AST, ast.expr | None, ast.expr | None]]:
    """`self.x = v` / `self.x: T = v` / `self.x += v` in one statement: (name, node, value, annotation)."""
    out: list[tuple[str, ast.AST, ast.expr | None, ast.expr | None]] = []
    targets: list[tuple[ast.expr, ast.expr | None, ast.expr | None]] = []
    if isinstance(stmt, ast.Assign):
        for t in stmt.targets:
            elts = t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t]
            targets += [(e, stmt.value if len(elts) == 1 else None, None) for e in elts]
    elif isinstance(stmt, ast.AnnAssign):
        targets.append((stmt.target, stmt.value, stmt.annotation))
    elif isinstance(stmt, ast.AugAssign):
        targets.append((stmt.target, None, None))
    for t, value, ann in targets:
        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == me:
            out.append((t.attr, t, value, ann))
    return out


_TERMINATES = (ast.Return, ast.Raise)
_ALL = None  # a path that ended (return/raise): it assigns "everything" for the join


def _definite(body: list[ast.stmt], me: str, seen: dict[str, tuple[ast.AST, ast.expr | None, ast.expr | None]],
              start: frozenset[str]) -> frozenset[str] | None:
    """The attributes assigned on every path through body (None: every path ends in return/raise); `seen`
    collects every assignment with its first node, value and annotation."""
    done: frozenset[str] | None = start
    for s in body:
        if done is None:
            break
        for name, node, value, ann in _stores(s, me):
            seen.setdefault(name, (node, value, ann))
            done = done | {name}
        if isinstance(s, ast.If):
            a = _definite(s.body, me, seen, done)
            b = _definite(s.orelse, me, seen, done)
            done = b if a is None else a if b is None else a & b
        elif isinstance(s, (ast.For, ast.While, ast.AsyncFor)):  # the body may not run
            _definite(s.body, me, seen, done)
            _definite(s.orelse, me, seen, done)
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            done = _definite(s.body, me, seen, done)
        elif isinstance(s, ast.Try):  # only the finally block surely runs to its end
            for part in (s.body, *(h.body for h in s.handlers), s.orelse):
                _definite(part, me, seen, done)
            done = _definite(s.finalbody, me, seen, done)
        elif isinstance(s, ast.Match):
            for c in s.cases:
                _definite(c.body, me, seen, done)
        elif isinstance(s, _TERMINATES):
            done = _ALL
    return done


def _field_annotation(cls: type, init: types.FunctionType, src: Source, name: str, value: ast.expr | None,
                      ann: ast.expr | None, hints: dict[str, Any], node: ast.AST) -> Any:
    if name in hints:  # `x: float` in the class body
        return hints[name]
    if ann is not None:  # `self.x: float = ...`
        return eval(compile(ast.Expression(ann), src.filename, "eval"), init.__globals__)  # noqa: S307 - the user's own annotation
    params = inspect.get_annotations(init, eval_str=True)
    if isinstance(value, ast.Name) and value.id in params:  # `self.x = x` with `x: float` a parameter
        return params[value.id]
    const = _constant(value, init)
    if type(const) in _CONSTANT_TYPES[:4]:  # `self.count = 0`, `self.lo = math.inf`: the value's own type
        return type(const)
    raise CompileError.at(loc(src, node), f"cannot tell the type of attribute '{name}' of {cls.__qualname__} from "
                                           f"__init__: annotate it in the class body ({name}: float) or where it is "
                                           f"assigned (self.{name}: float = ...)", ("reading class attributes",))


_PURE = (ast.Constant, ast.Name, ast.Attribute, ast.UnaryOp, ast.BinOp, ast.unaryop, ast.operator, ast.Load)


def _constant(value: ast.expr | None, init: types.FunctionType) -> Any:
    """The value of an expression of constants and module globals (`0`, `-1.5`, `math.inf`, `2 * SCALE`), with no
    call and no local name in it; NotImplemented for anything else."""
    if value is None or not all(isinstance(x, _PURE) for x in ast.walk(value)):
        return NotImplemented
    if any(isinstance(x, ast.Name) and x.id in init.__code__.co_varnames for x in ast.walk(value)):
        return NotImplemented
    try:
        return eval(compile(ast.Expression(value), "<attribute>", "eval"), dict(init.__globals__))  # noqa: S307
    except Exception:  # noqa: BLE001 - not a constant after all: the caller asks for an annotation
        return NotImplemented


def _check_other_methods(cls: type, fields: set[str]) -> None:
    """An attribute first assigned outside __init__ would add to the struct after construction: refused."""
    for attr, value in vars(cls).items():
        fn = value.fget if isinstance(value, property) else value
        if attr == "__init__" or not isinstance(fn, types.FunctionType):
            continue
        src = source(fn)
        me = self_name(src.tree)
        if me is None:
            continue
        for s in ast.walk(src.tree):
            if isinstance(s, ast.stmt):
                for name, node, _v, _a in _stores(s, me):
                    if name not in fields:
                        raise CompileError.at(loc(src, node), f"attribute '{name}' of {cls.__qualname__} is assigned "
                                                               f"in {fn.__qualname__} but not in __init__: compiled "
                                                               "classes have the attributes __init__ always sets",
                                              ("reading class attributes",))


def _plain_info(cls: type) -> ClassInfo:
    import typing

    init = vars(cls)["__init__"]
    src = source(init)
    me = self_name(src.tree)
    seen: dict[str, tuple[ast.AST, ast.expr | None, ast.expr | None]] = {}
    done = _definite(src.tree.body, me or "", seen, frozenset()) if me else frozenset()
    for name, (node, _v, _a) in seen.items():
        if done is not None and name not in done:
            raise CompileError.at(loc(src, node), f"attribute '{name}' of {cls.__qualname__} is assigned on only some "
                                                   "paths through __init__: assign it on every path (compiled classes "
                                                   "lay out the attributes __init__ always sets)",
                                  ("reading class attributes",))
    fields = tuple(seen)
    check_reads(cls, init, fields)  # CPython's AttributeError, as a located error: never a read of a zero
    _check_other_methods(cls, set(fields))
    hints = typing.get_type_hints(cls, include_extras=True)
    anns = tuple(_field_annotation(cls, init, src, f, seen[f][1], seen[f][2], hints, seen[f][0]) for f in fields)
    return ClassInfo(cls, fields, anns, tuple(_no_default() for _ in fields), Kind.PLAIN, False)


def _no_default() -> Any:
    from everypath.base.classes import _NO_DEFAULT

    return _NO_DEFAULT


def pydantic_refusal(cls: type) -> str | None:
    name = cls.__qualname__
    if "<locals>" in name:
        return f"pydantic model '{name}' is defined inside a function; define it at module level"
    if cls.__pydantic_generic_metadata__.get("parameters"):  # type: ignore[attr-defined]
        return f"generic pydantic model '{name}' is not supported"
    return None


def _pydantic_info(cls: type) -> ClassInfo:
    fields = cls.model_fields  # type: ignore[attr-defined]
    names = tuple(fields)
    anns = tuple(f.annotation for f in fields.values())
    defaults = tuple(_no_default() if f.is_required() or f.default_factory is not None else f.default
                     for f in fields.values())
    frozen = bool(cls.model_config.get("frozen", False))  # type: ignore[attr-defined]
    return ClassInfo(cls, names, anns, defaults, Kind.PYDANTIC, frozen)


def class_refusal(cls: type) -> str | None:
    return pydantic_refusal(cls) if is_pydantic_model(cls) else plain_refusal(cls)


def class_info(cls: type) -> ClassInfo:
    return _pydantic_info(cls) if is_pydantic_model(cls) else _plain_info(cls)


# ---- what compiled code may call on an instance -------------------------------------------------
def member(cls: type, name: str) -> Any:
    """The class attribute `name` of a plain class (its method, property, staticmethod or constant), or None."""
    return vars(cls).get(name) if isinstance(cls, type) else None


def is_constant(value: Any) -> bool:
    if isinstance(value, tuple):
        return all(is_constant(v) for v in value)
    return type(value) in _CONSTANT_TYPES


def called_functions(cls: type) -> dict[str, types.FunctionType]:
    """Every function of the class compiled code may reach by name: methods, property getters, staticmethods and
    classmethods."""
    out: dict[str, types.FunctionType] = {}
    for attr, value in vars(cls).items():
        fn = value.fget if isinstance(value, property) else value.__func__ if isinstance(
            value, (staticmethod, classmethod)) else value
        if isinstance(fn, types.FunctionType):
            out[attr] = fn
    return out

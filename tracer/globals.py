"""Module globals a compiled program read: recorded while tracing, keyed into the cache, checked per call.

The rule: compiled code sees a module global's value as of its compile. Every global the call graph
read is recorded as (module namespace, name, object, digest). On each call the namespace still has to
hold that very object (a dict lookup and an ``is`` per name), and a dict, list or set table baked into
the build still has to hold the very items it held (table_items: an ``is`` per item, so changing it in
place, ``UNITS["w"] = 1``, is seen too); when either fails, the digest of what is bound now decides:
equal (``K = 2.0`` run again, a table changed and changed back) keeps the build, different recompiles
through the cache, whose key includes every digest. Module arrays are not baked in: they reach compiled code as
hidden arguments read at each call, so in-place changes are seen as in CPython; only their dtype and
rank are part of the build.

A module is known by where its source is, never by the name it was imported under: ``python app.py``
(``__main__``), ``import app``, ``python -m pkg.app`` and ``everypath compile`` (``everypath_user.app``)
must share one cache key and one build (issue 13). Keys name the entry's own module ``SELF`` and other
modules by their file (``origin``); the import name is kept only as a hint to find the namespace fast.
"""
from __future__ import annotations

import functools
import os
import sys
import types
from dataclasses import dataclass, field
from typing import Any

from everypath.base.const_tables import ConstTable
from everypath.base.digest import sha256


class _Absent:
    """A name not bound in the module (it resolved to a builtin): defining it later must be noticed."""

    def __repr__(self) -> str:
        return "<absent>"


ABSENT: Any = _Absent()


@dataclass(frozen=True)
class GlobalRead:
    """One module global the compiled program depends on."""

    module: str  # the module's import name: a hint to find its namespace again (keys use origin(), not this)
    name: str
    digest: str  # value_digest(obj): what the build baked in
    namespace: dict[str, Any] = field(compare=False, repr=False)
    obj: Any = field(compare=False, repr=False)
    hidden: str | None = None  # the entry's hidden parameter carrying it (module arrays)

    def holds(self) -> bool:
        return self.namespace.get(self.name, ABSENT) is self.obj


@dataclass(frozen=True)
class GlobalScope:
    """Where one traced function's free names live, and the list its reads are recorded in."""

    namespace: dict[str, Any]  # the function's __globals__
    module: str
    cells: frozenset[str]  # closure cells shadow the module (not checked per call)
    reads: list[GlobalRead]
    entry: bool  # the compiled function itself: module arrays become its hidden parameters


def value_digest(obj: Any) -> str:
    """What of a global's value a build depends on, stable across processes where it can be.

    Constants by type and repr; arrays by dtype and rank only (contents are read at run time);
    modules by name; functions by their code; anything else by identity (never equal in another
    process: a rebuild there, never a stale hit)."""
    import numpy as np

    if obj is ABSENT:
        return "absent"
    t = type(obj)
    if obj is None or t in (bool, int, float, complex, str) or isinstance(obj, (np.generic, np.dtype)):
        return f"{t.__module__}.{t.__qualname__}:{obj!r}"
    import enum

    if isinstance(obj, enum.Enum):  # a member: by class and name (the class's own digest says what it holds)
        return f"enum:{t.__module__}.{t.__qualname__}.{obj.name}"
    if isinstance(obj, type) and (issubclass(obj, enum.Enum) or hasattr(obj, "__dataclass_fields__")
                                  or hasattr(obj, "_fields")):  # an enum or record class: by what compiled code reads
        shape = [(m.name, repr(m.value)) for m in obj] if issubclass(obj, enum.Enum) else \
            repr(getattr(obj, "__annotations__", {})) + repr(getattr(obj, "__dataclass_params__", "")) + \
            repr(getattr(obj, "_field_defaults", "")) + repr([(f.name, repr(f.default)) for f in
                                                              getattr(obj, "__dataclass_fields__", {}).values()])
        return f"class:{obj.__module__}.{obj.__qualname__}:{sha256(repr(shape).encode()).hexdigest()[:32]}"
    if t is tuple:
        return "tuple(" + ",".join(value_digest(x) for x in obj) + ")"
    if t is dict and ConstTable.of("", obj) is not None:  # a table of constants is baked in: by its items
        return "dict(" + ",".join(f"{value_digest(k)}:{value_digest(v)}" for k, v in obj.items()) + ")"
    if t in (list, set, frozenset) and ConstTable.of("", obj) is not None:
        parts = [value_digest(x) for x in obj]
        return f"{t.__name__}(" + ",".join(parts if t is list else sorted(parts)) + ")"
    if isinstance(obj, np.ndarray):
        return f"ndarray:{obj.dtype.str}:{obj.ndim}"
    if isinstance(obj, types.ModuleType):
        return f"module:{module_name(obj)}"
    if isinstance(obj, types.FunctionType):
        where = source_module(obj.__code__.co_filename, obj.__module__ or "")
        return f"function:{where}.{obj.__qualname__}:{_code_digest(obj.__code__)}:" \
               f"{obj.__defaults__!r}:{obj.__kwdefaults__!r}"
    inner = getattr(obj, "py_function", None)  # a @compile function called from compiled code
    if isinstance(inner, types.FunctionType):
        return "compiled:" + value_digest(inner)
    from everypath.tracer.statics import static_for

    key = static_for(obj).key  # NumPy, math, builtins: by operator key
    if key is not None:
        return f"op:{key}"
    return f"id:{t.__qualname__}:{id(obj)}:{id(sys.modules)}"


_STALE = object()  # in a snapshot: matches no table's item (the table changed before it was taken)


def table_items(obj: Any, digest: str) -> tuple[Any, ...] | None:
    """What the per-call guard compares a mutable table (dict, list, set of constants) with: its items as
    they are now (a dict's keys and values flattened), or None for anything that cannot change in place.

    Items are immutable constants, so the very same objects in the same order mean the same content: the
    guard (lowering/runtime/dispatch.cpp ``same_items``) compares identities only, no hashing. A table that
    no longer matches ``digest`` (changed between its capture and now) gets a snapshot nothing matches, so
    the next call re-validates."""
    t = type(obj)
    if t not in (dict, list, set) or ConstTable.of("", obj) is None:
        return None
    if value_digest(obj) != digest:
        return (_STALE,)
    return tuple(x for kv in obj.items() for x in kv) if t is dict else tuple(obj)


def same_items(obj: Any, items: tuple[Any, ...]) -> bool:
    """Python's copy of the C guard's content check (the slow path runs it before calling a build)."""
    now = tuple(x for kv in obj.items() for x in kv) if type(obj) is dict else tuple(obj)
    return len(now) == len(items) and all(a is b for a, b in zip(now, items))


def _code_digest(code: types.CodeType) -> str:
    h = sha256(code.co_code)
    for c in code.co_consts:  # nested code objects (closures) by content, never by address
        h.update((_code_digest(c) if isinstance(c, types.CodeType) else repr(c)).encode())
    h.update(repr((code.co_names, code.co_varnames, code.co_freevars, code.co_argcount)).encode())
    return h.hexdigest()[:32]


SELF = "self"  # origin of the entry function's own module, whatever its import name


@functools.lru_cache(maxsize=1024)
def source_module(filename: str, fallback: str) -> str:
    """The dotted name a source file has wherever it is imported from: its stem under the packages
    (folders with __init__.py) around it, so pkg/app.py is 'pkg.app' as a script, as a package
    module and under the CLI alike. Not a .py file on disk (<stdin>, a notebook cell): fallback."""
    if not filename.endswith(".py") or not os.path.isfile(filename):
        return fallback
    folder, stem = os.path.split(os.path.abspath(filename))
    parts = [] if stem == "__init__.py" else [stem[:-3]]
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        folder, name = os.path.split(folder)
        parts.insert(0, name)
    return ".".join(parts) or fallback


def module_name(mod: types.ModuleType) -> str:
    """A module's import-independent name (source_module of its file; its __name__ without one)."""
    f = getattr(mod, "__file__", None)
    return source_module(f, mod.__name__) if isinstance(f, str) else mod.__name__


def _file_origin(namespace: dict[str, Any]) -> str:
    f = namespace.get("__file__")
    return f"file:{os.path.realpath(f)}" if isinstance(f, str) else f"name:{namespace.get('__name__', '')}"


def origin(namespace: dict[str, Any], entry_globals: dict[str, Any]) -> str:
    """Which module a global lives in, as cache keys say it: SELF for the entry's own module (found
    again through the entry's __globals__), else the module's source file."""
    return SELF if namespace is entry_globals else _file_origin(namespace)


def namespace_of(where: str, hint: str, entry_globals: dict[str, Any]) -> dict[str, Any] | None:
    """The namespace of origin ``where`` in this process (after a cache hit): the entry's own, else
    the module imported as ``hint`` when it is that file, else any loaded module of that file."""
    if where == SELF:
        return entry_globals
    mod = sys.modules.get(hint)
    if mod is not None and _file_origin(vars(mod)) == where:
        return vars(mod)
    if where.startswith("file:"):
        base = os.path.basename(where)
        for mod in list(sys.modules.values()):  # imported under another name here (pkg.helpers vs helpers)
            f = getattr(mod, "__file__", None)
            if isinstance(f, str) and os.path.basename(f) == base and _file_origin(vars(mod)) == where:
                return vars(mod)
    return None


def value_key(front: str, reads: list[tuple[str, str, str]]) -> str:
    """The cache key of one build: the front key plus what every global it read was."""
    return sha256("\x00".join([front, *("\x01".join(r) for r in reads)]).encode()).hexdigest()


def unique(reads: list[GlobalRead]) -> tuple[GlobalRead, ...]:
    """One record per (namespace, name), in first-read order."""
    seen: dict[tuple[int, str], GlobalRead] = {}
    for r in reads:
        k = (id(r.namespace), r.name)
        if k not in seen or (r.hidden and not seen[k].hidden):
            seen[k] = r
    return tuple(seen.values())

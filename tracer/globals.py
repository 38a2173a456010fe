"""Module globals a compiled program read: recorded while tracing, keyed into the cache, checked per call.

The rule: compiled code sees a module global's value as of its compile. Every global the call graph
read is recorded as (module namespace, name, object, digest). On each call the namespace still has to
hold that very object (a dict lookup and an ``is`` per name); when one was re-bound, the digest of the
new object decides: equal (``K = 2.0`` run again) keeps the build, different recompiles through the
cache, whose key includes every digest. Module arrays are not baked in: they reach compiled code as
hidden arguments read at each call, so in-place changes are seen as in CPython; only their dtype and
rank are part of the build.
"""
from __future__ import annotations

import hashlib
import sys
import types
from dataclasses import dataclass, field
from typing import Any


class _Absent:
    """A name not bound in the module (it resolved to a builtin): defining it later must be noticed."""

    def __repr__(self) -> str:
        return "<absent>"


ABSENT: Any = _Absent()


@dataclass(frozen=True)
class GlobalRead:
    """One module global the compiled program depends on."""

    module: str  # the module's name, to find its namespace again in another process
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
    if t is tuple:
        return "tuple(" + ",".join(value_digest(x) for x in obj) + ")"
    if isinstance(obj, np.ndarray):
        return f"ndarray:{obj.dtype.str}:{obj.ndim}"
    if isinstance(obj, types.ModuleType):
        return f"module:{obj.__name__}"
    if isinstance(obj, types.FunctionType):
        return f"function:{obj.__module__}.{obj.__qualname__}:{_code_digest(obj.__code__)}:" \
               f"{obj.__defaults__!r}:{obj.__kwdefaults__!r}"
    inner = getattr(obj, "py_function", None)  # a @compile function called from compiled code
    if isinstance(inner, types.FunctionType):
        return "compiled:" + value_digest(inner)
    from everypath.tracer.statics import static_for

    key = static_for(obj).key  # NumPy, math, builtins: by operator key
    if key is not None:
        return f"op:{key}"
    return f"id:{t.__qualname__}:{id(obj)}:{id(sys.modules)}"


def _code_digest(code: types.CodeType) -> str:
    h = hashlib.sha256(code.co_code)
    for c in code.co_consts:  # nested code objects (closures) by content, never by address
        h.update((_code_digest(c) if isinstance(c, types.CodeType) else repr(c)).encode())
    h.update(repr((code.co_names, code.co_varnames, code.co_freevars, code.co_argcount)).encode())
    return h.hexdigest()[:32]


def namespace_of(module: str, entry_globals: dict[str, Any]) -> dict[str, Any] | None:
    """The namespace a recorded global lives in, looked up again (after a cache hit)."""
    if entry_globals.get("__name__") == module:
        return entry_globals
    mod = sys.modules.get(module)
    return None if mod is None else vars(mod)


def value_key(front: str, reads: list[tuple[str, str, str]]) -> str:
    """The cache key of one build: the front key plus what every global it read was."""
    return hashlib.sha256("\x00".join([front, *("\x01".join(r) for r in reads)]).encode()).hexdigest()


def unique(reads: list[GlobalRead]) -> tuple[GlobalRead, ...]:
    """One record per (namespace, name), in first-read order."""
    seen: dict[tuple[int, str], GlobalRead] = {}
    for r in reads:
        k = (id(r.namespace), r.name)
        if k not in seen or (r.hidden and not seen[k].hidden):
            seen[k] = r
    return tuple(seen.values())

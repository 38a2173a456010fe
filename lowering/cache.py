"""The compile cache's front door: key a function and find its build without
importing the compiler (a warm first call must take milliseconds).

Level 1 (this module): a key over the entry's source, the contents of its
file, argument types, flags, compiler and header versions maps to a
manifest (through the values of the module globals the build read, when
it read any: see load). Level 2 (pipeline): the generated C++ itself keys the shared
object, so identical code is built once.

Nothing in a key depends on the name the entry's module was imported under ('__main__', 'app',
'pkg.app', the CLI's 'everypath_user.app'): the function is known by its file, qualname and
source, its globals' modules by tracer.globals.origin (issue 13).
"""
from __future__ import annotations

import functools
import hashlib
import inspect
import tokenize
import json
import os
import tempfile
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from everypath.base.settings import Settings
from everypath.lowering.build import compiler_version, headers_digest

FORMAT_VERSION = 1  # bump when generated code changes meaning
COMPILER_VERSION = "0.1.0"


@dataclass(frozen=True)
class CompiledModule:
    """A built entry point: where its shared object is and how to call it."""

    so_path: Path
    symbol: str
    signature: dict[str, Any]
    cpp_path: Path
    key: str
    from_cache: bool
    globals: tuple[Any, ...] = ()  # tracer.globals.GlobalRead: module globals the build read (checked per call)


def file_digest(path: str) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


@functools.lru_cache(maxsize=1)
def compiler_digest() -> str:
    """Stamp of the compiler's own Python (base, tracer, lowering, variants: path, size, mtime):
    a changed pass or lowering rule must not reuse builds made by the old one. Stat only,
    not contents (well under a millisecond, once per process); a touched file just rebuilds."""
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for pkg in ("base", "tracer", "lowering", "variants"):
        for p in sorted((root / pkg).rglob("*.py")):
            st = p.stat()
            h.update(f"{p.relative_to(root)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def front_key(pyfunc: types.FunctionType, call_types: Any, settings: Settings) -> str:
    """Level-1 key. The function is identified by its file (path and contents), qualname and source,
    never by __module__: a script's '__main__' and the CLI's path import must find one build."""
    try:
        src = inspect.getsource(pyfunc)
    except (OSError, TypeError, SyntaxError, tokenize.TokenError):  # edited since import: tracing reports it
        src = pyfunc.__code__.co_code.hex()
    filename = pyfunc.__code__.co_filename
    if not filename.startswith("<"):  # runpy.run_path("app.py") leaves it relative: one file, one key
        filename = os.path.abspath(filename)
    parts = [
        str(FORMAT_VERSION), COMPILER_VERSION, src, repr(getattr(pyfunc, "__annotations__", {})),
        pyfunc.__qualname__,
        repr(call_types), " ".join(settings.cxx_flags() + settings.link_flags()), str(settings.boundscheck),
        settings.path_key(),
        compiler_version(settings.cxx, str(settings.cache_dir)), headers_digest(), compiler_digest(),
        filename, str(file_digest(filename)),
    ]
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()


def manifest_path(settings: Settings, key: str) -> Path:
    return settings.cache_dir / "fn" / key[:2] / f"{key}.json"


def _read(settings: Settings, key: str) -> dict[str, Any] | None:
    try:
        return json.loads(manifest_path(settings, key).read_text())
    except (OSError, ValueError):
        return None


def load(settings: Settings, key: str, entry_globals: dict[str, Any] | None = None) -> CompiledModule | None:
    """The build recorded under a front key, if its shared object exists, no source changed and
    every module global it read still has the value it was built with.

    A front key that read globals maps to their names only (module origin, import-name hint, name);
    the build itself is under value_key(front key, each global's current digest), so each set of
    values keeps its own build."""
    m = _read(settings, key)
    reads: list[Any] = []
    if m is not None and "globals" in m:
        from everypath.tracer.globals import ABSENT, GlobalRead, namespace_of, value_digest, value_key

        entry = entry_globals or {}
        where_of: list[str] = []
        for where, hint, name, hidden in m["globals"]:  # manifests before issue 13 had other front keys
            ns = namespace_of(where, hint, entry)
            if ns is None:
                return None  # that module is not loaded here: trace again
            obj = ns.get(name, ABSENT)
            reads.append(GlobalRead(str(ns.get("__name__", hint)), name, value_digest(obj), ns, obj, hidden))
            where_of.append(where)
        m = _read(settings, value_key(key, [(w, r.name, r.digest) for w, r in zip(where_of, reads)]))
    if m is None:
        return None
    so = Path(m["so"])
    if not so.exists() or any(file_digest(f) != h for f, h in m["deps"].items()):
        return None  # a file in the call graph changed since: rebuild
    return CompiledModule(so, m["symbol"], m["signature"], Path(m["cpp"]), m["key"], from_cache=True,
                          globals=tuple(reads))


def store(settings: Settings, key: str, module: CompiledModule, deps: dict[str, str | None],
          entry_globals: dict[str, Any] | None = None) -> None:
    """Record a build under its front key (through its globals' value key when it read any);
    entry_globals: the entry's __globals__, so that its own module is keyed as SELF, not by name."""
    manifest = {"so": str(module.so_path), "symbol": module.symbol, "signature": jsonable(module.signature),
                "cpp": str(module.cpp_path), "deps": deps, "key": key}
    if module.globals:
        from everypath.tracer.globals import origin, value_key

        reads = module.globals
        where = [origin(r.namespace, entry_globals or {}) for r in reads]
        write_atomic(manifest_path(settings, key),
                     json.dumps({"globals": [[w, r.module, r.name, r.hidden] for w, r in zip(where, reads)],
                                 "key": key}))
        key = value_key(key, [(w, r.name, r.digest) for w, r in zip(where, reads)])
    write_atomic(manifest_path(settings, key), json.dumps(manifest))


def jsonable(sig: dict[str, Any]) -> dict[str, Any]:
    """Signature without default values (Python objects); they are re-attached from the function."""
    out = dict(sig)
    out["params"] = [{k: v for k, v in p.items() if k != "default"} | ({"has_default": True} if "default" in p else {})
                     for p in sig["params"]]
    return out


def write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)

"""The compile cache's front door: key a function and find its build without
importing the compiler (a warm first call must take milliseconds).

Level 1 (this module): a key over the entry's file (its contents; the function's first line in
it, or its source where the file cannot be read), argument types, flags, and stamps (path, size,
mtime) of the C++ compiler, the runtime headers and the compiler's own Python maps to a manifest
(through the values of the module globals the build read, when it read any: see load). A hit
stats files and reads the entry's file and the manifest: it starts no compiler, reads no header.
Level 2 (pipeline): the generated C++ itself keys the shared object, with the compiler's
--version and the headers' contents, so identical code is built once.

Nothing in a key depends on the name the entry's module was imported under ('__main__', 'app',
'pkg.app', the CLI's 'everypath_user.app'): the function is known by its file, qualname and
source, its globals' modules by tracer.globals.origin (issue 13).
"""
from __future__ import annotations

import functools
import json
import os
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from everypath.base.settings import Settings

from everypath.base.digest import sha256  # not hashlib: no OpenSSL on a warm first call

FORMAT_VERSION = 1  # bump when generated code changes meaning
COMPILER_VERSION = "0.1.0"
ROOT = Path(__file__).resolve().parent.parent  # the installation: base/, tracer/, lowering/, variants/
# build.INCLUDE_DIR, not imported from there: lowering.build is a miss's module (~1.5 ms of a hit's import)
INCLUDE_DIR = ROOT / "variants" / "include"


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
        with open(path, "rb") as f:
            return sha256(f.read()).hexdigest()
    except OSError:
        return None


def _stamp(top: str, rel: str, wanted: Any, out: list[str]) -> None:
    """Append 'relative path:size:mtime' of every wanted file under top, in name order (os.scandir:
    pathlib's rglob and relative_to cost a warm first call ~5 ms for the same stats)."""
    try:
        with os.scandir(top) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError:
        return
    for e in entries:
        if e.is_dir(follow_symlinks=False):
            if e.name != "__pycache__":
                _stamp(e.path, f"{rel}{e.name}/", wanted, out)
        elif wanted(e.name):
            st = e.stat()
            out.append(f"{rel}{e.name}:{st.st_size}:{st.st_mtime_ns}")


COMPILER_PACKAGES = ("base", "tracer", "lowering", "variants")  # the Python that decides what a build is


def sources_stamp(root: Path) -> str:
    """Stamp of the compiler's Python under root (every *.py of COMPILER_PACKAGES: path, size, mtime).
    Every file's stat, not contents (about a millisecond); a touched file just rebuilds. Not one
    stamp per folder: a file edited in place leaves its folder's mtime alone."""
    out: list[str] = []
    for pkg in COMPILER_PACKAGES:
        _stamp(str(root / pkg), f"{pkg}/", lambda name: name.endswith(".py"), out)
    return sha256("\n".join(out).encode()).hexdigest()


@functools.lru_cache(maxsize=1)
def compiler_digest() -> str:
    """This installation's sources_stamp, once per process: a changed pass or lowering rule must not
    reuse builds made by the old one."""
    return sources_stamp(ROOT)


def include_stamp(include_dir: Path) -> str:
    """Stamp of the operator library headers under include_dir (path, size, mtime): the files
    build.headers_digest hashes the contents of."""
    out: list[str] = []
    _stamp(str(include_dir), "", lambda name: ".h" in name, out)
    return sha256("\n".join(out).encode()).hexdigest()


@functools.lru_cache(maxsize=1)
def headers_stamp() -> str:
    """include_stamp of this installation's headers, once per process: the front key's. The back key
    (the generated C++'s) keeps build.headers_digest, their contents: reading 1.3 MB on every hit
    cost ~9 ms. A fresh checkout or install has new mtimes: it rebuilds once, then hits."""
    return include_stamp(INCLUDE_DIR)


@functools.lru_cache(maxsize=8)
def compiler_stamp(cxx: str, search_path: str | None) -> str:
    """The C++ compiler as the front key knows it: the file it resolves to on search_path (PATH), with
    its size and mtime, as build.compiler_version's memo is keyed: another or a changed binary misses.
    Not its --version text (the back key's): build.compiler_version needs shutil (~2 ms) and a json
    read to recall it; a compiler that is not there just misses (and the build says so)."""
    if os.path.dirname(cxx):
        candidates = [cxx]
    else:  # shutil.which's search, for a plain name
        candidates = [os.path.join(d, cxx) for d in (search_path or os.defpath).split(os.pathsep)]
    for c in candidates:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            real = os.path.realpath(c)
            st = os.stat(real)
            return f"{real}:{st.st_size}:{st.st_mtime_ns}"
    return f"{cxx}: not found"


def _function_text(pyfunc: types.FunctionType, digest: str | None) -> str:
    """What identifies the function's code inside its file. With the file's contents in the key, its
    first line is enough (qualname alone is not: a redefinition in the same file); without them
    (<stdin>, a notebook cell) the source itself, through linecache."""
    if digest is not None:
        return f"line {pyfunc.__code__.co_firstlineno}"
    import inspect
    import tokenize

    try:
        return inspect.getsource(pyfunc)
    except (OSError, TypeError, SyntaxError, tokenize.TokenError):  # edited since import: tracing reports it
        return pyfunc.__code__.co_code.hex()


def front_key(pyfunc: types.FunctionType, call_types: Any, settings: Settings) -> str:
    """Level-1 key. The function is identified by its file (path and contents), qualname and first
    line (or source, when the file cannot be read), never by __module__: a script's '__main__' and
    the CLI's path import must find one build. Everything here is cheap on a hit: stats, the
    function's own file read (no g++ started, no header read)."""
    filename = pyfunc.__code__.co_filename
    if not filename.startswith("<"):  # runpy.run_path("app.py") leaves it relative: one file, one key
        filename = os.path.abspath(filename)
    digest = file_digest(filename) if not filename.startswith("<") else None
    parts = [
        str(FORMAT_VERSION), COMPILER_VERSION, _function_text(pyfunc, digest),
        repr(getattr(pyfunc, "__annotations__", {})), pyfunc.__qualname__,
        repr(call_types), " ".join(settings.cxx_flags() + settings.link_flags()), str(settings.boundscheck),
        settings.path_key(),
        compiler_stamp(settings.cxx, os.environ.get("PATH")), headers_stamp(), compiler_digest(),
        filename, str(digest),
    ]
    return sha256("\x00".join(parts).encode()).hexdigest()


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
    import tempfile  # a miss's work: ~4 ms of a hit's import otherwise

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def build_cached(pyfunc: types.FunctionType, settings: Settings, call_types: Any = None,
                 observe: Any = None) -> CompiledModule:
    """pyfunc's build for call_types: the cache's when it holds one (no compiler import), else compiled
    now; observe (the sandboxed observation run, a callable) runs only on a miss."""
    key = front_key(pyfunc, call_types, settings)
    hit = load(settings, key, pyfunc.__globals__)
    if hit is not None:
        return hit
    from everypath.lowering.pipeline import compile_function

    observation = observe() if observe is not None else None
    return compile_function(pyfunc, settings, call_types, observation, key)

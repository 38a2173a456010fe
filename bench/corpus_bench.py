#!/usr/bin/env python
"""Speed of everypath vs CPython+NumPy, Numba and Pythran on the test corpus.

    python bench/corpus_bench.py [--kernels a,b] [--repeat N] [--no-numba]
                                 [--no-pythran] [--no-everypath] [--json OUT]

For every kernel of ``tests/corpus`` (see ``tests/corpus/_loader.py``) the
plain Python function is the baseline ("CPython", i.e. CPython + NumPy) and
each engine is

1. compiled (everypath / Numba: on the first call, in this process, under an
   alarm; Pythran: ahead of time, in worker processes, two at a time, cached
   in ``.everypath-cache/bench/pythran/<sha256>/``),
2. checked against CPython on ``bench_args(np.random.default_rng(0))``
   (fresh deep copies, mutated arguments compared too) -- a wrong result is
   reported as ``wrong`` and not timed,
3. timed side by side with the other engines: one warm-up call, then the
   median of ``--repeat`` samples taken round-robin across engines, each
   sample an adaptive inner loop lasting >= 20 ms (``time.perf_counter_ns``,
   GC off, argument copies for mutating kernels made outside the timed
   region).

Speedup = CPython time / engine time.  See ``bench/README.md``.

A kernel failing in one engine never stops the run.  ``--isolate`` runs each
kernel in a child process, so that even a segfault or a hang inside native
code only costs that kernel (the engine that was running is marked
``crash``/``timeout``).
"""

from __future__ import annotations

import argparse
import ast
import concurrent.futures as cf
import contextlib
import copy
import dataclasses
import datetime as _dt
import gc
import hashlib
import importlib
import importlib.util
import inspect
import json
import math
import os
import pathlib
import platform
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
import traceback
import types
import typing
import warnings
from typing import Any, Callable

_THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")


def _early_threads(argv: list[str]) -> str:
    """--threads must act before NumPy (and its BLAS) is imported.  Default 1:
    on a shared 2-core machine a multi-threaded BLAS that spins for a busy
    core turns a 3 ms NumPy call into 150 ms; every engine here is
    single-threaded unless it starts its own threads."""
    value = None
    for i, arg in enumerate(argv):
        if arg == "--threads" and i + 1 < len(argv):
            value = argv[i + 1]
        elif arg.startswith("--threads="):
            value = arg.split("=", 1)[1]
    if value is None:
        if any(v in os.environ for v in _THREAD_VARS):
            return "from environment"
        value = "1"
    if value != "all":
        for var in _THREAD_VARS:
            os.environ[var] = value
    return value


if __name__ == "__main__":
    _THREADS = _early_threads(sys.argv[1:])
else:
    _THREADS = "not set (imported)"

import numpy as np  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = ROOT / "tests" / "corpus"
CACHE_ROOT = ROOT / ".everypath-cache" / "bench" / "pythran"

ENGINES = ("everypath", "numba", "pythran")
PEERS = ("numba", "pythran")
CATEGORIES = ("loop", "array", "mixed")
# Module-level names of a corpus file that belong to the test harness, not
# to the kernel.
META_NAMES = {"CATEGORY", "ENTRY", "RTOL", "MUTATES", "cases", "bench_args"}
PYTHRAN_FLAGS = ("-O3", "-march=native")
TARGET_SAMPLE_NS = 20_000_000  # each timing sample lasts at least 20 ms
MAX_BATCH_BYTES = 256 << 20  # cap on argument copies prepared for one sample

GOALS = {
    "loop": 50.0,  # loop kernels: everypath >= 50x CPython
    "array": 2.0,  # whole-array kernels: everypath >= 2x NumPy
    "slower_tolerance": 1.10,  # never slower than NumPy by more than 10 %
}


# --------------------------------------------------------------------------
# small utilities
# --------------------------------------------------------------------------


class EngineTimeout(BaseException):
    """Raised by the alarm; BaseException so `except Exception` in compilers
    or kernels does not swallow it."""


@contextlib.contextmanager
def deadline(seconds: float | None):
    """Raise EngineTimeout in the main thread after `seconds` (SIGALRM).

    Interrupts Python code and blocking syscalls (e.g. a compiler's
    subprocess.wait); it cannot interrupt a native loop that never returns to
    the interpreter -- use --isolate for that."""
    usable = (
        seconds
        and seconds > 0
        and hasattr(signal, "setitimer")
        and threading_is_main()
    )
    if not usable:
        yield
        return

    def _handler(signum, frame):
        raise EngineTimeout(f"timed out after {seconds:g} s")

    old = signal.signal(signal.SIGALRM, _handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def threading_is_main() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


_GENERIC_FIRST = re.compile(r"^Failed in \w+ mode pipeline")
_SPECIFIC = (
    re.compile(r"\b(?:TypingError|UnsupportedError|NumbaError|LoweringError|CompileError|NotImplementedError): (.+)"),
    re.compile(r"(.*(?:unsupported|Unsupported|Unknown attribute|Untyped global|Cannot |Invalid use|not supported|"
               r"unexpected keyword|No implementation|does not support).*)"),
)
_FILE_LINE = re.compile(r'File "([^"]+)", line (\d+)')


def short_reason(exc: BaseException, limit: int = 160) -> str:
    """One line: exception type and the most telling part of its message.

    Numba's messages open with a generic "Failed in nopython mode pipeline"
    line; the specific cause (and the kernel line) is picked from further
    down.  An exception without a message (a bare assert inside a compiler)
    names the place it was raised."""
    msg = str(exc).strip()
    lines = [ln.strip() for ln in msg.splitlines() if ln.strip()]
    name = type(exc).__name__
    if not lines:
        tb = traceback.extract_tb(exc.__traceback__) if exc.__traceback__ else []
        if tb:
            fr = tb[-1]
            where = "/".join(pathlib.Path(fr.filename).parts[-3:])
            text = f"{name} at {where}:{fr.lineno}" + (f": {fr.line.strip()}" if fr.line else "")
        else:
            text = name
    else:
        first = lines[0]
        if _GENERIC_FIRST.match(first):
            picked = None
            for pat in _SPECIFIC:
                for ln in lines[1:]:
                    m = pat.search(ln)
                    if m:
                        picked = m.group(1).strip()
                        break
                if picked:
                    break
            if picked is None and len(lines) > 1:
                picked = lines[1]
            loc = ""
            for ln in lines:
                m = _FILE_LINE.search(ln)
                if m and "site-packages" not in m.group(1):
                    loc = f" ({pathlib.Path(m.group(1)).name}:{m.group(2)})"
                    break
            first = f"{picked}{loc}" if picked else first
        text = f"{name}: {first}"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def compact_reason(exc: BaseException, limit: int = 220) -> str:
    """All non-empty lines of the message joined (numpy's assertion messages
    put the useful part on lines 2-4)."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    text = " | ".join(lines) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"


def full_reason(exc: BaseException, limit: int = 4000) -> str:
    text = "".join(traceback.format_exception(exc))
    return text if len(text) <= limit else "…" + text[-limit:]


def geomean(values: list[float]) -> float | None:
    vals = [v for v in values if v and v > 0 and math.isfinite(v)]
    if not vals:
        return None
    return math.exp(sum(math.log(v) for v in vals) / len(vals))


def nbytes_of(obj: Any) -> int:
    if isinstance(obj, np.ndarray):
        return obj.nbytes
    if isinstance(obj, (tuple, list)):
        return sum(nbytes_of(o) for o in obj)
    if isinstance(obj, dict):
        return sum(nbytes_of(o) for o in obj.values())
    return 64


def cpu_model() -> str:
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


# --------------------------------------------------------------------------
# results
# --------------------------------------------------------------------------


@dataclasses.dataclass
class EngineResult:
    engine: str
    status: str = "pending"  # ok | compile-fail | wrong | timeout | error | crash | skipped
    reason: str = ""  # short, for the table
    detail: str = ""  # long (traceback, build log excerpt), for the JSON
    compile_s: float | None = None  # pythran: build time (0 if cached); JIT: first call
    cached: bool | None = None
    median_ns: float | None = None
    samples_ns: list[float] = dataclasses.field(default_factory=list)
    inner: int | None = None
    speedup: float | None = None
    notes: list[str] = dataclasses.field(default_factory=list)

    @property
    def right(self) -> bool:
        return self.status == "ok" and self.speedup is not None

    def label(self) -> str:
        if self.status in ("ok",):
            return "ok"
        return f"{self.status}: {self.reason}" if self.reason else self.status


@dataclasses.dataclass
class KernelResult:
    name: str
    category: str
    path: str
    rtol: float | None
    mutates: list[int]
    status: str = "pending"  # ok | baseline-error | baseline-timeout | load-error
    reason: str = ""
    current: str = ""  # engine running right now (blamed if the process dies)
    cpython: EngineResult = dataclasses.field(default_factory=lambda: EngineResult("cpython"))
    engines: dict[str, EngineResult] = dataclasses.field(default_factory=dict)

    def to_json(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, d: dict) -> "KernelResult":
        d = dict(d)
        d["cpython"] = EngineResult(**d["cpython"])
        d["engines"] = {k: EngineResult(**v) for k, v in d["engines"].items()}
        return cls(**d)


# --------------------------------------------------------------------------
# corpus loading
# --------------------------------------------------------------------------


def import_loader(corpus_dir: pathlib.Path):
    corpus_dir = corpus_dir.resolve()
    if str(corpus_dir) not in sys.path:
        sys.path.insert(0, str(corpus_dir))
    return importlib.import_module("_loader")


def entry_name(kernel) -> str:
    """Name under which the entry function is bound in its module."""
    for name, obj in vars(kernel.module).items():
        if obj is kernel.entry and name not in META_NAMES:
            return name
    return kernel.entry.__name__


def safe_ident(name: str) -> str:
    s = re.sub(r"\W", "_", name)
    return s if s and not s[0].isdigit() else "k_" + s


# --------------------------------------------------------------------------
# result comparison
# --------------------------------------------------------------------------


def observe(kernel, fn: Callable, args: tuple):
    """Call fn on args (already copied); return (return value, mutated args)."""
    ret = fn(*args)
    mutated = tuple(args[i] for i in kernel.mutates)
    return ret, mutated


def compare_strict(loader, kernel, expected, actual) -> None:
    """everypath: the corpus' own comparison (types included)."""
    (e_ret, e_mut), (a_ret, a_mut) = expected, actual
    loader.assert_same_result(e_ret, a_ret, rtol=kernel.rtol, where=f"{kernel.name}: return value")
    for idx, e, a in zip(kernel.mutates, e_mut, a_mut):
        loader.assert_same_result(e, a, rtol=kernel.rtol, where=f"{kernel.name}: argument {idx} after the call")


def _short_repr(x: Any, limit: int = 60) -> str:
    r = repr(x)
    return r if len(r) <= limit else r[: limit - 1] + "…"


def _type_desc(x: Any) -> str:
    if isinstance(x, (np.ndarray, np.generic)):
        return f"{type(x).__name__}[{x.dtype}]"
    return type(x).__name__


def compare_values(expected, actual, rtol: float | None, path: str, notes: list[str]) -> None:
    """Peers: values only.  Type differences go to `notes`, not failures."""
    if isinstance(expected, (tuple, list)):
        if not isinstance(actual, (tuple, list)):
            raise AssertionError(f"{path}: expected a {type(expected).__name__}, got {_type_desc(actual)}")
        if type(actual) is not type(expected):
            notes.append(f"{path}: {type(actual).__name__} instead of {type(expected).__name__}")
        if len(actual) != len(expected):
            raise AssertionError(f"{path}: length {len(actual)} != {len(expected)}")
        for i, (e, a) in enumerate(zip(expected, actual)):
            compare_values(e, a, rtol, f"{path}[{i}]", notes)
        return
    if isinstance(expected, dict):
        if not isinstance(actual, dict) or set(actual) != set(expected):
            raise AssertionError(f"{path}: dict keys differ")
        for k in expected:
            compare_values(expected[k], actual[k], rtol, f"{path}[{k!r}]", notes)
        return
    if expected is None or isinstance(expected, str):
        if actual != expected:
            raise AssertionError(f"{path}: {actual!r} != {expected!r}")
        return
    if _type_desc(actual) != _type_desc(expected):
        notes.append(f"{path}: {_type_desc(actual)} instead of {_type_desc(expected)}")
    e = np.asarray(expected)
    a = np.asarray(actual)
    if e.shape != a.shape:
        raise AssertionError(f"{path}: shape {a.shape} != {e.shape}")
    if e.dtype.kind in "biu" and a.dtype.kind in "biu":
        np.testing.assert_array_equal(a, e, err_msg=path)
        return
    if e.dtype.kind not in "biufc" or a.dtype.kind not in "biufc":
        if not np.array_equal(a, e):
            raise AssertionError(f"{path}: values differ: got {_short_repr(actual)}, expected {_short_repr(expected)}")
        return
    if rtol is not None:
        tol = rtol
    else:  # the corpus' defaults: 1e-4 for float32/complex64, 1e-7 otherwise
        single = any(x.dtype.kind in "fc" and x.dtype.itemsize <= (4 if x.dtype.kind == "f" else 8) for x in (e, a))
        tol = 1e-4 if single else 1e-7
    finite = np.abs(e[np.isfinite(e)]) if e.size else np.zeros(0)
    scale = float(finite.max()) if finite.size else 0.0
    np.testing.assert_allclose(a, e, rtol=tol, atol=tol * scale, equal_nan=True, err_msg=path)


def compare_peer(kernel, expected, actual, notes: list[str]) -> None:
    (e_ret, e_mut), (a_ret, a_mut) = expected, actual
    compare_values(e_ret, a_ret, kernel.rtol, "return", notes)
    for idx, e, a in zip(kernel.mutates, e_mut, a_mut):
        compare_values(e, a, kernel.rtol, f"arg{idx}", notes)


# --------------------------------------------------------------------------
# Numba
# --------------------------------------------------------------------------


def numba_entry(kernel) -> Callable:
    """njit the entry in a fresh copy of the module's globals where every
    plain Python function of the module is replaced by its njit version."""
    import numba

    mod_globals = vars(kernel.module)
    g = dict(mod_globals)
    for name, obj in mod_globals.items():
        if name in META_NAMES or not inspect.isfunction(obj):
            continue
        if obj.__globals__ is not mod_globals:  # imported, not defined here
            continue
        clone = types.FunctionType(obj.__code__, g, obj.__name__, obj.__defaults__, obj.__closure__)
        clone.__kwdefaults__ = obj.__kwdefaults__
        clone.__qualname__ = obj.__qualname__
        clone.__module__ = obj.__module__
        clone.__doc__ = obj.__doc__
        g[name] = numba.njit(cache=False)(clone)
    name = entry_name(kernel)
    jitted = g.get(name)
    if jitted is None or not hasattr(jitted, "py_func"):
        jitted = numba.njit(cache=False)(kernel.entry)
    return jitted


# --------------------------------------------------------------------------
# everypath
# --------------------------------------------------------------------------


def everypath_entry(kernel) -> Callable:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import everypath  # noqa: PLC0415 -- lazily, any failure is data

    return everypath.compile(kernel.entry)


# --------------------------------------------------------------------------
# Pythran: source generation, export signature, build, load
# --------------------------------------------------------------------------

# Modules whose names pythran does not know; imports of them are dropped
# (they only serve annotations in the corpus).
PYTHRAN_DROP_MODULES = ("numpy.typing", "typing", "typing_extensions", "__future__", "collections.abc", "dataclasses", "types")


class PythranExportError(Exception):
    pass


_SCALAR_NAMES = {bool: "bool", int: "int", float: "float", complex: "complex", str: "str"}


def _dtype_name(dt: Any) -> str:
    name = np.dtype(dt).name
    if name.startswith("bool"):
        return "bool"
    return name


def _array_spec(dtype: str, ndim: int, value: Any) -> str:
    if ndim == 0:
        raise PythranExportError("0-d arrays are not supported by the pythran export")
    if isinstance(value, np.ndarray) and value.ndim == ndim and not value.flags.c_contiguous:
        if ndim == 2 and value.flags.f_contiguous:
            return f"{dtype}[:,:] order(F)"
        return f"{dtype}[{','.join(['::'] * ndim)}]"
    return f"{dtype}[{','.join([':'] * ndim)}]"


def pythran_type_from_value(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, np.ndarray):
        return _array_spec(_dtype_name(value.dtype), value.ndim, value)
    if isinstance(value, np.generic):
        return _dtype_name(value.dtype)
    for t, name in _SCALAR_NAMES.items():
        if isinstance(value, t):
            return name
    if isinstance(value, tuple):
        if not value:
            raise PythranExportError("empty tuple argument")
        return "(" + ", ".join(pythran_type_from_value(v) for v in value) + ")"
    if isinstance(value, list):
        if not value:
            raise PythranExportError("empty list argument")
        return f"{pythran_type_from_value(value[0])} list"
    if value is None:
        return "None"
    raise PythranExportError(f"cannot map argument of type {type(value).__name__}")


def pythran_type(ann: Any, value: Any) -> str:
    """Pythran export type for one parameter: from its annotation, with the
    bench argument filling in what the annotation leaves open (ndim of
    npt.NDArray, length of tuple[X, ...], unannotated parameters)."""
    if ann is inspect.Parameter.empty or ann is None or ann is typing.Any:
        return pythran_type_from_value(value)
    if isinstance(ann, str):
        raise PythranExportError(f"unresolved annotation {ann!r}")
    if ann in _SCALAR_NAMES:
        return _SCALAR_NAMES[ann]
    if isinstance(ann, type) and issubclass(ann, np.generic):
        return _dtype_name(ann)
    origin = typing.get_origin(ann)
    args = typing.get_args(ann)
    if origin is np.ndarray:
        shape = args[0] if args else Any
        dtype_ann = args[1] if len(args) > 1 else Any
        dt_args = typing.get_args(dtype_ann)
        if dt_args and isinstance(dt_args[0], type) and issubclass(dt_args[0], np.generic):
            dtype = _dtype_name(dt_args[0])
        elif isinstance(value, np.ndarray):
            dtype = _dtype_name(value.dtype)
        else:
            raise PythranExportError(f"cannot tell the dtype of {ann}")
        shape_args = typing.get_args(shape)
        if shape_args and Ellipsis not in shape_args and all(s is int for s in shape_args):
            ndim = len(shape_args)
        elif isinstance(value, np.ndarray):
            ndim = value.ndim
        else:
            raise PythranExportError(f"cannot tell the ndim of {ann}")
        return _array_spec(dtype, ndim, value)
    if origin is tuple:
        if not isinstance(value, tuple):
            raise PythranExportError(f"annotation {ann} but argument is {type(value).__name__}")
        if len(args) == 2 and args[1] is Ellipsis:
            elems = [pythran_type(args[0], v) for v in value]
        elif args == ((),) or not args:
            raise PythranExportError(f"unsupported tuple annotation {ann}")
        else:
            elems = [pythran_type(a, v) for a, v in zip(args, value)]
        return "(" + ", ".join(elems) + ")"
    if origin is list:
        inner = args[0] if args else Any
        first = value[0] if isinstance(value, list) and value else None
        if first is None and inner is Any:
            raise PythranExportError("cannot type an empty list")
        return f"{pythran_type(inner, first)} list"
    if origin is dict:
        k_ann, v_ann = args if len(args) == 2 else (Any, Any)
        k0, v0 = next(iter(value.items())) if isinstance(value, dict) and value else (None, None)
        return f"{pythran_type(k_ann, k0)}:{pythran_type(v_ann, v0)} dict"
    if origin is set:
        inner = args[0] if args else Any
        first = next(iter(value)) if isinstance(value, set) and value else None
        return f"{pythran_type(inner, first)} set"
    # Unions, custom aliases, ...: the argument decides.
    return pythran_type_from_value(value)


def pythran_export_line(kernel, args: tuple) -> str:
    fn = kernel.entry
    try:
        hints = typing.get_type_hints(fn)
    except Exception:
        hints = {}
    params = list(inspect.signature(fn).parameters.values())
    if len(args) > len(params):
        raise PythranExportError("more bench arguments than parameters")
    specs = []
    for p, v in zip(params, args):
        specs.append(pythran_type(hints.get(p.name, p.annotation), v))
    return f"#pythran export {entry_name(kernel)}({', '.join(specs)})"


class _StripAnnotations(ast.NodeTransformer):
    def _fn(self, node):
        node.returns = None
        node.decorator_list = []
        a = node.args
        for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
            if arg is not None:
                arg.annotation = None
        self.generic_visit(node)
        if not node.body:
            node.body = [ast.Pass()]
        return node

    visit_FunctionDef = _fn
    visit_AsyncFunctionDef = _fn

    def visit_AnnAssign(self, node):
        if node.value is None:
            return None
        return ast.copy_location(ast.Assign(targets=[node.target], value=node.value), node)

    def generic_visit(self, node):
        super().generic_visit(node)
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and field == "body" and not block and not isinstance(node, ast.Module):
                setattr(node, field, [ast.Pass()])
        return node


def _names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def pythran_source(kernel, source: str, export_line: str) -> str:
    """Module source for pythran: only what the entry needs (functions,
    constants, imports it reaches), annotations and harness names removed."""
    tree = _StripAnnotations().visit(ast.parse(source))
    defs: dict[str, ast.stmt] = {}
    order: list[tuple[ast.stmt, list[str]]] = []  # statement, names it binds
    for stmt in tree.body:
        bound: list[str] = []
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            bound = [stmt.name]
        elif isinstance(stmt, ast.Assign):
            for t in stmt.targets:
                bound += [n.id for n in ast.walk(t) if isinstance(n, ast.Name)]
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            mod = stmt.module if isinstance(stmt, ast.ImportFrom) else None
            for alias in stmt.names:
                full = f"{mod}.{alias.name}" if mod else alias.name
                if any(full == m or full.startswith(m + ".") for m in PYTHRAN_DROP_MODULES):
                    continue
                if mod and any(mod == m or mod.startswith(m + ".") for m in PYTHRAN_DROP_MODULES):
                    continue
                bound.append(alias.asname or alias.name.split(".")[0])
        else:
            continue
        bound = [b for b in bound if b not in META_NAMES]
        for b in bound:
            defs[b] = stmt
        order.append((stmt, bound))

    entry = entry_name(kernel)
    if entry not in defs:
        raise PythranExportError(f"entry {entry!r} is not a top-level function of {kernel.path.name}")
    needed: set[str] = set()
    todo = [entry]
    while todo:
        name = todo.pop()
        if name in needed or name not in defs:
            continue
        needed.add(name)
        stmt = defs[name]
        deps = _names_in(stmt) if not isinstance(stmt, (ast.Import, ast.ImportFrom)) else set()
        todo.extend(d for d in deps if d in defs and d not in needed)

    body: list[ast.stmt] = []
    for stmt, bound in order:
        keep = [b for b in bound if b in needed]
        if not keep:
            continue
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            aliases = [a for a in stmt.names if (a.asname or a.name.split(".")[0]) in keep]
            new = copy.copy(stmt)
            new.names = aliases
            body.append(new)
        else:
            body.append(stmt)
    out = ast.Module(body=body, type_ignores=[])
    ast.fix_missing_locations(out)
    header = f"# generated by bench/corpus_bench.py from {kernel.path.name} -- do not edit\n"
    return header + ast.unparse(out) + "\n\n" + export_line + "\n"


def pythran_blas_flags() -> list[str]:
    """Pythran calls CBLAS for np.dot & co.  Without a cblas.h on the system
    those builds fail; the pip package scipy-openblas64 (the OpenBLAS NumPy
    itself ships) is used when it is installed."""
    if importlib.util.find_spec("scipy_openblas64") is not None:
        return ["--config", "compiler.blas=scipy-openblas"]
    return []


def pythran_command() -> list[str]:
    exe = pathlib.Path(sys.executable).parent / "pythran"
    if exe.exists():
        return [str(exe)]
    found = shutil.which("pythran")
    if found:
        return [found]
    return [sys.executable, "-c", "import sys; from pythran.run import run; sys.exit(run())"]


def _pythran_version() -> str:
    try:
        import pythran

        return getattr(pythran, "__version__", "?")
    except Exception as e:  # noqa: BLE001
        return f"unavailable ({short_reason(e)})"


def _log_reason(log: str) -> str:
    """The first error line of a pythran build log, paths cut to their last
    parts (pythran's own C++ headers as pythonic/...)."""
    lines = [ln.strip() for ln in log.splitlines() if ln.strip()]
    for ln in lines:
        if re.search(r"\berror\b", ln, re.I) and "CRITICAL" not in ln:
            ln = re.sub(r"^/tmp/\S+?:", "", ln)
            ln = re.sub(r"\S*/pythran/(pythonic/)", r"\1", ln)
            ln = re.sub(r"(?<![\w.])/(?:[^\s/:]+/)+([^\s/:]+)", r"\1", ln)
            return ln[:200]
    return (lines[-1] if lines else "no output")[:200]


@dataclasses.dataclass
class PythranBuild:
    kernel: str
    status: str  # ok | compile-fail | timeout
    reason: str = ""
    detail: str = ""
    so_path: str = ""
    module_name: str = ""
    build_dir: str = ""
    compile_s: float | None = None
    cached: bool = False


def pythran_prepare(kernel, flags: tuple[str, ...], cache_root: pathlib.Path) -> tuple[pathlib.Path, str, list[str]]:
    """Write the generated source into its cache folder; return (folder,
    module name, command) -- runs in the main process (needs the kernel)."""
    args = tuple(kernel.bench_args(np.random.default_rng(0)))
    export = pythran_export_line(kernel, args)
    modname = f"pt_{safe_ident(kernel.name)}"
    src = pythran_source(kernel, kernel.path.read_text(), export)
    key = "\0".join(
        [src, " ".join(flags), modname, _pythran_version(), sysconfig.get_config_var("EXT_SUFFIX") or "", cpu_model()]
    )
    folder = cache_root / hashlib.sha256(key.encode()).hexdigest()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{modname}.py").write_text(src)
    cmd = [*pythran_command(), *flags, f"{modname}.py", "-o", f"{modname}{sysconfig.get_config_var('EXT_SUFFIX') or '.so'}"]
    return folder, modname, cmd


def pythran_build(name: str, folder: pathlib.Path, modname: str, cmd: list[str], timeout: float, rebuild: bool) -> PythranBuild:
    """Build in a worker process (thread-safe; called from a thread pool)."""
    so = folder / f"{modname}{sysconfig.get_config_var('EXT_SUFFIX') or '.so'}"
    ok_marker, fail_marker = folder / "BUILD_OK", folder / "BUILD_FAILED"
    base = dict(kernel=name, module_name=modname, build_dir=str(folder), so_path=str(so))
    if not rebuild:
        if ok_marker.exists() and so.exists():
            return PythranBuild(status="ok", compile_s=0.0, cached=True, **base)
        if fail_marker.exists():
            log = fail_marker.read_text()
            return PythranBuild(status="compile-fail", reason=_log_reason(log), detail=log[-4000:], cached=True, **base)
    for m in (ok_marker, fail_marker):
        m.unlink(missing_ok=True)
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        cmd, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
    )
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        (folder / "build.log").write_text(out or "")
        return PythranBuild(status="timeout", reason=f"pythran build > {timeout:g} s", detail=(out or "")[-4000:], **base)
    elapsed = time.perf_counter() - t0
    (folder / "build.log").write_text(out or "")
    if proc.returncode != 0 or not so.exists():
        log = f"$ {' '.join(cmd)}\n(exit {proc.returncode})\n{out}"
        fail_marker.write_text(log)
        return PythranBuild(status="compile-fail", reason=_log_reason(out or ""), detail=log[-4000:], compile_s=elapsed, **base)
    ok_marker.write_text(f"{elapsed:.3f}\n")
    return PythranBuild(status="ok", compile_s=elapsed, **base)


def pythran_build_all(kernels, flags, cache_root, timeout, jobs, rebuild, log) -> dict[str, PythranBuild]:
    builds: dict[str, PythranBuild] = {}
    pending = []
    for k in kernels:
        try:
            folder, modname, cmd = pythran_prepare(k, flags, cache_root)
        except Exception as e:  # noqa: BLE001
            builds[k.name] = PythranBuild(kernel=k.name, status="compile-fail", reason="export: " + short_reason(e), detail=full_reason(e))
            continue
        pending.append((k.name, folder, modname, cmd))
    if pending:
        log(f"pythran: building {len(pending)} module(s), {jobs} at a time, cache {cache_root}")
    with cf.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futs = {pool.submit(pythran_build, n, f, m, c, timeout, rebuild): n for n, f, m, c in pending}
        for fut in cf.as_completed(futs):
            name = futs[fut]
            try:
                b = fut.result()
            except Exception as e:  # noqa: BLE001
                b = PythranBuild(kernel=name, status="compile-fail", reason=short_reason(e), detail=full_reason(e))
            builds[name] = b
            how = "cached" if b.cached else (f"{b.compile_s:.1f} s" if b.compile_s is not None else "")
            log(f"  pythran {name}: {b.status} {how} {b.reason}".rstrip())
    return builds


def pythran_load(b: PythranBuild, kernel) -> Callable:
    spec = importlib.util.spec_from_file_location(b.module_name, b.so_path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {b.so_path}")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, entry_name(kernel))


# --------------------------------------------------------------------------
# timing
# --------------------------------------------------------------------------


class Timer:
    """Adaptive-inner-loop sampler for one engine on one kernel."""

    def __init__(self, fn: Callable, args: tuple, mutates: tuple[int, ...]):
        self.fn = fn
        self.args = args
        self.mutating = bool(mutates)
        self.arg_bytes = max(1, nbytes_of(args))
        self.inner = 1
        self.sample_est_ns = 0.0

    def _batch(self, n: int) -> list[tuple]:
        if self.mutating:
            return [copy.deepcopy(self.args) for _ in range(n)]
        return [self.args] * n

    def sample(self, n: int | None = None) -> float:
        """ns per call, over one batch of n calls."""
        n = n or self.inner
        batch = self._batch(n)
        fn = self.fn
        gc_was = gc.isenabled()
        gc.disable()
        try:
            t0 = time.perf_counter_ns()
            for a in batch:
                fn(*a)
            t1 = time.perf_counter_ns()
        finally:
            if gc_was:
                gc.enable()
        return (t1 - t0) / n

    def calibrate(self) -> None:
        max_n = 10**7
        if self.mutating:
            max_n = max(1, min(max_n, MAX_BATCH_BYTES // self.arg_bytes))
        n = 1
        while True:
            per = self.sample(n)
            total = per * n
            if total >= TARGET_SAMPLE_NS or n >= max_n:
                break
            want = math.ceil(TARGET_SAMPLE_NS * 1.1 / max(per, 1.0))
            n = min(max_n, max(n * 2, min(want, n * 1000)))
        self.inner = n
        self.sample_est_ns = total


# --------------------------------------------------------------------------
# one kernel
# --------------------------------------------------------------------------


@dataclasses.dataclass
class Options:
    engines: tuple[str, ...]
    repeat: int
    timeout: float
    max_time: float
    verbose: bool


def run_kernel(kernel, loader, opts: Options, builds: dict[str, PythranBuild], progress: Callable[[KernelResult], None]) -> KernelResult:
    kr = KernelResult(
        name=kernel.name,
        category=kernel.category,
        path=str(kernel.path),
        rtol=kernel.rtol,
        mutates=list(kernel.mutates),
    )
    for e in ENGINES:
        kr.engines[e] = EngineResult(e, status="pending" if e in opts.engines else "skipped",
                                     reason="" if e in opts.engines else "disabled")
    progress(kr)

    try:
        args0 = tuple(kernel.bench_args(np.random.default_rng(0)))
    except Exception as e:  # noqa: BLE001
        kr.status, kr.reason = "load-error", "bench_args: " + short_reason(e)
        kr.cpython.status, kr.cpython.reason, kr.cpython.detail = "error", kr.reason, full_reason(e)
        for er in kr.engines.values():
            if er.status == "pending":
                er.status, er.reason = "skipped", "no bench_args"
        progress(kr)
        return kr

    # ---- baseline ---------------------------------------------------------
    kr.cpython.status = "running"
    kr.current = "cpython"
    progress(kr)
    try:
        with deadline(opts.timeout):
            t0 = time.perf_counter()
            expected = observe(kernel, kernel.entry, copy.deepcopy(args0))
            kr.cpython.compile_s = time.perf_counter() - t0
        kr.cpython.status = "ok"
    except EngineTimeout as e:
        kr.status, kr.reason = "baseline-timeout", str(e)
        kr.cpython.status, kr.cpython.reason = "timeout", str(e)
    except Exception as e:  # noqa: BLE001
        kr.status, kr.reason = "baseline-error", short_reason(e)
        kr.cpython.status, kr.cpython.reason, kr.cpython.detail = "error", short_reason(e), full_reason(e)
    if kr.cpython.status != "ok":
        for er in kr.engines.values():
            if er.status == "pending":
                er.status, er.reason = "skipped", "no CPython baseline"
        progress(kr)
        return kr

    # ---- compile + correctness per engine ---------------------------------
    callables: dict[str, Callable] = {"cpython": kernel.entry}
    for eng in ENGINES:
        er = kr.engines[eng]
        if er.status != "pending":
            continue
        er.status = "running"
        kr.current = eng
        progress(kr)
        fn = None
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                with deadline(opts.timeout):
                    t0 = time.perf_counter()
                    if eng == "everypath":
                        fn = everypath_entry(kernel)
                    elif eng == "numba":
                        fn = numba_entry(kernel)
                    else:
                        b = builds.get(kernel.name)
                        if b is None:
                            raise RuntimeError("pythran build missing")
                        er.cached = b.cached
                        if b.status != "ok":
                            er.status, er.reason, er.detail, er.compile_s = b.status, b.reason, b.detail, b.compile_s
                            raise _Handled()
                        fn = pythran_load(b, kernel)
                    actual = observe(kernel, fn, copy.deepcopy(args0))
                    first = time.perf_counter() - t0
            er.compile_s = builds[kernel.name].compile_s if eng == "pythran" else first
            for w in caught[:3]:
                er.notes.append(f"warning: {w.category.__name__}: {str(w.message).splitlines()[0][:160]}")
        except _Handled:
            progress(kr)
            continue
        except EngineTimeout as e:
            er.status, er.reason = "timeout", f"compile/first call {e}"
            progress(kr)
            continue
        except Exception as e:  # noqa: BLE001
            er.status, er.reason, er.detail = "compile-fail", short_reason(e), full_reason(e)
            progress(kr)
            continue
        try:
            if eng == "everypath":
                compare_strict(loader, kernel, expected, actual)
            else:
                compare_peer(kernel, expected, actual, er.notes)
        except Exception as e:  # noqa: BLE001
            er.status, er.reason, er.detail = "wrong", compact_reason(e), str(e)[:4000]
            progress(kr)
            continue
        er.status = "timing"
        callables[eng] = fn
        progress(kr)

    # ---- timing, side by side ---------------------------------------------
    results = {"cpython": kr.cpython, **kr.engines}
    timers: dict[str, Timer] = {}
    for name, fn in callables.items():
        er = results[name]
        kr.current = name
        progress(kr)
        try:
            t = Timer(fn, copy.deepcopy(args0), tuple(kernel.mutates))
            with deadline(opts.timeout):
                t.sample(1)  # warm-up
                t.calibrate()
            timers[name] = t
            er.inner = t.inner
        except EngineTimeout as e:
            er.status, er.reason = "timeout", f"warm-up {e}"
        except Exception as e:  # noqa: BLE001
            er.status, er.reason, er.detail = "error", short_reason(e), full_reason(e)
    if "cpython" not in timers:
        kr.status = "baseline-error"
        kr.reason = kr.cpython.reason
        for name in timers:
            results[name].status = "ok"
        progress(kr)
        return kr

    # fewer repeats (never < 3) when one sample is long, to bound the run
    reps = {
        name: max(3, min(opts.repeat, int(opts.max_time * 1e9 / max(t.sample_est_ns, 1.0))))
        for name, t in timers.items()
    }
    order = list(timers)
    for r in range(max(reps.values())):
        rot = order[r % len(order):] + order[: r % len(order)]  # vary who goes first
        for name in rot:
            if name not in timers or len(results[name].samples_ns) >= reps[name]:
                continue
            kr.current = name
            progress(kr)  # (outside the timed region)
            try:
                results[name].samples_ns.append(timers[name].sample())
            except Exception as e:  # noqa: BLE001
                results[name].status, results[name].reason = "error", short_reason(e)
                results[name].detail = full_reason(e)
                del timers[name]

    base = results["cpython"]
    base.median_ns = float(np.median(base.samples_ns)) if base.samples_ns else None
    base.speedup = 1.0 if base.median_ns else None
    for name in ENGINES:
        er = results[name]
        if name in timers and er.samples_ns:
            er.median_ns = float(np.median(er.samples_ns))
            er.status = "ok"
            if base.median_ns and er.median_ns > 0:
                er.speedup = base.median_ns / er.median_ns
    kr.status = "ok"
    kr.current = ""
    progress(kr)
    return kr


class _Handled(Exception):
    pass


# --------------------------------------------------------------------------
# summary
# --------------------------------------------------------------------------


def summarize(results: list[KernelResult], engines: tuple[str, ...]) -> dict:
    # a kernel whose plain-Python baseline failed is a corpus problem, not
    # an engine's: it is listed apart and left out of every count
    no_baseline = [r.name for r in results if r.cpython.median_ns is None]
    results = [r for r in results if r.cpython.median_ns is not None]
    groups: dict[str, list[KernelResult]] = {}
    for c in CATEGORIES:
        sel = [r for r in results if r.category == c]
        if sel:
            groups[c] = sel
    for r in results:
        if r.category not in CATEGORIES:
            groups.setdefault(r.category, []).append(r)
    groups["overall"] = list(results)
    out: dict[str, Any] = {}
    for gname, rs in groups.items():
        row: dict[str, Any] = {"kernels": len(rs), "engines": {}}
        for e in engines:
            sp = [r.engines[e].speedup for r in rs if r.engines[e].right]
            row["engines"][e] = {
                "geomean": geomean(sp),
                "right": len(sp),
                "total": len(rs),
                "statuses": _count([r.engines[e].status for r in rs]),
            }
        if "everypath" in engines:
            slow = [
                r.name
                for r in rs
                if r.engines["everypath"].right and r.engines["everypath"].speedup < 1.0 / GOALS["slower_tolerance"]
            ]
            row["everypath_slower_than_numpy_10pct"] = slow
        out[gname] = row

    goals: dict[str, Any] = {}
    if "everypath" in engines:
        def _g(cat):
            return out.get(cat, {}).get("engines", {}).get("everypath", {})

        for cat in ("loop", "array"):
            if cat in out:
                g = _g(cat)
                gm = g.get("geomean")
                goals[f"{cat}_geomean"] = {
                    "target": GOALS[cat],
                    "value": gm,
                    "right": g.get("right"),
                    "total": g.get("total"),
                    "met": bool(gm is not None and gm >= GOALS[cat] and g.get("right") == g.get("total")),
                }
        arr_slow = out.get("array", {}).get("everypath_slower_than_numpy_10pct", [])
        all_slow = out["overall"].get("everypath_slower_than_numpy_10pct", [])
        if "array" in out:
            arr = _g("array")
            goals["never_10pct_slower_than_numpy"] = {
                "array_slower": arr_slow,
                "all_slower": all_slow,
                "array_right": arr.get("right"),
                "array_total": arr.get("total"),
                # a kernel everypath cannot run correctly is not "not slower"
                "met": bool(arr.get("total") and arr.get("right") == arr.get("total") and not arr_slow),
            }
        if "pythran" in engines:
            common = [r for r in results if r.engines["everypath"].right and r.engines["pythran"].right]
            h2h = geomean([r.engines["everypath"].speedup / r.engines["pythran"].speedup for r in common])
            ep, pt = _g("overall").get("geomean"), out["overall"]["engines"]["pythran"]["geomean"]
            goals["ahead_of_pythran"] = {
                "everypath_geomean": ep,
                "pythran_geomean": pt,
                "everypath_right": out["overall"]["engines"]["everypath"]["right"],
                "pythran_right": out["overall"]["engines"]["pythran"]["right"],
                "head_to_head_geomean": h2h,
                "head_to_head_kernels": len(common),
                "head_to_head_wins": sum(
                    1 for r in common if r.engines["everypath"].speedup > r.engines["pythran"].speedup
                ),
                "met": bool(
                    ep is not None
                    and (pt is None or ep > pt)
                    and (h2h is None or h2h > 1.0)
                    and out["overall"]["engines"]["everypath"]["right"] >= out["overall"]["engines"]["pythran"]["right"]
                ),
            }
    return {"groups": out, "goals": goals, "no_baseline": no_baseline}


def _count(items: list[str]) -> dict[str, int]:
    d: dict[str, int] = {}
    for i in items:
        d[i] = d.get(i, 0) + 1
    return d


# --------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------


def _fmt_x(er: EngineResult) -> str:
    if er.status == "ok" and er.speedup is not None:
        s = er.speedup
        return f"{s:.3g}×" if s < 1000 else f"{s:,.0f}×"
    return {
        "compile-fail": "FAIL",
        "wrong": "WRONG",
        "timeout": "T/O",
        "error": "ERR",
        "crash": "CRASH",
        "skipped": "-",
    }.get(er.status, er.status)


def _fmt_ms(ns: float | None) -> str:
    if ns is None:
        return "-"
    ms = ns / 1e6
    return f"{ms:.3g}" if ms < 1000 else f"{ms:,.0f}"


def _fmt_gm(v: float | None) -> str:
    return "-" if v is None else (f"{v:.3g}×" if v < 1000 else f"{v:,.0f}×")


def _trim(text: str, limit: int = 90) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def kernel_rows(results: list[KernelResult], engines: tuple[str, ...]) -> list[list[str]]:
    rows = []
    for r in results:
        if r.status not in ("ok",):
            status = _trim(f"{r.status}: {r.reason}")
        else:
            bad = [_trim(f"{e}: {r.engines[e].label()}") for e in engines if r.engines[e].status not in ("ok", "skipped")]
            status = "; ".join(bad) if bad else "ok"
        rows.append([r.name, r.category, _fmt_ms(r.cpython.median_ns), *[_fmt_x(r.engines[e]) for e in engines], status])
    return rows


def _met(flag: bool) -> str:
    return "MET" if flag else "NOT MET"


def summary_rows(summary: dict, engines: tuple[str, ...]) -> list[list[str]]:
    """One row per category + overall; the goal that applies to the row is
    printed beside it."""
    rows = []
    goals = summary["goals"]
    for gname, row in summary["groups"].items():
        cells = [gname, str(row["kernels"])]
        for e in engines:
            g = row["engines"][e]
            cells.append(f"{_fmt_gm(g['geomean'])} ({g['right']}/{g['total']})")
        goal = []
        if "everypath" in engines:
            cells.append(str(len(row.get("everypath_slower_than_numpy_10pct", []))))
            if f"{gname}_geomean" in goals:
                gg = goals[f"{gname}_geomean"]
                goal.append(f"≥{gg['target']:g}×: {_met(gg['met'])}")
            if gname == "array" and "never_10pct_slower_than_numpy" in goals:
                goal.append(f"never >10% slower: {_met(goals['never_10pct_slower_than_numpy']['met'])}")
            if gname == "overall" and "ahead_of_pythran" in goals:
                goal.append(f"ahead of Pythran: {_met(goals['ahead_of_pythran']['met'])}")
        cells.append("; ".join(goal))
        rows.append(cells)
    return rows


def goal_lines(summary: dict) -> list[str]:
    goals = summary["goals"]
    groups = summary["groups"]
    out = []

    def gm(g):
        return f"{_fmt_gm(g.get('geomean'))} ({g.get('right')}/{g.get('total')} right)"

    for cat, what in (("loop", "loop kernels"), ("array", "whole-array kernels")):
        if f"{cat}_geomean" in goals:
            g = goals[f"{cat}_geomean"]
            out.append(f"{what:38s} ≥ {g['target']:g}× (all right)   now {gm(groups[cat]['engines']['everypath'])}"
                       f"   {_met(g['met'])}")
    if "never_10pct_slower_than_numpy" in goals:
        g = goals["never_10pct_slower_than_numpy"]
        slow = ", ".join(g["array_slower"]) or "none"
        out.append(f"{'never >10% slower than NumPy (array)':38s} 0 slower (all right)   now slower: {slow};"
                   f" {g['array_right']}/{g['array_total']} right   {_met(g['met'])}")
        if g["all_slower"] and g["all_slower"] != g["array_slower"]:
            out.append(f"{'':38s} (all categories: slower: {', '.join(g['all_slower'])})")
    if "ahead_of_pythran" in goals:
        g = goals["ahead_of_pythran"]
        h2h = "-" if g["head_to_head_geomean"] is None else f"{g['head_to_head_geomean']:.3g}×"
        out.append(
            f"{'ahead of Pythran overall':38s} > Pythran   now everypath {gm(groups['overall']['engines']['everypath'])}"
            f" vs Pythran {gm(groups['overall']['engines']['pythran'])}; head-to-head {h2h}"
            f" on {g['head_to_head_kernels']} common kernels, {g['head_to_head_wins']} wins   {_met(g['met'])}"
        )
    return out


def _plain_table(title: str, header: list[str], rows: list[list[str]], out) -> None:
    widths = [len(h) for h in header]
    for row in rows:
        for i, c in enumerate(row):
            widths[i] = max(widths[i], len(c))
    widths[-1] = len(header[-1])  # last column is free-form
    print(f"\n{title}", file=out)

    def line(cells):
        parts = []
        for i, c in enumerate(cells):
            if i == len(cells) - 1:
                parts.append(c)
            elif i >= 2 or (i == 1 and header[1] == "kernels"):
                parts.append(c.rjust(widths[i]))
            else:
                parts.append(c.ljust(widths[i]))
        return "  ".join(parts).rstrip()

    print(line(header), file=out)
    print("  ".join("-" * w for w in widths), file=out)
    for row in rows:
        print(line(row), file=out)


def print_report(results: list[KernelResult], summary: dict, engines: tuple[str, ...], meta: dict, plain: bool) -> None:
    names = {"everypath": "everypath ×", "numba": "Numba ×", "pythran": "Pythran ×"}
    k_header = ["kernel", "category", "CPython ms", *[names[e] for e in engines], "status"]
    s_header = ["group", "kernels", *[f"{names[e]} (right/total)" for e in engines]]
    if "everypath" in engines:
        s_header.append("ep >10% slower than NumPy")
    s_header.append("everypath goal")
    k_rows = kernel_rows(results, engines)
    s_rows = summary_rows(summary, engines)
    caption = (
        f"speedup = CPython time / engine time (median of {meta['repeat']} samples of ≥20 ms); "
        "FAIL = compile-fail, WRONG = wrong result, T/O = timeout, - = skipped"
    )
    console = None
    if not plain:
        try:
            from rich.console import Console
            from rich.table import Table

            console = Console()
            if not console.is_terminal:
                console = Console(width=220)
        except ImportError:
            console = None
    if console is not None:
        t = Table(title="corpus benchmark", caption=caption)
        for i, h in enumerate(k_header):
            last = i == len(k_header) - 1
            t.add_column(h, justify="right" if 2 <= i and not last else "left", no_wrap=not last,
                         overflow="fold" if last else "ellipsis")
        for row in k_rows:
            t.add_row(*row)
        console.print(t)
        st = Table(title="summary: geomean speedup over the kernels each engine got right")
        for i, h in enumerate(s_header):
            last = i == len(s_header) - 1
            st.add_column(h, justify="right" if 1 <= i and not last else "left", no_wrap=not last)
        for row in s_rows:
            st.add_row(*row)
        console.print(st)
    else:
        _plain_table("corpus benchmark", k_header, k_rows, sys.stdout)
        print(caption)
        _plain_table("summary: geomean speedup over the kernels each engine got right", s_header, s_rows, sys.stdout)
    if summary.get("no_baseline"):
        print(f"\nleft out of the summary (plain Python failed): {', '.join(summary['no_baseline'])}")
    lines = goal_lines(summary)
    if lines:
        print("\ngoals (everypath, from the issue):")
        for ln in lines:
            print("  " + ln)
    notes = [(r.name, e, n) for r in results for e in engines for n in r.engines[e].notes]
    if notes:
        print("\nnotes (type differences of peers, warnings):")
        for name, e, n in notes[:60]:
            print(f"  {name} [{e}] {n}")
        if len(notes) > 60:
            print(f"  … {len(notes) - 60} more in --json")


# --------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--kernels", help="comma-separated kernel names (default: all)")
    p.add_argument("--category", help="comma-separated categories to keep (loop,array,mixed)")
    p.add_argument("--repeat", type=int, default=7, help="timing samples per engine (median; min 3, default 7)")
    p.add_argument("--no-numba", action="store_true")
    p.add_argument("--no-pythran", action="store_true")
    p.add_argument("--no-everypath", action="store_true")
    p.add_argument("--json", metavar="OUT", help="write every number to this JSON file")
    p.add_argument("--corpus-dir", default=str(DEFAULT_CORPUS), help="folder holding _loader.py (default tests/corpus)")
    p.add_argument("--timeout", type=float, default=120.0,
                   help="seconds allowed per kernel for a pythran build, and for compile + first call of everypath/numba (default 120)")
    p.add_argument("--max-time", type=float, default=30.0,
                   help="soft cap, seconds of timing per engine and kernel: fewer repeats (never < 3) for very slow calls")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="parallel pythran builds (default: CPU count)")
    p.add_argument("--pythran-flags", default=" ".join(PYTHRAN_FLAGS),
                   help="default: %(default)s (plus --config compiler.blas=scipy-openblas when scipy-openblas64 is installed)")
    p.add_argument("--rebuild", action="store_true", help="ignore the pythran cache")
    p.add_argument("--cache-dir", default=str(CACHE_ROOT), help="pythran cache (default .everypath-cache/bench/pythran)")
    p.add_argument("--isolate", action="store_true",
                   help="run each kernel in a child process (survives segfaults / native hangs)")
    p.add_argument("--threads", default="1",
                   help="BLAS/OpenMP threads for every engine (OPENBLAS_NUM_THREADS & co, set before NumPy is "
                        "imported; 'all' leaves them alone; default 1, or the environment's if it sets them)")
    p.add_argument("--plain", action="store_true", help="plain-text tables even if rich is installed")
    p.add_argument("-v", "--verbose", action="store_true")
    # internal: child of --isolate
    p.add_argument("--_child-progress", dest="child_progress", help=argparse.SUPPRESS)
    p.add_argument("--_pythran-builds", dest="pythran_builds", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    a.repeat = max(3, a.repeat)
    return a


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _engines(a) -> tuple[str, ...]:
    return tuple(
        e for e in ENGINES
        if not ((e == "numba" and a.no_numba) or (e == "pythran" and a.no_pythran) or (e == "everypath" and a.no_everypath))
    )


def _versions() -> dict[str, str]:
    v = {"python": sys.version.split()[0], "numpy": np.__version__}
    for mod in ("numba", "pythran", "everypath"):
        try:
            if mod == "everypath" and str(ROOT) not in sys.path:
                sys.path.insert(0, str(ROOT))
            m = importlib.import_module(mod)
            v[mod] = str(getattr(m, "__version__", "?"))
        except Exception as e:  # noqa: BLE001
            v[mod] = f"unavailable ({short_reason(e, 80)})"
    return v


def _child_main(a, kernels, loader, opts) -> int:
    builds = {}
    if a.pythran_builds:
        builds = {k: PythranBuild(**v) for k, v in json.loads(pathlib.Path(a.pythran_builds).read_text()).items()}
    progress_path = pathlib.Path(a.child_progress)

    def progress(kr: KernelResult) -> None:
        tmp = progress_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(kr.to_json()))
        os.replace(tmp, progress_path)

    for k in kernels:
        run_kernel(k, loader, opts, builds, progress)
    return 0


def _run_isolated(a, kernels, builds, opts) -> list[KernelResult]:
    """Each kernel in a child process.  If the child dies (signal, exit,
    hang), the engine it was running is marked crash/timeout and the kernel
    is run again without it, so the other engines still get numbers."""
    results = []
    with tempfile.TemporaryDirectory(prefix="corpus_bench_") as td:
        bfile = pathlib.Path(td) / "builds.json"
        bfile.write_text(json.dumps({k: dataclasses.asdict(v) for k, v in builds.items()}))
        for i, k in enumerate(kernels, 1):
            _log(f"[{i}/{len(kernels)}] {k.name} ({k.category}) in a child process")
            prog = pathlib.Path(td) / f"{safe_ident(k.name)}.json"
            enabled = list(opts.engines)
            blamed: dict[str, tuple[str, str]] = {}
            while True:
                prog.unlink(missing_ok=True)
                cmd = [
                    sys.executable, str(pathlib.Path(__file__).resolve()),
                    "--kernels", k.name, "--repeat", str(opts.repeat), "--timeout", str(opts.timeout),
                    "--max-time", str(opts.max_time), "--corpus-dir", a.corpus_dir, "--threads", "all",  # env already set here
                    "--_child-progress", str(prog), "--_pythran-builds", str(bfile),
                ]
                cmd += [f"--no-{e}" for e in ENGINES if e not in enabled]
                n = len(enabled) + 1
                budget = 2 * opts.timeout * n + 4 * opts.max_time * n + 120
                why = ""
                try:
                    proc = subprocess.run(cmd, timeout=budget)
                    if proc.returncode < 0:
                        why = f"crash: signal {signal.Signals(-proc.returncode).name}"
                    elif proc.returncode != 0:
                        why = f"crash: child exit {proc.returncode}"
                except subprocess.TimeoutExpired:
                    why = f"timeout: child ran > {budget:g} s"
                try:
                    kr = KernelResult.from_json(json.loads(prog.read_text()))
                except Exception:  # noqa: BLE001
                    kr = KernelResult(k.name, k.category, str(k.path), k.rtol, list(k.mutates), current="cpython")
                    for e in ENGINES:
                        kr.engines[e] = EngineResult(e, status="pending" if e in enabled else "skipped")
                if not why:
                    break
                status, reason = why.split(": ", 1)
                culprit = kr.current or "cpython"
                if culprit in enabled:
                    _log(f"    {culprit} {status} ({reason}); running {k.name} again without it")
                    blamed[culprit] = (status, reason)
                    enabled.remove(culprit)
                    continue
                # the baseline itself died: nothing to compare against
                kr.cpython.status, kr.cpython.reason = status, reason
                kr.cpython.median_ns = None
                kr.status, kr.reason = f"baseline-{status}", reason
                for er in kr.engines.values():
                    if er.status not in ("skipped",) and er.speedup is None:
                        er.status, er.reason = "skipped", f"child {status} in CPython"
                break
            for e, (status, reason) in blamed.items():
                kr.engines[e] = EngineResult(e, status=status, reason=reason)
            kr.current = ""
            results.append(kr)
    return results


def main(argv=None) -> int:
    a = parse_args(argv)
    engines = _engines(a)
    opts = Options(engines=engines, repeat=a.repeat, timeout=a.timeout, max_time=a.max_time, verbose=a.verbose)
    try:
        loader = import_loader(pathlib.Path(a.corpus_dir))
    except Exception as e:  # noqa: BLE001
        _log(f"cannot import the corpus loader from {a.corpus_dir}: {short_reason(e)}")
        return 2
    names = [n.strip() for n in a.kernels.split(",") if n.strip()] if a.kernels else None
    try:
        kernels = list(loader.load_corpus(names) if names else loader.load_corpus())
    except Exception as e:  # noqa: BLE001
        _log(f"load_corpus failed: {full_reason(e)}")
        return 2
    if names:
        missing = set(names) - {k.name for k in kernels}
        if missing:
            _log(f"unknown kernel(s): {', '.join(sorted(missing))}")
    if a.category:
        cats = {c.strip() for c in a.category.split(",")}
        kernels = [k for k in kernels if k.category in cats]
    if not kernels:
        _log("no kernels selected")
        return 2

    if a.child_progress:
        return _child_main(a, kernels, loader, opts)

    versions = _versions()
    flags = tuple(a.pythran_flags.split())
    if "compiler.blas" not in a.pythran_flags:
        flags += tuple(pythran_blas_flags())
    builds: dict[str, PythranBuild] = {}
    if "pythran" in engines:
        if versions["pythran"].startswith("unavailable"):
            builds = {k.name: PythranBuild(kernel=k.name, status="compile-fail", reason=f"pythran {versions['pythran']}") for k in kernels}
        else:
            builds = pythran_build_all(kernels, flags, pathlib.Path(a.cache_dir), a.timeout, a.jobs, a.rebuild, _log)

    t_start = time.time()
    if a.isolate:
        results = _run_isolated(a, kernels, builds, opts)
    else:
        results = []
        for i, k in enumerate(kernels, 1):
            _log(f"[{i}/{len(kernels)}] {k.name} ({k.category})")
            try:
                kr = run_kernel(k, loader, opts, builds, lambda kr: None)
            except KeyboardInterrupt:
                raise
            except BaseException as e:  # noqa: BLE001 -- never let one kernel end the run
                kr = KernelResult(k.name, k.category, str(k.path), k.rtol, list(k.mutates),
                                  status="error", reason=short_reason(e))
                for eng in ENGINES:
                    kr.engines[eng] = EngineResult(eng, status="error" if eng in engines else "skipped", reason=short_reason(e))
            if a.verbose:
                for eng, er in [("cpython", kr.cpython), *kr.engines.items()]:
                    _log(f"    {eng:9s} {er.status:12s} median {_fmt_ms(er.median_ns)} ms  inner {er.inner}  "
                         f"samples {len(er.samples_ns)}  compile {er.compile_s}  {er.reason}")
            results.append(kr)

    summary = summarize(results, engines)
    meta = {
        "date": _dt.datetime.now().isoformat(timespec="seconds"),
        "wall_s": round(time.time() - t_start, 2),
        "host": platform.node(),
        "cpu": cpu_model(),
        "cpu_count": os.cpu_count(),
        "versions": versions,
        "engines": list(engines),
        "repeat": a.repeat,
        "target_sample_ms": TARGET_SAMPLE_NS / 1e6,
        "timeout_s": a.timeout,
        "pythran_flags": list(flags),
        "numba": "numba.njit(cache=False) on every function of the kernel module",
        "isolate": a.isolate,
        "threads": _THREADS,
        "thread_env": {v: os.environ.get(v) for v in _THREAD_VARS},
        "goals": GOALS,
    }
    print_report(results, summary, engines, meta, a.plain)
    if a.json:
        out = pathlib.Path(a.json)
        out.parent.mkdir(parents=True, exist_ok=True)
        payload = {
            "meta": meta,
            "kernels": [r.to_json() for r in results],
            "pythran_builds": {k: dataclasses.asdict(v) for k, v in builds.items()},
            "summary": summary,
        }
        out.write_text(json.dumps(payload, indent=1, default=str))
        _log(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

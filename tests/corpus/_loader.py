"""Loader and result comparison for the everypath acceptance corpus (``tests/corpus/<name>.py``).

Every kernel file is imported by path under the module name ``everypath_corpus.<name>`` and
registered in ``sys.modules`` (so ``inspect.getsource`` works on its functions).  The file
format is described in ``tests/corpus/README.md``.

Public API::

    load_corpus(names=None) -> list[CorpusKernel]          # sorted by name, "_*.py" skipped
    assert_same_result(expected, actual, rtol=None, where="")

This module deliberately depends only on the standard library and NumPy, so the benchmark
harness (which also runs the kernels through Numba and Pythran) can import it.
"""
from __future__ import annotations

import importlib.machinery
import importlib.util
import pathlib
import sys
import types
from dataclasses import dataclass
from typing import Any, Callable, Iterable

import numpy as np

__all__ = [
    "CORPUS_DIR",
    "PACKAGE",
    "CATEGORIES",
    "CorpusFormatError",
    "CorpusKernel",
    "load_corpus",
    "kernel_names",
    "default_rtol",
    "default_atol",
    "assert_same_result",
]

CORPUS_DIR = pathlib.Path(__file__).resolve().parent
PACKAGE = "everypath_corpus"
CATEGORIES = ("loop", "array", "mixed")

# Default tolerances for float/complex results (see README.md).
_RTOL_SINGLE = 1e-4   # float32 / complex64 (and float16)
_RTOL_DOUBLE = 1e-7   # float64 / complex128, Python float / complex
_ATOL_SINGLE = 1e-6
_ATOL_DOUBLE = 1e-12


class CorpusFormatError(Exception):
    """A corpus file does not follow the format in README.md."""


@dataclass(frozen=True)
class CorpusKernel:
    name: str                 # file stem
    path: pathlib.Path
    module: types.ModuleType  # imported as "everypath_corpus.<name>"
    entry: Callable           # module.<ENTRY>
    category: str             # "loop" | "array" | "mixed"
    rtol: float | None        # module RTOL, None when the default applies
    mutates: tuple[int, ...]  # indices of arguments modified in place

    def cases(self, rng: np.random.Generator) -> list[tuple]:
        """The kernel's differential-test argument tuples (fresh arrays on every call)."""
        out = self.module.cases(rng)
        return [tuple(c) for c in out]

    def bench_args(self, rng: np.random.Generator) -> tuple:
        """One argument tuple at benchmark size."""
        return tuple(self.module.bench_args(rng))


def _package() -> types.ModuleType:
    """The (synthetic) parent package ``everypath_corpus`` whose __path__ is the corpus folder."""
    pkg = sys.modules.get(PACKAGE)
    if pkg is None:
        pkg = types.ModuleType(PACKAGE, "Synthetic package holding the everypath corpus kernels.")
        spec = importlib.machinery.ModuleSpec(PACKAGE, None, is_package=True)
        spec.submodule_search_locations = [str(CORPUS_DIR)]
        pkg.__spec__ = spec
        pkg.__path__ = [str(CORPUS_DIR)]
        pkg.__package__ = PACKAGE
        sys.modules[PACKAGE] = pkg
    return pkg


def _import_by_path(path: pathlib.Path) -> types.ModuleType:
    pkg = _package()
    modname = f"{PACKAGE}.{path.stem}"
    cached = sys.modules.get(modname)
    if cached is not None and getattr(cached, "__file__", None):
        if pathlib.Path(cached.__file__).resolve() == path.resolve():
            return cached
    spec = importlib.util.spec_from_file_location(modname, path)
    if spec is None or spec.loader is None:
        raise CorpusFormatError(f"{path}: cannot create an import spec")
    module = importlib.util.module_from_spec(spec)
    sys.modules[modname] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(modname, None)
        raise
    setattr(pkg, path.stem, module)
    return module


def kernel_names() -> list[str]:
    """Stems of all kernel files, sorted (files starting with '_' and test files are skipped)."""
    return sorted(
        p.stem for p in CORPUS_DIR.glob("*.py")
        if not p.name.startswith("_") and not p.name.startswith("test_")
    )


def _make_kernel(name: str) -> CorpusKernel:
    path = CORPUS_DIR / f"{name}.py"
    if not path.is_file():
        raise CorpusFormatError(f"no corpus kernel named {name!r} (looked for {path})")
    module = _import_by_path(path)
    where = f"{path.name}"
    for required in ("CATEGORY", "ENTRY", "cases", "bench_args"):
        if not hasattr(module, required):
            raise CorpusFormatError(f"{where}: missing module-level name {required}")
    entry_name = module.ENTRY
    if not isinstance(entry_name, str) or not callable(getattr(module, entry_name, None)):
        raise CorpusFormatError(f"{where}: ENTRY = {entry_name!r} does not name a function of the module")
    category = module.CATEGORY
    if category not in CATEGORIES:
        raise CorpusFormatError(f"{where}: CATEGORY must be one of {CATEGORIES}, got {category!r}")
    if not callable(module.cases) or not callable(module.bench_args):
        raise CorpusFormatError(f"{where}: cases and bench_args must be functions")
    rtol = getattr(module, "RTOL", None)
    if rtol is not None and not (isinstance(rtol, float) and rtol > 0.0):
        raise CorpusFormatError(f"{where}: RTOL must be a positive float, got {rtol!r}")
    mutates = getattr(module, "MUTATES", ())
    if not (isinstance(mutates, tuple) and all(isinstance(i, int) and i >= 0 for i in mutates)):
        raise CorpusFormatError(f"{where}: MUTATES must be a tuple of argument indices, got {mutates!r}")
    return CorpusKernel(
        name=name,
        path=path,
        module=module,
        entry=getattr(module, entry_name),
        category=category,
        rtol=rtol,
        mutates=tuple(sorted(mutates)),
    )


def load_corpus(names: Iterable[str] | None = None) -> list[CorpusKernel]:
    """Load the named kernels (all of them when ``names`` is None), sorted by name."""
    if names is None:
        wanted = kernel_names()
    else:
        wanted = sorted(set(names))
        bad = [n for n in wanted if n.startswith("_")]
        if bad:
            raise CorpusFormatError(f"not kernel names (start with '_'): {bad}")
    return [_make_kernel(n) for n in wanted]


# ----------------------------------------------------------------------------------------------
# result comparison
# ----------------------------------------------------------------------------------------------

def _is_single(dtype: np.dtype) -> bool:
    return dtype.kind in "fc" and dtype.itemsize <= (4 if dtype.kind == "f" else 8)


def default_rtol(dtype: np.dtype) -> float:
    """Default relative tolerance for values of this dtype (float32/complex64: 1e-4, else 1e-7)."""
    return _RTOL_SINGLE if _is_single(np.dtype(dtype)) else _RTOL_DOUBLE


def default_atol(dtype: np.dtype) -> float:
    """Tiny absolute tolerance added to the relative one (float32/complex64: 1e-6, else 1e-12)."""
    return _ATOL_SINGLE if _is_single(np.dtype(dtype)) else _ATOL_DOUBLE


def _scalar_dtype(x: Any) -> np.dtype:
    if isinstance(x, np.generic):
        return x.dtype
    if isinstance(x, complex):
        return np.dtype(np.complex128)
    return np.dtype(np.float64)


def _fail(path: str, msg: str) -> None:
    raise AssertionError(f"{path}: {msg}")


def _close(expected: Any, actual: Any, dtype: np.dtype, rtol: float | None, path: str) -> None:
    r = default_rtol(dtype) if rtol is None else rtol
    a = default_atol(dtype)
    try:
        np.testing.assert_allclose(actual, expected, rtol=r, atol=a, equal_nan=True,
                                   err_msg=f"{path}: values differ (rtol={r:g}, atol={a:g})")
    except AssertionError as exc:
        msg = str(exc)
        if not msg.lstrip().startswith(path) and path not in msg:
            msg = f"{path}: {msg}"
        raise AssertionError(msg) from None


def _compare(expected: Any, actual: Any, rtol: float | None, path: str) -> None:
    te, ta = type(expected), type(actual)
    if te is not ta:
        _fail(path, f"type differs: expected {te.__module__}.{te.__qualname__} ({expected!r:.60}), "
                    f"got {ta.__module__}.{ta.__qualname__} ({actual!r:.60})")
    if isinstance(expected, (tuple, list)):
        if len(expected) != len(actual):
            _fail(path, f"length differs: expected {len(expected)}, got {len(actual)}")
        for i, (e, a) in enumerate(zip(expected, actual)):
            _compare(e, a, rtol, f"{path}[{i}]")
        return
    if isinstance(expected, np.ndarray):
        if expected.dtype != actual.dtype:
            _fail(path, f"dtype differs: expected {expected.dtype}, got {actual.dtype}")
        if expected.shape != actual.shape:
            _fail(path, f"shape differs: expected {expected.shape}, got {actual.shape}")
        kind = expected.dtype.kind
        if kind in "fc":
            _close(expected, actual, expected.dtype, rtol, path)
        elif kind in "biu":
            if not np.array_equal(expected, actual):
                bad = np.argwhere(expected != actual)
                first = tuple(int(i) for i in bad[0]) if bad.size else ()
                _fail(path, f"values differ at {bad.shape[0]} of {expected.size} positions; first at index "
                            f"{first}: expected {expected[first]!r}, got {actual[first]!r}")
        else:
            if not np.array_equal(expected, actual):
                _fail(path, "values differ")
        return
    if expected is None:
        return
    if isinstance(expected, (bool, np.bool_)):
        if bool(expected) != bool(actual):
            _fail(path, f"value differs: expected {expected!r}, got {actual!r}")
        return
    if isinstance(expected, (int, np.integer)):
        if int(expected) != int(actual):
            _fail(path, f"value differs: expected {expected!r}, got {actual!r}")
        return
    if isinstance(expected, (float, complex, np.floating, np.complexfloating)):
        _close(expected, actual, _scalar_dtype(expected), rtol, path)
        return
    try:
        same = bool(expected == actual)
    except Exception as exc:  # pragma: no cover - exotic objects
        _fail(path, f"cannot compare values of type {te.__qualname__}: {exc}")
    if not same:
        _fail(path, f"value differs: expected {expected!r}, got {actual!r}")


def assert_same_result(expected: Any, actual: Any, rtol: float | None = None, where: str = "") -> None:
    """Assert that ``actual`` is the same result as ``expected``.

    Same Python type at every level (``type(a) is type(b)``: ``float`` vs ``numpy.float64`` vs
    ``int`` are different), recursing through tuples and lists; arrays must have the same dtype
    and shape, integer/bool values exactly equal, float/complex values close (NaNs equal) with
    ``rtol`` (default 1e-7 for 64-bit floats, 1e-4 for float32/complex64) plus a tiny ``atol``
    (1e-12 / 1e-6).  Failure messages start with ``where`` and the path into the result,
    e.g. ``"kmeans case 3: result[1]: dtype differs: ..."``.
    """
    root = f"{where}: result" if where else "result"
    _compare(expected, actual, rtol, root)


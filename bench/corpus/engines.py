"""The engines' side of one kernel: building the everypath and Numba
callables (Pythran's come from ``pythran_build``) and checking what a call
returns against CPython's result."""

from __future__ import annotations

import inspect
import sys
import types
from typing import Any, Callable

import numpy as np

from .common import META_NAMES, ROOT, Kernel, entry_name

# (return value, the arguments listed in MUTATES after the call)
Outcome = tuple[Any, tuple]


# --------------------------------------------------------------------------
# result comparison
# --------------------------------------------------------------------------


def observe(kernel: Kernel, fn: Callable[..., Any], args: tuple) -> Outcome:
    """Call fn on args (already copied); return (return value, mutated args)."""
    ret = fn(*args)
    mutated = tuple(args[i] for i in kernel.mutates)
    return ret, mutated


def compare_strict(loader: types.ModuleType, kernel: Kernel, expected: Outcome, actual: Outcome) -> None:
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


def compare_values(expected: Any, actual: Any, rtol: float | None, path: str, notes: list[str]) -> None:
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


def compare_peer(kernel: Kernel, expected: Outcome, actual: Outcome, notes: list[str]) -> None:
    (e_ret, e_mut), (a_ret, a_mut) = expected, actual
    compare_values(e_ret, a_ret, kernel.rtol, "return", notes)
    for idx, e, a in zip(kernel.mutates, e_mut, a_mut):
        compare_values(e, a, kernel.rtol, f"arg{idx}", notes)


# --------------------------------------------------------------------------
# Numba
# --------------------------------------------------------------------------


def numba_entry(kernel: Kernel) -> Callable[..., Any]:
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


def everypath_entry(kernel: Kernel) -> Callable[..., Any]:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import everypath  # noqa: PLC0415 -- lazily, any failure is data

    return everypath.compile(kernel.entry)

"""Informational: which corpus kernels compile and agree unchanged under ``numba.njit``.

Run: ``.venv/bin/python tests/corpus/_numba_check.py [names...]``.  Every module-level function
reachable from ENTRY is wrapped in ``numba.njit`` (in a fresh copy of the module), then every
case of ``cases()`` is run under CPython and under Numba and compared.  Prints one line per
kernel and a Markdown table for README.md.  Never part of the test suite: Numba support is not
required of the corpus.
"""
from __future__ import annotations

import copy
import importlib.util
import pathlib
import re
import sys
import time
import types
import warnings

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent


def _load_helper(name: str) -> types.ModuleType:
    modname = f"everypath_corpus.{name}"
    if modname in sys.modules:
        return sys.modules[modname]
    spec = importlib.util.spec_from_file_location(modname, HERE / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[modname] = mod
    spec.loader.exec_module(mod)
    return mod


loader = _load_helper("_loader")
checks = _load_helper("_checks")


def _jitted_entry(kernel, numba):
    spec = importlib.util.spec_from_file_location(f"everypath_corpus_numba.{kernel.name}", kernel.path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    for fname in checks.kernel_functions(kernel.module):
        setattr(mod, fname, numba.njit(getattr(mod, fname)))
    return getattr(mod, kernel.module.ENTRY)


def _loose(v):
    """Forget the Python-vs-NumPy scalar type distinction (Numba returns plain int/float)."""
    if isinstance(v, (tuple, list)):
        return tuple(_loose(x) for x in v)
    if isinstance(v, np.ndarray):
        return v
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return float(v)
    if isinstance(v, (complex, np.complexfloating)):
        return complex(v)
    return v


def _call(fn, args):
    args = copy.deepcopy(args)
    try:
        return fn(*args), None, args
    except Exception as exc:  # noqa: BLE001
        return None, exc, args


def _from_numba(exc: BaseException) -> bool:
    """A Numba compiler error (its own exception types, or an internal assert inside numba/)."""
    if type(exc).__module__.startswith("numba"):
        return True
    tb = exc.__traceback__
    last = None
    while tb is not None:
        last = tb.tb_frame.f_code.co_filename
        tb = tb.tb_next
    return last is not None and f"{pathlib.os.sep}numba{pathlib.os.sep}" in last


def _compare(kernel, i, want, got, want_args, got_args) -> str | None:
    """None when equal with exact types, 'loose' when equal up to scalar types, else a message."""
    try:
        loader.assert_same_result(want, got, rtol=kernel.rtol, where=f"case {i}")
        for j in kernel.mutates:
            loader.assert_same_result(want_args[j], got_args[j], rtol=kernel.rtol, where=f"case {i} arg {j}")
        return None
    except AssertionError as strict:
        try:
            loader.assert_same_result(_loose(want), _loose(got), rtol=kernel.rtol, where=f"case {i}")
            for j in kernel.mutates:
                loader.assert_same_result(want_args[j], got_args[j], rtol=kernel.rtol, where=f"case {i} arg {j}")
        except AssertionError as exc:
            return str(exc).splitlines()[0][:200]
        return "loose: " + str(strict).splitlines()[0][:160]


def check(kernel, numba) -> tuple[str, str]:
    """(status, detail); status in ok / ok-loose-types / mismatch / no-compile / error."""
    try:
        jitted = _jitted_entry(kernel, numba)
    except Exception as exc:  # noqa: BLE001
        return "error", f"setup: {exc}"
    cases = kernel.cases(np.random.default_rng(0))
    bad: list[str] = []
    loose: list[str] = []
    for i, case in enumerate(cases):
        want, want_exc, want_args = _call(kernel.entry, case)
        got, got_exc, got_args = _call(jitted, case)
        if got_exc is not None and _from_numba(got_exc):
            lines = [ln.strip() for ln in str(got_exc).strip().splitlines() if ln.strip()]
            msg = next((ln for ln in lines if not ln.startswith(("Failed in", "- Resolution"))), lines[0] if lines else "")
            if not type(got_exc).__module__.startswith("numba"):
                msg = "internal assertion in numba (unsupported construct, e.g. a multi-dimensional boolean mask)"
            msg = re.sub(r" at 0x[0-9a-f]+", "", msg).replace("Function(<function ", "").replace(">)", "")
            return "no-compile", f"{type(got_exc).__name__}: {msg[:160]}"
        if want_exc is not None or got_exc is not None:
            if type(want_exc) is not type(got_exc) or str(want_exc) != str(got_exc):
                w = "returns" if want_exc is None else f"raises {type(want_exc).__name__}({str(want_exc)!r})"
                g = "returns" if got_exc is None else f"raises {type(got_exc).__name__}({str(got_exc)!r})"
                bad.append(f"case {i}: CPython {w}, Numba {g}")
            continue
        problem = _compare(kernel, i, want, got, want_args, got_args)
        if problem is None:
            continue
        (loose if problem.startswith("loose: ") else bad).append(problem.removeprefix("loose: "))
    if bad:
        return "mismatch", f"{len(bad)}/{len(cases)} cases; first: {bad[0]}"
    if loose:
        return "ok-loose-types", f"{len(loose)}/{len(cases)} cases; first: {loose[0]}"
    return "ok", ""


def main(argv: list[str]) -> int:
    try:
        import numba
    except ImportError:
        print("numba is not importable; nothing to check")
        return 0
    warnings.simplefilter("ignore")
    rows = []
    for k in loader.load_corpus(argv or None):
        t0 = time.perf_counter()
        status, detail = check(k, numba)
        rows.append((k.name, status, detail))
        print(f"{k.name:24s} {status:15s} {time.perf_counter() - t0:6.1f}s  {detail}", flush=True)
    print()
    print(f"numba {numba.__version__}, numpy {np.__version__}")
    print("| kernel | numba | detail |")
    print("|---|---|---|")
    for name, status, detail in rows:
        if status != "ok":
            print(f"| {name} | {status} | {detail.replace('|', '/')} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

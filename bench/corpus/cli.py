"""Command line of the corpus benchmark: options, kernel selection, the run
(in this process or ``--isolate``d), then the report.  ``main`` is called by
``bench/corpus_bench.py``, in the parent and in each ``--isolate`` child."""

from __future__ import annotations

import argparse
import datetime as _dt
import importlib
import os
import pathlib
import platform
import sys
import time
import types
from typing import Any

import numpy as np

from . import THREAD_VARS
from . import __doc__ as PACKAGE_DOC
from .common import (
    CACHE_ROOT,
    DEFAULT_CORPUS,
    ENGINES,
    GOALS,
    PYTHRAN_FLAGS,
    ROOT,
    TARGET_SAMPLE_NS,
    EngineResult,
    Kernel,
    KernelResult,
    cpu_model,
    full_reason,
    import_loader,
    log,
    short_reason,
)
from .isolate import child_main, run_isolated
from .pythran_build import PythranBuild, pythran_blas_flags, pythran_build_all
from .report import fmt_ms, print_report, summarize, write_json
from .timing import Options, run_kernel


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=PACKAGE_DOC.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
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


def _engines(a: argparse.Namespace) -> tuple[str, ...]:
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


def _select_kernels(a: argparse.Namespace, loader: types.ModuleType) -> list[Kernel] | None:
    """--kernels and --category applied to the corpus; None (after saying
    why) when the run cannot start."""
    names = [n.strip() for n in a.kernels.split(",") if n.strip()] if a.kernels else None
    try:
        kernels = list(loader.load_corpus(names) if names else loader.load_corpus())
    except Exception as e:  # noqa: BLE001
        log(f"load_corpus failed: {full_reason(e)}")
        return None
    if names:
        missing = set(names) - {k.name for k in kernels}
        if missing:
            log(f"unknown kernel(s): {', '.join(sorted(missing))}")
    if a.category:
        cats = {c.strip() for c in a.category.split(",")}
        kernels = [k for k in kernels if k.category in cats]
    if not kernels:
        log("no kernels selected")
        return None
    return kernels


def _run_in_process(
    a: argparse.Namespace,
    kernels: list[Kernel],
    loader: types.ModuleType,
    builds: dict[str, PythranBuild],
    opts: Options,
) -> list[KernelResult]:
    """Every kernel in this process, one after the other."""
    results: list[KernelResult] = []
    for i, k in enumerate(kernels, 1):
        log(f"[{i}/{len(kernels)}] {k.name} ({k.category})")
        try:
            kr = run_kernel(k, loader, opts, builds, lambda kr: None)
        except KeyboardInterrupt:
            raise
        except BaseException as e:  # noqa: BLE001 -- never let one kernel end the run
            kr = KernelResult(k.name, k.category, str(k.path), k.rtol, list(k.mutates),
                              status="error", reason=short_reason(e))
            for eng in ENGINES:
                kr.engines[eng] = EngineResult(eng, status="error" if eng in opts.engines else "skipped",
                                               reason=short_reason(e))
        if a.verbose:
            for eng, er in [("cpython", kr.cpython), *kr.engines.items()]:
                log(f"    {eng:9s} {er.status:12s} median {fmt_ms(er.median_ns)} ms  inner {er.inner}  "
                    f"samples {len(er.samples_ns)}  compile {er.compile_s}  {er.reason}")
        results.append(kr)
    return results


def main(argv: list[str] | None = None, threads: str = "not set (imported)") -> int:
    """`threads` is what bench/corpus_bench.py did with --threads before
    NumPy was imported (recorded in the JSON)."""
    a = parse_args(argv)
    engines = _engines(a)
    opts = Options(engines=engines, repeat=a.repeat, timeout=a.timeout, max_time=a.max_time, verbose=a.verbose)
    try:
        loader = import_loader(pathlib.Path(a.corpus_dir))
    except Exception as e:  # noqa: BLE001
        log(f"cannot import the corpus loader from {a.corpus_dir}: {short_reason(e)}")
        return 2
    kernels = _select_kernels(a, loader)
    if kernels is None:
        return 2

    if a.child_progress:
        return child_main(a, kernels, loader, opts)

    versions = _versions()
    flags = tuple(a.pythran_flags.split())
    if "compiler.blas" not in a.pythran_flags:
        flags += tuple(pythran_blas_flags())
    builds: dict[str, PythranBuild] = {}
    if "pythran" in engines:
        if versions["pythran"].startswith("unavailable"):
            builds = {k.name: PythranBuild(kernel=k.name, status="compile-fail", reason=f"pythran {versions['pythran']}") for k in kernels}
        else:
            builds = pythran_build_all(kernels, flags, pathlib.Path(a.cache_dir), a.timeout, a.jobs, a.rebuild, log)

    t_start = time.time()
    if a.isolate:
        results = run_isolated(a, kernels, builds, opts)
    else:
        results = _run_in_process(a, kernels, loader, builds, opts)

    summary = summarize(results, engines)
    meta: dict[str, Any] = {
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
        "threads": threads,
        "thread_env": {v: os.environ.get(v) for v in THREAD_VARS},
        "goals": GOALS,
    }
    print_report(results, summary, engines, meta, a.plain)
    if a.json:
        write_json(a.json, meta, results, builds, summary)
    return 0

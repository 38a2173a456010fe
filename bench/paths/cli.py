"""Command line of the paths benchmark: options, the run family by family,
then the report.  ``main`` is called by ``bench/paths_bench.py`` after
``early_threads`` has set the thread count."""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from corpus.common import TARGET_SAMPLE_NS, cpu_model, log, short_reason
from everypath.base.settings import Settings

from . import __doc__ as PACKAGE_DOC
from .families import Family, select
from .measure import CaseRunner, Options, Row, Timing, load_kernel
from .report import FamilyRun, print_report, write_json


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=PACKAGE_DOC.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--families", help="comma-separated families (default: all)")
    p.add_argument("--sizes", help="comma-separated element counts for every family (default: each family's own)")
    p.add_argument("--quick", action="store_true", help="one small size per family (CI smoke)")
    p.add_argument("--threads", default="all", help="threads for every library and path (default: all cores)")
    p.add_argument("--repeat", type=int, default=5, help="timing samples per engine, median (>= 5, default 5)")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds for compile + first call of a path")
    p.add_argument("--max-call", type=float, default=2.0,
                   help="a call slower than this many seconds is timed once (shown with *), default 2")
    p.add_argument("--json", metavar="OUT", help="write every number to this JSON file")
    p.add_argument("--plain", action="store_true", help="plain-text tables even if rich is installed")
    a = p.parse_args(argv)
    if a.threads != "all" and not a.threads.isdigit():
        p.error(f"--threads: expected a number or 'all', got {a.threads!r}")
    a.repeat = max(5, a.repeat)
    try:
        a.size_list = tuple(int(s) for s in a.sizes.split(",") if s.strip()) if a.sizes else None
    except ValueError:
        p.error(f"--sizes: expected comma-separated integers, got {a.sizes!r}")
    if a.size_list is not None and (not a.size_list or min(a.size_list) < 1):
        p.error("--sizes: expected positive element counts")
    return a


def _sizes(fam: Family, a: argparse.Namespace) -> tuple[int, ...]:
    if a.size_list:
        return a.size_list
    return (fam.sizes[0],) if a.quick else fam.sizes


def _failed_row(case: str, ops: tuple[str, ...], n: int, exc: BaseException) -> Row:
    return Row(case, ops, n, "", Timing("reference", "fail", reason=short_reason(exc)), (), None, None)


def run_family(fam: Family, sizes: tuple[int, ...], settings: Settings, opts: Options, where: Path) -> FamilyRun:
    """Every case of the family at every size; failures become data."""
    try:
        cases = fam.cases()
    except Exception as e:  # noqa: BLE001
        return FamilyRun(fam.name, fam.reference, sizes, (), error=short_reason(e))
    rows: list[Row] = []
    for i, case in enumerate(cases):
        log(f"  {case.name}")
        try:
            runner = CaseRunner(fam, case, load_kernel(case, where, f"{fam.name}_{i}"), settings, opts, log)
        except Exception as e:  # noqa: BLE001
            rows += [_failed_row(case.name, case.ops, n, e) for n in sizes]
            continue
        for n in sizes:
            try:
                rows.append(runner.row(n))
            except Exception as e:  # noqa: BLE001 -- the reference itself failed on these inputs
                rows.append(_failed_row(case.name, case.ops, n, e))
    return FamilyRun(fam.name, fam.reference, sizes, tuple(rows))


def _library_threads(n: int) -> dict[str, Any]:
    """torch and OpenCV keep their own pools: give them the same count."""
    got: dict[str, Any] = {}
    try:
        import torch

        torch.set_num_threads(n)
        got["torch"] = torch.get_num_threads()
    except Exception as e:  # noqa: BLE001
        got["torch"] = f"unavailable ({short_reason(e, 60)})"
    try:
        import cv2

        cv2.setNumThreads(n)
        got["opencv"] = cv2.getNumThreads()
    except Exception as e:  # noqa: BLE001
        got["opencv"] = f"unavailable ({short_reason(e, 60)})"
    return got


def main(argv: list[str] | None = None, threads: int = 0) -> int:
    a = parse_args(argv)
    threads = threads or int(os.environ.get("OMP_NUM_THREADS", "0") or 0) or (os.cpu_count() or 1)
    try:
        fams = select(a.families)
    except ValueError as e:
        log(str(e))
        return 2
    settings = Settings.from_env()
    settings.apply_openmp_defaults()
    opts = Options(repeat=a.repeat, timeout=a.timeout, max_call=a.max_call)
    libs = _library_threads(threads)
    t0 = time.time()
    runs: list[FamilyRun] = []
    with tempfile.TemporaryDirectory(prefix="ep-paths-") as tmp:
        for k, fam in enumerate(fams, 1):
            sizes = _sizes(fam, a)
            log(f"[{k}/{len(fams)}] {fam.name} (vs {fam.reference}) sizes {', '.join(map(str, sizes))}")
            runs.append(run_family(fam, sizes, settings, opts, Path(tmp)))
    meta: dict[str, Any] = {
        "date": _dt.datetime.now().isoformat(timespec="seconds"),
        "wall_s": round(time.time() - t0, 1),
        "host": platform.node(),
        "cpu": cpu_model(),
        "cpu_count": os.cpu_count(),
        "threads": threads,
        "library_threads": libs,
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY"),
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "repeat": a.repeat,
        "target_sample_ms": TARGET_SAMPLE_NS / 1e6,
        "max_call_s": a.max_call,
        "quick": a.quick,
    }
    sums = print_report(runs, meta, a.plain)
    if a.json:
        write_json(a.json, meta, runs, sums)
    return 0

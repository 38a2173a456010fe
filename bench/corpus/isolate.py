"""``--isolate``: each kernel in a child process (the entry script again, with
the hidden ``--_child-progress`` and ``--_pythran-builds`` options), so that a
segfault or a hang in native code costs only the engine that was running."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import types

from .common import ENGINES, EngineResult, Kernel, KernelResult, log, safe_ident
from .pythran_build import PythranBuild
from .timing import Options, run_kernel

# What the child runs: the command-line entry point, not this module, so that
# --threads and the package imports happen exactly as in the parent.
ENTRY_SCRIPT = pathlib.Path(__file__).resolve().parents[1] / "corpus_bench.py"


def child_main(a: argparse.Namespace, kernels: list[Kernel], loader: types.ModuleType, opts: Options) -> int:
    """The child's side (``--_child-progress``): run the kernels, writing each
    state change of the result atomically to the progress file, which is all
    the parent has left if the child dies."""
    builds: dict[str, PythranBuild] = {}
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


def run_isolated(
    a: argparse.Namespace, kernels: list[Kernel], builds: dict[str, PythranBuild], opts: Options
) -> list[KernelResult]:
    """Each kernel in a child process.  If the child dies (signal, exit,
    hang), the engine it was running is marked crash/timeout and the kernel
    is run again without it, so the other engines still get numbers."""
    results: list[KernelResult] = []
    with tempfile.TemporaryDirectory(prefix="corpus_bench_") as td:
        bfile = pathlib.Path(td) / "builds.json"
        bfile.write_text(json.dumps({k: dataclasses.asdict(v) for k, v in builds.items()}))
        for i, k in enumerate(kernels, 1):
            log(f"[{i}/{len(kernels)}] {k.name} ({k.category}) in a child process")
            prog = pathlib.Path(td) / f"{safe_ident(k.name)}.json"
            enabled = list(opts.engines)
            blamed: dict[str, tuple[str, str]] = {}
            while True:
                prog.unlink(missing_ok=True)
                cmd = [
                    sys.executable, str(ENTRY_SCRIPT),
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
                    log(f"    {culprit} {status} ({reason}); running {k.name} again without it")
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

#!/usr/bin/env python
"""Per target: artifact sizes, and time from process start to the first result, against Python.

Inputs are each kernel's first non-empty test case CPython answers: small, so start-up dominates.

    python bench/targets_bench.py [--kernels a,b] [--targets T,...] [--runs N] [--json OUT]

For each corpus kernel it builds every target (lowering.portable), prints each artifact's size
(stripped; goal < 1 MB, next to the Python + NumPy install a container would carry), then measures,
interleaved in one run, the wall time from process start to the first result of:
  * the native executable of the best x86-64 level this CPU has (`NAME --inputs in.npz --out out.npz`),
  * linux-arm64 under qemu-user and wasm32-wasi under wasmtime (emulated: shown, not a goal),
  * `python -c` importing the AOT-built module (everypath, the cache warm) and calling it,
  * `python -c` importing NumPy and the plain Python function and calling it.
Medians of --runs; telemetry off everywhere so only start-up is measured.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from everypath.base.settings import Settings  # noqa: E402
from everypath.lowering.portable import build_function  # noqa: E402
from everypath.lowering.targets import ArtifactKind, parse_targets  # noqa: E402
from tests.corpus._loader import load_corpus  # noqa: E402

DEFAULT_KERNELS = ("kadane_max_subarray", "softmax_rows_f32", "permutation_scatter")


def _du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def python_footprint() -> int:
    """Bytes a Python + NumPy deployment carries at least: the standard library and NumPy (and its libs)."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    np_dir = Path(np.__file__).parent
    libs = np_dir.parent / "numpy.libs"
    return _du(stdlib) + _du(np_dir) + (_du(libs) if libs.is_dir() else 0)


def _first_ok_case(kernel) -> tuple:
    """The kernel's first test case CPython answers (start-up, not compute, is what is measured)."""
    for case in kernel.cases(np.random.default_rng(0)):
        try:
            kernel.entry(*[np.copy(v) if isinstance(v, np.ndarray) else v for v in case])
        except Exception:  # noqa: BLE001 - a case meant to raise
            continue
        if all(getattr(v, "size", 1) for v in case):
            return case
    return kernel.bench_args(np.random.default_rng(0))


def _inputs(kernel, sig: dict, folder: Path) -> Path:
    from tests.lowering.test_run_anywhere import _put

    args = _first_ok_case(kernel)
    inputs: dict[str, np.ndarray] = {}
    for p, v in zip(sig["params"], args):
        _put(inputs, p["name"], p["type"], v)
    path = folder / f"{kernel.name}.npz"
    np.savez(path, **inputs)
    return path


def _time(cmd: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr[-500:]}")
    return dt


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kernels", default=",".join(DEFAULT_KERNELS))
    ap.add_argument("--targets", default=None, help="default: every target")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--json", type=Path, default=None)
    a = ap.parse_args()
    console = Console()
    settings = Settings.from_env({**os.environ, "EVERYPATH_TELEMETRY": "0"})
    env = {**os.environ, "EVERYPATH_TELEMETRY": "0", "PYTHONPATH": str(ROOT)}
    footprint = python_footprint()
    report: dict[str, object] = {"python_numpy_bytes": footprint, "kernels": {}}
    sizes = Table(title=f"artifact sizes (stripped) vs Python + NumPy install: {footprint / 1e6:.0f} MB")
    for col in ("kernel", "target", "kind", "size"):
        sizes.add_column(col, justify="right" if col == "size" else "left")
    starts = Table(title=f"process start to first result, median of {a.runs} (ms)")
    for col in ("kernel", "native exe", "arm64 (qemu)", "wasm32-wasi (wasmtime)", "python + everypath",
                "python + numpy"):
        starts.add_column(col, justify="right" if col != "kernel" else "left")
    qemu = shutil.which("qemu-aarch64-static")
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d)
        for kernel in load_corpus(a.kernels.split(",")):
            with console.status(f"building {kernel.name} for every target"):
                pf = build_function(kernel.entry, parse_targets(a.targets), settings)
            rows = []
            for art in sorted(pf.artifacts, key=lambda x: (x.target, x.kind.value)):
                sizes.add_row(kernel.name, art.target, art.kind.value, f"{art.size / 1024:.0f} KiB")
                rows.append({"target": art.target, "kind": art.kind.value, "bytes": art.size})
            for s in pf.skipped:
                sizes.add_row(kernel.name, s.target, s.kind.value, f"not built: {s.reason[:60]}")
            npz = _inputs(kernel, pf.signature, folder)
            out = folder / "out.npz"
            exe_args = ["--inputs", str(npz), "--out", str(out), "--no-telemetry"]
            from everypath.lowering.loader import host
            from everypath.lowering.targets import native_linux

            best = native_linux(host().arch, host().isa_level)[-1].name
            exes = {x.target: x.path for x in pf.artifacts if x.kind in (ArtifactKind.EXECUTABLE,
                                                                         ArtifactKind.WASI_EXE)}
            cmds: dict[str, list[str]] = {}
            if best in exes:
                cmds["native exe"] = [str(exes[best]), *exe_args]
            if qemu and "linux-arm64" in exes:
                cmds["arm64 (qemu)"] = [qemu, str(exes["linux-arm64"]), *exe_args]
            if "wasm32-wasi" in exes:
                cmds["wasm32-wasi (wasmtime)"] = [sys.executable, "-c",
                                                  "import sys; from everypath.lowering.wasm_runner import run_wasi_command; "
                                                  f"rc, o, e = run_wasi_command({str(exes['wasm32-wasi'])!r}, "
                                                  f"{exe_args!r}, [{str(folder)!r}]); sys.exit(rc)"]
            mod, entry = kernel.module.__name__, kernel.entry.__name__
            load = (f"import numpy as np; from tests.corpus._loader import load_corpus; "
                    f"k = load_corpus([{kernel.name!r}])[0]; z = np.load({str(npz)!r}); "
                    f"args = [z[p] for p in z.files]; args = [a.item() if a.ndim == 0 else a for a in args]; ")
            cmds["python + everypath"] = [sys.executable, "-c", load + "import everypath; "
                                          "everypath.compile(k.entry)(*args)"]
            cmds["python + numpy"] = [sys.executable, "-c", load + "k.entry(*args)"]
            subprocess.run(cmds["python + everypath"], env=env, check=True, capture_output=True)  # AOT build, warm
            times: dict[str, list[float]] = {k: [] for k in cmds}
            for _ in range(a.runs):  # interleaved: machine noise hits every column alike
                for k, cmd in cmds.items():
                    times[k].append(_time(cmd, env))
            med = {k: statistics.median(v) * 1e3 for k, v in times.items()}
            starts.add_row(kernel.name, *(f"{med[c]:.1f}" if c in med else "-" for c in
                                          ("native exe", "arm64 (qemu)", "wasm32-wasi (wasmtime)",
                                           "python + everypath", "python + numpy")))
            report["kernels"][kernel.name] = {"artifacts": rows, "start_ms": med,  # type: ignore[index]
                                              "module": mod, "entry": entry}
    console.print(sizes)
    console.print(starts)
    if a.json:
        a.json.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

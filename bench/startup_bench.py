#!/usr/bin/env python
"""Ahead of time, measured in one run (issue 13): builds, start-up, calls and exit, side by side.

    python bench/startup_bench.py [--runs N] [--kernels a,b] [--rounds N] [--skip builds,calls] [--json OUT]

Three sections, one after another in this process:
1. builds (bench/build_bench.py): per corpus kernel, CPU seconds of a cold-cache build without and with
   the precompiled header (a warm cache builds nothing: its cost is the first call of section 2);
2. start-up and exit (below): fresh processes importing everypath and making the first call of an AOT-built
   function, telemetry on and off, against `import numpy` alone;
3. calls (bench/call_bench.py): per-call overhead for two scalars and two arrays against plain Python, a
   pybind11 function and a raw C function.

A module with a scalar and an array function is written to a temporary folder and built once
(in a first process, private EVERYPATH_CACHE and EVERYPATH_LAKE). Then N fresh processes per
case (telemetry on / off, scalar / array function) import everypath, call the function once and
exit. Each child reports the time from its first line to the first call's return (import +
first call, numpy included: `import numpy` alone is measured as its own row) and which heavy
modules it had loaded by then; the parent takes the time from the child's last line to its
exit (what exit adds: atexit hooks, the last telemetry drain). Bytecode is written as usual (the
build process leaves .pyc files, as an installed package has them). Medians are printed, with
the ratio to issue 13's goals (first call <= 30 ms, exit <= 50 ms): below 1.0 meets them.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

MODULE = '''
import numpy as np
import everypath

Vec = np.ndarray[tuple[int], np.dtype[np.float64]]


@everypath.compile
def scalar(x: float, y: float) -> float:
    return x * y + 1.0


@everypath.compile
def array(a: Vec, b: Vec) -> Vec:
    return np.add(a, b)
'''

CALLS = {"scalar": "startup_mod.scalar(1.0, 2.0)",
         "array": "startup_mod.array(startup_mod.np.ones(3), startup_mod.np.ones(3))"}
HEAVY = ("pyarrow", "pandas", "duckdb", "rich", "click", "sklearn", "cryptography", "everypath.lowering.pipeline",
         "everypath.tracer.trace")

CHILD = '''
import time
t0, c0 = time.perf_counter(), time.process_time()
{imports}
t1, c1 = time.perf_counter(), time.process_time()
import sys
print(repr((t1 - t0, c1 - c0, [m for m in {heavy!r} if m in sys.modules], time.time(), time.process_time())),
      flush=True)
'''


@dataclass(frozen=True)
class Sample:
    first_s: float  # first line to the first call's return, wall
    first_cpu_s: float  # the same in CPU time (all threads): less inflated by a busy machine
    heavy: list[str]
    exit_s: float  # last line to the process's end, wall
    exit_cpu_s: float  # CPU time the process spent after its last line


def child(code: str, env: dict[str, str], cwd: Path) -> Sample:
    """One fresh process; children run one at a time, so the children's rusage delta is its CPU time."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd, capture_output=True, text=True)
    done = time.time()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"child failed ({proc.returncode}):\n{proc.stderr}")
    first, first_cpu, heavy, end, end_cpu = eval(proc.stdout.strip().splitlines()[-1])  # noqa: S307 - our child
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return Sample(first, first_cpu, heavy, done - end, cpu - end_cpu)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--kernels", default="mandelbrot,softmax_rows_f32,nbody_step,cosine_similarity")
    ap.add_argument("--rounds", type=int, default=20, help="call timing rounds")
    ap.add_argument("--skip", default="", help="sections to leave out: builds, startup, calls")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    report: dict[str, object] = {}
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    if "builds" not in skip:
        import build_bench

        print("== builds on a cold cache (CPU s): precompiled header off / first / second build / with a warm .gch;"
              " a warm cache builds nothing: see the first call below ==")
        build_bench.main(["--kernels", args.kernels, "--repeat", "1"])
    if "startup" not in skip:
        print("\n== start-up and exit (fresh processes, median) ==")
        report["startup"] = startup(args.runs)
    if "calls" not in skip:
        import call_bench

        print("\n== calls ==")
        report["calls"] = call_bench.main(["--rounds", str(args.rounds)])
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=str))
    return 0


def startup(runs: int) -> list[dict[str, object]]:
    """Fresh processes per case, interleaved; prints the table and returns its rows."""
    with tempfile.TemporaryDirectory(prefix="ep-startup-") as tmp:
        root = Path(tmp)
        (root / "startup_mod.py").write_text(MODULE)
        base = {**os.environ, "EVERYPATH_CACHE": str(root / "cache"), "EVERYPATH_LAKE": str(root / "lake"),
                "EVERYPATH_REGISTRY": str(root / "registry")}
        base.pop("EVERYPATH_TELEMETRY", None)
        base.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: the build process leaves .pyc files behind
        for call in CALLS.values():  # the ahead-of-time builds
            child(CHILD.format(imports=f"import everypath\nimport startup_mod\n{call}", heavy=HEAVY),
                  {**base, "EVERYPATH_TELEMETRY": "0"}, root)
        cases = [("import numpy", CHILD.format(imports="import numpy", heavy=HEAVY), "0")] + [
            (f"{name}, telemetry {'on' if tel == '1' else 'off'}",
             CHILD.format(imports=f"import everypath\nimport startup_mod\n{call}", heavy=HEAVY), tel)
            for name, call in CALLS.items() for tel in ("0", "1")]
        samples: dict[str, list[Sample]] = {c[0]: [] for c in cases}
        for _ in range(runs):  # interleaved: a busy spell of the machine hits every case alike
            for label, code, tel in cases:
                samples[label].append(child(code, {**base, "EVERYPATH_TELEMETRY": tel}, root))
        rows = []
        # /30ms: the first call less `import numpy` (NumPy's own import is not everypath's to cut)
        print(f"{'case':26} {'first call ms':>13} {'cpu ms':>7} {'/30ms':>6} {'exit ms':>8} {'cpu ms':>7} {'/50ms':>6}"
              "  heavy modules loaded")
        for label, _, _ in cases:
            s = samples[label]
            row = {"case": label, "heavy": sorted({m for x in s for m in x.heavy}),
                   **{k: statistics.median(getattr(x, k) for x in s) * 1e3
                      for k in ("first_s", "first_cpu_s", "exit_s", "exit_cpu_s")}}
            rows.append(row)
            own = row["first_s"] - (rows[0]["first_s"] if len(rows) > 1 else 0.0)
            print(f"{label:26} {row['first_s']:13.1f} {row['first_cpu_s']:7.1f} {own / 30:6.2f} "
                  f"{row['exit_s']:8.1f} {row['exit_cpu_s']:7.1f} {row['exit_s'] / 50:6.2f}  "
                  f"{', '.join(row['heavy']) or '-'}")
        lake = root / "lake"
        journals = len(list((lake / "journal").glob("*.npz")))  # exits write the journal, not Parquet
        from everypath.telemetry.lake import Lake

        parts = len(Lake(lake).files())  # a reader publishes the journals first
        print(f"exit journals written: {journals}, lake parts after a reader published them: {parts} "
              f"(processes with array calls and telemetry on: {runs})")
    return rows


if __name__ == "__main__":
    sys.exit(main())

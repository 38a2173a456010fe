#!/usr/bin/env python
"""What bounds checking costs: every corpus kernel built with boundscheck on and off, timed side by side.

    python bench/boundscheck_bench.py [--kernels a,b] [--repeat N] [--instructions] [--json OUT]

Both builds of a kernel live in this process; after one warm-up call each, samples are taken
alternately (checked, unchecked, unchecked, checked, ...) with bench/corpus/timing.Timer (adaptive inner loop,
>= 20 ms a sample, GC off, copies of mutated arguments made outside the timed region), and the
median of each is reported with the ratio checked / unchecked. Both builds' results are compared
with CPython's first (a wrong result is reported, not timed). Goal (issue 12): geomean <= 1.03 and
no kernel above 1.10.

--instructions counts instead of timing: each build runs once in a child process under
`valgrind --tool=callgrind`, collecting only inside the compiled entry (`ep_call_*`, callees
included), one thread, built for x86-64-v3 (valgrind does not decode AVX-512). Instruction counts do not change with the machine's load (the same total
twice in a row), so a loaded shared machine can still judge what the checks add; they are a proxy for
time (a check is a compare and a predicted branch), not a measurement of it.
"""
from __future__ import annotations

import argparse
import copy
import dataclasses
import json
import math
import pathlib
import statistics
import sys
from typing import Any

_HERE = pathlib.Path(__file__).resolve().parent
ROOT = _HERE.parent
for p in (str(_HERE), str(ROOT)):
    if p not in sys.path:
        sys.path.insert(0, p)

from corpus import early_threads  # noqa: E402 - before NumPy loads its BLAS

early_threads(sys.argv[1:])

LOOP_KERNELS = ("mandelbrot", "jacobi_loops", "matmul_triple_loop", "floyd_warshall", "edit_distance", "conv3x3_f32",
                "game_of_life", "histogram_loop", "insertion_sort_f32", "kadane_max_subarray", "gradient_2d",
                "bilinear_resize_f32", "dft_loops", "cholesky_loops", "laplacian_ndindex_3d")
GOAL_GEOMEAN, GOAL_MAX = 1.03, 1.10


@dataclasses.dataclass
class Row:
    kernel: str
    checked_ns: float | None = None
    unchecked_ns: float | None = None
    note: str = ""

    @property
    def ratio(self) -> float | None:
        if not self.checked_ns or not self.unchecked_ns:
            return None
        return self.checked_ns / self.unchecked_ns


def _build(kernel: Any, boundscheck: bool) -> Any:
    import everypath
    from everypath.base.settings import Settings

    s = dataclasses.replace(Settings.from_env(), boundscheck=boundscheck, telemetry=False)
    return everypath.compile(kernel.entry, settings=s)


def run_one(kernel: Any, repeat: int) -> Row:
    import numpy as np

    from corpus.engines import compare_strict, observe
    from corpus.timing import Timer

    row = Row(kernel.name)
    args = kernel.bench_args(np.random.default_rng(0))
    expected = observe(kernel, kernel.entry, copy.deepcopy(args))
    fns = []
    try:
        for flag in (True, False):
            fn = _build(kernel, flag)
            compare_strict(loader, kernel, expected, observe(kernel, fn, copy.deepcopy(args)))
            fns.append(fn)
    except Exception as exc:  # noqa: BLE001 - a failing kernel is a row, not the end of the run
        row.note = f"{type(exc).__name__}: {str(exc).splitlines()[0][:100] if str(exc) else ''}"
        return row
    timers = [Timer(fn, args, kernel.mutates) for fn in fns]
    for t in timers:
        t.calibrate()
    inner = max(t.inner for t in timers)  # one batch size for both: the same per-call overheads
    samples: list[list[float]] = [[], []]
    for r in range(repeat):
        for k in ((0, 1) if r % 2 == 0 else (1, 0)):  # alternate who goes first: no order bias
            samples[k].append(timers[k].sample(inner))
    row.checked_ns, row.unchecked_ns = (statistics.median(s) for s in samples)
    return row


_CHILD = r"""
import copy, dataclasses, sys
import numpy as np
sys.path[:0] = [{bench!r}, {root!r}]
from corpus.common import import_loader
import everypath
from everypath.base.settings import Settings
loader = import_loader(__import__("pathlib").Path({corpus!r}))
kernel = loader.load_corpus([{name!r}])[0]
s = dataclasses.replace(Settings.from_env(), boundscheck={flag}, telemetry=False)
fn = everypath.compile(kernel.entry, settings=s)
args = kernel.bench_args(np.random.default_rng(0))
fn(*copy.deepcopy(args))
"""


def count_one(kernel: Any) -> Row:
    """Instructions inside the compiled entry, checked and unchecked (the builds come from the cache)."""
    import os
    import subprocess
    import tempfile

    row = run_one(kernel, 1)  # builds both and checks them against CPython
    if row.note:
        return row
    counts = []
    with tempfile.TemporaryDirectory() as tmp:
        for flag in (True, False):
            out = pathlib.Path(tmp) / f"cg-{flag}"
            code = _CHILD.format(bench=str(_HERE), root=str(ROOT), corpus=str(ROOT / "tests" / "corpus"),
                                 name=kernel.name, flag=flag)
            env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", PYTHONMALLOC="malloc")
            p = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                                "--toggle-collect=ep_call_*", sys.executable, "-c", code],
                               capture_output=True, text=True, env=env)
            total = [ln for ln in out.read_text().splitlines() if ln.startswith(("summary:", "totals:"))] \
                if out.exists() else []
            if p.returncode != 0 or not total:
                row.note = f"callgrind failed: {p.stderr.strip().splitlines()[-1] if p.stderr.strip() else p.returncode}"
                return row
            counts.append(float(total[-1].split()[1]))
    row.checked_ns, row.unchecked_ns = counts  # instructions, in the same columns
    return row


def _fmt_ns(ns: float | None) -> str:
    if ns is None:
        return "-"
    return f"{ns / 1e6:.3f} ms" if ns >= 1e5 else f"{ns / 1e3:.2f} us"


def report(rows: list[Row], unit: str = "time") -> dict[str, Any]:
    ratios = [r.ratio for r in rows if r.ratio is not None]
    gm = math.exp(sum(math.log(x) for x in ratios) / len(ratios)) if ratios else None
    fmt = _fmt_ns if unit == "time" else (lambda n: "-" if n is None else f"{n / 1e6:.2f} M")
    print(f"{'kernel':28} {'checked':>12} {'unchecked':>12} {'ratio':>7}  note" + ("  (instructions)" if unit != "time" else ""))
    for r in rows:
        ratio = f"{r.ratio:.3f}" if r.ratio is not None else "-"
        print(f"{r.kernel:28} {fmt(r.checked_ns):>12} {fmt(r.unchecked_ns):>12} {ratio:>7}  {r.note}")
    worst = max(ratios) if ratios else None
    if gm is not None and worst is not None:
        print(f"geomean checked/unchecked: {gm:.3f} (goal <= {GOAL_GEOMEAN}: {'met' if gm <= GOAL_GEOMEAN else 'NOT met'}); "
              f"worst {worst:.3f} (goal <= {GOAL_MAX}: {'met' if worst <= GOAL_MAX else 'NOT met'}); "
              f"{len(ratios)} kernels timed")
    return {"unit": unit, "kernels": [dataclasses.asdict(r) | {"ratio": r.ratio} for r in rows], "geomean": gm,
            "worst": worst,
            "goal_geomean": GOAL_GEOMEAN, "goal_max": GOAL_MAX}


def main(argv: list[str] | None = None) -> int:
    global loader
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernels", help="comma-separated corpus kernel names (default: all; 'loops': the loop set)")
    ap.add_argument("--repeat", type=int, default=7, help="timed samples per build (median)")
    ap.add_argument("--threads", default="1", help="BLAS/OpenMP threads (default 1)")
    ap.add_argument("--json", type=pathlib.Path, help="also write the figures here")
    ap.add_argument("--instructions", action="store_true",
                    help="count instructions under callgrind instead of timing (load-independent)")
    a = ap.parse_args(argv)
    if a.instructions:
        import os

        os.environ["EVERYPATH_MARCH"] = "x86-64-v3"  # valgrind decodes AVX2, not AVX-512
    from corpus.common import import_loader, log

    loader = import_loader(ROOT / "tests" / "corpus")
    names = None
    if a.kernels == "loops":
        names = list(LOOP_KERNELS)
    elif a.kernels:
        names = [k.strip() for k in a.kernels.split(",") if k.strip()]
    rows = []
    for kernel in loader.load_corpus(names):
        log(f"[boundscheck] {kernel.name}")
        rows.append(count_one(kernel) if a.instructions else run_one(kernel, a.repeat))
        r = rows[-1]  # as it goes: a long run stopped part-way still shows what it measured
        log(f"[boundscheck] {kernel.name}: checked {r.checked_ns} unchecked {r.unchecked_ns} ratio {r.ratio} {r.note}")
    out = report(rows, "instructions" if a.instructions else "time")
    if a.json:
        a.json.write_text(json.dumps(out, indent=1))
    return 0


loader: Any = None

if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python
"""Every operator of the registry through compiled code against its reference library, per path.

    python bench/ops_sweep.py [--family torch.elementwise,cv2] [--limit N] [--sizes 4096,1048576]
                              [--dtypes float32,uint8] [--layouts contiguous,strided] [--out sweep.csv]
                              [--markdown sweep.md] [--threads N] [--repeat R]

Each operator gets the generic calls of ``bench/paths/sweep.py`` (an element-wise call on 2-d operands,
a reduction whole and along axis 1, products on square matrices, cv2 filters on images, ...). A kernel is
compiled once per path its operator has on this host (``Settings.force_path``, specialised on each dtype
at its first call) and, per dtype, layout and size, checked against the reference (the same Python
function run by NumPy / PyTorch / OpenCV) and timed side by side with it (``bench/paths/measure.py``:
median of >= 5 round-robin samples of >= 20 ms). Ratio = reference time / path time (> 1: faster).

Output: a table per group (library.family), a summary per group at the largest size (geomean of the best
path's ratio, the worst case, the count below 0.9x), every number in a CSV (--out), and the same as
Markdown (--markdown) for docs/benchmarks.md. ``--family`` takes groups (``torch.elementwise``),
families (``reduction``) or libraries (``cv2``); ``--limit N`` keeps N operators evenly spread over the
selection (a sample, to estimate a full run: see bench/README.md).
"""

from __future__ import annotations

import pathlib
import sys

if __name__ == "__main__":
    _HERE = pathlib.Path(__file__).resolve().parent
    for _p in (str(_HERE.parent), str(_HERE)):
        if _p not in sys.path:
            sys.path.insert(0, _p)
    from paths import early_threads

    early_threads(sys.argv[1:])

import argparse  # noqa: E402
import copy  # noqa: E402
import csv  # noqa: E402
import math  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass, replace  # noqa: E402

SMALL, LARGE = 4096, 1 << 20


@dataclass(frozen=True)
class Result:
    group: str
    op: str
    call: str
    dtype: str
    layout: str
    row: object  # paths.measure.Row


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--family", help="comma-separated groups (torch.elementwise), families (reduction) or "
                                    "libraries (cv2, numpy, torch); default: every operator")
    p.add_argument("--ops", help="comma-separated operator keys (numpy.exp,cv2.blur), instead of --family")
    p.add_argument("--limit", type=int, help="at most this many operators, evenly spread over the selection")
    p.add_argument("--sizes", default=f"{SMALL},{LARGE}", help="element counts, small to large")
    p.add_argument("--dtypes", default="float32,float64,int64,uint8")
    p.add_argument("--layouts", default="contiguous,transposed,strided,broadcast")
    p.add_argument("--out", default="bench/results/ops_sweep.csv", help="CSV of every number")
    p.add_argument("--markdown", help="also write the summary and tables as Markdown here")
    p.add_argument("--threads", default="all")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--timeout", type=float, default=300.0, help="seconds for compile + first call of one path")
    p.add_argument("--no-isolate", action="store_true",
                   help="run every operator in this process (default: one child process each, so that a crash "
                        "of one build is one row, not the end of the sweep)")
    p.add_argument("--child", help=argparse.SUPPRESS)  # internal: pickle this operator's results here
    a = p.parse_args(argv)
    a.size_list = [int(s) for s in a.sizes.split(",") if s.strip()]
    a.repeat = max(5, a.repeat)
    return a


def select(a: argparse.Namespace) -> list:
    from paths.sweep import group_of
    from everypath.variants.registry import registry

    ops = {op.key: op for op in registry().ops.values()}
    if a.ops:
        wanted = [k.strip() for k in a.ops.split(",") if k.strip()]
        return [ops[k] for k in wanted]
    chosen = sorted(ops.values(), key=lambda o: o.key)
    if a.family:
        toks = {t.strip() for t in a.family.split(",") if t.strip()}
        chosen = [o for o in chosen if {group_of(o.key, o.family.value), o.family.value,
                                        group_of(o.key, o.family.value).split(".")[0]} & toks]
    if a.limit and len(chosen) > a.limit:
        step = len(chosen) / a.limit
        chosen = [chosen[int(i * step)] for i in range(a.limit)]
    return chosen


def tolerance(dtype: str):
    """By input dtype; integer inputs may give float32 results (torch.log10 of uint8), which round
    by an ulp differently from torch's vector math, so they get float32's relative tolerance's scale."""
    from paths.families import Family

    rtol, atol = {"float32": (1e-4, 1e-5), "float64": (1e-9, 1e-12)}.get(dtype, (1e-6, 1e-7))
    return Family(dtype, "reference", lambda: (), rtol=rtol, atol=atol)


def library_threads(a: argparse.Namespace, source: str) -> None:
    """torch and OpenCV keep their own thread pools: the same count as everything else (--threads)."""
    import os

    n = int(a.threads) if a.threads.isdigit() else (os.cpu_count() or 1)
    if "import torch" in source:
        import torch

        torch.set_num_threads(n)
    if "import cv2" in source:
        import cv2

        cv2.setNumThreads(n)


def run(a: argparse.Namespace, log) -> tuple[list[Result], list[tuple[str, str, str]]]:
    from paths.measure import CaseRunner, Options, load_kernel
    from paths.recipes import Case
    from paths.sweep import LAYOUTS, SweepCase, applies, group_of, kernels, no_call_reason, probe
    from everypath.base.settings import Settings

    settings = replace(Settings.from_env(), telemetry=False)
    opts = Options(repeat=a.repeat, timeout=a.timeout, max_call=2.0)
    dtypes = [d for d in a.dtypes.split(",") if d]
    layouts = [x for x in a.layouts.split(",") if x in LAYOUTS]
    results: list[Result] = []
    skipped: list[tuple[str, str, str]] = []  # (group, op, why)
    with tempfile.TemporaryDirectory() as tmp:
        for i, op in enumerate(select(a)):
            group = group_of(op.key, op.family.value)
            ks = kernels(op)
            if not ks:
                skipped.append((group, op.key, no_call_reason(op.key)))
                continue
            any_case = False
            why = ""
            for j, k in enumerate(ks):
                library_threads(a, k.source)
                ref = load_kernel(Case(k.name, (op.key,), k.source, lambda n, r: ()), pathlib.Path(tmp), f"{i}_{j}")
                base = None
                for dt in dtypes:
                    runner = None
                    for lay in layouts:
                        sc = SweepCase(k, dt, lay)
                        if not applies(lay, k):
                            continue
                        refusal = probe(ref, sc)
                        if refusal:
                            why = why or refusal
                            continue
                        case = Case(f"{k.name} [{dt} {lay}]", (op.key,), k.source, sc.inputs)
                        if base is None:
                            base = CaseRunner(tolerance(dt), case, ref, settings, opts, log)
                        if runner is None:  # one build per path and dtype, shared by the layouts
                            runner = copy.copy(base)
                            runner.broken, runner.fam = {}, tolerance(dt)
                        runner.case = case
                        for n in a.size_list:
                            log(f"{op.key} {k.name} {dt} {lay} n={n}")
                            results.append(Result(group, op.key, k.name, dt, lay, runner.row(n)))
                        any_case = True
            if not any_case:
                skipped.append((group, op.key, f"no generic call the reference accepts ({why})"))
    return results, skipped


def run_isolated(a: argparse.Namespace, log) -> tuple[list[Result], list[tuple[str, str, str]]]:
    """Each operator in a child process (this script with --child): a segfault or hang is that row."""
    import pickle
    import subprocess

    from paths.sweep import group_of

    results: list[Result] = []
    skipped: list[tuple[str, str, str]] = []
    passed = ["--sizes", a.sizes, "--dtypes", a.dtypes, "--layouts", a.layouts, "--threads", a.threads,
              "--repeat", str(a.repeat), "--timeout", str(a.timeout)]
    with tempfile.TemporaryDirectory() as tmp:
        for i, op in enumerate(select(a)):
            out = pathlib.Path(tmp) / f"{i}.pkl"
            cmd = [sys.executable, str(pathlib.Path(__file__).resolve()), "--ops", op.key, *passed, "--child", str(out)]
            log(f"[{i + 1}] {op.key}")
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout * 4 + 600)
                tail = (proc.stderr.strip().splitlines() or [""])[-1][:200]
                code = proc.returncode
            except subprocess.TimeoutExpired:
                tail, code = "timed out", -1
            if out.exists():
                got, skip = pickle.loads(out.read_bytes())
                results += got
                skipped += skip
            else:
                skipped.append((group_of(op.key, op.family.value), op.key, f"crashed (rc={code}): {tail}"))
    return results, skipped


def summary(results: list[Result], skipped: list[tuple[str, str, str]], large: int) -> list[dict]:
    groups: dict[str, list[Result]] = {}
    for r in results:
        groups.setdefault(r.group, []).append(r)
    out = []
    for g in sorted(set(groups) | {s[0] for s in skipped}):
        rows = [r for r in groups.get(g, []) if r.row.size == large]
        ratios = [(r.row.best_ratio, r) for r in rows if r.row.best_ratio]
        worst = min(ratios, key=lambda t: t[0], default=None)
        out.append({
            "group": g, "ops": len({r.op for r in groups.get(g, [])}), "cases": len(rows),
            "geomean": math.exp(sum(math.log(x) for x, _ in ratios) / len(ratios)) if ratios else None,
            "worst": f"{worst[1].call} [{worst[1].dtype} {worst[1].layout}] {worst[0]:.2f}x" if worst else "",
            "below_0.9": sum(1 for x, _ in ratios if x < 0.9),
            "failed": sum(1 for r in rows if not r.row.best_ratio),
            "no_case": sum(1 for s in skipped if s[0] == g),
        })
    return out


def write_csv(path: str, results: list[Result], skipped: list[tuple[str, str, str]]) -> None:
    p = pathlib.Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    with p.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["group", "op", "call", "dtype", "layout", "size", "shapes", "path", "status", "seconds",
                    "reference_seconds", "ratio", "best_path", "best_ratio", "reason"])
        for r in results:
            row = r.row
            for t in row.paths:
                w.writerow([r.group, r.op, r.call, r.dtype, r.layout, row.size, row.shapes, t.path, t.status,
                            t.seconds, row.reference.seconds, t.ratio, row.best, row.best_ratio, t.reason])
        for g, op, why in skipped:
            w.writerow([g, op, "", "", "", "", "", "", "no case", "", "", "", "", "", why])


def _cells(r: Result) -> list[str]:
    row = r.row
    ref = row.reference.seconds
    paths = " ".join(f"{t.path}={t.ratio:.2f}" if t.ratio else f"{t.path}:{t.status}" for t in row.paths)
    best = f"{row.best} {row.best_ratio:.2f}x" if row.best_ratio else "none"
    return [r.call, r.dtype, r.layout, str(row.size), f"{ref * 1e6:.1f}" if ref else "-", paths, best]


_COLS = ["call", "dtype", "layout", "size", "ref µs", "path ratios", "best"]
_SUM_COLS = ["group", "ops", "cases", "geomean", "worst", "below_0.9", "failed", "no_case"]


def _fmt(v: object) -> str:
    return f"{v:.2f}x" if isinstance(v, float) else str(v)


def print_tables(results: list[Result], summ: list[dict]) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    con = Console(width=200)
    for g in sorted({r.group for r in results}):
        t = Table(title=g)
        for c in _COLS:
            t.add_column(c)
        for r in results:
            if r.group == g:
                t.add_row(*(escape(c) for c in _cells(r)))
        con.print(t)
    t = Table(title="summary at the largest size (best path per case; ratio = reference time / path time)")
    for c in _SUM_COLS:
        t.add_column(c)
    for s in summ:
        t.add_row(*(escape(_fmt(s[c])) if s[c] is not None else "-" for c in _SUM_COLS))
    con.print(t)


def write_markdown(path: str, results: list[Result], summ: list[dict], skipped, header: str) -> None:
    lines = [header, "", "| " + " | ".join(_SUM_COLS) + " |", "|" + "---|" * len(_SUM_COLS)]
    lines += ["| " + " | ".join(_fmt(s[c]) if s[c] is not None else "-" for c in _SUM_COLS) + " |" for s in summ]
    for g in sorted({r.group for r in results}):
        lines += ["", f"### {g}", "", "| " + " | ".join(_COLS) + " |", "|" + "---|" * len(_COLS)]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in _cells(r)) + " |" for r in results if r.group == g]
    if skipped:
        lines += ["", "No case: " + "; ".join(f"`{op}` ({why})" for _, op, why in skipped)]
    pathlib.Path(path).write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    from corpus.common import cpu_model

    a = parse(argv)
    start = time.time()
    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    if a.child:
        import pickle

        pathlib.Path(a.child).write_bytes(pickle.dumps(run(a, log)))
        return 0
    results, skipped = (run if a.no_isolate else run_isolated)(a, log)
    summ = summary(results, skipped, max(a.size_list))
    print_tables(results, summ)
    write_csv(a.out, results, skipped)
    took = time.time() - start
    print(f"{len({r.op for r in results})} operators, {len(results)} case rows, {len(skipped)} without a case, "
          f"{took:.0f} s; CSV: {a.out}", file=sys.stderr)
    if a.markdown:
        header = (f"`python bench/ops_sweep.py {' '.join(sys.argv[1:] if argv is None else argv)}`, "
                  f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {cpu_model()}, {took:.0f} s")
        write_markdown(a.markdown, results, summ, skipped, header)
    return 0


if __name__ == "__main__":
    sys.exit(main())

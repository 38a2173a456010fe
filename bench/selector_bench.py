#!/usr/bin/env python
"""The learned selector against its baselines (issues 5 and 17), side by side, per fleet seed.

    python bench/selector_bench.py [--seeds 0-4] [--max-devices 80] [--calls 600] [--report]   # independent fleets
    python bench/selector_bench.py --fleet simulated [--seeds 0,1,2,3,4] [--devices 40] [--rows 200000]
                                   [--lake DIR] [--real-lake DIR] [--json bench/results/selector.json]

Default (`--fleet independent`, issue 17): per seed an independent fleet (selector/indfleet.py:
servers, desktops, Macs, phones, web; 40..--max-devices devices; exploration 0.02-0.3; 1 %
outliers; roofline costs), scored by selector/robust.py: every chooser's exported selection
table applied as the runtime applies it to the held-out devices' calls, against the generator's
noise-free truth, cold (fields only), after a 300-call sweep, and the "*" fallback. Prints
per-seed tables and a summary with the worst seed (the goal: top-1 >= 0.98 and closed gap >=
0.9 on every seed, cold included) and the mean with a 95 % interval over seeds.

`--fleet simulated` is issue 5's protocol:

For each seed a simulated fleet (`everypath telemetry simulate`'s model) is written into a
lake: a temporary one, or DIR/seed-<s> with --lake (written once, reused on later runs).
The lake goes through the retrain job's own code (selector.retrain.load_rows and evaluate):
split, fit the selector and the baselines (SBS, per-device lookup, k-NN), score them. Shown
per chooser: top-1 score, closed gap, mean and p95 regret on held-out devices after their
sweep (the headline protocol, docs/selector.md), the same devices cold (no sweep), and the
fit's wall time. A summary gives the mean and worst seed.

--real-lake DIR also evaluates the rows of a lake of real measurements (runtime other than
"simulated", e.g. written by `everypath autotune`) with the same code. A lake of one device
has no device to hold out; its headline is then the held-out shapes (the table says which).
No pass/fail: the numbers are printed and written to --json.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CHOOSERS = ("selector", "sbs", "lookup", "knn")
DEFAULT_JSON = ROOT / "bench" / "results" / "selector.json"
METRICS = ("top1_score", "closed_gap", "regret_mean", "regret_p95")


def parse_seeds(text: str) -> list[int]:
    """"0,1,2", "0-19" or a mix ("0-3,7")."""
    try:
        seeds = []
        for part in (p.strip() for p in text.split(",") if p.strip()):
            lo, _, hi = part.partition("-")
            seeds.extend(range(int(lo), int(hi) + 1) if hi else [int(lo)])
    except ValueError:
        raise SystemExit(f"--seeds: expected comma-separated integers, got {text!r}") from None
    if not seeds:
        raise SystemExit("--seeds: give at least one seed")
    return seeds


def fleet_lake(root: Path, seed: int, devices: int, rows: int) -> Path:
    """The seed's lake under root, simulated unless a previous run left it there."""
    from everypath.selector.simulate import SimConfig, simulate_into

    lake = root / f"seed-{seed}-{devices}x{rows}"
    if not (lake / "calls").exists():
        simulate_into(lake, SimConfig(devices=devices, rows=rows, seed=seed))
    return lake


def run_lake(lake: Path, real: bool = False) -> dict[str, Any]:
    """load_rows + evaluate, as `selector retrain` runs them; real: drop simulated rows."""
    from everypath.selector.retrain import MAX_ROWS, RetrainConfig, evaluate, load_rows

    rows = load_rows(lake, MAX_ROWS)
    if real:
        rows = rows[rows["runtime"] != "simulated"].reset_index(drop=True)
    if rows.empty:
        return {"error": f"{lake}: no {'real (non-simulated) ' if real else ''}calls in the lake"}
    try:
        ev = evaluate(rows, RetrainConfig())
    except ValueError as exc:
        return {"error": f"{lake}: {exc}"}
    return {"metrics": ev.metrics, "seconds": {k: round(v, 3) for k, v in ev.seconds.items()},
            "rows": int(len(rows)), "devices": int(rows["device_class"].nunique())}


def by_chooser(run: dict[str, Any], cold: bool = False) -> dict[str, dict[str, float]]:
    m = run["metrics"]
    if cold:
        return m["cold_devices"]
    return {"selector": {k: m[k] for k in METRICS}, **m["baselines"]}


def table(title: str, run: dict[str, Any]) -> Any:
    from rich.table import Table

    t = Table(title=title)
    for col in ("chooser", "top1", "gap", "regret", "p95", "cold top1", "cold gap", "fit s"):
        t.add_column(col, justify="left" if col == "chooser" else "right")
    head, cold = by_chooser(run), by_chooser(run, cold=True)
    for name in CHOOSERS:
        m, c = head[name], cold.get(name, {})
        t.add_row(name, *(f"{m[k]:.4f}" if k != "closed_gap" else f"{m[k]:.3f}" for k in METRICS),
                  f"{c['top1_score']:.4f}" if c else "-", f"{c['closed_gap']:.3f}" if c else "-",
                  f"{run['seconds'][name]:.2f}")
    return t


def summary(runs: dict[int, dict[str, Any]]) -> dict[str, dict[str, float]]:
    ok = [r for r in runs.values() if "metrics" in r]
    out: dict[str, dict[str, float]] = {}
    for name in CHOOSERS:
        ms = [by_chooser(r)[name] for r in ok]
        out[name] = {"top1_mean": statistics.fmean(m["top1_score"] for m in ms),
                     "top1_min": min(m["top1_score"] for m in ms),
                     "gap_mean": statistics.fmean(m["closed_gap"] for m in ms),
                     "gap_min": min(m["closed_gap"] for m in ms),
                     "regret_mean": statistics.fmean(m["regret_mean"] for m in ms),
                     "regret_p95_mean": statistics.fmean(m["regret_p95"] for m in ms),
                     "fit_s_mean": statistics.fmean(r["seconds"][name] for r in ok)}
    return out


def summary_table(s: dict[str, dict[str, float]], n: int) -> Any:
    from rich.table import Table

    t = Table(title=f"summary over {n} seeds (held-out devices after their sweep)")
    cols = ("top1_mean", "top1_min", "gap_mean", "gap_min", "regret_mean", "regret_p95_mean", "fit_s_mean")
    t.add_column("chooser")
    for c in ("top1 mean", "top1 min", "gap mean", "gap min", "regret", "p95", "fit s"):
        t.add_column(c, justify="right")
    for name, m in s.items():
        t.add_row(name, *(f"{m[c]:.4f}" if "top1" in c or "regret" in c else f"{m[c]:.3f}" if "gap" in c
                          else f"{m[c]:.2f}" for c in cols))
    return t


ROBUST = ("selector", "sbs", "lookup", "knn", "gbr")
SETTINGS = ("cold", "after_sweep", "fallback")


def robust_table(seed: int, run: dict[str, Any]) -> Any:
    from rich.table import Table

    spec = run["spec"]
    ceil = run.get("ceiling") or {}
    t = Table(title=f"seed {seed}: {spec['devices']} devices x {spec['calls']} calls, explore "
                    f"{spec['explore'][0]:.2f}-{spec['explore'][1]:.2f}, {run['held_out_devices']} held out "
                    f"{run['held_out_kinds']}; ceiling (best octave table) top1 {ceil.get('top1_score', float('nan')):.4f}"
                    f" gap {ceil.get('closed_gap', float('nan')):.3f}")
    t.add_column("chooser")
    for s in SETTINGS:
        t.add_column(f"{s} top1", justify="right")
        t.add_column(f"{s} gap", justify="right")
    t.add_column("fit s", justify="right")
    for name in ROBUST:
        cells = []
        for s in SETTINGS:
            m = run["metrics"][s][name]
            cells += [f"{m['top1_score']:.4f}", f"{m['closed_gap']:.3f}"]
        t.add_row(name, *cells, f"{run['seconds'][name]:.2f}")
    return t


def report_table(seed: int, run: dict[str, Any], chooser: str = "selector") -> Any:
    """--report: the chooser's top-1 and closed gap per device kind and operator, cold and after
    the sweep, with 95 % bootstrap intervals over devices (selector/decide.py: intervals)."""
    from rich.table import Table

    t = Table(title=f"seed {seed}: {chooser} per device kind and operator (value [95 % interval over devices])")
    for c in ("by", "value", "devices", "calls", "cold top1", "cold gap", "sweep top1", "sweep gap"):
        t.add_column(c, justify="left" if c in ("by", "value") else "right")
    for col in ("kind", "op"):
        cold, warm = run["by"][f"{chooser}/cold/{col}"], run["by"][f"{chooser}/after_sweep/{col}"]
        for key in sorted(cold):
            cells = []
            for m in (cold[key], warm[key]):
                cells += [f"{m['top1_score']:.4f} [{m['top1_ci'][0]:.3f}, {m['top1_ci'][1]:.3f}]",
                          f"{m['closed_gap']:.3f} [{m['gap_ci'][0]:.2f}, {m['gap_ci'][1]:.2f}]"]
            t.add_row(col, key, str(cold[key]["devices"]), str(cold[key]["calls"]), *cells)
    return t


def robust_summary(runs: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """Per setting and chooser: worst seed (and which), mean and a 95 % interval over seeds."""
    out: dict[str, Any] = {}
    for s in SETTINGS:
        for name in ROBUST:
            row: dict[str, Any] = {}
            for k in ("top1_score", "closed_gap"):
                vals = {seed: r["metrics"][s][name][k] for seed, r in runs.items()}
                worst = min(vals, key=lambda x: vals[x])
                mean = statistics.fmean(vals.values())
                half = 1.96 * statistics.stdev(vals.values()) / len(vals) ** 0.5 if len(vals) > 1 else 0.0
                row[k] = {"min": vals[worst], "worst_seed": worst, "mean": mean, "ci95": [mean - half, mean + half]}
            out.setdefault(s, {})[name] = row
    vals = {seed: r["ceiling"] for seed, r in runs.items() if r.get("ceiling")}
    if vals:
        out["ceiling"] = {k: {"min": min(v[k] for v in vals.values()),
                              "worst_seed": min(vals, key=lambda x: vals[x][k])} for k in ("top1_score", "closed_gap")}
    return out


def robust_summary_table(summ: dict[str, Any], n: int) -> Any:
    from rich.table import Table

    t = Table(title=f"summary over {n} independent fleets: worst seed (seed) / mean [95 % interval]")
    t.add_column("setting")
    t.add_column("chooser")
    t.add_column("top1 worst", justify="right")
    t.add_column("top1 mean", justify="right")
    t.add_column("gap worst", justify="right")
    t.add_column("gap mean", justify="right")
    for s in SETTINGS:
        for name in ROBUST:
            a, g = summ[s][name]["top1_score"], summ[s][name]["closed_gap"]
            t.add_row(s, name, f"{a['min']:.4f} ({a['worst_seed']})", f"{a['mean']:.4f} [{a['ci95'][0]:.3f}, {a['ci95'][1]:.3f}]",
                      f"{g['min']:.3f} ({g['worst_seed']})", f"{g['mean']:.3f} [{g['ci95'][0]:.3f}, {g['ci95'][1]:.3f}]")
    if "ceiling" in summ:
        a, g = summ["ceiling"]["top1_score"], summ["ceiling"]["closed_gap"]
        t.add_row("ceiling", "best table", f"{a['min']:.4f} ({a['worst_seed']})", "", f"{g['min']:.3f} ({g['worst_seed']})", "")
    return t


def main_robust(args: argparse.Namespace, seeds: list[int]) -> int:
    from rich.console import Console

    from everypath.selector.robust import run_seed

    out = Console(width=max(150, Console().width))
    runs: dict[int, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="selector-robust-") as tmp:
        for seed in seeds:
            with out.status(f"seed {seed}: generating and fitting"):
                runs[seed] = run_seed(seed, Path(tmp) / f"seed-{seed}", args.max_devices, args.calls)
            out.print(robust_table(seed, runs[seed]))
            if args.report and runs[seed]["held_out_devices"]:
                out.print(report_table(seed, runs[seed]))
            write_robust(args, seeds, runs)  # after every seed: a long run stopped early keeps what it measured
    out.print(robust_summary_table(robust_summary(runs), len(runs)))
    out.print(f"wrote {args.json}")
    return 0


def write_robust(args: argparse.Namespace, seeds: list[int], runs: dict[int, dict[str, Any]]) -> None:
    doc = {"config": {"fleet": "independent", "seeds": seeds, "max_devices": args.max_devices, "calls": args.calls,
                      "date": time.strftime("%Y-%m-%d"), "done": sorted(runs)},
           "seeds": {str(k): v for k, v in runs.items()}, "summary": robust_summary(runs)}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.json.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=1, sort_keys=True))
    tmp.replace(args.json)


def markdown(doc: dict[str, Any]) -> str:
    """The per-seed and worst-seed tables of an independent-fleet results file, as docs/selector.md shows them."""
    def cell(m: dict[str, float]) -> str:
        return f"{m['top1_score']:.4f} · {m['closed_gap']:.3f}"

    head = "| seed | devices (held out) | ceiling | " + " | ".join(f"{n} cold / sweep" for n in ROBUST) + " |"
    lines = [head, "| " + " | ".join(["---"] * (3 + len(ROBUST))) + " |"]
    for seed, r in sorted(doc["seeds"].items(), key=lambda kv: int(kv[0])):
        m = r["metrics"]
        cells = [f"{cell(m['cold'][n])} / {cell(m['after_sweep'][n])}" for n in ROBUST]
        lines.append(f"| {seed} | {r['spec']['devices']} ({r['held_out_devices']}) | {cell(r['ceiling'])} | "
                     + " | ".join(cells) + " |")
    summ = doc["summary"]
    lines += ["", "| setting | chooser | top-1 worst (seed) | top-1 mean [95 %] | gap worst (seed) | gap mean [95 %] |",
              "| --- | --- | --- | --- | --- | --- |"]
    for s in SETTINGS:
        for n in ROBUST:
            a, g = summ[s][n]["top1_score"], summ[s][n]["closed_gap"]
            lines.append(f"| {s} | {n} | {a['min']:.4f} ({a['worst_seed']}) | {a['mean']:.4f} [{a['ci95'][0]:.3f}, "
                         f"{a['ci95'][1]:.3f}] | {g['min']:.3f} ({g['worst_seed']}) | {g['mean']:.3f} "
                         f"[{g['ci95'][0]:.3f}, {g['ci95'][1]:.3f}] |")
    if "ceiling" in summ:
        a, g = summ["ceiling"]["top1_score"], summ["ceiling"]["closed_gap"]
        lines.append(f"| ceiling | best table | {a['min']:.4f} ({a['worst_seed']}) | | {g['min']:.3f} ({g['worst_seed']}) | |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fleet", choices=("independent", "simulated"), default="independent")
    ap.add_argument("--seeds", default="0-4", help="fleet seeds: 0,1,2 or 0-19 (default 0-4)")
    ap.add_argument("--max-devices", type=int, default=80, help="independent fleets: 40..N devices a seed")
    ap.add_argument("--calls", type=int, default=600, help="independent fleets: calls per device")
    ap.add_argument("--devices", type=int, default=40)
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--lake", type=Path, default=None, help="keep the simulated lakes here (DIR/seed-...)")
    ap.add_argument("--real-lake", type=Path, default=None, help="also evaluate this lake's real rows")
    ap.add_argument("--json", type=Path, default=DEFAULT_JSON)
    ap.add_argument("--report", action="store_true",
                    help="independent fleets: also the selector per device kind and operator, with intervals")
    ap.add_argument("--markdown", action="store_true", help="print the tables of the --json results file as markdown")
    args = ap.parse_args(argv)
    if args.markdown:
        path = args.json if args.json != DEFAULT_JSON else ROOT / "bench" / "results" / "selector_robust.json"
        print(markdown(json.loads(path.read_text())))
        return 0
    seeds = parse_seeds(args.seeds)
    if args.fleet == "independent":
        if args.lake is not None or args.real_lake is not None:
            raise SystemExit("--lake and --real-lake apply to --fleet simulated")
        if args.max_devices < 40 or args.calls < 100:
            raise SystemExit("--max-devices must be >= 40 and --calls >= 100")
        if args.json == DEFAULT_JSON:
            args.json = ROOT / "bench" / "results" / "selector_robust.json"
        return main_robust(args, seeds)
    if args.devices < 2 or args.rows < 1000:
        raise SystemExit("--devices must be >= 2 and --rows >= 1000 for a holdout to exist")
    if args.real_lake is not None and not args.real_lake.is_dir():
        raise SystemExit(f"--real-lake: {args.real_lake} is not a directory")
    from rich.console import Console

    out = Console(width=max(100, Console().width))  # the tables need ~90 columns, also in a log
    runs: dict[int, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="selector-bench-") as tmp:
        root = args.lake or Path(tmp)
        for seed in seeds:
            with out.status(f"seed {seed}: simulating and fitting"):
                runs[seed] = run_lake(fleet_lake(root, seed, args.devices, args.rows))
            if "error" in runs[seed]:
                out.print(f"[red]seed {seed}: {runs[seed]['error']}[/red]")
                continue
            m = runs[seed]["metrics"]
            out.print(table(f"seed {seed}: {m['holdout_groups']} held-out device groups, {m['train_rows']} training rows",
                            runs[seed]))
    doc: dict[str, Any] = {"config": {"seeds": seeds, "devices": args.devices, "rows": args.rows},
                           "seeds": {str(k): v for k, v in runs.items()}, "summary": None, "real": None}
    if any("metrics" in r for r in runs.values()):
        doc["summary"] = summary(runs)
        out.print(summary_table(doc["summary"], sum("metrics" in r for r in runs.values())))
    if args.real_lake is not None:
        with out.status("real lake: fitting"):
            real = run_lake(args.real_lake, real=True)
        doc["real"] = real
        if "error" in real:
            out.print(f"[red]real lake: {real['error']}[/red]")
        else:
            m = real["metrics"]
            out.print(table(f"real lake: {real['rows']} rows, {real['devices']} device classes; headline holdout: "
                            f"{m['holdout']} ({m['holdout_groups']} groups)", real))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(doc, indent=1, sort_keys=True))
    out.print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python
"""The learned selector against its baselines (issue 5), side by side, per fleet seed.

    python bench/selector_bench.py [--seeds 0,1,2,3,4] [--devices 40] [--rows 200000]
                                   [--lake DIR] [--real-lake DIR] [--json bench/results/selector.json]

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
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CHOOSERS = ("selector", "sbs", "lookup", "knn")
METRICS = ("top1_score", "closed_gap", "regret_mean", "regret_p95")


def parse_seeds(text: str) -> list[int]:
    try:
        seeds = [int(s) for s in text.split(",") if s.strip()]
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", default="0,1,2,3,4", help="fleet seeds, comma-separated (default 0..4)")
    ap.add_argument("--devices", type=int, default=40)
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--lake", type=Path, default=None, help="keep the simulated lakes here (DIR/seed-...)")
    ap.add_argument("--real-lake", type=Path, default=None, help="also evaluate this lake's real rows")
    ap.add_argument("--json", type=Path, default=ROOT / "bench" / "results" / "selector.json")
    args = ap.parse_args(argv)
    seeds = parse_seeds(args.seeds)
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

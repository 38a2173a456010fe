#!/usr/bin/env python
"""How fast each dashboard view renders on a big lake (issue 6's target: < 2 s per view at 10 M rows).

    python bench/dashboard_bench.py [--lake DIR] [--registry DIR] [--rows N] [--devices N] [--seed S]
                                    [--repeat R] [--json OUT]

The lake (default bench/results/dashboard-lake, git-ignored) is built once with the fleet
simulator (`everypath telemetry simulate`; publishing is idempotent per batch id, so a rerun
reuses it) and the registry (default bench/results/dashboard-registry) by one `selector
retrain` with a 200k-row sample. Then, per view:

- queries: the view's dashboard.queries calls (plus its pandas post-processing) on a fresh
  DuckDB connection (cold: first execution, OS file cache warm) and again on the same one (warm);
  cold CPU s is this process's CPU time over all threads (DuckDB uses one per core): on a
  shared machine wall time depends on what else runs, CPU time much less;
- AppTest: the page rendered through streamlit.testing AppTest (`at.run()`), with Streamlit's
  caches cleared (cold: sidebar filters + the view's queries + charts) and again (warm: cached).
`rows`: rows the view's queries return. Each figure is the median of --repeat rounds. No
pass/fail: the figures go to docs/dashboard.md.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import duckdb  # noqa: E402
import pandas as pd  # noqa: E402

from everypath.dashboard import queries as q  # noqa: E402
from everypath.dashboard import selection  # noqa: E402
from everypath.dashboard.queries import Column, Filters  # noqa: E402
from everypath.dashboard.registry_view import current_table_path, read_registry  # noqa: E402
from everypath.dashboard.source import source_line  # noqa: E402

Plan = Callable[[duckdb.DuckDBPyConnection, Path], int]
F = Filters()
UNIT: list[q.TimeUnit] = []  # the app takes the unit from the sidebar's cached time bounds: no scan per view


def _unit(con: duckdb.DuckDBPyConnection) -> q.TimeUnit:
    if not UNIT:
        b = q.time_bounds(con, F).iloc[0]
        UNIT.append(q.time_unit(b["oldest"], b["newest"]))
    return UNIT[0]


def sidebar(con: duckdb.DuckDBPyConnection, reg: Path) -> int:
    return len(q.time_bounds(con, F)) + sum(len(q.options(con, c)) for c in Column)


def fleet(con: duckdb.DuckDBPyConnection, reg: Path) -> int:
    return (len(q.totals(con, F)) + len(q.device_classes(con, F)) + len(q.calls_over_time(con, F, _unit(con))))


def latency(con: duckdb.DuckDBPyConnection, reg: Path) -> int:
    return sum(len(fn(con, F)) for fn in (q.latency_table, q.latency_histogram, q.latency_by_size))


def latency_boxes(con: duckdb.DuckDBPyConnection, reg: Path) -> int:
    return latency(con, reg) + len(q.latency_boxes(con, F))


def selector(con: duckdb.DuckDBPyConnection, reg: Path) -> int:
    view = read_registry(reg)
    buckets = q.bucket_medians(con, F)
    tables, _ = selection.load_tables(current_table_path(reg), sorted(buckets["device_class"].unique()))
    cmp = selection.chosen_vs_oracle(buckets, tables)
    summary = selection.ratio_summary(cmp)
    return (len(view.versions) + len(buckets) + len(summary) + len(q.explore_by_op(con, F))
            + len(q.explore_over_time(con, F, _unit(con))))


def drilldown(con: duckdb.DuckDBPyConnection, reg: Path) -> int:
    fns = q.functions(con, F)
    sites = q.call_sites(con, F, str(fns["function"].iloc[0]))
    for site in sites["call_site"]:  # the page shows each call site's source line
        source_line(str(fns["function"].iloc[0]), site)
    return len(fns) + len(sites)


# view -> (page, session state set before rendering, the view's queries)
VIEWS: dict[str, tuple[str | None, dict[str, object], Plan]] = {
    "Sidebar filters": (None, {}, sidebar),
    "Fleet overview": ("views/fleet.py", {}, fleet),
    "Latency explorer": ("views/latency.py", {}, latency),
    "Latency explorer + box plots": ("views/latency.py", {"latency_box_plots": True}, latency_boxes),
    "Selector": ("views/selector.py", {}, selector),
    "Function drill-down": ("views/drilldown.py", {}, drilldown),
}


def ensure_lake(lake: Path, rows: int, devices: int, seed: int) -> int:
    from everypath.selector.simulate import SimConfig, simulate_into
    from everypath.telemetry.views import connect

    have = int(q.totals(connect(lake, validate=False), F)["calls"].iloc[0]) if lake.exists() else 0
    if have < rows:
        t = time.perf_counter()
        simulate_into(lake, SimConfig(devices=devices, rows=rows, seed=seed))
        have = int(q.totals(connect(lake, validate=False), F)["calls"].iloc[0])
        print(f"built the lake: {have:,} rows in {time.perf_counter() - t:.0f} s ({lake})", file=sys.stderr)
    return have


def ensure_registry(lake: Path, reg: Path) -> None:
    if read_registry(reg).empty:
        from everypath.selector.retrain import RetrainConfig, retrain

        t = time.perf_counter()
        retrain(lake, reg, RetrainConfig(max_rows=200_000))
        print(f"trained the registry in {time.perf_counter() - t:.0f} s ({reg})", file=sys.stderr)


def time_queries(lake: Path, reg: Path, plan: Plan) -> tuple[float, float, float, int]:
    """(cold wall s, cold CPU s of all threads, warm wall s, rows)."""
    from everypath.telemetry.views import connect

    t, c = time.perf_counter(), time.process_time()
    con = connect(lake, validate=False)
    rows = plan(con, reg)
    cold, cpu = time.perf_counter() - t, time.process_time() - c
    t = time.perf_counter()
    plan(con, reg)
    return cold, cpu, time.perf_counter() - t, rows


def time_apptest(lake: Path, reg: Path, page: str, state: dict[str, object]) -> tuple[float, float, float]:
    """(cold wall s, cold CPU s of all threads, warm wall s) of rendering the page."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    os.environ["EVERYPATH_LAKE"], os.environ["EVERYPATH_REGISTRY"] = str(lake), str(reg)
    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=120).run()  # pages switch after a run
    st.cache_data.clear()
    st.cache_resource.clear()
    for k, v in state.items():
        at.session_state[k] = v
    at.switch_page(page)
    t, c = time.perf_counter(), time.process_time()
    at.run()
    cold, cpu = time.perf_counter() - t, time.process_time() - c
    t = time.perf_counter()
    at.run()
    warm = time.perf_counter() - t
    if at.exception:
        raise RuntimeError(f"{page}: {at.exception[0].value}")
    return cold, cpu, warm


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lake", type=Path, default=ROOT / "bench" / "results" / "dashboard-lake")
    ap.add_argument("--registry", type=Path, default=ROOT / "bench" / "results" / "dashboard-registry")
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--devices", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3, help="measure every view this many times; report medians")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures as JSON here")
    args = ap.parse_args()
    n = ensure_lake(args.lake, args.rows, args.devices, args.seed)
    ensure_registry(args.lake, args.registry)
    samples = []
    for _ in range(args.repeat):  # whole rounds, so a burst of load elsewhere hits one round, not one view
        for view, (page, state, plan) in VIEWS.items():
            qc, qcpu, qw, rows = time_queries(args.lake, args.registry, plan)
            nan = float("nan")
            ac, acpu, aw = time_apptest(args.lake, args.registry, page, state) if page else (nan, nan, nan)
            samples.append({"view": view, "queries_cold_s": qc, "queries_cold_cpu_s": qcpu, "queries_warm_s": qw,
                            "apptest_cold_s": ac, "apptest_cold_cpu_s": acpu, "apptest_warm_s": aw, "rows": rows})
    med = pd.DataFrame(samples).groupby("view", sort=False).median().reset_index()
    out = [{k: (None if isinstance(v, float) and v != v else v) for k, v in r.items()}  # NaN is no JSON
           for r in med.astype({"rows": int}).to_dict("records")]
    print(f"lake: {n:,} rows, {len(list((args.lake / 'calls').rglob('*.parquet')))} parts ({args.lake})")
    print(f"{args.repeat} rounds, medians; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print(pd.DataFrame(out).to_string(index=False, float_format=lambda v: f"{v:.3f}", na_rep="-"))
    if args.json:
        args.json.write_text(json.dumps({"rows": n, "views": out}, indent=1))


if __name__ == "__main__":
    main()

#!/usr/bin/env python
"""The collector under load (issue 16): rows/s into the lake, and exactly-once through faults.

    python bench/collector_bench.py [--rows 1000000] [--batch 50000] [--uploaders 32] [--json OUT]

Both runs use `everypath telemetry serve` in a child process on 127.0.0.1 and 32 concurrent
uploaders sending Arrow IPC batches (tests/telemetry/_load.py):
- clean:  every batch once; rows/s from the first send to the last answer. Goal >= 1 M rows/s.
- faults: every 4th batch twice (two uploaders at once), refused batches of every kind mixed
          in (401, 403, 400, 413, 415, 422), the collector SIGKILLed and restarted once a third
          of the rows are acknowledged; then DuckDB counts every row (distinct ts) and the rows
          of refused batches. Passes when each row is stored exactly once and none refused is.
- stages: one batch through parse, convert and publish in this process, per stage (where the
          time goes).
- --parquet: CPU per row of the lake's Parquet options against the ones before issue 16's
          tuning, on a 262 k-row part (best of 3, thread CPU time).
No pass/fail for the throughput: the figure is printed next to the goal, with its ratio.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.telemetry._load import TS0, Collector, bad_batches, good_batches, run  # noqa: E402

MAX_BYTES = 64 << 20
GOAL = 1_000_000  # rows/s (issue 16)


def parquet_options(rows: int = 262_144) -> dict[str, float]:
    """ns of thread CPU per row written, per option set (what lake.CALLS_WRITE_OPTIONS chose)."""
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    from everypath.telemetry.lake import CALLS_WRITE_OPTIONS, FILE_SCHEMA, ROW_GROUP, STATS_COLUMNS
    from tests.telemetry._data import batch

    t = pa.Table.from_batches([batch(rows, seed=1, ts0=TS0)]).drop_columns(["device_class"])
    t = pa.Table.from_arrays(t.columns, schema=FILE_SCHEMA)
    before = {"compression": "zstd", "row_group_size": ROW_GROUP, "use_dictionary": True,
              "write_statistics": STATS_COLUMNS}
    sets = {"before (zstd 3, dictionary everywhere)": before, "now (lake.CALLS_WRITE_OPTIONS)": CALLS_WRITE_OPTIONS,
            "now, no compression": {**{k: v for k, v in CALLS_WRITE_OPTIONS.items() if k != "compression_level"},
                                    "compression": "none"},
            "now, no statistics": {**CALLS_WRITE_OPTIONS, "write_statistics": False}}
    out = {}
    for name, opts in sets.items():
        best = float("inf")
        for _ in range(3):
            c = time.thread_time()
            pq.write_table(t, io.BytesIO(), **opts)
            best = min(best, time.thread_time() - c)
        out[name] = best / rows * 1e9
    return out


def stages(batches: list[tuple[str, bytes, int]], lake: Path) -> dict[str, float]:
    from everypath.telemetry.collector import ARROW_STREAM, parse_body
    from everypath.telemetry.ingest import convert_rows, publish_rows
    from everypath.telemetry.lake import Lake

    convert_rows(parse_body(batches[0][1], ARROW_STREAM))  # imports and first-use costs
    totals = {"parse": 0.0, "convert": 0.0, "publish": 0.0}
    rows = 0
    for bid, body, n in batches[:5]:
        t0 = time.perf_counter()
        r = parse_body(body, ARROW_STREAM)
        t1 = time.perf_counter()
        c = convert_rows(r)
        t2 = time.perf_counter()
        publish_rows(Lake(lake), c.table, bid)
        t3 = time.perf_counter()
        totals["parse"] += t1 - t0
        totals["convert"] += t2 - t1
        totals["publish"] += t3 - t2
        rows += n
    return {k: rows / v for k, v in totals.items()}  # rows/s of each stage, one thread


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--batch", type=int, default=50_000, help="rows per uploaded batch")
    ap.add_argument("--uploaders", type=int, default=32)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--parquet", action="store_true", help="also measure the Parquet writer's options")
    a = ap.parse_args()
    import duckdb

    batches = good_batches(a.rows, a.batch)
    result: dict[str, object] = {"rows": a.rows, "batch": a.batch, "uploaders": a.uploaders,
                                 "cpus": os.cpu_count(), "load_avg": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        with Collector(d / "clean", MAX_BYTES, d / "clean.log") as c:
            clean = run(c, batches, uploaders=a.uploaders, deadline_s=1800)
        result["clean_rows_per_s"] = clean.rows_per_s
        print(f"clean:  {a.rows:,} rows in {len(batches)} batches, {a.uploaders} uploaders: "
              f"{clean.rows_per_s:,.0f} rows/s ({clean.seconds:.2f} s; {clean.rows_per_s / GOAL:.2f}x the goal of "
              f"{GOAL:,} rows/s)")
        bad = bad_batches(MAX_BYTES)
        with Collector(d / "faults", MAX_BYTES, d / "faults.log") as c:
            faults = run(c, batches, uploaders=a.uploaders, duplicate_every=4, kill_after=1 / 3, bad=bad,
                         deadline_s=1800)
        glob = str(d / "faults" / "calls" / "*" / "*" / "*.parquet")
        n, distinct, lo, hi, refused_rows = duckdb.sql(
            f"SELECT count(*), count(DISTINCT ts), min(epoch_ns(ts)), max(epoch_ns(ts)), "
            f"count(*) FILTER (WHERE function LIKE 'bad.%') FROM read_parquet('{glob}')").fetchall()[0]
        once = (n, distinct, lo, hi, refused_rows) == (a.rows, a.rows, TS0, TS0 + a.rows - 1, 0)
        statuses_ok = faults.refused == {b.name: b.status for b in bad}
        result.update(faults_rows_per_s=faults.rows_per_s, stored=n, distinct=distinct, refused_rows=refused_rows,
                      exactly_once=once, refused=faults.refused, retries=faults.retries,
                      duplicate_answers=faults.duplicates)
        print(f"faults: {faults.rows_per_s:,.0f} rows/s ({faults.rows_per_s / GOAL:.2f}x the goal) with 1 kill + "
              f"restart ({faults.seconds:.2f} s), "
              f"{faults.retries} sends retried, {faults.duplicates} duplicate answers")
        print(f"        DuckDB: {n:,} rows, {distinct:,} distinct, {refused_rows} from refused batches -> "
              f"{'every row exactly once' if once else 'NOT exactly once'}; refused with "
              + ", ".join(f"{k} {v}" for k, v in faults.refused.items())
              + ("" if statuses_ok else "  (WRONG STATUS)"))
        per = stages(batches, d / "stages")
        result["stages_rows_per_s"] = per
        print("stages (one thread): " + ", ".join(f"{k} {v:,.0f} rows/s" for k, v in per.items()))
    if a.parquet:
        pq_ns = parquet_options()
        result["parquet_ns_per_row"] = pq_ns
        for k, v in pq_ns.items():
            print(f"parquet {k}: {v:.0f} ns/row")
    print(f"machine: {os.cpu_count()} CPUs, load average {result['load_avg']:.1f}")
    if a.json:
        a.json.write_text(json.dumps(result, indent=1))
    if not (once and statuses_ok):
        raise SystemExit(1)


if __name__ == "__main__":
    main()

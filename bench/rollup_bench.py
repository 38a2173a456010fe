#!/usr/bin/env python
"""The fleet roll-up on DuckDB against Spark (local[N]) on the same generated lake, in one run.

    python bench/rollup_bench.py [--rows 10M,100M] [--master local[2]] [--driver-memory 6g] [--lake DIR]
                                 [--json OUT]

The lake is a real one (Lake.publish of the runtime's record batches, 1 M rows per part, so 100 M
rows are generated in chunks and never held in memory at once): --rows raw calls spread over
--classes device classes and --days dates, latencies log-normal, sizes from 1 to 2^24 elements,
no aggregates (the heaviest input per row: every raw row is binned and merged, as for a foreign
producer's rows). Each engine runs the one roll-up query of telemetry/rollup.py
(histogram-merged percentiles); Spark's time includes reading and the query, not starting the JVM
(reported apart). The two results are compared (groups, counts, minima equal; percentiles to 1e-9).
The JSON is rewritten after every size, so a run stopped part-way keeps what it measured.
No pass/fail: numbers and ratios.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

OPS = ["numpy.matmul", "numpy.sum", "cv2.GaussianBlur", "fused:operator.add", "numpy.sort", "torch.softmax"]


def _count(text: str) -> int:
    t = text.strip().upper()
    mult = {"K": 1_000, "M": 1_000_000, "G": 1_000_000_000}.get(t[-1:], 1)
    return int(float(t[:-1] if mult > 1 else t) * mult)


def make_lake(root: Path, rows: int, classes: int, days: int, console: Console) -> float:
    """Publish `rows` calls; returns the seconds it took."""
    from everypath.telemetry.device import device_fields
    from everypath.telemetry.lake import Lake
    from everypath.telemetry.records import MAX_DIMS, CallSite, RawCalls, to_batch

    lake = Lake(root)
    sites = [CallSite(f"bench.mod.fn{i % 7}", OPS[i % len(OPS)], f"mod.py:{10 + i}", "float32",
                      ("loops", "simd", "threads")) for i in range(48)]
    base = device_fields("cpython-extension", lake_root=root)
    rng = np.random.default_rng(0)
    chunk = 1_000_000
    t0 = time.perf_counter()
    done = 0
    while done < rows:
        n = min(chunk, rows - done)
        k = rng.integers(0, 25, n)
        shape = np.zeros((n, MAX_DIMS), np.int64)
        shape[:, 0] = 1 << k
        raw = RawCalls(ts_ns=time.time_ns() + np.arange(n, dtype=np.int64), latency_ns=(
            rng.lognormal(9, 1, n) * (1 + k)).astype(np.int64), site=rng.integers(0, len(sites), n, dtype=np.int32),
            variant=rng.integers(0, 3, n, dtype=np.int16), ndim=np.ones(n, np.int8), shape=shape,
            n_elements=1 << k, threads=np.ones(n, np.int16), explore=np.zeros(n, bool),
            propensity=np.ones(n, np.float32))
        part = done // chunk
        device = {**base, "device_class": f"class{part % classes:03d}"}
        lake.publish(to_batch(raw, sites, device), date=dt.date(2026, 11, 1) + dt.timedelta(days=part % days))
        done += n
        console.print(f"  lake: {done / 1e6:.0f} M rows", end="\r")
    return time.perf_counter() - t0


def _compare(a: Any, b: Any) -> str:
    if a.num_rows != b.num_rows:
        return f"DIFFERENT: {a.num_rows} vs {b.num_rows} groups"
    for col in ("date", "device_class", "op", "variant", "size_bucket", "n", "min_ns"):
        if a.column(col).to_pylist() != b.column(col).to_pylist():
            return f"DIFFERENT in {col}"
    for col in ("p50_ns", "p95_ns", "p99_ns"):
        x, y = np.array(a.column(col).to_pylist()), np.array(b.column(col).to_pylist())
        if not np.allclose(x, y, rtol=1e-9, atol=0):
            return f"DIFFERENT in {col} (max rel {np.max(np.abs(x - y) / np.abs(y)):.1e})"
    return "equal"


def main(argv: list[str] | None = None) -> int:
    from everypath.telemetry import rollup_job
    from everypath.telemetry.rollup import Engine
    from everypath.telemetry.spark import session

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", default="10M,100M", help="comma-separated lake sizes (K/M/G suffixes)")
    ap.add_argument("--classes", type=int, default=40)
    ap.add_argument("--days", type=int, default=7)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--driver-memory", default="6g", help="JVM heap of a local Spark (its default, 1g, spills)")
    ap.add_argument("--lake", type=Path, default=None, help="where to build the lakes (default: a temp folder)")
    ap.add_argument("--json", type=Path, default=None)
    a = ap.parse_args(argv)
    console = Console()
    # the heap is fixed when the JVM starts: only the submit arguments can set it in-process
    os.environ.setdefault("PYSPARK_SUBMIT_ARGS", f"--driver-memory {a.driver_memory} pyspark-shell")
    t = time.perf_counter()
    spark = session(a.master, "everypath-rollup-bench")
    jvm_s = time.perf_counter() - t
    results = []
    with tempfile.TemporaryDirectory(dir=a.lake) as tmp:
        for rows in map(_count, a.rows.split(",")):
            root = Path(tmp) / f"lake-{rows}"
            gen_s = make_lake(root, rows, a.classes, a.days, console)
            lake_bytes = sum(p.stat().st_size for p in root.rglob("*.parquet"))
            # about 4 M rows per shuffle partition (the session's 4 suit the tests' small lakes)
            spark.conf.set("spark.sql.shuffle.partitions", str(max(4, rows // 4_000_000)))
            t = time.perf_counter()
            d = rollup_job.compute(Engine.DUCKDB, root)
            duck_s = time.perf_counter() - t
            t = time.perf_counter()
            s = rollup_job.compute(Engine.SPARK, root, spark=spark)
            spark_s = time.perf_counter() - t
            results.append({"rows": rows, "groups": d.num_rows, "lake_bytes": lake_bytes, "generate_s": gen_s,
                            "duckdb_s": duck_s, "spark_s": spark_s, "spark_over_duckdb": spark_s / duck_s,
                            "duckdb_rows_per_s": rows / duck_s, "spark_rows_per_s": rows / spark_s,
                            "same": _compare(d, s), "load_avg": os.getloadavg()[0]})
            console.print(f"  {rows / 1e6:.0f} M rows ({lake_bytes / 2**20:.0f} MiB): duckdb {duck_s:.1f} s, "
                          f"spark {spark_s:.1f} s, load {os.getloadavg()[0]:.1f}")
            shutil.rmtree(root)  # the next size's lake gets the disk
            if a.json:
                a.json.write_text(json.dumps({"jvm_start_s": jvm_s, "master": a.master,
                                              "driver_memory": a.driver_memory, "results": results}, indent=2))
    spark.stop()
    table = Table(title=f"fleet roll-up, histogram percentiles, Spark {a.master} "
                        f"(JVM start {jvm_s:.0f} s, not counted)")
    for col in ("rows", "groups", "DuckDB", "Spark", "Spark / DuckDB", "results"):
        table.add_column(col, justify="right" if col != "results" else "left")
    for r in results:
        table.add_row(f"{r['rows'] / 1e6:.0f} M", str(r["groups"]), f"{r['duckdb_s']:.1f} s", f"{r['spark_s']:.1f} s",
                      f"{r['spark_over_duckdb']:.1f}x", r["same"])
    console.print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())

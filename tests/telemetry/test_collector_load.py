"""The collector under load and faults (issue 16), small enough for every run: 32 concurrent
uploaders send 50 k rows in 100 batches, every 4th batch twice (from two uploaders at once),
refused batches of each kind mixed in, and the collector SIGKILLed and restarted once a third
of the rows are acknowledged. DuckDB over the lake then finds every row exactly once and no
row of a refused batch. bench/collector_bench.py runs the same with 1 M rows."""
from __future__ import annotations

from pathlib import Path

import duckdb

from tests.telemetry._load import TS0, Collector, bad_batches, good_batches, run

ROWS, PER_BATCH, MAX_BYTES = 50_000, 500, 4 << 20


def test_every_row_stored_exactly_once_through_kills_duplicates_and_bad_batches(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    batches = good_batches(ROWS, PER_BATCH)
    bad = bad_batches(MAX_BYTES)
    with Collector(lake, MAX_BYTES, tmp_path / "collector.log") as c:
        out = run(c, batches, uploaders=32, duplicate_every=4, kill_after=1 / 3, bad=bad, deadline_s=240)
    assert out.kills == 1 and c.starts == 2 and out.retries > 0  # killed with uploads in flight
    assert out.rows_sent == ROWS
    assert out.created + out.duplicates >= len(batches) + len(batches) // 4  # every send was answered
    assert out.duplicates >= len(batches) // 4  # the second copies, at least (more: re-sent across the kill)
    assert out.refused == {b.name: b.status for b in bad}, out.refused
    con = duckdb.connect()
    glob = str(lake / "calls" / "*" / "*" / "*.parquet")
    n, distinct, lo, hi, bad_rows = con.execute(
        f"SELECT count(*), count(DISTINCT ts), min(epoch_ns(ts)), max(epoch_ns(ts)), "
        f"count(*) FILTER (WHERE function LIKE 'bad.%') FROM read_parquet('{glob}', hive_partitioning = true)"
    ).fetchone()
    assert (n, distinct, bad_rows) == (ROWS, ROWS, 0)
    assert (lo, hi) == (TS0, TS0 + ROWS - 1)
    per_class = con.execute(f"SELECT device_class, count(*) FROM read_parquet('{glob}', hive_partitioning = true) "
                            "GROUP BY 1 ORDER BY 1").fetchall()
    assert [r[0] for r in per_class] == [f"load{k:08d}" for k in range(8)]
    print(f"\n{ROWS} rows, {len(batches)} batches, 32 uploaders, 1 kill: {out.rows_per_s:,.0f} rows/s "
          f"({out.seconds:.1f} s, {out.retries} retried sends, {out.duplicates} duplicate answers)")

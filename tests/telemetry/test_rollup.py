"""The fleet roll-up (telemetry/rollup.py) on DuckDB and on Spark, on a lake whose raw rows are a
thinned sample beside exact aggregates (tests/telemetry/_fleet.py keeps every true latency):
counts equal the true number of calls, sums/min/max are the true ones, percentiles are within the
histogram's stated error of NumPy's on the true latencies (and equal to the Python merge,
aggregates.hist_quantile), and the two engines give the same table."""
from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from everypath.telemetry import rollup_job
from everypath.telemetry.aggregates import RELATIVE_ERROR, bin_of, hist_quantile
from everypath.telemetry.lake import Lake
from everypath.telemetry.rollup import QUANTILES, ROLLUP_SCHEMA, Engine
from tests.telemetry._fleet import DEVICES, Truth, make_fleet

COLS = ("p50_ns", "p95_ns", "p99_ns")


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> tuple[Lake, Truth]:
    return make_fleet(tmp_path_factory.mktemp("rollup-fleet"))


def _by_key(t) -> dict[tuple, dict[str, object]]:  # type: ignore[no-untyped-def]
    return {(r["date"], r["device_class"], r["op"], r["variant"], r["size_bucket"]): r for r in t.to_pylist()}


def _assert_true_counts_and_percentiles(got: dict[tuple, dict[str, object]], truth: Truth) -> None:
    counts = truth.counts()
    assert got.keys() == counts.keys()
    for k, n in counts.items():
        g, lat = got[k], np.array(truth.latencies.get(k, []), np.int64)
        assert g["n"] == n, k
        assert g["sum_ns"] == float(lat.sum()), k
        assert (g["min_ns"], g["max_ns"]) == (int(lat.min()), int(lat.max())), k
        for q, col in zip(QUANTILES, COLS):
            exact = float(np.percentile(lat, 100 * q, method="inverted_cdf"))
            assert abs(g[col] - exact) <= RELATIVE_ERROR * exact, (k, col, g[col], exact)
            assert g[col] == hist_quantile(bin_of(lat), np.ones(len(lat)), q, int(lat.min()), int(lat.max())), (k, col)


def test_duckdb_rollup_counts_every_call_of_a_thinned_lake(fleet: tuple[Lake, Truth]) -> None:
    lake, truth = fleet
    t = rollup_job.compute(Engine.DUCKDB, lake.root)
    assert t.schema.equals(ROLLUP_SCHEMA)
    assert {r["device_class"] for r in t.to_pylist()} == {d.device_class for d in DEVICES}  # strings, zeros kept
    raw_rows = sum(pq.ParquetFile(p).metadata.num_rows for p in lake.files())
    true_calls = sum(truth.counts().values())
    assert raw_rows < true_calls / 2  # the raw ring was thinned: counting rows would be far off
    assert sum(t.column("n").to_pylist()) == true_calls
    _assert_true_counts_and_percentiles(_by_key(t), truth)


def test_raw_rows_count_only_where_no_aggregates_cover_them(tmp_path: Path) -> None:
    lake, truth = make_fleet(tmp_path, calls_per_interval=200, intervals=1, seed=5)
    t = _by_key(rollup_job.compute(Engine.DUCKDB, lake.root))
    # the raw-only devices (wasm, native) are counted from their rows, one row one call; the wasm device
    # shares class 123456 with an aggregates-only device, and neither is dropped nor counted twice
    for k in truth.counts():
        assert t[k]["n"] == truth.counts()[k], k
    # without aggregates the same lake's covered devices would count their sample, weighted 1/inclusion
    for p in lake.aggregate_files():
        p.unlink()
    est = _by_key(rollup_job.compute(Engine.DUCKDB, lake.root))
    est_total, true_total = sum(r["n"] for r in est.values()), sum(truth.counts().values())
    assert est_total != true_total and abs(est_total - true_total) < 0.25 * true_total


def test_cli_writes_one_part_per_date_and_rewrites_it(fleet: tuple[Lake, Truth]) -> None:
    from everypath.cli import main

    lake, _ = fleet
    r = CliRunner().invoke(main, ["telemetry", "rollup", "--lake", str(lake.root)])
    assert r.exit_code == 0, r.output
    parts = sorted((lake.root / "rollups" / "fleet").glob("date=*/part-0.parquet"))
    assert [p.parent.name for p in parts] == ["date=2026-11-20", "date=2026-11-21"]
    first = pq.read_table(parts[0])
    again = CliRunner().invoke(main, ["telemetry", "rollup", "--lake", str(lake.root)])
    assert again.exit_code == 0 and pq.read_table(parts[0]).equals(first)  # replaced, not appended
    assert "groups over 2 dates" in r.output
    bad = CliRunner().invoke(main, ["telemetry", "rollup", "--lake", str(lake.root), "--master", "local[1]"])
    assert bad.exit_code != 0 and "--master is for --engine spark" in bad.output


def test_empty_lake_rolls_up_to_nothing(tmp_path: Path) -> None:
    assert rollup_job.compute(Engine.DUCKDB, tmp_path).num_rows == 0


@pytest.mark.slow
@pytest.mark.spark
def test_spark_rollup_equals_duckdb_and_the_truth(fleet: tuple[Lake, Truth], spark) -> None:  # type: ignore[no-untyped-def]
    lake, truth = fleet
    s = rollup_job.compute(Engine.SPARK, lake.root, spark=spark)
    d = rollup_job.compute(Engine.DUCKDB, lake.root)
    assert s.schema.equals(ROLLUP_SCHEMA)
    # the same groups and values: integer merges and bin midpoints are exact on both engines; sums of
    # 1/inclusion-weighted raw latencies may differ in the last bit with the order of addition
    sk, dk = _by_key(s), _by_key(d)
    assert sk.keys() == dk.keys()
    for k, row in dk.items():
        assert {c: v for c, v in sk[k].items() if c != "sum_ns"} == {c: v for c, v in row.items() if c != "sum_ns"}, k
        assert sk[k]["sum_ns"] == pytest.approx(row["sum_ns"], rel=1e-12), k
    _assert_true_counts_and_percentiles(sk, truth)
    report = rollup_job.run(Engine.SPARK, lake.root, spark=spark)
    assert report.groups == s.num_rows and report.dates == ("2026-11-20", "2026-11-21")
    written = pq.read_table(lake.root / "rollups" / "fleet" / "date=2026-11-20" / "part-0.parquet")
    assert written.num_rows == sum(1 for r in s.to_pylist() if r["date"] == dt.date(2026, 11, 20))


def test_op_latency_view_counts_every_call(fleet: tuple[Lake, Truth]) -> None:
    from everypath.telemetry.views import query

    lake, truth = fleet
    got = {(r["op"], r["variant"], r["device_class"]): r for r in query(lake.root, "SELECT * FROM op_latency").to_pylist()}
    want: dict[tuple, int] = {}
    for k, n in truth.counts().items():
        want[(k[2], k[3], k[1])] = want.get((k[2], k[3], k[1]), 0) + n
    assert {k: r["n"] for k, r in got.items()} == want
    for (op, variant, dc), r in got.items():
        lat = np.concatenate([np.array(v) for k, v in truth.latencies.items() if (k[2], k[3], k[1]) == (op, variant, dc)])
        exact = float(np.percentile(lat, 99, method="inverted_cdf"))
        assert abs(r["p99"] - exact) <= RELATIVE_ERROR * exact
        assert r["mean"] == pytest.approx(lat.sum() / r["n"], rel=1e-12)

from __future__ import annotations

import json

import numpy as np
from click.testing import CliRunner

from everypath.cli import main
from everypath.telemetry.aggregates import RELATIVE_ERROR, bin_of, hist_quantile
from everypath.telemetry.lake import Lake
from everypath.telemetry.views import connect, query

from ._data import batch

CALLS_COLUMNS = {"ts", "device_id", "device_class", "runtime", "function", "op", "call_site", "variant", "dtype",
                 "shape", "n_elements", "latency_ns", "threads", "explore", "propensity", "bundle_version", "date"}


def test_empty_lake_has_typed_empty_views(tmp_path):
    con = connect(Lake(tmp_path / "nothing-here"))
    for view, cols in (("calls", CALLS_COLUMNS),
                       ("op_latency", {"op", "variant", "device_class", "dtype", "n", "p50", "p95", "p99", "mean"}),
                       ("daily", {"date", "op", "variant", "device_class", "function", "n", "p50", "p95", "p99",
                                  "sum_latency_ns"}),
                       ("trend", {"hour", "op", "variant", "n", "p50"})):
        rel = con.sql(f"SELECT * FROM {view}")
        assert cols <= set(rel.columns), view
        assert rel.to_arrow_table().num_rows == 0
    types = {r[0]: r[1] for r in con.sql("DESCRIBE calls").fetchall()}
    assert types["latency_ns"] == "BIGINT" and types["date"] == "DATE" and types["device_class"] == "VARCHAR"


def test_percentiles_match_numpy(tmp_path):
    lake = Lake(tmp_path)
    b = batch(20_000, seed=3)
    lake.publish(b)
    got = query(lake, "SELECT * FROM op_latency ORDER BY op, variant").to_pylist()
    ops, variants = b.column("op").to_numpy(zero_copy_only=False), b.column("variant").to_numpy(zero_copy_only=False)
    lat = b.column("latency_ns").to_numpy()
    assert len(got) == 6
    for row in got:
        sel = lat[(ops == row["op"]) & (variants == row["variant"])]
        assert row["n"] == sel.size
        # a raw-only lake: the rows binned as the shim bins them, nearest rank, within the stated error
        np.testing.assert_allclose([row["p50"], row["p95"], row["p99"]],
                                   [hist_quantile(bin_of(sel), np.ones(sel.size), q, sel.min(), sel.max())
                                    for q in (0.5, 0.95, 0.99)], rtol=1e-12)
        np.testing.assert_allclose([row["p50"], row["p95"], row["p99"]],
                                   np.quantile(sel, [0.5, 0.95, 0.99], method="inverted_cdf"), rtol=RELATIVE_ERROR)
        assert abs(row["mean"] - sel.mean()) < 1e-6 * sel.mean()
    assert set(CALLS_COLUMNS) <= set(query(lake, "SELECT * FROM calls LIMIT 1").column_names)
    hours = query(lake, "SELECT sum(n) AS n FROM trend").to_pylist()
    assert hours == [{"n": 20_000}]


def test_query_json_output_shape(tmp_path):
    Lake(tmp_path).publish(batch(50))
    r = CliRunner().invoke(main, ["telemetry", "query", "--lake", str(tmp_path), "--json",
                                  "SELECT ts, date, op, shape, latency_ns FROM calls ORDER BY ts LIMIT 3"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.output)
    assert isinstance(rows, list) and len(rows) == 3
    assert set(rows[0]) == {"ts", "date", "op", "shape", "latency_ns"}
    assert rows[0]["ts"].startswith("2025-11-24T") and rows[0]["ts"].endswith("+00:00")  # ISO, UTC
    assert isinstance(rows[0]["latency_ns"], int) and isinstance(rows[0]["shape"], list)
    bad = CliRunner().invoke(main, ["telemetry", "query", "--lake", str(tmp_path), "SELEC nonsense"])
    assert bad.exit_code != 0 and "syntax error" in bad.output.lower()
    stats = CliRunner().invoke(main, ["telemetry", "stats", "--lake", str(tmp_path)])
    assert stats.exit_code == 0 and "50" in stats.output and "numpy." in stats.output

"""The fleet roll-up (telemetry/rollup.py) on DuckDB and on Spark: the same groups, counts, minima and
sums, and percentiles equal to rounding; both checked against NumPy's percentiles (linear interpolation,
the definition both engines' exact functions use) computed from the raw Parquet parts with pyarrow."""
from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from everypath.telemetry.lake import Lake
from everypath.telemetry.rollup import QUANTILES, ROLLUP_SCHEMA, Engine
from everypath.telemetry import rollup_job
from tests.telemetry._data import batch

CLASSES = ("123456", "0042", "a1b2c3")  # all-digit ids: an engine inferring partition types would make numbers


def _lake(root: Path) -> Lake:
    lake = Lake(root)
    for i in range(9):
        b = batch(1500, seed=i, device_class=CLASSES[i % 3])
        if i == 4:  # edge sizes: 0 and 1 element (bucket 0), exact powers of two (bucket boundaries)
            n = np.array([0, 1, 2, 3, 4, 1023, 1024, 1025] * (len(b) // 8) + [1] * (len(b) % 8), np.int64)
            b = b.set_column(b.schema.get_field_index("n_elements"), "n_elements", pa.array(n))
        lake.publish(b, date=dt.date(2026, 11, 20 + i % 2))
    return lake


def _groups(lake: Lake) -> dict[tuple, list[int]]:
    """Each group's latencies, read from the raw parts with pyarrow (no SQL engine)."""
    groups: dict[tuple, list[int]] = {}
    for p in lake.files():
        date = dt.date.fromisoformat(p.parts[-3].split("=", 1)[1])
        dc = p.parts[-2].split("=", 1)[1]
        t = pq.read_table(p, columns=["op", "variant", "n_elements", "latency_ns"]).to_pydict()
        for op, v, n, lat in zip(t["op"], t["variant"], t["n_elements"], t["latency_ns"]):
            groups.setdefault((date, dc, op, v, max(int(n), 1).bit_length() - 1), []).append(lat)
    return groups


def _reference(lake: Lake) -> dict[tuple, dict[str, float]]:
    """Groups and statistics computed with NumPy."""
    out = {}
    for k, lat in _groups(lake).items():
        a = np.array(lat, dtype=np.int64)
        q = np.percentile(a, [100 * x for x in QUANTILES])
        out[k] = {"n": len(a), "min_ns": int(a.min()), "sum_ns": float(a.sum()),
                  "p50_ns": q[0], "p95_ns": q[1], "p99_ns": q[2]}
    return out


def _by_key(t: pa.Table) -> dict[tuple, dict[str, float]]:
    rows = t.to_pylist()
    return {(r["date"], r["device_class"], r["op"], r["variant"], r["size_bucket"]):
            {k: r[k] for k in ("n", "min_ns", "sum_ns", "p50_ns", "p95_ns", "p99_ns")} for r in rows}


def _assert_matches(got: dict, want: dict, rtol: float = 1e-12) -> None:
    assert got.keys() == want.keys()
    for k, w in want.items():
        g = got[k]
        assert (g["n"], g["min_ns"], g["sum_ns"]) == (w["n"], w["min_ns"], w["sum_ns"]), k
        for q in ("p50_ns", "p95_ns", "p99_ns"):
            assert g[q] == pytest.approx(w[q], rel=rtol), (k, q)


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> Lake:
    return _lake(tmp_path_factory.mktemp("rollup-lake"))


def test_duckdb_rollup_matches_numpy(lake: Lake) -> None:
    t = rollup_job.compute(Engine.DUCKDB, lake.root)
    assert t.schema.equals(ROLLUP_SCHEMA)
    assert {r["device_class"] for r in t.to_pylist()} == set(CLASSES)  # strings, leading zeros kept
    _assert_matches(_by_key(t), _reference(lake))


def test_cli_writes_one_part_per_date_and_rewrites_it(lake: Lake, tmp_path: Path) -> None:
    from everypath.cli import main

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
def test_spark_rollup_equals_duckdb_and_numpy(lake: Lake, spark) -> None:  # type: ignore[no-untyped-def]
    s = rollup_job.compute(Engine.SPARK, lake.root, spark=spark)
    d = rollup_job.compute(Engine.DUCKDB, lake.root)
    assert s.schema.equals(ROLLUP_SCHEMA)
    _assert_matches(_by_key(s), _by_key(d))
    _assert_matches(_by_key(s), _reference(lake))
    # sketches: each percentile is a value of the group within the stated rank error (n / 10000, at least 1)
    approx = _by_key(rollup_job.compute(Engine.SPARK, lake.root, spark=spark, approx=True))
    groups = _groups(lake)
    assert approx.keys() == groups.keys()
    for k, lat in groups.items():
        a = np.sort(np.array(lat))
        eps = 1e-4 + 1 / len(a)
        for q, col in zip(QUANTILES, ("p50_ns", "p95_ns", "p99_ns")):
            v = approx[k][col]
            assert v in set(a.tolist()), (k, col)  # a value of the group
            lo, hi = np.searchsorted(a, v, "left") / len(a), np.searchsorted(a, v, "right") / len(a)
            assert lo - eps <= q <= hi + eps, (k, col, lo, hi)
    report = rollup_job.run(Engine.SPARK, lake.root, spark=spark)
    assert report.groups == s.num_rows and report.dates == ("2026-11-20", "2026-11-21")
    written = pq.read_table(lake.root / "rollups" / "fleet" / "date=2026-11-20" / "part-0.parquet")
    assert written.num_rows == sum(1 for r in s.to_pylist() if r["date"] == dt.date(2026, 11, 20))

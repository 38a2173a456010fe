"""`selector retrain --engine spark`: Spark gathers the training rows, the driver fits. Below max_rows
both engines return every call in one total order, so the rows are equal frame for frame (DuckDB's load
is the reference) and the retrained model has the same version on both engines."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from everypath.selector.retrain import COLUMNS, load_rows
from everypath.selector.simulate import SimConfig, simulate_into

pytestmark = [pytest.mark.slow, pytest.mark.spark]


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("spark-retrain-lake")
    simulate_into(root, SimConfig(devices=12, rows=6000, seed=3))
    return root


def test_spark_rows_equal_duckdb_rows(lake: Path, spark) -> None:  # type: ignore[no-untyped-def]
    from everypath.selector.spark_rows import load_rows_spark

    want = load_rows(lake, 1_000_000)
    got = load_rows_spark(str(lake), COLUMNS, 1_000_000, spark=spark)
    assert len(want) > 5000  # the simulator's rows (its own count per device)
    got["shape"] = got["shape"].map(list)
    want["shape"] = want["shape"].map(list)
    pd.testing.assert_frame_equal(got.reset_index(drop=True), want.reset_index(drop=True), check_dtype=False)
    assert str(got["ts"].dtype) == str(want["ts"].dtype)
    # past max_rows: a stratified sample, every (class, op) stratum kept
    small = load_rows_spark(str(lake), COLUMNS, 1500, spark=spark)
    assert 0 < len(small) < len(want)
    assert set(map(tuple, small[["device_class", "op"]].drop_duplicates().to_numpy())) == \
        set(map(tuple, want[["device_class", "op"]].drop_duplicates().to_numpy()))


def test_retrain_cli_on_spark_gives_duckdb_version(lake: Path, tmp_path: Path, spark) -> None:  # type: ignore[no-untyped-def]
    from everypath.cli import main

    out = {}
    for engine in ("duckdb", "spark"):
        r = CliRunner().invoke(main, ["selector", "retrain", "--lake", str(lake), "--registry",
                                      str(tmp_path / engine), "--json", "--engine", engine])
        assert r.exit_code == 0, r.output
        out[engine] = json.loads(r.output.strip().splitlines()[-1])
    assert out["spark"]["version"] == out["duckdb"]["version"]
    bad = CliRunner().invoke(main, ["selector", "retrain", "--lake", str(lake), "--master", "local[1]"])
    assert bad.exit_code != 0 and "--master is for --engine spark" in bad.output

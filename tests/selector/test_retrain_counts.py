"""`selector retrain` weighs the exported table by the lake's true call counts (the aggregates), not
by its raw rows, which are a thinned sample: on a lake whose every call is known
(tests/telemetry/_fleet.py) the mix equals the true counts, on a raw-only lake it equals the rows'
own counts, and Spark's load gives DuckDB's."""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pandas as pd
import pytest

from everypath.selector import table as export
from everypath.selector.retrain import MAX_ROWS, call_mix, load_mix, load_rows, mix_sql
from everypath.selector.simulate import SimConfig, simulate_into
from everypath.telemetry.lake import Lake
from tests.telemetry._fleet import SITES, Truth, make_fleet

DTYPE = {s.op: s.dtype for s in SITES}


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> tuple[Lake, Truth]:
    return make_fleet(tmp_path_factory.mktemp("retrain-fleet"), calls_per_interval=300, intervals=2)


def _true_mix(truth: Truth) -> dict[tuple[str, str, str], int]:
    out: dict[tuple[str, str, str], int] = defaultdict(int)
    for k, n in truth.counts().items():
        out[(k[1], k[2], DTYPE[k[2]])] += n
    return dict(out)


def _as_dict(mix: pd.DataFrame) -> dict[tuple[str, str, str], int]:
    return {(r.device_class, r.op, r.dtype): int(r.calls) for r in mix.itertuples(index=False)}


def test_mix_counts_every_call_not_the_sample(fleet: tuple[Lake, Truth]) -> None:
    lake, truth = fleet
    mix = load_mix(lake.root)
    assert list(mix.columns) == ["device_class", "op", "dtype", "calls"]
    assert _as_dict(mix) == _true_mix(truth)
    rows = load_rows(lake.root, MAX_ROWS)
    sampled = _as_dict(export.mix_of(rows))
    assert sum(sampled.values()) < sum(_true_mix(truth).values()) / 2  # what retrain used to weigh by
    weighted = _as_dict(call_mix(rows, mix))
    # the triples the training rows have (class 123456's aggregate-only device adds calls, not triples)
    assert weighted.keys() == sampled.keys()
    assert weighted == {k: _true_mix(truth)[k] for k in sampled}


def test_raw_only_lake_mix_is_its_rows(tmp_path: Path) -> None:
    simulate_into(tmp_path, SimConfig(devices=4, rows=2000, seed=1))
    rows = load_rows(tmp_path, MAX_ROWS)
    assert _as_dict(load_mix(tmp_path)) == _as_dict(export.mix_of(rows))


@pytest.mark.slow
@pytest.mark.spark
def test_spark_mix_equals_duckdb(fleet: tuple[Lake, Truth], spark) -> None:  # type: ignore[no-untyped-def]
    from everypath.selector.spark_rows import load_mix_spark

    lake, truth = fleet
    got = load_mix_spark(str(lake.root), mix_sql, spark=spark)
    assert _as_dict(got) == _as_dict(load_mix(lake.root)) == _true_mix(truth)

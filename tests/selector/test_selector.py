"""The selector on a simulated fleet (40 devices, 200k rows): simulator, metrics, export,
registry, retrain and CLI. The acceptance numbers of issue 5 are asserted on held-out devices."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from click.testing import CliRunner

from everypath.selector.evaluate import groups, metrics
from everypath.selector.fleet import OPERATORS
from everypath.selector.registry import Registry, RegistryError
from everypath.selector.retrain import RetrainConfig, load_rows, retrain
from everypath.selector.simulate import SimConfig, registry_variants, simulate, simulate_into
from everypath.telemetry.schema import CALLS_SCHEMA, check_schema
from everypath.base.selection_table import load_table

CFG = SimConfig(devices=40, rows=200_000, seed=0)


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("lake")
    assert simulate_into(d, CFG) >= CFG.rows
    return d


@pytest.fixture(scope="module")
def trained(lake: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, object]]:
    reg = tmp_path_factory.mktemp("registry")
    return reg, retrain(lake, reg)


def test_simulated_rows_are_marked_and_use_the_real_schema() -> None:
    batches = simulate(SimConfig(devices=3, rows=3000, seed=5))
    t = pa.Table.from_batches(batches)
    assert check_schema(t.schema) == [] and t.schema.equals(CALLS_SCHEMA, check_metadata=False)
    df = t.to_pandas()
    assert set(df["runtime"]) == {"simulated"} and df["device_id"].str.startswith("sim-").all()
    reg = registry_variants()
    for op, variants in df.groupby("op")["variant"]:
        assert op in OPERATORS and set(variants) <= set(reg[op])
    # propensities: sweep rows 1/k, production rows follow epsilon-greedy
    assert ((df["propensity"] > 0) & (df["propensity"] <= 1)).all()
    assert not df.loc[df["variant"] == "cuda", "gpu"].isna().any()  # cuda only on GPU devices
    again = pa.Table.from_batches(simulate(SimConfig(devices=3, rows=3000, seed=5)))
    assert again.equals(t)  # deterministic per seed


def test_metrics_on_a_hand_computed_example() -> None:
    g = pd.DataFrame({"calls": [1, 3],
                      "medians": [{"a": 10.0, "b": 20.0}, {"a": 4.0, "b": 2.0}]})
    # oracle: b... group 1 -> a (10), group 2 -> b (2); SBS picks a everywhere
    m = metrics(["a", "a"], ["a", "a"], g)  # chooser = SBS: totals 10+12=22, oracle 10+6=16
    assert m.top1_score == pytest.approx(16 / 22) and m.closed_gap == pytest.approx(0.0)
    assert m.regret_mean == pytest.approx((0 + 1.0) / 2)
    assert m.regret_p95 == pytest.approx(np.quantile([0.0, 1.0], 0.95))
    best = metrics(["a", "b"], ["a", "a"], g)
    assert best.top1_score == pytest.approx(1.0) and best.closed_gap == pytest.approx(1.0)
    worse = metrics(["b", "a"], ["a", "a"], g)  # 20 + 12 = 32
    assert worse.top1_score == pytest.approx(16 / 32) and worse.closed_gap == pytest.approx((22 - 32) / (22 - 16))


def test_acceptance_on_held_out_devices(trained: tuple[Path, dict[str, object]]) -> None:
    _, out = trained
    assert out["holdout_groups"] > 500
    assert out["top1_score"] >= 0.95, out
    assert out["closed_gap"] >= 0.8, out
    for name in ("sbs", "lookup", "knn"):
        assert set(out["baselines"][name]) == {"top1_score", "closed_gap", "regret_mean", "regret_p95"}
    assert out["baselines"]["sbs"]["closed_gap"] == 0.0
    assert out["regret_mean"] < out["baselines"]["sbs"]["regret_mean"]


def test_exported_table_loads_and_chooses_fast_variants(trained: tuple[Path, dict[str, object]], lake: Path) -> None:
    reg, out = trained
    path = reg / "current" / "selection_table.json"
    doc = json.loads(path.read_text())
    assert doc["version"] == out["version"]
    rows = load_rows(lake, 10**9)
    classes = sorted(set(doc["tables"]) - {"*"})
    assert len(classes) >= 25
    for dc in classes:
        t = load_table(path, dc)
        assert t is not None and t.version == out["version"]
        by_op = {e.op: e for e in t.entries}
        assert set(by_op) == set(rows.loc[rows["device_class"] == dc, "op"])
        mm = by_op["numpy.matmul"]
        assert mm.variants[-1] != "loops"  # huge matmuls: never the naive triple loop
        assert mm.variants[0] != "cuda"  # tiny ones: never pay a kernel launch
    star = load_table(path, "no-such-class")
    assert star is not None and all(len(e.variants) == 1 and e.variants[0] != "cuda" for e in star.entries)
    # the table's choice agrees with the measured oracle on most of the class's measured groups
    g = groups(rows[rows["device_class"] == classes[0]])
    t = load_table(path, classes[0])
    agree = 0
    for op, n, med in zip(g["op"], g["n_elements"], g["medians"]):
        e = next(e for e in t.entries if e.op == op)
        v = e.variants[sum(n >= b for b in e.bounds)]
        agree += med[v] <= 1.25 * min(med.values())
    assert agree >= 0.8 * len(g)


def test_retrain_is_idempotent_and_cli_json(trained: tuple[Path, dict[str, object]], lake: Path) -> None:
    reg, out = trained
    from everypath.cli import main

    r = CliRunner().invoke(main, ["selector", "retrain", "--lake", str(lake), "--registry", str(reg), "--json"])
    assert r.exit_code == 0, r.output
    again = json.loads(r.stdout.strip().splitlines()[-1])
    assert again == out and again["promoted"] is True
    assert {"top1_score", "closed_gap", "regret_mean", "regret_p95", "baselines", "version", "promoted"} <= set(again)
    assert len(Registry(reg).index()["models"]) == 1


def test_promotes_only_on_improvement_and_refuses_tampered_models(trained: tuple[Path, dict[str, object]],
                                                                   lake: Path) -> None:
    reg, out = trained
    # same rows, same holdout: a model with 2 boosting rounds must not replace the promoted one
    weak = retrain(lake, reg, RetrainConfig(params=(("max_iter", 2),)))
    assert weak["version"] != out["version"] and weak["promoted"] is False
    registry = Registry(reg)
    assert registry.current() == out["version"]
    registry.load_model(weak["version"])  # loads while intact
    f = reg / registry.index()["models"][weak["version"]]["dir"] / "model.skops"
    data = bytearray(f.read_bytes())
    data[len(data) // 2] ^= 0xFF
    f.write_bytes(bytes(data))
    with pytest.raises(RegistryError, match="sha256"):
        registry.load_model(weak["version"])

"""Device calibration (a held-out device's own sweep) and the after-sweep holdout protocol, on
small simulated fleets: the protocol never shows a group its own rows, the sweep improves the
predictions on the device's other sizes, the baselines use it too, and small lakes still
train (one device: held-out shapes only)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from everypath.selector.baselines import KNN, SBS, Lookup
from everypath.selector.evaluate import FOLDS, fold, groups, score_after_sweep, shape_key, split
from everypath.selector.features import family
from everypath.selector.model import FORMAT, Chooser, VariantSelector, fit_variants, smooth
from everypath.selector.registry import Registry
from everypath.selector.retrain import RetrainConfig, evaluate, retrain
from everypath.selector.simulate import SimConfig, simulate, simulate_into


def fleet(devices: int, rows: int, seed: int) -> pd.DataFrame:
    return pa.Table.from_batches(simulate(SimConfig(devices=devices, rows=rows, seed=seed))).to_pandas()


@pytest.fixture(scope="module")
def small() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    return split(fleet(12, 60_000, 7))


def test_smooth_shrinks_toward_the_level_by_the_prior() -> None:
    xq, px, r = np.array([0.0, 50.0]), np.array([0.0, 0.0]), np.array([1.0, 1.0])
    # two measurements at distance 0 with prior weight 1: 2/3 of the way; far away: the level
    assert smooth(xq, px, r, 1.0, 1.0) == pytest.approx([2 / 3, 0.0])
    assert smooth(xq, px, r, 1.0, 1.0, level=0.5) == pytest.approx([0.5 + 1.0 / 3, 0.5])
    assert smooth(xq, px, r, 1.0, 0.0) == pytest.approx([1.0, 0.0])  # no prior: the kernel mean (none: the level)


def test_family_falls_back_to_the_operator_registry() -> None:
    assert family("operator.matmul") == "matmul" and family("numpy.matmul") == "matmul"
    assert family("ndarray.sum") == "reduction" and family("numpy.linalg.svd") == "decomposition"
    assert family("operator.add") == "elementwise" and family("no.such.op") == "other"


class Recorder(Chooser):
    """Chooses each group's first candidate and records what calibrated() was given."""

    def __init__(self, log: list[tuple[set[tuple[str, str, str]], set[tuple[str, str, str]]]],
                 seen: set[tuple[str, str, str]] | None = None) -> None:
        self.log, self.seen = log, seen or set()

    def fit(self, X: pd.DataFrame) -> "Recorder":
        self.variants_ = fit_variants(X)
        return self

    def calibrated(self, rows: pd.DataFrame) -> "Recorder":
        assert rows["explore"].all()  # the sweep: exploration rows only
        keys = set(zip(rows["device_id"], rows["op"], shape_key(rows["shape"])))
        new = Recorder(self.log, keys)
        new.variants_ = self.variants_
        return new

    def choose_many(self, queries: pd.DataFrame, candidates: list[tuple[str, ...]] | None = None) -> list[str]:
        self.log.append((self.seen, set(zip(queries["device_id"], queries["op"], shape_key(queries["shape"])))))
        return [c[0] for c in candidates or []]


def test_after_sweep_never_shows_a_group_its_own_rows(small: tuple[pd.DataFrame, ...]) -> None:
    train, dev_out, _ = small
    log: list[tuple[set[tuple[str, str, str]], set[tuple[str, str, str]]]] = []
    out = score_after_sweep({"r": Recorder(log).fit(train)}, SBS().fit(train), dev_out)
    assert out["r"].groups == len(groups(dev_out)) > 100  # every complete group is scored once
    assert 2 <= len(log) <= FOLDS
    for sweep, scored in log:
        assert sweep and scored and not sweep & scored
    assert set(fold(dev_out)) == set(range(FOLDS))


def test_the_sweep_improves_predictions_on_the_devices_other_sizes(small: tuple[pd.DataFrame, ...]) -> None:
    train, dev_out, _ = small
    model = VariantSelector(max_iter=150, learning_rate=0.1).fit(train)
    assert model.format_ == FORMAT and model.calibration_  # the training devices' own residuals
    f = fold(dev_out)
    sweep, held = dev_out[(f != 0) & dev_out["explore"].to_numpy(bool)], dev_out[f == 0]
    calibrated = model.calibrated(sweep)
    assert set(calibrated.calibration_) > set(model.calibration_)
    assert model.calibrated(sweep.iloc[:0]).calibration_ == model.calibration_
    y = np.log(held["latency_ns"].to_numpy(np.float64))
    cold = np.abs(model.predict(held) - y).mean()
    warm = np.abs(calibrated.predict(held) - y).mean()
    assert warm < 0.8 * cold, (warm, cold)
    # a device without a device_class column (a bare query) gets the fleet model alone
    bare = held.drop(columns="device_class")
    assert np.allclose(calibrated.predict(bare), model.predict(held))


def test_baselines_use_the_sweep(small: tuple[pd.DataFrame, ...]) -> None:
    train, dev_out, _ = small
    sweep = dev_out[dev_out["explore"].to_numpy(bool)]
    sbs = SBS().fit(train)
    assert sbs.calibrated(sweep) is sbs
    lookup = Lookup(sbs=sbs).fit(train)
    assert not set(dev_out["device_class"]) & {dc for dc, _ in lookup.table_}
    assert set(dev_out["device_class"]) <= {dc for dc, _ in lookup.calibrated(sweep).table_}
    knn = KNN().fit(train)
    key = ("numpy.sum", "threads")
    grown = knn.calibrated(sweep).data_[key][1]
    added = ((sweep["op"] == key[0]) & (sweep["variant"] == key[1])).sum()
    assert len(grown) == len(knn.data_[key][1]) + added and added > 0


def test_a_one_device_lake_is_scored_on_held_out_shapes(tmp_path: Path) -> None:
    # find a single-device fleet whose class falls in the held-out quarter (no training device)
    for seed in range(40):
        rows = fleet(1, 6000, seed)
        if split(rows)[0].empty:
            break
    else:  # pragma: no cover - the hash puts a quarter of classes out; 40 misses in a row is ~1e-5
        pytest.fail("no single-device fleet with a held-out class in 40 seeds")
    ev = evaluate(rows)
    assert ev.metrics["holdout"] == "shapes" and ev.metrics["holdout_groups"] > 0
    assert ev.metrics["cold_devices"] == {} and 0 < ev.metrics["top1_score"] <= 1
    lake = tmp_path / "lake"
    simulate_into(lake, SimConfig(devices=1, rows=6000, seed=seed))
    out = retrain(lake, tmp_path / "reg", RetrainConfig(params=(("max_iter", 50),)))
    assert out["promoted"] and out["holdout"] == "shapes"


def test_a_model_of_the_old_format_is_replaced(tmp_path: Path) -> None:
    lake, reg = tmp_path / "lake", tmp_path / "reg"
    simulate_into(lake, SimConfig(devices=8, rows=20_000, seed=2))
    first = retrain(lake, reg, RetrainConfig(params=(("max_iter", 50),)))
    registry = Registry(reg)
    old = registry.load_model(first["version"])
    del old.format_  # what a model stored before device calibration looks like
    idx = registry.index()
    registry.store("0000-old", old, {**first, "top1_score": 1.0}, {"format": 1, "version": "0000-old", "tables": {}})
    registry.promote("0000-old")
    assert Registry(reg).current() == "0000-old" and idx["current"] == first["version"]
    again = retrain(lake, reg, RetrainConfig(params=(("max_iter", 60),)))
    assert again["promoted"] and Registry(reg).current() == again["version"]

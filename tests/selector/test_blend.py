"""Issue 17: a device without a sweep gets the blend of the IPW/cost-weighted fleet model and an
unweighted one (model format 5); a calibrated device keeps the weighted model plus its calibration;
models stored before a parameter existed still load, predict and report their parameters."""
from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from everypath.selector import indfleet as F
from everypath.selector.model import LEGACY, VariantSelector
from everypath.selector.registry import TRUSTED

QUICK = {"max_iter": 40, "min_samples_leaf": 10}


@pytest.fixture(scope="module")
def fleet() -> tuple[pd.DataFrame, pd.DataFrame]:
    devs, _, batches = F.fleet(F.FleetSpec(devices=14, calls=300, seed=11, mix=(0.3, 0.3, 0.2, 0.1, 0.1)))
    rows = pa.Table.from_batches(batches).to_pandas()
    new = [d for d in devs[:3]]
    sweep = pa.Table.from_batches([F.sweep(d, 200, 11) for d in new]).to_pandas()
    train = rows[~rows["device_id"].isin({d.fields["device_id"] for d in new})].reset_index(drop=True)
    return train, sweep


@pytest.fixture(scope="module")
def models(fleet: tuple[pd.DataFrame, pd.DataFrame]) -> dict[str, VariantSelector]:
    train, _ = fleet
    return {"half": VariantSelector(**QUICK, blend=0.5).fit(train),
            "weighted": VariantSelector(**QUICK, blend=0.0).fit(train),
            # the unweighted model, fitted another way: every explore weight clipped to 1, no cost weight
            "plain": VariantSelector(**QUICK, blend=0.0, max_weight=1.0, cost_power=0.0).fit(train)}


def test_cold_prediction_is_the_blend_of_weighted_and_unweighted(fleet: tuple[pd.DataFrame, pd.DataFrame],
                                                                 models: dict[str, VariantSelector]) -> None:
    _, sweep = fleet
    cold = sweep.drop(columns=["device_class"])  # no class: no calibration, the blend
    half, weighted, plain = (models[k].predict(cold) for k in ("half", "weighted", "plain"))
    np.testing.assert_allclose(half, 0.5 * weighted + 0.5 * plain, rtol=0, atol=1e-9)
    assert np.abs(weighted - plain).max() > 1e-3  # the two differ, so the blend is not vacuous


def test_a_calibrated_device_keeps_the_weighted_model(fleet: tuple[pd.DataFrame, pd.DataFrame],
                                                      models: dict[str, VariantSelector]) -> None:
    _, sweep = fleet
    half, weighted = models["half"], models["weighted"]
    swept = sweep[sweep["explore"]].reset_index(drop=True)
    np.testing.assert_allclose(half.calibrated(sweep).predict(swept), weighted.calibrated(sweep).predict(swept),
                               rtol=0, atol=1e-12)
    # ... and its calibration moves it: the sweep is used, not ignored
    assert np.abs(half.calibrated(sweep).predict(swept) - weighted.predict(swept.drop(columns=["device_class"]))).max() > 1e-3


def _strip(model: VariantSelector) -> VariantSelector:
    """What a format-4 model stored before the weight clip and the blend looks like."""
    old = pickle.loads(pickle.dumps(model))
    for name in ("max_weight", "blend", "unweighted_"):
        old.__dict__.pop(name, None)
    old.format_ = 4
    return old


def test_models_stored_before_a_parameter_existed_still_work(fleet: tuple[pd.DataFrame, pd.DataFrame],
                                                             models: dict[str, VariantSelector]) -> None:
    import skops.io as sio

    _, sweep = fleet
    model = models["half"]
    state = _strip(model).__dict__
    # pickle and skops (with the registry's reviewed types only) both rebuild it through __setstate__
    back = [pickle.loads(pickle.dumps(_strip(model))), sio.loads(sio.dumps(_strip(model)), trusted=list(TRUSTED))]
    assert "max_weight" not in state and "blend" not in state
    want = models["weighted"].predict(sweep.drop(columns=["device_class"]))
    for old in back:
        params = old.get_params()
        assert params["max_weight"] == LEGACY["max_weight"] == 50.0 and params["blend"] == 0.0
        np.testing.assert_allclose(old.predict(sweep.drop(columns=["device_class"])), want, rtol=0, atol=1e-12)

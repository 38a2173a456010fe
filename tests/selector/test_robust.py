"""Issue 17's robustness machinery: empirical-Bayes shrinkage of the device calibration, SIMD
width from the ISA level (x86 and ARM alike), the ceiling table and bootstrap intervals over
devices, all checked against direct computations on small independent fleets."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from everypath.selector import indfleet as F
from everypath.selector.baselines import SBS
from everypath.selector.decide import intervals, latencies_of, score
from everypath.selector.features import features
from everypath.selector.model import VariantSelector, ipw
from everypath.selector.shrinkage import mad2
from everypath.selector.robust import ceiling, truth_of
from everypath.selector.table import build

QUICK = {"max_iter": 40, "min_samples_leaf": 10}


@pytest.fixture(scope="module")
def small() -> tuple[list[F.Device], list[F.Calls], pd.DataFrame]:
    devs, calls, batches = F.fleet(F.FleetSpec(devices=16, calls=300, seed=5, mix=(0.3, 0.3, 0.2, 0.1, 0.1)))
    return devs, calls, pa.Table.from_batches(batches).to_pandas()


def test_mad2_is_a_robust_variance() -> None:
    x = np.random.default_rng(0).standard_normal(20_000) * 0.5
    assert mad2(x) == pytest.approx(0.25, rel=0.05)
    assert mad2(np.concatenate([x, np.full(200, 40.0)])) == pytest.approx(0.25, rel=0.07)  # 1 % outliers
    assert mad2(np.zeros(0)) == 0.0


def test_simd_width_comes_from_the_isa_level_not_an_ordinal() -> None:
    rows = pd.DataFrame({"op": "numpy.sum", "variant": "simd", "dtype": "float32", "shape": [[1024]] * 4,
                         "n_elements": 1024, "cores": 8, "isa_level": ["x86-64-v4", "x86-64-v2", "armv9", None],
                         "l1d_kib": 48, "l2_kib": 1024, "l3_kib": 8192, "gpu": None, "cpu_model": "x @ 3.00GHz",
                         "runtime": "cpython-extension", "os": "linux", "arch": "x86_64"})
    f = features(rows)
    # AVX-512: 64 bytes; SSE4.2: 16; armv9 is NEON (16 bytes, though its ordinal equals v4's); none: unknown
    assert f["log2_simd_bytes"].tolist()[:3] == [6.0, 4.0, 4.0] and np.isnan(f["log2_simd_bytes"].iloc[3])
    lanes = f["log2_flops"] - f["log2_flops_per_lane"] - np.log2(3.0)
    assert lanes.tolist() == pytest.approx([4.0, 2.0, 2.0, 2.0])  # float32 lanes; unknown ISA: 16 bytes


def test_noisier_sweeps_are_shrunk_harder(small: tuple[list[F.Device], list[F.Calls], pd.DataFrame]) -> None:
    _, _, rows = small
    base = VariantSelector(**QUICK).fit(rows)
    noisy = rows.copy()
    m = (noisy["op"] == "numpy.sum").to_numpy()
    noise = np.random.default_rng(1).lognormal(0.0, 1.0, m.sum())
    noisy.loc[m, "latency_ns"] = (noisy.loc[m, "latency_ns"] * noise).round().astype(np.int64)
    shaken = VariantSelector(**QUICK).fit(noisy)
    assert all(1.0 <= v <= base.max_shrink for v in base.shrink_.values())
    assert shaken.shrink_["numpy.sum"] > 2 * base.shrink_["numpy.sum"], (base.shrink_, shaken.shrink_)
    # the calibration follows: with the prior scaled up, one device's offset moves its predictions less
    sums = noisy[(noisy["op"] == "numpy.sum") & noisy["explore"]]
    q = sums[sums["device_id"] == sums["device_id"].mode().iloc[0]]
    assert len(q) >= 5
    plain = VariantSelector(**QUICK, max_shrink=1.0).fit(noisy)
    fleet_only = q.drop(columns=["device_class"])  # no class: the fleet model alone
    moved_eb = np.abs(shaken.predict(q) - shaken.predict(fleet_only))
    moved_plain = np.abs(plain.predict(q) - plain.predict(fleet_only))
    assert moved_eb.mean() < moved_plain.mean()


def test_refitting_identical_rows_gives_an_identical_model(small: tuple[list[F.Device], list[F.Calls], pd.DataFrame]) -> None:
    _, _, rows = small
    a, b = VariantSelector(**QUICK).fit(rows), VariantSelector(**QUICK).fit(rows.copy())
    assert a.shrink_ == b.shrink_
    np.testing.assert_array_equal(a.predict(rows.head(500)), b.predict(rows.head(500)))


def test_ceiling_bounds_every_table_and_intervals_match_the_score(
        small: tuple[list[F.Device], list[F.Calls], pd.DataFrame]) -> None:
    devs, drawn, rows = small
    test = [(d, c) for d, c in zip(devs, drawn)][:6]
    train = rows[~rows["device_id"].isin({d.fields["device_id"] for d, _ in test})]
    sbs, model = SBS().fit(train), VariantSelector(**QUICK).fit(train)
    scored = [truth_of(d, c) for d, c in test]
    calls = pd.concat([s[0] for s in scored], ignore_index=True)
    lats = [x for s in scored for x in s[1]]
    top = score(ceiling(calls, lats), calls, lats, sbs)
    doc = build(rows[rows["device_id"].isin(calls["device_id"])], model, sbs, "0" * 6, "t")
    mine = score(doc, calls, lats, sbs)
    assert top.top1_score >= mine.top1_score and top.closed_gap >= mine.closed_gap and top.skipped == 0
    # per kind: the point estimate is the score of that kind's calls; the interval holds it
    per = intervals(doc, calls, lats, sbs, "kind", reps=200)
    assert set(per) == set(calls["kind"])
    for kind, iv in per.items():
        ix = np.flatnonzero(calls["kind"].to_numpy() == kind)
        direct = score(doc, calls.iloc[ix].reset_index(drop=True), [lats[i] for i in ix], sbs)
        assert iv.top1_score == pytest.approx(direct.top1_score, abs=1e-9)
        assert iv.closed_gap == pytest.approx(direct.closed_gap, abs=1e-9)
        assert iv.top1_ci[0] - 1e-12 <= iv.top1_score <= iv.top1_ci[1] + 1e-12
        if iv.devices == 1:  # one device: resampling devices cannot move anything
            assert iv.top1_ci == pytest.approx((iv.top1_score, iv.top1_score))
    chosen, oracle, _ = latencies_of(doc, calls, lats, sbs)
    assert (chosen >= oracle).all() and oracle.sum() / chosen.sum() == pytest.approx(mine.top1_score, rel=1e-9)


def test_explore_weights_are_clipped_at_max_weight(small: tuple[list[F.Device], list[F.Calls], pd.DataFrame]) -> None:
    _, _, rows = small
    explore = rows["explore"].to_numpy(bool)
    prop = rows["propensity"].to_numpy(np.float64)
    assert (1.0 / prop[explore]).max() > 5.0  # the fleet has explore rows that 1/propensity would weigh more
    want = np.where(explore, np.clip(1.0 / prop, 1.0, 5.0), 1.0)
    np.testing.assert_allclose(ipw(rows, 5.0), want)
    # max_weight reaches the fit: clipping at 1 is the same fleet model as propensity 1 on every row
    # (calibration and shrinkage use the same explore rows in both), clipping at 50 is not
    probe = rows.iloc[::7].reset_index(drop=True)
    flat = VariantSelector(**QUICK, max_weight=1.0).fit(rows).predict(probe)
    same = VariantSelector(**QUICK, max_weight=50.0).fit(rows.assign(propensity=1.0)).predict(probe)
    wide = VariantSelector(**QUICK, max_weight=50.0).fit(rows).predict(probe)
    np.testing.assert_allclose(flat, same)
    assert np.abs(wide - flat).max() > 1e-3

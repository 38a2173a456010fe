"""Matrix products' third dimension (the calls schema's third_dim, model format 6): exact work
estimates, the export's spread over it, and what it buys on an independent fleet against the
generator's truth; rows that lack it (older lakes, the runtime shim) still fit and export."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from everypath.selector import indfleet as F
from everypath.selector.baselines import SBS
from everypath.selector.features import features
from everypath.selector.model import FORMAT, VariantSelector
from everypath.selector.robust import held_out
from everypath.selector.table import THIRD_QUANTILES, build, grid, thirds_of

QUICK = {"max_iter": 60, "min_samples_leaf": 10}
DEVICE = {"device_class": "c", "cores": 8, "isa_level": "x86-64-v3", "l1d_kib": 48, "l2_kib": 1024, "l3_kib": 8192,
          "gpu": None, "cpu_model": "x @ 3.00GHz", "runtime": "cpython-extension", "os": "linux", "arch": "x86_64"}


def _matmul_row(m: int, k: int, n: int, third: int | None) -> dict[str, object]:
    a, b = np.ones((m, k)), np.ones((k, n))
    largest = max((a.shape, b.shape, (a @ b).shape), key=lambda s: (s[0] * s[1], s))
    return {**DEVICE, "op": "numpy.matmul", "variant": "blas", "dtype": "float64", "shape": list(largest),
            "n_elements": largest[0] * largest[1], "third_dim": third}


@pytest.mark.parametrize("m,k,n", [(300, 40, 5), (7, 1000, 9), (1, 1, 1), (64, 64, 64), (2, 513, 1)])
def test_recorded_third_dim_makes_matmul_work_exact(m: int, k: int, n: int) -> None:
    dims = (m, k, n)
    third = F.third("numpy.matmul", dims)
    f = features(pd.DataFrame([_matmul_row(m, k, n, third), _matmul_row(m, k, n, None)]))
    assert 2 ** f["log2_flops"][0] == pytest.approx(2.0 * m * k * n)  # NumPy's product: m*n outputs of k terms
    assert 2 ** f["log2_bytes"][0] == pytest.approx(8.0 * (m * k + k * n + m * n))
    assert 2 ** f["log2_third_dim"][0] == pytest.approx(third)
    s = min(F.recorded("numpy.matmul", dims))  # without it: the square-ish estimate, as before
    assert 2 ** f["log2_flops"][1] == pytest.approx(2.0 * m * k * n / third * s)
    assert np.isnan(f["log2_third_dim"][1])


@pytest.fixture(scope="module")
def fleet() -> tuple[list[F.Device], list[F.Calls], pd.DataFrame]:
    devs, calls, batches = F.fleet(F.FleetSpec(devices=30, calls=400, seed=3, mix=(0.4, 0.4, 0.1, 0.05, 0.05)))
    return devs, calls, pa.Table.from_batches(batches).to_pandas()


def test_the_fleet_records_the_dimension_the_shape_lacks(fleet) -> None:
    devs, calls, rows = fleet
    mm = rows["op"] == "numpy.matmul"
    assert rows.loc[~mm, "third_dim"].isna().all() and rows.loc[mm, "third_dim"].notna().all()
    want = [F.third(o, d) for c in calls for o, d in zip(c.op, c.dims) if o == "numpy.matmul"]
    got = rows.loc[mm].sort_values("ts")["third_dim"].astype(int).tolist()
    assert got == want
    full = [int(np.prod(d)) for c in calls for o, d in zip(c.op, c.dims) if o == "numpy.matmul"]
    assert (rows.loc[mm].sort_values("ts")["n_elements"].to_numpy() * np.array(want) == np.array(full)).all()


def test_grid_spreads_a_matmul_bucket_over_the_recorded_third_dims(fleet) -> None:
    _, _, rows = fleet
    th = thirds_of(rows)
    assert set(th) >= {-1} and all(len(q) == len(THIRD_QUANTILES) and list(q) == sorted(q) for q in th.values())
    devs = rows.groupby("device_class")[[c for c in DEVICE if c != "device_class"]].first().reset_index().iloc[:1]
    mix = pd.DataFrame([{"device_class": devs["device_class"][0], "op": op, "dtype": "float64", "calls": 6}
                        for op in ("numpy.matmul", "numpy.sum")])
    q = grid(devs, mix, th)
    per = q.groupby(["op", "bucket"]).agg(rows=("calls", "size"), calls=("calls", "sum"))
    assert (per.loc["numpy.matmul", "rows"] == len(THIRD_QUANTILES)).all()
    assert (per.loc["numpy.sum", "rows"] == 1).all() and np.allclose(per["calls"], 6.0)
    assert (q.loc[q["op"] == "numpy.sum", "third_dim"] == 0).all()
    plain = grid(devs, mix, {})  # nothing recorded: one square query per bucket, as before
    assert len(plain) == 2 * q["bucket"].nunique() and (plain["third_dim"] == 0).all()
    assert thirds_of(rows.assign(third_dim=None)) == {}


def _log_error(model: VariantSelector, devs: list[F.Device], calls: list[F.Calls], test: set[str],
               with_third: bool) -> float:
    """Median |ln predicted - ln true| latency over held-out devices' matmul calls, every variant."""
    q, truth = [], []
    for d, c in zip(devs, calls):
        if d.fields["device_id"] not in test:
            continue
        for op, dt, dims in zip(c.op, c.dtype, c.dims):
            if op != "numpy.matmul":
                continue
            rec = F.recorded(op, dims)
            for v in F.variants(d, op):
                q.append({**d.fields, "op": op, "dtype": dt, "shape": list(rec), "n_elements": rec[0] * rec[1],
                          "variant": v, "third_dim": F.third(op, dims) if with_third else None})
                truth.append(F.truth(d, op, v, dt, dims))
    return float(np.median(np.abs(model.predict(pd.DataFrame(q)) - np.log(truth))))


def test_the_third_dim_cuts_the_models_matmul_error_and_old_rows_still_work(fleet) -> None:
    devs, calls, rows = fleet
    test = {str(d.fields["device_id"]) for d in devs if held_out(str(d.fields["device_id"]), 1)}
    assert 3 <= len(test) <= 12
    train = rows[~rows["device_id"].isin(test)].reset_index(drop=True)
    new = VariantSelector(**QUICK).fit(train)
    old = VariantSelector(**QUICK).fit(train.assign(third_dim=None))  # a lake of schema 1
    assert new.format_ == FORMAT == 6 and "log2_third_dim" in new.columns_ and "log2_third_dim" not in old.columns_
    e_new, e_old = _log_error(new, devs, calls, test, True), _log_error(old, devs, calls, test, False)
    assert e_new < 0.75 * e_old, (e_new, e_old)
    sbs = SBS().fit(train)
    for model, part in ((new, train), (old, train.assign(third_dim=None))):
        doc = build(part, model, sbs, "abcdef", "t")
        assert doc["tables"] and all(e["variants"] for t in doc["tables"].values() for e in t)
    assert build(train, new, sbs, "abcdef", "t") == build(train, new, sbs, "abcdef", "t")  # reproducible

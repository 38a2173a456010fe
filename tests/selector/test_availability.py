"""Issue 17: availability is a hard constraint of every exported table; held-out classes fall back
to what their fields allow; decisions are scored as the runtime makes them; retrain on tiny or
odd lakes ends with a message, and identical data gives an identical version."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from everypath.selector import indfleet as F
from everypath.selector.availability import allowed
from everypath.selector.baselines import SBS
from everypath.selector.decide import score
from everypath.selector.model import VariantSelector
from everypath.selector.retrain import MAX_ROWS, RetrainConfig, load_rows, retrain
from everypath.selector.table import build, devices_of, lookup
from everypath.telemetry.lake import Lake

APPLE, GPU = {"accelerate", "vimage", "metal"}, {"cuda", "metal"}
QUICK = RetrainConfig(params=(("max_iter", 40),))  # the job's code paths, not its accuracy


def frame(batches: list[pa.RecordBatch]) -> pd.DataFrame:
    return pa.Table.from_batches(batches).to_pandas()


def lake_of(batches: list[pa.RecordBatch], root: Path, tag: str) -> Path:
    lake = Lake(root)
    for i, b in enumerate(batches):
        lake.publish_named(b, f"{tag}-{i:05d}")
    return root


def named(doc: dict[str, object], dc: str) -> set[str]:
    """Every variant a class's entries name (greedy and exploration)."""
    out: set[str] = set()
    for e in doc["tables"].get(dc, []):  # type: ignore[attr-defined]
        out |= set(e["variants"]) | {v for t in e.get("topk", []) for v in t}
    return out


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), mix=st.lists(st.floats(0.05, 1.0), min_size=5, max_size=5))
def test_tables_never_name_a_variant_the_class_cannot_run(seed: int, mix: list[float]) -> None:
    spec = F.FleetSpec(devices=10, calls=120, seed=seed, mix=tuple(mix))  # type: ignore[arg-type]
    devs, _, batches = F.fleet(spec)
    rows = frame(batches)
    model = VariantSelector(max_iter=15, min_samples_leaf=5).fit(rows)
    sbs = SBS().fit(rows)
    seen = build(rows, model, sbs, "0" * 6, "t")  # classes the lake saw
    cold = build(rows.iloc[:0], model, sbs, "0" * 6, "t", devices=devices_of(rows),  # by fields alone
                 mix=pd.DataFrame([{"device_class": d.fields["device_class"], "op": op, "dtype": dt, "calls": 1}
                                   for d in devs for op, dts in F.OPS.items() for dt in dts]))
    for d in devs:
        dc = str(d.fields["device_class"])
        for doc in (seen, cold):
            assert named(doc, dc) <= d.paths, (d.kind, d.fields, named(doc, dc) - d.paths)
        if d.fields["os"] != "darwin":
            assert not named(cold, dc) & APPLE
        if d.fields["gpu"] is None or d.fields["os"] == "darwin":
            assert "cuda" not in named(cold, dc)
    star = {v for e in seen["tables"]["*"] for v in e["variants"]}  # type: ignore[index]
    assert not star & (APPLE | GPU | {"blas", "opencv"})


def test_a_held_out_class_gets_the_best_of_what_its_fields_allow(tmp_path: Path) -> None:
    devs, _, batches = F.fleet(F.FleetSpec(devices=24, calls=400, seed=3, mix=(0.2, 0.2, 0.3, 0.1, 0.2)))
    rows = frame(batches)
    web = next(d for d in devs if d.kind is F.Kind.WEB)
    mac = next(d for d in devs if d.kind is F.Kind.MAC)
    train = rows[~rows["device_id"].isin({web.fields["device_id"], mac.fields["device_id"]})]
    model, sbs = VariantSelector(max_iter=60).fit(train), SBS().fit(train)
    fields = pd.DataFrame([web.fields, mac.fields]).drop(columns=["device_id"])
    mix = pd.DataFrame([{"device_class": d.fields["device_class"], "op": op, "dtype": "float64", "calls": 1}
                        for d in (web, mac) for op in ("numpy.matmul", "numpy.sum")])
    doc = build(train.iloc[:0], model, sbs, "0" * 6, "t", devices=fields, mix=mix)
    assert named(doc, str(web.fields["device_class"])) == {"loops"}  # wasm: loops only, never blas
    mac_vs = named(doc, str(mac.fields["device_class"]))
    assert "cuda" not in mac_vs and mac_vs <= mac.paths
    # a large float32 matmul on the Mac: the model knows the Apple paths win there (truth agrees)
    big = lookup(doc, str(mac.fields["device_class"]), "numpy.matmul", 1 << 20)
    lat = {v: F.truth(mac, "numpy.matmul", v, "float64", (1024, 1024, 1024)) for v in F.variants(mac, "numpy.matmul")}
    assert lat[big] <= 1.5 * min(lat.values()), (big, lat)


def test_decisions_skip_a_variant_not_in_the_build_as_the_runtime_does() -> None:
    sbs = SBS().fit(frame(F.fleet(F.FleetSpec(devices=6, calls=200, seed=1))[2]))
    calls = pd.DataFrame({"device_class": ["a", "a"], "device_id": ["x", "x"], "op": ["numpy.matmul"] * 2,
                          "n_elements": [100, 1 << 20]})
    lats = [{"loops": 10.0, "threads": 50.0}, {"loops": 900.0, "threads": 100.0}]
    doc = {"format": 1, "version": "v", "tables": {"a": [{"op": "numpy.matmul", "bounds": [1000],
                                                          "variants": ["loops", "metal"]}]}}
    d = score(doc, calls, lats, sbs)
    # metal is not in this build: the built-in thresholds chose (threads from 65536 elements)
    assert d.skipped == 1 and d.top1_score == pytest.approx(1.0)
    assert not allowed({"os": "linux", "arch": "x86_64", "runtime": "cpython-extension"}, "numpy.matmul", "metal")


def test_retrain_on_tiny_and_odd_lakes_ends_with_a_message(tmp_path: Path) -> None:
    from everypath.cli import main

    _, _, batches = F.fleet(F.FleetSpec(devices=20, calls=500, seed=2))
    tiny = retrain(lake_of(batches, tmp_path / "tiny", "tiny"), tmp_path / "r1", QUICK)
    assert tiny["holdout"] in ("devices", "decisions", "shapes") and 0 < float(tiny["top1_score"]) <= 1
    assert tiny["decisions"]["after_sweep"]["calls"] > 0  # type: ignore[index]
    one = retrain(lake_of(batches[:1], tmp_path / "one", "one"), tmp_path / "r2", QUICK)
    assert one["promoted"] is False and "too little to judge" in str(one["coverage"])
    loops = [pa.Table.from_batches([b]).filter(pc.equal(pa.Table.from_batches([b])["variant"], "loops"))
             for b in batches[:4]]
    lake = lake_of([t.to_batches()[0] for t in loops], tmp_path / "loops", "loops")
    r = CliRunner().invoke(main, ["selector", "retrain", "--lake", str(lake), "--registry", str(tmp_path / "r3")])
    assert r.exit_code == 1 and "nothing to choose between" in r.output and "Traceback" not in r.output


def test_identical_data_gives_an_identical_version(tmp_path: Path) -> None:
    _, _, batches = F.fleet(F.FleetSpec(devices=8, calls=300, seed=4))
    # every call of a device at one timestamp: the sort key ties unless the order is total
    tied = [b.set_column(b.schema.get_field_index("ts"), "ts", pa.array(np.full(b.num_rows, b.column("ts")[0].value),
                                                                          b.schema.field("ts").type)) for b in batches]
    a = lake_of(tied, tmp_path / "a", "same")
    b = lake_of(list(reversed(tied)), tmp_path / "b", "emas")  # another publish order
    ra, rb = load_rows(a, MAX_ROWS), load_rows(b, MAX_ROWS)
    pd.testing.assert_frame_equal(ra, rb)
    va = retrain(a, tmp_path / "ra", QUICK)["version"]
    assert va == retrain(b, tmp_path / "rb", QUICK)["version"]

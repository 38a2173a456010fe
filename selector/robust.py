"""The selector on fleets it was not tuned on (issue 17): one independent fleet per seed
(selector/indfleet.py), written into a lake, read back by the retrain job's `load_rows`, a fifth
of the devices held out (never trained on), every chooser exported as a selection table and
scored the way the runtime applies it (selector/decide.py) on the held-out devices' calls
against the generator's noise-free truth. Three settings, reported separately:

- cold: a class never seen, known by its device fields only (the table built from them);
- after_sweep: the same devices after a 300-call autotune-like sweep (calibrated on it);
- fallback: the file's "*" table alone (what the runtime uses for a class the file does not name).

Also per seed: the *ceiling*, the best table the format allows (per held-out class, operator and
octave of n_elements the variant with the least true latency over the scored calls themselves:
an upper bound no chooser can reach without seeing them), and for the selector and gbr, top-1
and closed gap per device kind and per operator with 95 % bootstrap intervals over devices.
"""
from __future__ import annotations

import hashlib
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from everypath.selector import indfleet as F
from everypath.selector.baselines import KNN, SBS, Lookup, PlainGBR
from everypath.selector.decide import intervals, score
from everypath.selector.model import Chooser, VariantSelector
from everypath.selector.table import build, devices_of, thirds_of

CHOOSERS = ("selector", "sbs", "lookup", "knn", "gbr")
SETTINGS = ("cold", "after_sweep", "fallback")
SWEEP_CALLS = 300


def spec_for(seed: int, max_devices: int = 120, calls: int = 800) -> F.FleetSpec:
    """A fleet shape per seed: 40..max_devices devices (log-uniform), a kind mix, exploration range."""
    rng = np.random.default_rng([seed, 99])
    devices = int(round(np.exp(rng.uniform(np.log(40), np.log(max(40, max_devices))))))
    lo = float(rng.uniform(0.02, 0.15))
    return F.FleetSpec(devices=devices, calls=calls, seed=seed,
                       mix=tuple(float(x) for x in rng.dirichlet(np.ones(5)) + 0.03),  # type: ignore[arg-type]
                       explore=(lo, float(rng.uniform(lo, 0.3))))


def held_out(device_id: str, seed: int) -> bool:
    return hashlib.sha256(f"hold{seed}/{device_id}".encode()).digest()[0] % 5 == 0


def _frame(batches: list[pa.RecordBatch]) -> pd.DataFrame:
    return pa.Table.from_batches(batches).to_pandas() if batches else pd.DataFrame()


def truth_of(d: F.Device, calls: F.Calls) -> tuple[pd.DataFrame, list[dict[str, float]]]:
    """The device's calls as scoring rows, with every variant's noise-free latency per call."""
    n = [int(np.prod(F.recorded(op, dims))) for op, dims in zip(calls.op, calls.dims)]
    df = pd.DataFrame({"device_id": d.fields["device_id"], "device_class": d.fields["device_class"],
                       "op": calls.op, "n_elements": n, "kind": d.kind.value})
    built = {op: F.variants(d, op) for op in F.OPS}
    lat = [{v: F.truth(d, op, v, dt, dims) for v in built[op]}
           for op, dt, dims in zip(calls.op, calls.dtype, calls.dims)]
    return df, lat


def ceiling(calls: pd.DataFrame, lats: list[dict[str, float]]) -> dict[str, object]:
    """The best table of format 1 at octave buckets for these very calls (module docstring)."""
    b = np.floor(np.log2(calls["n_elements"].clip(lower=1).to_numpy(np.float64))).astype(np.int64)
    tot: dict[tuple[str, str], dict[int, dict[str, float]]] = {}
    for dc, op, bb, lat in zip(calls["device_class"], calls["op"], b, lats):
        cell = tot.setdefault((str(dc), str(op)), {}).setdefault(int(bb), {})
        for v, t in lat.items():
            cell[v] = cell.get(v, 0.0) + t
    tables: dict[str, list[dict[str, object]]] = {}
    for (dc, op), per in sorted(tot.items()):
        bs = sorted(per)
        tables.setdefault(dc, []).append({"op": op, "bounds": [2 ** x for x in bs[1:]],
                                          "variants": [min(sorted(per[x]), key=per[x].__getitem__) for x in bs]})
    return {"format": 1, "version": "ceiling", "tables": tables}


def fit_all(train: pd.DataFrame) -> tuple[dict[str, Chooser], dict[str, float]]:
    seconds: dict[str, float] = {}
    out: dict[str, Chooser] = {}
    t = time.perf_counter()
    sbs = SBS().fit(train)
    seconds["sbs"] = time.perf_counter() - t
    makers = {"selector": lambda: VariantSelector().fit(train), "lookup": lambda: Lookup(sbs=sbs).fit(train),
              "knn": lambda: KNN().fit(train), "gbr": lambda: PlainGBR().fit(train)}
    out["sbs"] = sbs
    for name, make in makers.items():
        t = time.perf_counter()
        out[name] = make()
        seconds[name] = time.perf_counter() - t
    return out, seconds


def run_seed(seed: int, lake: Path, max_devices: int = 120, calls: int = 800) -> dict[str, object]:
    """One seed: the fleet, the held-out split, every chooser in every setting (docstring)."""
    from everypath.selector.retrain import MAX_ROWS, load_rows
    from everypath.telemetry.lake import Lake

    spec = spec_for(seed, max_devices, calls)
    devs, drawn, batches = F.fleet(spec)
    store = Lake(lake)
    for i, b in enumerate(batches):
        store.publish_named(b, f"ind-{seed}-{spec.devices}-{i:05d}")
    rows = load_rows(lake, MAX_ROWS)
    out_ids = {str(d.fields["device_id"]) for d in devs if held_out(str(d.fields["device_id"]), seed)}
    train = rows[~rows["device_id"].isin(out_ids)].reset_index(drop=True)
    test = [(d, c) for d, c in zip(devs, drawn) if str(d.fields["device_id"]) in out_ids]
    choosers, seconds = fit_all(train)
    sbs: SBS = choosers["sbs"]  # type: ignore[assignment]
    sweep = _frame([F.sweep(d, SWEEP_CALLS, seed) for d, _ in test])
    scored = [truth_of(d, c) for d, c in test]
    calls_df = pd.concat([s[0] for s in scored], ignore_index=True) if scored else pd.DataFrame()
    lats = [x for s in scored for x in s[1]]
    # cold: the held-out classes by their fields alone, every (op, dtype) of the fleet weighted alike
    fields = devices_of(sweep) if len(sweep) else pd.DataFrame()
    mix = pd.DataFrame([{"device_class": dc, "op": op, "dtype": dt, "calls": 1}
                        for dc in fields.get("device_class", []) for op, dts in F.OPS.items() for dt in dts])
    thirds = thirds_of(train)  # the fleet's matrix products: what the table expects a bucket's calls to be
    result: dict[str, dict[str, dict[str, float]]] = {s: {} for s in SETTINGS}
    by: dict[str, dict[str, dict[str, float]]] = {}
    for name, c in choosers.items():
        if not len(test):
            break
        cold = build(sweep.iloc[:0], c, sbs, "0" * 6, "cold", devices=fields, mix=mix, thirds=thirds)
        warm = build(sweep, c.calibrated(sweep), sbs, "0" * 6, "sweep", thirds=thirds)
        star = {"format": 1, "version": "fallback", "tables": {"*": cold["tables"]["*"]}}
        for setting, doc in (("cold", cold), ("after_sweep", warm), ("fallback", star)):
            result[setting][name] = score(doc, calls_df, lats, sbs).as_dict()
            if name in ("selector", "gbr") and setting != "fallback":  # where the losses are, with intervals
                for col in ("kind", "op"):
                    by[f"{name}/{setting}/{col}"] = {k: v.as_dict() for k, v in
                                                     intervals(doc, calls_df, lats, sbs, col, seed=seed).items()}
    ceil = score(ceiling(calls_df, lats), calls_df, lats, sbs).as_dict() if len(test) else {}
    kinds = pd.Series([d.kind.value for d, _ in test]).value_counts().to_dict()
    return {"spec": {"devices": spec.devices, "calls": spec.calls, "explore": list(spec.explore),
                     "mix": [round(m, 3) for m in spec.mix]},
            "held_out_devices": len(test), "held_out_kinds": kinds, "train_rows": int(len(train)),
            "metrics": result, "ceiling": ceil, "by": by, "seconds": {k: round(v, 3) for k, v in seconds.items()}}

"""The retrain job: lake -> stratified sample -> fit -> holdout metrics -> registry -> table.

Idempotent: the version is the newest call's UTC timestamp plus a hash of the data
fingerprint, the model parameters and the exported table, so the same lake content gives
the same version and output; a stored version is not rewritten. A new model is promoted only
if its top-1 score on the holdout beats the current model's on the same holdout.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pandas as pd

from selector.baselines import KNN, SBS, Lookup
from selector.evaluate import groups, score, split
from selector.model import VariantSelector
from selector.registry import Registry
from selector import table as export

MAX_ROWS = 1_000_000  # ~1M stratified rows gave the same quality as 10M (measured, shared/README.md)
COLUMNS = ("ts", "op", "variant", "dtype", "shape", "n_elements", "latency_ns", "explore", "propensity", "device_id",
           "device_class", "cores", "isa_level", "l1d_kib", "l2_kib", "l3_kib", "gpu", "cpu_model", "runtime")


@dataclass(frozen=True)
class RetrainConfig:
    max_rows: int = MAX_ROWS
    seed: int = 0
    params: tuple[tuple[str, object], ...] = ()  # VariantSelector parameters


def load_rows(lake_dir: Path, max_rows: int) -> pd.DataFrame:
    """Rows of the lake, a deterministic sample stratified by (device class, op) past max_rows."""
    from telemetry.views import query

    cols = ", ".join(COLUMNS)
    n = int(query(lake_dir, "SELECT count(*) AS n FROM calls").column("n")[0].as_py())
    if n <= max_rows:
        sql = f"SELECT {cols} FROM calls"
    else:
        strata = int(query(lake_dir, "SELECT count(DISTINCT (device_class, op)) AS s FROM calls").column("s")[0].as_py())
        quota = max_rows / max(1, strata)
        sql = (f"SELECT {cols} FROM (SELECT *, count(*) OVER (PARTITION BY device_class, op) AS stratum_n FROM calls) "
               f"WHERE (hash(ts, device_id, latency_ns, variant) % 1000003) < 1000003 * least(1.0, {quota} / stratum_n)")
    sql += " ORDER BY ts, device_id, op, variant, latency_ns"
    return query(lake_dir, sql).to_pandas()


def fingerprint(rows: pd.DataFrame) -> str:
    h = hashlib.sha256()
    h.update(pd.util.hash_pandas_object(rows[["ts", "op", "variant", "n_elements", "latency_ns", "device_id"]],
                                        index=False).to_numpy().tobytes())
    return h.hexdigest()


def retrain(lake_dir: Path, registry_dir: Path, cfg: RetrainConfig = RetrainConfig(),
            progress: Callable[[str], None] = lambda s: None) -> dict[str, object]:
    progress("loading rows")
    rows = load_rows(lake_dir, cfg.max_rows)
    if rows.empty:
        raise ValueError(f"{lake_dir}: the lake holds no calls to train on")
    train, dev_out, shape_out = split(rows, cfg.seed)
    progress(f"fitting on {len(train)} rows")
    model = VariantSelector(**dict(cfg.params)).fit(train)
    sbs = SBS().fit(train)
    base = {"sbs": sbs, "lookup": Lookup(sbs=sbs).fit(train), "knn": KNN().fit(train)}
    progress("evaluating on held-out devices and shapes")
    g_dev, g_shape = groups(dev_out), groups(shape_out)
    on_dev = score({"selector": model, **base}, sbs, g_dev)
    on_shape = score({"selector": model}, sbs, g_shape)["selector"]
    progress("scoring the grid")
    newest = pd.Timestamp(rows["ts"].max()).tz_convert("UTC").strftime("%Y-%m-%dT%H:%M:%SZ")
    doc = export.build(train, model, sbs, "0" * 6, newest)
    model_hash = hashlib.sha256(json.dumps([fingerprint(rows), sorted(model.get_params().items()),
                                            export.table_hash(doc)], default=str).encode()).hexdigest()
    version = f"{newest}-{model_hash[:6]}"
    doc["version"] = version
    sel = on_dev["selector"].as_dict()
    metrics: dict[str, object] = {**{k: sel[k] for k in ("top1_score", "closed_gap", "regret_mean", "regret_p95")},
                                  "baselines": {k: {m: v for m, v in on_dev[k].as_dict().items() if m != "groups"}
                                                for k in base},
                                  "held_out_shapes": on_shape.as_dict(), "holdout_groups": sel["groups"],
                                  "train_rows": int(len(train)), "version": version}
    reg = Registry(registry_dir)
    progress("storing the model")
    reg.store(version, model, metrics, doc)
    current = reg.current()
    if current != version:
        better = True
        if current is not None:
            old = reg.load_model(current)
            old_top1 = score({"old": old}, sbs, g_dev)["old"].top1_score  # type: ignore[dict-item]
            better = sel["top1_score"] > round(old_top1, 6)
        if better:
            reg.promote(version)
    return {**metrics, "promoted": reg.current() == version}

"""The retrain job: lake -> stratified sample -> fit -> holdout metrics -> registry -> table.

`evaluate` (also used by bench/selector_bench.py) splits, fits the selector and the baselines
and scores them: held-out devices after their sweep (the headline), the same devices cold (no
sweep: what a device without telemetry gets), and held-out shapes on the training devices.
Idempotent: the version is the newest call's UTC timestamp plus a hash of the data
fingerprint, the model parameters and the exported table, so the same lake content gives
the same version and output; a stored version is not rewritten. A new model is promoted only
if its top-1 score on the holdout beats the current model's on the same holdout.
"""
from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pandas as pd

from everypath.selector.baselines import KNN, SBS, Lookup
from everypath.selector.evaluate import Metrics, fold, groups, score, score_after_sweep, split
from everypath.selector.model import FORMAT, Chooser, VariantSelector
from everypath.selector.registry import Registry
from everypath.selector import table as export

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
    from everypath.telemetry.views import query

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


@dataclass(frozen=True)
class Evaluation:
    """A fitted selector, its baselines' and its holdout metrics, and how long each fit took."""

    model: VariantSelector
    sbs: SBS
    train: pd.DataFrame
    dev_out: pd.DataFrame
    shape_out: pd.DataFrame
    seed: int
    metrics: dict[str, object]
    seconds: dict[str, float] = field(default_factory=dict)  # fit wall time per chooser (not stored)

    def top1(self, chooser: Chooser) -> float:
        """A chooser's headline top-1 score on this evaluation's holdout (for promotion)."""
        if self.metrics["holdout"] == "devices":
            return score_after_sweep({"c": chooser}, self.sbs, self.dev_out, self.seed)["c"].top1_score
        return score({"c": chooser}, self.sbs, groups(self.shape_out))["c"].top1_score


def _plain(m: Metrics) -> dict[str, float]:
    return {k: v for k, v in m.as_dict().items() if k != "groups"}


def evaluate(rows: pd.DataFrame, cfg: RetrainConfig = RetrainConfig(),
             progress: Callable[[str], None] = lambda s: None) -> Evaluation:
    """Split rows, fit the selector and baselines on the training part, score the holdouts."""
    train, dev_out, shape_out = split(rows, cfg.seed)
    if train.empty:  # every device class fell in the held-out quarter (a lake of one or two devices)
        keep = fold(rows, cfg.seed) != 0
        train, dev_out, shape_out = rows[keep], rows.iloc[:0], rows[~keep]
    if train.empty:
        raise ValueError("the lake's calls have too few distinct (op, shape) pairs to hold any out for scoring")
    progress(f"fitting on {len(train)} rows")
    seconds: dict[str, float] = {}

    def timed(name: str, fit: Callable[[], Chooser]) -> Chooser:
        t = time.perf_counter()
        c = fit()
        seconds[name] = time.perf_counter() - t
        return c

    model = timed("selector", lambda: VariantSelector(**dict(cfg.params)).fit(train))
    sbs = timed("sbs", lambda: SBS().fit(train))
    base = {"sbs": sbs, "lookup": timed("lookup", lambda: Lookup(sbs=sbs).fit(train)),  # type: ignore[arg-type]
            "knn": timed("knn", lambda: KNN().fit(train))}
    progress("evaluating on held-out devices and shapes")
    choosers = {"selector": model, **base}
    g_dev, g_shape = groups(dev_out), groups(shape_out)
    on_shape = score(choosers, sbs, g_shape)
    if len(g_dev):
        head, holdout = score_after_sweep(choosers, sbs, dev_out, cfg.seed), "devices"
        cold = {k: _plain(m) for k, m in score(choosers, sbs, g_dev).items()}
    else:  # no held-out device has a complete group: the held-out shapes are the headline
        head, holdout, cold = on_shape, "shapes", {}
    sel = head["selector"]
    metrics: dict[str, object] = {**_plain(sel), "baselines": {k: _plain(head[k]) for k in base},
                                  "holdout": holdout, "holdout_groups": sel.groups, "cold_devices": cold,
                                  "held_out_shapes": on_shape["selector"].as_dict(), "train_rows": int(len(train))}
    return Evaluation(model, sbs, train, dev_out, shape_out, cfg.seed, metrics, seconds)  # type: ignore[arg-type]


def retrain(lake_dir: Path, registry_dir: Path, cfg: RetrainConfig = RetrainConfig(),
            progress: Callable[[str], None] = lambda s: None) -> dict[str, object]:
    progress("loading rows")
    rows = load_rows(lake_dir, cfg.max_rows)
    if rows.empty:
        raise ValueError(f"{lake_dir}: the lake holds no calls to train on")
    ev = evaluate(rows, cfg, progress)
    model = ev.model
    progress("scoring the grid")
    newest = pd.Timestamp(rows["ts"].max()).tz_convert("UTC").strftime("%Y-%m-%dT%H:%M:%SZ")
    # the table covers every device class of the lake: devices held out of training get the fleet
    # model calibrated on their own sweep (what a new device gets after `everypath autotune`);
    # the stored model stays uncalibrated, so later promotions compare like with like
    unseen = rows[~rows["device_class"].isin(set(ev.train["device_class"]))]
    doc = export.build(rows, model.calibrated(unseen) if len(unseen) else model, ev.sbs, "0" * 6, newest)
    model_hash = hashlib.sha256(json.dumps([fingerprint(rows), sorted(model.get_params().items()),
                                            export.table_hash(doc)], default=str).encode()).hexdigest()
    version = f"{newest}-{model_hash[:6]}"
    doc["version"] = version
    metrics = {**ev.metrics, "version": version}
    reg = Registry(registry_dir)
    progress("storing the model")
    reg.store(version, model, metrics, doc)
    current = reg.current()
    if current != version:
        better = True
        if current is not None:
            old = reg.load_model(current)
            # a model of an older format (no device calibration) is not comparable: the new one wins
            if getattr(old, "format_", 1) == FORMAT:
                better = float(metrics["top1_score"]) > round(ev.top1(old), 6)  # type: ignore[arg-type]
        if better:
            reg.promote(version)
    return {**metrics, "promoted": reg.current() == version}

"""The retrain job: lake -> stratified sample -> fit -> holdout metrics -> registry -> table.

`evaluate` (also used by bench/selector_bench.py) splits, fits the selector and the baselines
and scores them: held-out devices after their sweep (the headline), the same devices cold (no
sweep: what a device without telemetry gets), and held-out shapes on the training devices.
Idempotent: the version is the newest call's UTC timestamp plus a hash of the data
fingerprint, the model parameters and the exported table, so the same lake content gives
the same version and output; a stored version is not rewritten. A new model is promoted only
if the evaluation covered enough to judge it (`coverage`) and its top-1 score on the holdout beats
the current model's on the same holdout. `decisions` scores the exported table the way the runtime
applies it on the held-out devices' calls at their own sizes (selector/decide.py).
Counts: the exported table weighs dtypes by the lake's true calls (`load_mix`: the aggregates, every
call counted); the training rows and the coverage rule's scored decisions are raw rows, since each
needs a single call's features (MIN_CALLS bounds how many calls were scored, i.e. the evidence,
which a count of unseen calls would overstate).
"""
from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pandas as pd

from everypath.selector.availability import ran
from everypath.selector.baselines import KNN, SBS, Lookup
from everypath.selector.decide import MIN_CALLS, MIN_DEVICES, modelled
from everypath.selector.decide import score as decide_score
from everypath.selector.evaluate import Metrics, fold, groups, score, score_after_sweep, split
from everypath.selector.model import FORMAT, Chooser, VariantSelector
from everypath.selector.registry import Registry
from everypath.selector import table as export

MAX_ROWS = 1_000_000  # ~1M stratified rows gave the same quality as 10M (measured, shared/README.md)
COLUMNS = ("ts", "op", "variant", "dtype", "shape", "n_elements", "latency_ns", "explore", "propensity", "device_id",
           "device_class", "cores", "isa_level", "l1d_kib", "l2_kib", "l3_kib", "gpu", "cpu_model", "runtime", "os", "arch")


@dataclass(frozen=True)
class RetrainConfig:
    max_rows: int = MAX_ROWS
    seed: int = 0
    params: tuple[tuple[str, object], ...] = ()  # VariantSelector parameters
    engine: str = "duckdb"  # where the training rows are gathered: duckdb (embedded) or spark
    master: str | None = None  # --engine spark: the Spark master (default local[2])


def load_rows(lake_dir: Path, max_rows: int, engine: str = "duckdb", master: str | None = None) -> pd.DataFrame:
    """Rows of the lake, a deterministic sample stratified by (device class, op) past max_rows."""
    if engine == "spark":
        from everypath.selector.spark_rows import load_rows_spark

        return load_rows_spark(str(lake_dir), COLUMNS, max_rows, master)  # with third_dim, as below
    from everypath.telemetry.views import query

    # third_dim (schema 2): a lake whose files all predate it has no such column; its rows read it as null
    have = set(query(lake_dir, "SELECT column_name FROM (DESCRIBE calls)").column("column_name").to_pylist())
    cols = ", ".join([*COLUMNS, "third_dim" if "third_dim" in have else "NULL::BIGINT AS third_dim"])
    n = int(query(lake_dir, "SELECT count(*) AS n FROM calls").column("n")[0].as_py())
    if n <= max_rows:
        sql = f"SELECT {cols} FROM calls"
    else:
        strata = int(query(lake_dir, "SELECT count(DISTINCT (device_class, op)) AS s FROM calls").column("s")[0].as_py())
        quota = max_rows / max(1, strata)
        sql = (f"SELECT {cols} FROM (SELECT *, count(*) OVER (PARTITION BY device_class, op) AS stratum_n FROM calls) "
               f"WHERE (hash(ts, device_id, latency_ns, variant) % 1000003) < 1000003 * least(1.0, {quota} / stratum_n)")
    # a total order (calls of one device often share a timestamp): the same lake, the same rows
    sql += " ORDER BY " + ", ".join(f"{c} ASC NULLS LAST" for c in (*COLUMNS, "third_dim"))
    return query(lake_dir, sql).to_pandas()


MIX_KEYS = ("device_class", "op", "dtype")


def mix_sql(calls: str, aggregates: str) -> str:
    """Calls per (device class, op, dtype), every call counted: the aggregates, and the raw rows no
    aggregates cover weighted by 1 / inclusion (telemetry/rollup.py); the same SQL on both engines."""
    from everypath.telemetry.rollup import uncovered_sql

    k = ", ".join(MIX_KEYS)
    return (f"SELECT {k}, CAST(round(sum(n)) AS BIGINT) AS calls FROM (SELECT {k}, CAST(count AS DOUBLE) AS n "
            f"FROM {aggregates} a UNION ALL SELECT {k}, w FROM {uncovered_sql(calls, aggregates)} r) u "
            f"GROUP BY {k} ORDER BY {k}")


def load_mix(lake_dir: Path, engine: str = "duckdb", master: str | None = None) -> pd.DataFrame:
    """The lake's true call mix (MIX_KEYS, calls): what the exported table's dtype weights are.
    The training rows are a sample (thinned as a ring fills, `telemetry_sample`): their counts
    are not the calls' (a busy kernel's calls are the most thinned)."""
    if engine == "spark":
        from everypath.selector.spark_rows import load_mix_spark

        return load_mix_spark(str(lake_dir), mix_sql, master)
    from everypath.telemetry.views import query

    return query(lake_dir, mix_sql("calls", "aggregates")).to_pandas()


def call_mix(rows: pd.DataFrame, counts: pd.DataFrame) -> pd.DataFrame:
    """export.mix_of(rows) with each (class, op, dtype)'s count replaced by the lake's true one
    (load_mix); triples without training rows are left out, as the table has nothing to say there."""
    mix = export.mix_of(rows).merge(counts, on=list(MIX_KEYS), how="left", suffixes=("_rows", ""))
    mix["calls"] = mix["calls"].fillna(mix["calls_rows"]).astype("int64")
    return mix.drop(columns=["calls_rows"])


def fingerprint(rows: pd.DataFrame) -> str:
    h = hashlib.sha256()
    cols = [c for c in COLUMNS if c in rows]
    h.update(pd.util.hash_pandas_object(rows[cols].astype({"shape": str}) if "shape" in cols else rows[cols],
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
        if self.metrics["holdout"] == "decisions":
            dec = decisions(chooser, self.sbs, self.dev_out, export.thirds_of(self.train))  # type: ignore[arg-type]
            return float(dec["after_sweep"]["top1_score"])
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
    choice = rows.groupby("op")["variant"].nunique()
    if choice.max() < 2:
        raise ValueError(f"every operator in the lake ran a single variant ({', '.join(sorted(choice.index))}): "
                         "there is nothing to choose between; record exploration (EVERYPATH_EXPLORE) or run "
                         "`everypath autotune` first")
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
    progress("scoring the exported table's decisions on held-out devices")
    metrics["decisions"] = dec = decisions(model, sbs, dev_out, export.thirds_of(train))
    if sel.groups < MIN_GROUPS and dec:  # too few complete groups: the decisions are the headline
        metrics.update({k: dec["after_sweep"][k] for k in ("top1_score", "closed_gap", "regret_mean", "regret_p95")})
        metrics["holdout"] = "decisions"
    metrics["judged"], metrics["coverage"] = coverage(metrics)
    return Evaluation(model, sbs, train, dev_out, shape_out, cfg.seed, metrics, seconds)  # type: ignore[arg-type]


MIN_GROUPS = 40  # fewer complete held-out groups than this cannot judge a model (issue 17: 29 easy ones did)
MAX_DECISIONS = 20_000  # held-out calls scored by decisions (every k-th): bounds the evaluation's cost


def decisions(model: VariantSelector, sbs: SBS, dev_out: pd.DataFrame,
              thirds: export.Thirds | None = None) -> dict[str, dict[str, float]]:
    """The exported table's decisions on the held-out devices' calls at their own sizes
    (selector/decide.py, latencies modelled from each device's measurements): cold = a table
    from their device fields alone, after_sweep = calibrated on their explore rows; `thirds`: the
    training rows' matrix products (export.thirds_of), not the held-out calls'."""
    if dev_out.empty:
        return {}
    calls, lats = modelled(dev_out, every=max(1, len(dev_out) // MAX_DECISIONS))
    if not len(calls):
        return {}
    devs, mix = export.devices_of(dev_out), export.mix_of(dev_out)
    sweep = dev_out[dev_out["explore"].to_numpy(bool)]
    seen = ran(dev_out)  # what each class ran: all its rows, not only the explored ones
    thirds = {} if thirds is None else thirds
    cold = export.build(dev_out.iloc[:0], model, sbs, "0" * 6, "eval", devices=devs, mix=mix, thirds=thirds)
    warm = export.build(sweep, model.calibrated(sweep), sbs, "0" * 6, "eval", devices=devs, mix=mix, seen=seen,
                        thirds=thirds)
    return {"cold": decide_score(cold, calls, lats, sbs).as_dict(), "after_sweep": decide_score(warm, calls, lats, sbs).as_dict()}


def coverage(metrics: dict[str, object]) -> tuple[bool, str]:
    """Can this evaluation judge a model? Enough complete held-out groups or enough scored decisions."""
    groups_n = int(metrics["holdout_groups"])  # type: ignore[call-overload]
    dec: dict[str, dict[str, float]] = metrics.get("decisions") or {}  # type: ignore[assignment]
    calls = int(dec.get("after_sweep", {}).get("calls", 0))
    devices = int(dec.get("after_sweep", {}).get("devices", 0))
    if groups_n >= MIN_GROUPS or (calls >= MIN_CALLS and devices >= MIN_DEVICES):
        return True, f"{groups_n} held-out groups, {calls} scored decisions on {devices} held-out devices"
    return False, (f"too little to judge: {groups_n} held-out groups (needs {MIN_GROUPS}) and {calls} scored "
                   f"decisions on {devices} held-out devices (needs {MIN_CALLS} on {MIN_DEVICES}); "
                   "stored, not promoted")


def retrain(lake_dir: Path, registry_dir: Path, cfg: RetrainConfig = RetrainConfig(),
            progress: Callable[[str], None] = lambda s: None) -> dict[str, object]:
    progress("loading rows")
    rows = load_rows(lake_dir, cfg.max_rows, cfg.engine, cfg.master)
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
    progress("counting calls")
    mix = call_mix(rows, load_mix(lake_dir, cfg.engine, cfg.master))
    doc = export.build(rows, model.calibrated(unseen) if len(unseen) else model, ev.sbs, "0" * 6, newest, mix=mix)
    model_hash = hashlib.sha256(json.dumps([fingerprint(rows), sorted(model.get_params().items()),
                                            export.table_hash(doc)], default=str).encode()).hexdigest()
    version = f"{newest}-{model_hash[:6]}"
    doc["version"] = version
    metrics = {**ev.metrics, "version": version}
    reg = Registry(registry_dir)
    progress("storing the model")
    reg.store(version, model, metrics, doc)
    current = reg.current()
    if current != version and not metrics["judged"]:
        progress(str(metrics["coverage"]))
    elif current != version:
        better = True
        if current is not None:
            old = reg.load_model(current)
            # a model of an older format (no device calibration) is not comparable: the new one wins
            if getattr(old, "format_", 1) == FORMAT:
                better = float(metrics["top1_score"]) > round(ev.top1(old), 6)  # type: ignore[arg-type]
        if better:
            reg.promote(version)
    return {**metrics, "promoted": reg.current() == version}

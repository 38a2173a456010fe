"""Holdout splits and the metrics: top-1 score, closed gap, regret (docs/selector.md).

A *group* is one (device, operator, dtype, shape): its calls, and the median latency of each
variant measured in it. Only groups where every variant the device ran for that operator was
measured are scored (the oracle must be known). For a chooser picking c(g) in group g with
call count w(g), oracle o(g) = min over variants of the median, SBS s(g):

    top1_score  = sum w*o / sum w*lat(c)
    closed_gap  = (sum w*lat(s) - sum w*lat(c)) / (sum w*lat(s) - sum w*o)   (1 when SBS is the oracle)
    regret      = lat(c)/o - 1 per group: mean and 95th percentile (unweighted, over groups)

Held-out devices are scored as new devices after their autotune sweep (`score_after_sweep`):
their (op, shape) keys fall into FOLDS folds by the same hash as the shape holdout (fold 0 =
the held-out shapes); each fold's groups are chosen by a chooser given only the device's
explore rows of the other folds (`Chooser.calibrated`). No group's own rows reach its choice,
and no chooser is ever fitted on a held-out device.
"""
from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from everypath.selector.features import third_dims

DEVICE_KEYS = ("device_id", "device_class", "cores", "isa_level", "l1d_kib", "l2_kib", "l3_kib", "gpu",
               "cpu_model", "runtime", "os", "arch")


@dataclass(frozen=True)
class Metrics:
    top1_score: float
    closed_gap: float
    regret_mean: float
    regret_p95: float
    groups: int

    def as_dict(self) -> dict[str, float]:
        return {k: (round(v, 6) if isinstance(v, float) else v) for k, v in asdict(self).items()}


def _bucket(key: str, salt: str, parts: int) -> int:
    return int.from_bytes(hashlib.sha256(f"{salt}/{key}".encode()).digest()[:4], "little") % parts


def shape_key(shapes: pd.Series) -> pd.Series:
    return shapes.map(lambda s: "x".join(str(int(d)) for d in s))


FOLDS = 5


def fold(rows: pd.DataFrame, seed: int = 0) -> np.ndarray:
    """Each row's fold (0..FOLDS-1) by its (op, shape) key; fold 0 is split()'s held-out shapes."""
    return _buckets(rows["op"] + "/" + shape_key(rows["shape"]), f"shape{seed}", FOLDS)


def _buckets(keys: pd.Series, salt: str, parts: int) -> np.ndarray:
    """_bucket of every key, hashing each distinct key once."""
    codes, uniques = pd.factorize(keys)
    return np.array([_bucket(str(k), salt, parts) for k in uniques], np.int64)[codes]


def split(rows: pd.DataFrame, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(train, held-out devices, held-out shapes): a quarter of device classes and a fifth of
    the shapes (on the remaining devices) are never trained on; deterministic by hash."""
    dev_out = _buckets(rows["device_class"], f"dev{seed}", 4) == 0
    shape_out = fold(rows, seed) == 0
    return rows[~dev_out & ~shape_out], rows[dev_out], rows[~dev_out & shape_out]


def groups(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per complete group: device columns, op, dtype, shape, n_elements, calls,
    candidates (tuple of variants) and medians ({variant: median latency_ns})."""
    sk = shape_key(rows["shape"])
    if "third_dim" in rows:  # one recorded shape, another third dimension: other work, another group
        third = third_dims(rows).astype(np.int64)
        sk = sk + np.where(third > 0, "/" + third.astype(str), "")
    df = rows.assign(shape_key=sk)
    per_device = df.groupby(["device_id", "op"])["variant"].agg(lambda v: tuple(sorted(set(v))))
    keys = ["device_id", "op", "dtype", "shape_key"]
    med = df.groupby(keys + ["variant"])["latency_ns"].median()
    first = df.groupby(keys, sort=True).agg(
        {**{k: "first" for k in DEVICE_KEYS if k != "device_id" and k in df}, "shape": "first", "n_elements": "first",
         **({"third_dim": "first"} if "third_dim" in df else {}), "latency_ns": "size"}).rename(columns={"latency_ns": "calls"})
    medians: dict[tuple, dict[str, float]] = {}
    for (dev, op, dtype, sk, var), lat in med.items():
        medians.setdefault((dev, op, dtype, sk), {})[var] = float(lat)
    first["medians"] = [medians[k] for k in first.index]
    first["candidates"] = [tuple(sorted(m)) for m in first["medians"]]
    full = [len(c) >= 2 and c == per_device[(k[0], k[1])] for k, c in zip(first.index, first["candidates"])]
    return first[full].reset_index()


def metrics(chosen: list[str], sbs: list[str], g: pd.DataFrame) -> Metrics:
    """The metrics of one chooser's picks against SBS's and the oracle, on groups g."""
    w = g["calls"].to_numpy(np.float64)
    lat = np.array([m[c] for m, c in zip(g["medians"], chosen)])
    base = np.array([m[c] for m, c in zip(g["medians"], sbs)])
    oracle = np.array([min(m.values()) for m in g["medians"]])
    tot, tot_s, tot_o = (w * lat).sum(), (w * base).sum(), (w * oracle).sum()
    gap = 1.0 if tot_s - tot_o <= 0 else float((tot_s - tot) / (tot_s - tot_o))
    regret = lat / oracle - 1
    return Metrics(float(tot_o / tot) if tot else 1.0, gap, float(regret.mean()) if len(g) else 0.0,
                   float(np.quantile(regret, 0.95)) if len(g) else 0.0, int(len(g)))


def score(choosers: dict[str, object], sbs: object, g: pd.DataFrame) -> dict[str, Metrics]:
    """Metrics of each chooser (name -> Chooser) on the complete groups g."""
    cands = list(g["candidates"])
    base = sbs.choose_many(g, cands)  # type: ignore[attr-defined]
    return {name: metrics(c.choose_many(g, cands), base, g) for name, c in choosers.items()}  # type: ignore[attr-defined]


def score_after_sweep(choosers: dict[str, object], sbs: object, rows: pd.DataFrame, seed: int = 0) -> dict[str, Metrics]:
    """Metrics of each chooser on the complete groups of `rows` (held-out devices), each fold's
    groups chosen after calibrating on the explore rows of the other folds (module docstring)."""
    g = groups(rows)
    g_fold = fold(g, seed)
    row_fold, explore = fold(rows, seed), rows["explore"].to_numpy(bool)
    cands = list(g["candidates"])
    base = sbs.choose_many(g, cands)  # type: ignore[attr-defined]
    picks = {name: [""] * len(g) for name in choosers}
    for k in range(FOLDS):
        ix = np.flatnonzero(g_fold == k)
        if not len(ix):
            continue
        sweep = rows[(row_fold != k) & explore]
        part = g.iloc[ix]
        for name, c in choosers.items():
            chosen = c.calibrated(sweep).choose_many(part, [cands[i] for i in ix])  # type: ignore[attr-defined]
            for i, v in zip(ix, chosen):
                picks[name][i] = v
    return {name: metrics(p, base, g) for name, p in picks.items()}

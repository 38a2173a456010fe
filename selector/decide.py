"""Scoring decisions the way the runtime makes them (issue 17): the exported selection table,
per device and call size, against the fastest variant the device has.

For each scored call of a device: the table's variant for (device class, op, n_elements)
(table.lookup: the class's entry, else "*"); a variant the device's build lacks is skipped as
the runtime skips it (variants/include/everypath/telemetry_host.hpp: the built-in thresholds
decide) and counted in `skipped`. Its latency is the call's latency of that variant: the
generator's noise-free truth (bench), or `modelled` from the device's own measurements (the
retrain job). top-1 score, closed gap (against SBS, first of its per-operator ranking in the
device's build) and regret are evaluate.metrics' over these calls, one call weighing one.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from everypath.selector.evaluate import metrics
from everypath.selector.table import lookup

MIN_CALLS = 200  # fewer scored calls than this cannot judge a model: it is never promoted on them
MIN_DEVICES = 2


@dataclass(frozen=True)
class Decisions:
    top1_score: float
    closed_gap: float
    regret_mean: float
    regret_p95: float
    calls: int
    devices: int
    skipped: int  # decisions naming a variant the device's build lacks (the runtime's fallback ran)

    def as_dict(self) -> dict[str, float]:
        return {k: (round(v, 6) if isinstance(v, float) else v) for k, v in asdict(self).items()}

    @property
    def enough(self) -> bool:
        return self.calls >= MIN_CALLS and self.devices >= MIN_DEVICES


def builtin(op: str, n: int, built: Sequence[str]) -> str:
    """The runtime's choice without a usable table entry: the last variant whose min_work n reaches."""
    from everypath.variants.registry import registry

    entry = registry().ops.get(op.removeprefix("fused:"))
    order = [v for v in built] if entry is None else [v.path for v in entry.variants if v.path in built]
    mw = {v.path: v.min_work for v in entry.variants} if entry is not None else {}
    best = order[0] if order else built[0]
    for v in order:
        if n >= mw.get(v, 0):
            best = v
    return best


def score(doc: Mapping[str, object], calls: pd.DataFrame, latencies: Sequence[Mapping[str, float]],
          sbs: object) -> Decisions:
    """The table's decisions on calls (columns device_class, device_id, op, n_elements), each
    with {variant: latency} over the variants the device has (its build, in dispatch order)."""
    chosen, base, skipped = [], [], 0
    for dc, op, n, lat in zip(calls["device_class"], calls["op"], calls["n_elements"], latencies):
        built = tuple(lat)
        v = lookup(doc, str(dc), str(op), int(n))  # type: ignore[arg-type]
        if v not in lat:
            skipped += v is not None
            v = builtin(str(op), int(n), built)
        chosen.append(v)
        base.append(sbs.pick(str(op), built))  # type: ignore[attr-defined]
    g = pd.DataFrame({"calls": np.ones(len(calls)), "medians": list(latencies)})
    m = metrics(chosen, base, g)
    return Decisions(m.top1_score, m.closed_gap, m.regret_mean, m.regret_p95, int(len(calls)),
                     int(calls["device_id"].nunique()) if len(calls) else 0, skipped)


def latencies_of(doc: Mapping[str, object], calls: pd.DataFrame, latencies: Sequence[Mapping[str, float]],
                 sbs: object) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per call: the latency of the table's decision (as `score` resolves it), the oracle's and SBS's."""
    chosen, oracle, base = (np.zeros(len(calls)) for _ in range(3))
    for i, (op, n, dc, lat) in enumerate(zip(calls["op"], calls["n_elements"], calls["device_class"], latencies)):
        v = lookup(doc, str(dc), str(op), int(n))  # type: ignore[arg-type]
        if v not in lat:
            v = builtin(str(op), int(n), tuple(lat))
        chosen[i], oracle[i] = lat[v], min(lat.values())
        base[i] = lat[sbs.pick(str(op), tuple(lat))]  # type: ignore[attr-defined]
    return chosen, oracle, base


@dataclass(frozen=True)
class Interval:
    """top-1 and closed gap with a 95 % bootstrap interval over devices (resampled with replacement)."""

    top1_score: float
    top1_ci: tuple[float, float]
    closed_gap: float
    gap_ci: tuple[float, float]
    calls: int
    devices: int

    def as_dict(self) -> dict[str, object]:
        return {"top1_score": round(self.top1_score, 6), "top1_ci": [round(x, 6) for x in self.top1_ci],
                "closed_gap": round(self.closed_gap, 6), "gap_ci": [round(x, 6) for x in self.gap_ci],
                "calls": self.calls, "devices": self.devices}


def _ratios(c: np.ndarray, o: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """top-1 and closed gap of summed latencies (last axis: devices); gap 1 where SBS is the oracle."""
    tc, to, tb = c.sum(-1), o.sum(-1), b.sum(-1)
    span = tb - to
    gap = np.where(span > 0, (tb - tc) / np.where(span > 0, span, 1.0), 1.0)
    return np.where(tc > 0, to / np.where(tc > 0, tc, 1.0), 1.0), gap


def intervals(doc: Mapping[str, object], calls: pd.DataFrame, latencies: Sequence[Mapping[str, float]], sbs: object,
              column: str, reps: int = 400, seed: int = 0) -> dict[str, Interval]:
    """Per value of `column` (device kind, operator): the table's top-1 and closed gap with a
    95 % percentile-bootstrap interval over the devices that made those calls (the unit a fleet
    varies by: one device's hidden factors move all of its calls together)."""
    chosen, oracle, base = latencies_of(doc, calls, latencies, sbs)
    rng = np.random.default_rng(seed)
    out: dict[str, Interval] = {}
    for key, ix in calls.groupby(column, sort=True).indices.items():
        dev = pd.factorize(calls["device_id"].to_numpy()[ix])[0]
        per = [np.bincount(dev, weights=a[ix]) for a in (chosen, oracle, base)]
        top1, gap = _ratios(*per)
        draw = rng.integers(0, len(per[0]), size=(reps, len(per[0])))
        bt, bg = _ratios(*(a[draw] for a in per))
        out[str(key)] = Interval(float(top1), (float(np.quantile(bt, 0.025)), float(np.quantile(bt, 0.975))),
                                 float(gap), (float(np.quantile(bg, 0.025)), float(np.quantile(bg, 0.975))),
                                 int(len(ix)), int(len(per[0])))
    return out


def score_by(doc: Mapping[str, object], calls: pd.DataFrame, latencies: Sequence[Mapping[str, float]],
             sbs: object, column: str) -> dict[str, Decisions]:
    """`score` per value of one column of calls (device kind, operator)."""
    out = {}
    for key, ix in calls.groupby(column, sort=True).indices.items():
        out[str(key)] = score(doc, calls.iloc[ix].reset_index(drop=True), [latencies[i] for i in ix], sbs)
    return out


def modelled(rows: pd.DataFrame, reach: float = 1.0, every: int = 1) -> tuple[pd.DataFrame, list[dict[str, float]]]:
    """The calls of rows (every `every`-th) that can be scored from the devices' own measurements,
    with each variant's latency there: per (device, op, dtype, variant) the median latency per
    distinct n_elements, smoothed by a running median over half an octave, interpolated in
    log-log over n; a call is kept when every variant its device ran for the op has a
    measurement within `reach` octaves on one side and 2 `reach` on the other (or at n itself)."""
    keys = ["device_id", "op", "dtype"]
    med = rows.groupby(keys + ["variant", "n_elements"], sort=True)["latency_ns"].median()
    curves: dict[tuple[str, str, str], dict[str, tuple[np.ndarray, np.ndarray]]] = {}
    for (dev, op, dt, v), s in med.groupby(level=[0, 1, 2, 3], sort=True):
        n = np.log2(s.index.get_level_values("n_elements").to_numpy(np.float64).clip(1))
        y = np.log(s.to_numpy(np.float64).clip(1))
        # each size is often one call: the median over half an octave around it resists outliers
        near = np.abs(n[:, None] - n[None, :]) <= 0.5
        y = np.array([np.median(y[m]) for m in near])
        curves.setdefault((dev, op, dt), {})[v] = (n, y)
    ran = rows.groupby(["device_id", "op"])["variant"].agg(lambda v: tuple(sorted(set(v))))
    q = rows.iloc[::every]
    x_all = np.log2(q["n_elements"].to_numpy(np.float64).clip(1))
    keep: list[np.ndarray] = []
    lat_cols: list[dict[str, np.ndarray]] = []
    for (dev, op, dt), ix in q.groupby(keys, sort=True).indices.items():
        c, variants = curves.get((dev, op, dt), {}), ran[(dev, op)]
        if len(variants) < 2 or any(v not in c for v in variants):
            continue
        x, ok, lat = x_all[ix], np.ones(len(ix), bool), {}
        for v in variants:
            px, py = c[v]
            lo = np.searchsorted(px, x, side="right") - 1
            hi = np.searchsorted(px, x, side="left")
            below = np.where(lo >= 0, x - px[np.clip(lo, 0, None)], np.inf)
            above = np.where(hi < len(px), px[np.clip(hi, None, len(px) - 1)] - x, np.inf)
            ok &= (np.minimum(below, above) <= reach) & (np.maximum(below, above) <= 2 * reach)
            lat[v] = np.exp(np.interp(x, px, py))
        keep.append(ix[ok])
        lat_cols.append({v: a[ok] for v, a in lat.items()})
    if not keep:
        return q.iloc[:0].reset_index(drop=True), []
    order = np.concatenate(keep)
    lats = [{v: float(a[i]) for v, a in cols.items()} for cols in lat_cols for i in range(len(next(iter(cols.values()))))]
    return q.iloc[order].reset_index(drop=True), lats

"""VariantSelector: predicts log latency of (device, call, variant) rows and chooses, per call,
the candidate variant predicted fastest.

Two parts (docs/selector.md, "Model"):

- the fleet model: a histogram gradient-boosted regressor on device and call features, fitted
  to log latency minus log estimated FLOPs (log time per FLOP: nearly flat at large sizes,
  where trees, which cannot extrapolate, would otherwise flatten the costliest calls). It is
  fitted on one row per (device class, op, dtype, shape, variant): the median log latency of
  those calls, weighted by the sum of their weights (4-5x faster than one row per call on
  the simulated fleet, same holdout quality; measured);
- the device calibration: a device class's own exploration rows (its autotune sweep) give
  the fleet model's residual per (operator, variant, dtype) at the sizes it measured; a query
  adds those residuals smoothed over log2 FLOPs (a wide Gaussian kernel, then a narrow one
  on what is left), each shrunk toward zero by a prior weight, scaled per operator by an
  empirical-Bayes factor (noise over spread of the offsets: a noisy operator's sweep must say
  more to move it). The fleet cannot know hidden per-device factors (BLAS quality, GPU peak,
  memory bandwidth); the device's sweep can.

Conventions: scikit-learn's (fit/predict, fitted attributes end in "_", `check_is_fitted`).
X is a frame of telemetry rows (calls schema columns); y defaults to log(latency_ns).
Calls chosen by exploration are weighted by 1/propensity (inverse propensity, clipped at
`max_weight`), so variants the policy rarely tries count more, as under uniform choice.
HGB runs on one OpenMP thread: 3-4x faster than two on the shared 2-core machines (measured).
Never call predict in the hot path: the grid is scored at retrain time (selector/table.py).
"""
from __future__ import annotations

import copy

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import threadpool_limits

from everypath.selector.availability import Seen, candidates
from everypath.selector.evaluate import shape_key
from everypath.selector.features import CATEGORICAL, features, log_flops, target, third_dims
from everypath.selector.shrinkage import shrink_factor

MAX_WEIGHT = 5.0  # clip 1/propensity: one unlucky explore row must not dominate a leaf (50 gave the
# independent fleets' worst seeds: a device with ε = 0.02 makes each explore row weigh 50-200 calls)
FORMAT = 6  # 2: log-time-per-FLOP target + device calibration; 3: + os/arch features; 4: SIMD width instead of
# the ISA ordinal, empirical-Bayes calibration priors; 5: the unweighted companion model for devices without a
# sweep; 6: matmul's recorded third dimension (exact FLOPs, a log2_third_dim feature) (older: not comparable,
# their features or predictions differ)
BLEND = 0.5  # a device without a sweep: half the IPW/cost-weighted fleet model, half an unweighted one
# parameters a stored model may predate, with the value it was fitted with (get_params needs them)
LEGACY: dict[str, object] = {"max_weight": 50.0, "blend": 0.0}
CAL_KEY = ("device_class", "op", "variant", "dtype")
SEP = "\x1f"  # joins a calibration key into one string (skops stores str-keyed dicts)


def expand(queries: pd.DataFrame, candidates: list[tuple[str, ...]]) -> tuple[pd.DataFrame, np.ndarray]:
    """One row per (query, candidate variant); returns the rows and each row's query index."""
    counts = np.array([len(c) for c in candidates], dtype=np.int64)
    idx = np.repeat(np.arange(len(queries)), counts)
    rows = queries.iloc[idx].reset_index(drop=True).copy()
    rows["variant"] = [v for c in candidates for v in c]
    return rows, idx


def argmin_per_query(pred: np.ndarray, idx: np.ndarray, variants: list[str], n: int) -> list[str]:
    best: list[str] = [""] * n
    score = np.full(n, np.inf)
    for p, q, v in zip(pred, idx, variants):
        if p < score[q]:
            score[q], best[q] = p, v
    return best


class Chooser:
    """The shared choosing interface: every selector and baseline predicts log latency."""

    def predict(self, X: pd.DataFrame) -> np.ndarray:  # pragma: no cover - overridden
        raise NotImplementedError

    def calibrated(self, rows: pd.DataFrame) -> "Chooser":
        """This chooser once the devices of `rows` have run their sweep (explore rows): what it
        may use of them. Default: nothing (SBS)."""
        return self

    def candidates_for(self, queries: pd.DataFrame) -> list[tuple[str, ...]]:
        """Per query row, the fleet's variants of its op that its device fields allow
        (selector/availability.py: a hard constraint, never a prediction)."""
        check_is_fitted(self, "variants_")
        return candidate_lists(queries, self.variants_)

    def choose_many(self, queries: pd.DataFrame, candidates: list[tuple[str, ...]] | None = None) -> list[str]:
        """The predicted-fastest variant per query row (device columns, op, dtype, shape, n_elements)."""
        if candidates is None:
            candidates = self.candidates_for(queries)
        rows, idx = expand(queries.reset_index(drop=True), candidates)
        if not len(rows):
            return [""] * len(queries)
        return argmin_per_query(self.predict(rows), idx, rows["variant"].tolist(), len(queries))

    def choose(self, device: dict[str, object], op: str, dtype: str, shape: tuple[int, ...],
               candidates: tuple[str, ...] | None = None) -> str:
        q = pd.DataFrame([{**device, "op": op, "dtype": dtype, "shape": list(shape),
                           "n_elements": int(np.prod(shape)) if shape else 1}])
        return self.choose_many(q, None if candidates is None else [candidates])[0]


def candidate_lists(queries: pd.DataFrame, fleet: dict[str, tuple[str, ...]],
                    seen: dict[tuple[str, str], Seen] | None = None) -> list[tuple[str, ...]]:
    """availability.candidates per query row, computed once per distinct (device fields, op)."""
    cols = [c for c in ("device_class", "os", "arch", "isa_level", "gpu", "runtime") if c in queries]
    memo: dict[tuple[object, ...], tuple[str, ...]] = {}
    out = []
    for raw in queries[cols + ["op"]].itertuples(index=False, name=None):
        rec = tuple(None if x is None or x != x else x for x in raw)  # NaN != NaN: one key for "missing"
        if rec not in memo:
            dev = dict(zip(cols, rec[:-1]))
            key = (str(dev.get("device_class")), rec[-1])
            memo[rec] = candidates(dev, rec[-1], fleet.get(rec[-1], ()), (seen or {}).get(key))
        out.append(memo[rec])
    return out


def fit_variants(X: pd.DataFrame) -> dict[str, tuple[str, ...]]:
    """Every variant seen per operator (sorted: deterministic)."""
    return {op: tuple(sorted(g.unique())) for op, g in X.groupby("op")["variant"]}


def ipw(X: pd.DataFrame, max_weight: float = MAX_WEIGHT) -> np.ndarray:
    prop = X["propensity"].to_numpy(np.float64) if "propensity" in X else np.ones(len(X))
    explore = X["explore"].to_numpy(bool) if "explore" in X else np.zeros(len(X), bool)
    return np.where(explore, np.clip(1.0 / np.clip(prop, 1e-6, None), 1.0, max_weight), 1.0)


def cost_weight(X: pd.DataFrame, power: float) -> np.ndarray:
    """Rows of costly calls count more: the selector is judged on total latency, so an error
    on a 10 ms call matters more than one on a 1 us call (power 0: plain log-error fit)."""
    lat = X["latency_ns"].to_numpy(np.float64).clip(1)
    return (lat / np.median(lat)) ** power


def smooth(xq: np.ndarray, px: np.ndarray, r: np.ndarray, bandwidth: float, prior: float,
           level: np.ndarray | float = 0.0) -> np.ndarray:
    """Gaussian-kernel mean of residuals r (at px) around each xq, shrunk toward `level` by a
    prior weight: few or far measurements leave the level almost unchanged."""
    w = np.exp(-0.5 * ((xq[:, None] - px[None, :]) / bandwidth) ** 2)
    lv = np.broadcast_to(np.asarray(level, np.float64), xq.shape)
    num, den = (w * (r[None, :] - lv[:, None])).sum(axis=1), w.sum(axis=1) + prior
    return lv + np.divide(num, den, out=np.zeros_like(num), where=den > 0)


def aggregate(X: pd.DataFrame, y: np.ndarray, w: np.ndarray) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """One row per (device class, op, dtype, shape (and third_dim), variant): its first call, the median of y
    and the sum of w over its calls (w may be 2-D: one column per weighting, summed alike)."""
    shape = shape_key(X["shape"]).to_numpy()
    third = third_dims(X)
    if third.any():  # calls at one recorded shape with different third dimensions are different work
        shape = np.char.add(np.char.add(shape.astype(str), "/"), third.astype(np.int64).astype(str))
    w2 = np.asarray(w, np.float64).reshape(len(X), -1)
    wcols = [f"w{i}" for i in range(w2.shape[1])]
    df = pd.DataFrame({"dc": X["device_class"].to_numpy(), "op": X["op"].to_numpy(), "dtype": X["dtype"].to_numpy(),
                       "shape": shape, "variant": X["variant"].to_numpy(), "y": y, "pos": np.arange(len(X)),
                       **dict(zip(wcols, w2.T))})
    g = df.groupby(["dc", "op", "dtype", "shape", "variant"], sort=True)
    sums = g[wcols].sum().to_numpy()
    return (X.iloc[g["pos"].first().to_numpy()].reset_index(drop=True), g["y"].median().to_numpy(),
            sums[:, 0] if np.ndim(w) == 1 else sums)


def sweep_groups(rows: pd.DataFrame) -> pd.DataFrame:
    """One representative explore row per (device class, op, dtype, shape, variant) with the
    median log latency of its explore rows in column `y`."""
    r = rows[rows["explore"].to_numpy(bool)] if "explore" in rows else rows.iloc[:0]
    if r.empty:
        return r.assign(y=np.zeros(0))
    first, y, _ = aggregate(r, target(r), np.ones(len(r)))
    return first.assign(y=y)


class VariantSelector(Chooser, BaseEstimator):
    def __init__(self, max_iter: int = 400, learning_rate: float = 0.05, max_leaf_nodes: int = 31,
                 min_samples_leaf: int = 40, l2_regularization: float = 0.0, cost_power: float = 0.25,
                 cal_bandwidth: float = 1.5, cal_prior: float = 0.5, cal_wide_bandwidth: float = 4.0,
                 cal_wide_prior: float = 1.0, max_shrink: float = 100.0, max_weight: float = MAX_WEIGHT,
                 blend: float = BLEND,
                 random_state: int = 0) -> None:
        self.max_iter = max_iter
        self.learning_rate = learning_rate
        self.max_leaf_nodes = max_leaf_nodes
        self.min_samples_leaf = min_samples_leaf
        self.l2_regularization = l2_regularization
        self.cost_power = cost_power
        self.cal_bandwidth = cal_bandwidth  # log2 FLOPs
        self.cal_prior = cal_prior  # in measurements at distance 0
        self.cal_wide_bandwidth = cal_wide_bandwidth
        self.cal_wide_prior = cal_wide_prior
        self.max_shrink = max_shrink  # cap on the per-operator prior multiplier (empirical Bayes)
        self.max_weight = max_weight  # clip on 1/propensity of the fleet model's explore rows
        self.blend = blend  # share of the unweighted companion in a prediction without calibration
        self.random_state = random_state

    def __setstate__(self, state: dict[str, object]) -> None:
        # models stored before a parameter existed lack it (get_params would fail): give them the
        # value they were fitted with, not today's default
        super().__setstate__({**LEGACY, **state})

    def _encode(self, f: pd.DataFrame) -> np.ndarray:
        f = f.copy()
        for c in (c for c in CATEGORICAL if c in self.vocab_):  # unseen categories -> NaN: the missing branch
            f[c] = f[c].map(self.vocab_[c]).astype(np.float64)
        return f[self.columns_].to_numpy(np.float64)

    def fit(self, X: pd.DataFrame, y: np.ndarray | None = None) -> "VariantSelector":
        y = target(X) if y is None else np.asarray(y, np.float64)
        rows, y, ws = aggregate(X, y, np.stack([ipw(X, self.max_weight) * cost_weight(X, self.cost_power),
                                                np.ones(len(X))], axis=1))
        w, calls = ws[:, 0], ws[:, 1]
        f = features(rows)
        self.vocab_ = {c: {v: i for i, v in enumerate(sorted(f[c].unique()))} for c in CATEGORICAL}
        # a feature no training row has (GHz on CPUs whose model name omits it) carries nothing,
        # and HGB's binning fails on an all-missing column
        self.columns_ = [c for c in f.columns if c in CATEGORICAL or f[c].notna().any()]
        self.variants_ = fit_variants(X)
        E, lf = self._encode(f), log_flops(f)
        with threadpool_limits(limits=1, user_api="openmp"):
            self.model_ = self._hgb().fit(E, y - lf, sample_weight=w)
            if self.blend > 0:
                self.unweighted_ = self._hgb().fit(E, y - lf, sample_weight=calls)
            resid = y - lf - self.model_.predict(E)
        self.format_ = FORMAT
        self.shrink_: dict[str, float] = self._shrinkage(rows, resid)
        self.calibration_: dict[str, np.ndarray] = self._calibration(X)
        return self

    def _hgb(self, **kw: object) -> HistGradientBoostingRegressor:
        args: dict[str, object] = dict(
            max_iter=self.max_iter, learning_rate=self.learning_rate, max_leaf_nodes=self.max_leaf_nodes,
            min_samples_leaf=self.min_samples_leaf, l2_regularization=self.l2_regularization,
            categorical_features=[c in CATEGORICAL for c in self.columns_], early_stopping=False,
            random_state=self.random_state)
        return HistGradientBoostingRegressor(**{**args, **kw})

    def _shrinkage(self, rows: pd.DataFrame, r: np.ndarray) -> dict[str, float]:
        """Per operator, how many measurements a device's own offset is worth less than the fleet
        model (empirical Bayes, selector/shrinkage.py): within-key noise over the spread of the keys'
        offsets, from the weighted fleet model's residuals r on every aggregated training row (not
        only the explore rows: the production rows are the same kind of measurement, and with 10x
        the rows the factor follows an operator's noise instead of a draw's luck)."""
        key = rows[list(CAL_KEY)].astype(str).agg(SEP.join, axis=1).to_numpy()
        ops = rows["op"].astype(str).to_numpy()
        out: dict[str, float] = {}
        for op in sorted(set(ops)):
            m = ops == op
            rho = shrink_factor(key[m], r[m], self.max_shrink, self.random_state)
            if rho is not None:
                out[op] = rho
        return out

    def _fleet(self, f: pd.DataFrame, blended: bool = True) -> np.ndarray:
        """The fleet model's ln latency (a geometric mean); blended: with the unweighted companion's
        share, what a device without a sweep gets (the calibration's residuals are taken against
        the weighted model alone)."""
        E = self._encode(f)
        with threadpool_limits(limits=1, user_api="openmp"):
            pred = self.model_.predict(E)
            other = getattr(self, "unweighted_", None)
            if blended and other is not None and self.blend > 0:
                pred = (1 - self.blend) * pred + self.blend * other.predict(E)
        return pred + log_flops(f)

    def _calibration(self, rows: pd.DataFrame) -> dict[str, np.ndarray]:
        """Per calibration key, the fleet model's residuals on the rows' sweep: [log2 flops; r]."""
        g = sweep_groups(rows)
        if g.empty:
            return {}
        f = features(g)
        x, r = f["log2_flops"].to_numpy(np.float64), g["y"].to_numpy(np.float64) - self._fleet(f, blended=False)
        out: dict[str, np.ndarray] = {}
        for key, ix in g.groupby(list(CAL_KEY), sort=True).indices.items():
            out[SEP.join(map(str, key))] = np.stack([x[ix], r[ix]])
        return out

    def calibrated(self, rows: pd.DataFrame) -> "VariantSelector":
        """A copy whose calibration also holds the devices of `rows` (their explore rows only)."""
        check_is_fitted(self, "model_")
        new = copy.copy(self)
        new.calibration_ = dict(self.calibration_)
        for k, v in self._calibration(rows).items():
            new.calibration_[k] = np.concatenate([new.calibration_[k], v], axis=1) if k in new.calibration_ else v
        return new

    def _delta(self, X: pd.DataFrame, f: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        """The calibration per row, and which rows have one (a sweep of their key)."""
        out, has = np.zeros(len(X)), np.zeros(len(X), bool)
        if not self.calibration_ or "device_class" not in X:
            return out, has  # a device without a sweep: the fleet model alone
        x = f["log2_flops"].to_numpy(np.float64)
        keys = X[list(CAL_KEY)].astype(str).reset_index(drop=True)
        for key, ix in keys.groupby(list(CAL_KEY), sort=False).indices.items():
            p = self.calibration_.get(SEP.join(key))
            if p is not None:
                rho = getattr(self, "shrink_", {}).get(key[1], 1.0)  # noisy operators need more measurements
                wide = smooth(x[ix], p[0], p[1], self.cal_wide_bandwidth, self.cal_wide_prior * rho)
                out[ix] = smooth(x[ix], p[0], p[1], self.cal_bandwidth, self.cal_prior * rho, level=wide)
                has[ix] = True
        return out, has

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        check_is_fitted(self, "model_")
        f = features(X)
        delta, has = self._delta(X, f)
        fleet = self._fleet(f, blended=False)
        if not has.all() and getattr(self, "unweighted_", None) is not None and self.blend > 0:
            fleet[~has] = self._fleet(f.iloc[np.flatnonzero(~has)].reset_index(drop=True))
        return fleet + delta

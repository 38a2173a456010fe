"""Baselines with VariantSelector's choosing interface (selector/model.py's Chooser):

- SBS: the single best variant per operator over all training devices and shapes (lowest
  total median latency relative to the oracle over the groups where it was measured).
- Lookup: per (device class, operator, size bucket = floor(log2 n_elements)) the variant with
  the fastest median seen; nearest seen bucket of the class otherwise; SBS for unseen classes.
- KNN: per (operator, variant), the mean log latency of the k nearest training rows in the
  standardised numeric feature space.
- PlainGBR: one HistGradientBoostingRegressor of ln(latency) on every training call.

`calibrated(rows)` (a new device's sweep): Lookup adds the rows to its table, KNN to its
neighbours; SBS ignores them (it has no per-device state).
"""
from __future__ import annotations

import copy

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.neighbors import KNeighborsRegressor
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import threadpool_limits

from everypath.selector.evaluate import groups
from everypath.selector.features import CATEGORICAL, features, target
from everypath.selector.model import Chooser, fit_variants


class SBS(Chooser, BaseEstimator):
    def fit(self, X: pd.DataFrame, y: object = None) -> "SBS":
        self.variants_ = fit_variants(X)
        g = groups(X)
        # calls at arbitrary sizes rarely share an exact shape with every variant: operators with
        # no complete group are ranked on half-octave size buckets instead
        missing = set(X["op"]) - set(g["op"])
        if missing:
            part = X[X["op"].isin(missing)]
            half = np.round(2 * np.log2(part["n_elements"].clip(lower=1).to_numpy(np.float64))).astype(np.int64)
            g = pd.concat([g, groups(part.assign(shape=[(int(b),) for b in half]))], ignore_index=True)
        self.ranking_: dict[str, tuple[str, ...]] = {}
        for op, gg in g.groupby("op"):
            cost: dict[str, list[float]] = {}
            for med, calls in zip(gg["medians"], gg["calls"]):
                o = min(med.values())
                for v, lat in med.items():
                    c = cost.setdefault(v, [0.0, 0.0])
                    c[0], c[1] = c[0] + calls * lat, c[1] + calls * o
            self.ranking_[op] = tuple(sorted(cost, key=lambda v: (cost[v][0] / cost[v][1], v)))
        return self

    def pick(self, op: str, candidates: tuple[str, ...]) -> str:
        check_is_fitted(self, "ranking_")
        for v in self.ranking_.get(op, ()):
            if v in candidates:
                return v
        return sorted(candidates)[0] if candidates else ""

    def choose_many(self, queries: pd.DataFrame, candidates: list[tuple[str, ...]] | None = None) -> list[str]:
        if candidates is None:
            candidates = self.candidates_for(queries)
        return [self.pick(op, c) for op, c in zip(queries["op"], candidates)]


class Lookup(Chooser, BaseEstimator):
    def __init__(self, sbs: SBS | None = None) -> None:
        self.sbs = sbs

    def fit(self, X: pd.DataFrame, y: object = None) -> "Lookup":
        self.variants_ = fit_variants(X)
        self.sbs_ = self.sbs if self.sbs is not None else SBS().fit(X)
        self.table_ = self._table(X)
        return self

    @staticmethod
    def _table(X: pd.DataFrame) -> dict[tuple[str, str], dict[int, dict[str, float]]]:
        b = np.floor(np.log2(X["n_elements"].clip(lower=1).to_numpy(np.float64))).astype(int)
        med = X.assign(bucket=b).groupby(["device_class", "op", "bucket", "variant"])["latency_ns"].median()
        table: dict[tuple[str, str], dict[int, dict[str, float]]] = {}
        for (dc, op, bucket, v), lat in med.items():
            table.setdefault((dc, op), {}).setdefault(int(bucket), {})[v] = float(lat)
        return table

    def calibrated(self, rows: pd.DataFrame) -> "Lookup":
        """A copy whose table also holds the sweep (explore rows) of `rows`' devices."""
        check_is_fitted(self, "table_")
        new = copy.copy(self)
        sweep = rows[rows["explore"].to_numpy(bool)]
        new.table_ = {**self.table_, **(self._table(sweep) if len(sweep) else {})}
        return new

    def choose_many(self, queries: pd.DataFrame, candidates: list[tuple[str, ...]] | None = None) -> list[str]:
        check_is_fitted(self, "table_")
        if candidates is None:
            candidates = self.candidates_for(queries)
        out = []
        for dc, op, n, cand in zip(queries["device_class"], queries["op"], queries["n_elements"], candidates):
            buckets = self.table_.get((dc, op))
            pick = None
            if buckets:
                b = int(np.floor(np.log2(max(1, n))))
                for nb in sorted(buckets, key=lambda x: (abs(x - b), x)):
                    seen = {v: lat for v, lat in buckets[nb].items() if v in cand}
                    if seen:
                        pick = min(seen, key=lambda v: (seen[v], v))
                        break
            out.append(pick if pick is not None else self.sbs_.pick(op, cand))
        return out


NUMERIC = ("log2_cores", "log2_simd_bytes", "ghz", "l2_kib", "l3_kib", "gpu", "itemsize", "log2_n", "log2_d0", "log2_d1")


class KNN(Chooser, BaseEstimator):
    def __init__(self, k: int = 5, max_rows_per_model: int = 20000) -> None:
        self.k = k
        self.max_rows_per_model = max_rows_per_model

    def _matrix(self, f: pd.DataFrame) -> np.ndarray:
        m = f[list(NUMERIC)].to_numpy(np.float64)
        m = np.where(np.isnan(m), self.mean_, m)
        return (m - self.mean_) / self.scale_

    def fit(self, X: pd.DataFrame, y: object = None) -> "KNN":
        self.variants_ = fit_variants(X)
        f = features(X)
        t = target(X)
        m = f[list(NUMERIC)].to_numpy(np.float64)
        seen = (~np.isnan(m)).sum(axis=0)  # a feature no row has (GHz absent from cpu_model): mean 0, scale 1
        self.mean_ = np.where(seen > 0, np.nansum(m, axis=0) / np.maximum(seen, 1), 0.0)
        std = np.sqrt(np.nansum((m - self.mean_) ** 2, axis=0) / np.maximum(seen, 1))
        self.scale_ = np.where(std > 0, std, 1.0)
        mat = self._matrix(f)
        rng = np.random.default_rng(0)
        self.data_: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = {}
        for (op, v), ix in f.groupby(["op", "variant"]).indices.items():
            if len(ix) > self.max_rows_per_model:  # bound the search cost; rows are near-duplicates anyway
                ix = np.sort(rng.choice(ix, self.max_rows_per_model, replace=False))
            self.data_[(op, v)] = (mat[ix], t[ix])
        self.models_ = self._models(self.data_)
        return self

    def _models(self, data: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]]) -> dict[tuple[str, str], KNeighborsRegressor]:
        return {key: KNeighborsRegressor(n_neighbors=min(self.k, len(t))).fit(m, t) for key, (m, t) in data.items()}

    def calibrated(self, rows: pd.DataFrame) -> "KNN":
        """A copy whose neighbours also include the sweep (explore rows) of `rows`' devices."""
        check_is_fitted(self, "models_")
        new = copy.copy(self)
        sweep = rows[rows["explore"].to_numpy(bool)]
        if not len(sweep):
            return new
        f, t = features(sweep), target(sweep)
        mat = self._matrix(f)
        added: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = {}
        for (op, v), ix in f.groupby(["op", "variant"]).indices.items():
            m0, t0 = self.data_.get((op, v), (np.zeros((0, mat.shape[1])), np.zeros(0)))
            added[(op, v)] = (np.concatenate([m0, mat[ix]]), np.concatenate([t0, t[ix]]))
        new.data_ = {**self.data_, **added}
        new.models_ = {**self.models_, **self._models(added)}
        return new

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        check_is_fitted(self, "models_")
        f = features(X)
        mat = self._matrix(f)
        out = np.full(len(X), np.inf)
        for (op, v), ix in f.groupby(["op", "variant"]).indices.items():
            model = self.models_.get((op, v))
            if model is not None:
                out[ix] = model.predict(mat[ix])
        return out


class PlainGBR(Chooser, BaseEstimator):
    """The plain baseline the issue measured: one gradient-boosted regressor of ln(latency) on
    every call (features.features, no weighting, no aggregation, no device calibration)."""

    def __init__(self, max_iter: int = 200, learning_rate: float = 0.1, random_state: int = 0) -> None:
        self.max_iter = max_iter
        self.learning_rate = learning_rate
        self.random_state = random_state

    def _encode(self, f: pd.DataFrame) -> np.ndarray:
        f = f.copy()
        for c in CATEGORICAL:
            f[c] = f[c].map(self.vocab_[c]).astype(np.float64)
        return f[self.columns_].to_numpy(np.float64)

    def fit(self, X: pd.DataFrame, y: object = None) -> "PlainGBR":
        self.variants_ = fit_variants(X)
        f = features(X)
        self.vocab_ = {c: {v: i for i, v in enumerate(sorted(f[c].unique()))} for c in CATEGORICAL}
        self.columns_ = [c for c in f.columns if c in CATEGORICAL or f[c].notna().any()]
        self.model_ = HistGradientBoostingRegressor(
            max_iter=self.max_iter, learning_rate=self.learning_rate, early_stopping=False,
            categorical_features=[c in CATEGORICAL for c in self.columns_], random_state=self.random_state)
        with threadpool_limits(limits=1, user_api="openmp"):
            self.model_.fit(self._encode(f), target(X))
        return self

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        check_is_fitted(self, "model_")
        with threadpool_limits(limits=1, user_api="openmp"):
            return self.model_.predict(self._encode(features(X)))

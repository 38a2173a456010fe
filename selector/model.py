"""VariantSelector: predicts log latency of (device, call, variant) rows with a histogram
gradient-boosted regressor and chooses, per call, the candidate variant predicted fastest.

Conventions: scikit-learn's (fit/predict, fitted attributes end in "_", `check_is_fitted`).
X is a frame of telemetry rows (calls schema columns); y defaults to log(latency_ns).
Rows chosen by exploration are weighted by 1/propensity (inverse propensity), so variants
the policy rarely tries count as much as they would under uniform choice.
HGB runs on one OpenMP thread: 3-4x faster than two on the shared 2-core machines (measured).
Never call predict in the hot path: the grid is scored at retrain time (selector/table.py).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import threadpool_limits

from selector.features import CATEGORICAL, features, target

MAX_WEIGHT = 50.0  # clip 1/propensity: one unlucky explore row must not dominate a leaf


def expand(queries: pd.DataFrame, candidates: list[tuple[str, ...]]) -> tuple[pd.DataFrame, np.ndarray]:
    """One row per (query, candidate variant); returns the rows and each row's query index."""
    counts = np.array([len(c) for c in candidates])
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

    def candidates_for(self, op: str, has_gpu: bool) -> tuple[str, ...]:
        check_is_fitted(self, "variants_")
        return tuple(v for v in self.variants_.get(op, ()) if v != "cuda" or has_gpu)

    def choose_many(self, queries: pd.DataFrame, candidates: list[tuple[str, ...]] | None = None) -> list[str]:
        """The predicted-fastest variant per query row (device columns, op, dtype, shape, n_elements)."""
        if candidates is None:
            candidates = [self.candidates_for(op, gpu is not None and gpu == gpu)
                          for op, gpu in zip(queries["op"], queries["gpu"])]
        rows, idx = expand(queries.reset_index(drop=True), candidates)
        if not len(rows):
            return [""] * len(queries)
        return argmin_per_query(self.predict(rows), idx, rows["variant"].tolist(), len(queries))

    def choose(self, device: dict[str, object], op: str, dtype: str, shape: tuple[int, ...],
               candidates: tuple[str, ...] | None = None) -> str:
        q = pd.DataFrame([{**device, "op": op, "dtype": dtype, "shape": list(shape),
                           "n_elements": int(np.prod(shape)) if shape else 1}])
        return self.choose_many(q, None if candidates is None else [candidates])[0]


def fit_variants(X: pd.DataFrame) -> dict[str, tuple[str, ...]]:
    """Every variant seen per operator (sorted: deterministic)."""
    return {op: tuple(sorted(g.unique())) for op, g in X.groupby("op")["variant"]}


def ipw(X: pd.DataFrame) -> np.ndarray:
    prop = X["propensity"].to_numpy(np.float64) if "propensity" in X else np.ones(len(X))
    explore = X["explore"].to_numpy(bool) if "explore" in X else np.zeros(len(X), bool)
    return np.where(explore, np.clip(1.0 / np.clip(prop, 1e-6, None), 1.0, MAX_WEIGHT), 1.0)


def cost_weight(X: pd.DataFrame, power: float) -> np.ndarray:
    """Rows of costly calls count more: the selector is judged on total latency, so an error
    on a 10 ms call matters more than one on a 1 us call (power 0: plain log-error fit)."""
    lat = X["latency_ns"].to_numpy(np.float64).clip(1)
    return (lat / np.median(lat)) ** power


class VariantSelector(Chooser, BaseEstimator):
    def __init__(self, max_iter: int = 400, learning_rate: float = 0.05, max_leaf_nodes: int = 63,
                 min_samples_leaf: int = 20, l2_regularization: float = 0.0, cost_power: float = 0.25,
                 random_state: int = 0) -> None:
        self.max_iter = max_iter
        self.learning_rate = learning_rate
        self.max_leaf_nodes = max_leaf_nodes
        self.min_samples_leaf = min_samples_leaf
        self.l2_regularization = l2_regularization
        self.cost_power = cost_power
        self.random_state = random_state

    def _encode(self, X: pd.DataFrame) -> np.ndarray:
        f = features(X)
        for c in CATEGORICAL:  # unseen categories -> NaN: HGB sends them down the missing branch
            f[c] = f[c].map(self.vocab_[c]).astype(np.float64)
        return f[self.columns_].to_numpy(np.float64)

    def fit(self, X: pd.DataFrame, y: np.ndarray | None = None) -> "VariantSelector":
        f = features(X)
        self.vocab_ = {c: {v: i for i, v in enumerate(sorted(f[c].unique()))} for c in CATEGORICAL}
        self.columns_ = list(f.columns)
        self.variants_ = fit_variants(X)
        y = target(X) if y is None else np.asarray(y, np.float64)
        self.model_ = HistGradientBoostingRegressor(
            max_iter=self.max_iter, learning_rate=self.learning_rate, max_leaf_nodes=self.max_leaf_nodes,
            min_samples_leaf=self.min_samples_leaf, l2_regularization=self.l2_regularization,
            categorical_features=[c in CATEGORICAL for c in self.columns_], early_stopping=False,
            random_state=self.random_state)
        with threadpool_limits(limits=1, user_api="openmp"):
            self.model_.fit(self._encode(X), y, sample_weight=ipw(X) * cost_weight(X, self.cost_power))
        return self

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        check_is_fitted(self, "model_")
        with threadpool_limits(limits=1, user_api="openmp"):
            return self.model_.predict(self._encode(X))

"""The selector's model registry as the dashboard shows it (read-only; selector/registry.py
writes it): REGISTRY/index.json lists the versions and the current (promoted) one, each
models/<v>/metrics.json holds the holdout metrics of the model and, under "baselines", of
SBS, lookup and KNN. Problems (unreadable files) are collected as messages, never raised.
"""
from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

METRICS = ("top1_score", "closed_gap", "regret_mean", "regret_p95")
SELECTOR = "selector"  # the chooser name of the model itself in the long metrics frame
VERSION_COLUMNS = ["version", "data_until", "current", *METRICS, "holdout_groups", "train_rows"]


@dataclass(frozen=True)
class RegistryView:
    root: Path
    current: str | None
    versions: pd.DataFrame  # one row per version (VERSION_COLUMNS), oldest first
    metrics: pd.DataFrame  # long: version, data_until, chooser, metric, value
    problems: tuple[str, ...] = field(default=())

    @property
    def empty(self) -> bool:
        return self.versions.empty


def data_until(version: str) -> dt.datetime | None:
    """The newest call's UTC time the retrain job put at the front of the version name."""
    try:
        return dt.datetime.strptime(version[:20], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.timezone.utc)
    except ValueError:
        return None


def _json(path: Path) -> tuple[object | None, str | None]:
    try:
        return json.loads(path.read_text()), None
    except FileNotFoundError:
        return None, f"{path}: missing"
    except OSError as exc:
        return None, f"{path}: cannot read ({exc.strerror or exc})"
    except ValueError as exc:
        return None, f"{path}: not JSON ({exc})"


def _number(v: object) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _age_key(version: str) -> tuple[bool, dt.datetime, str]:
    when = data_until(version)
    return when is None, when or dt.datetime.min.replace(tzinfo=dt.timezone.utc), version


def read_registry(root: Path) -> RegistryView:
    """Every version in root's index with its metrics (missing numbers are None)."""
    empty = RegistryView(root, None, pd.DataFrame(columns=VERSION_COLUMNS),
                         pd.DataFrame(columns=["version", "data_until", "chooser", "metric", "value"]))
    index_path = root / "index.json"
    if not index_path.exists():
        return empty
    idx, problem = _json(index_path)
    if problem is not None or not isinstance(idx, dict) or not isinstance(idx.get("models", {}), dict):
        return RegistryView(root, None, empty.versions, empty.metrics,
                            (problem or f"{index_path}: expected an object with a 'models' mapping",))
    current = idx.get("current") if isinstance(idx.get("current"), str) else None
    problems: list[str] = []
    wide: list[dict[str, object]] = []
    long: list[dict[str, object]] = []
    for version, entry in idx.get("models", {}).items():
        sub = entry.get("dir") if isinstance(entry, dict) else None
        mdir = root / sub if isinstance(sub, str) else root / "models" / version.replace(":", "")
        doc, problem = _json(mdir / "metrics.json")
        if problem is not None or not isinstance(doc, dict):
            problems.append(problem or f"{mdir / 'metrics.json'}: expected a JSON object")
            doc = {}
        when = data_until(version)
        wide.append({"version": version, "data_until": when, "current": version == current,
                     **{m: _number(doc.get(m)) for m in METRICS},
                     "holdout_groups": _number(doc.get("holdout_groups")), "train_rows": _number(doc.get("train_rows"))})
        choosers: dict[str, object] = {SELECTOR: doc}
        baselines = doc.get("baselines")
        if isinstance(baselines, dict):
            choosers.update(baselines)
        for name, ms in choosers.items():
            if not isinstance(ms, dict):
                continue
            long += [{"version": version, "data_until": when, "chooser": name, "metric": m, "value": _number(ms.get(m))}
                     for m in METRICS if _number(ms.get(m)) is not None]
    if current is not None and current not in idx.get("models", {}):
        problems.append(f"{index_path}: current version {current!r} is not among the models")
    # oldest data first; versions without a timestamp prefix last, by name
    order = {v: i for i, v in enumerate(sorted((w["version"] for w in wide), key=_age_key))}
    versions = pd.DataFrame(sorted(wide, key=lambda w: order[w["version"]]), columns=VERSION_COLUMNS)
    metrics = pd.DataFrame(sorted(long, key=lambda r: (order[r["version"]], r["chooser"], r["metric"])),
                           columns=empty.metrics.columns)
    return RegistryView(root, current, versions, metrics, tuple(problems))


def current_table_path(root: Path) -> Path:
    """The promoted model's selection table (what the shim loads)."""
    return root / "current" / "selection_table.json"

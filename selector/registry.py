"""The model registry: versioned selector models (skops), their metrics and tables.

Layout (REGISTRY = Settings.registry, EVERYPATH_REGISTRY, or --registry)::

    REGISTRY/index.json                         {"current": version | null, "models": {version: {...}}}
    REGISTRY/models/<version>/model.skops       the fitted VariantSelector (skops, never pickle)
    REGISTRY/models/<version>/metrics.json      holdout metrics of it and of the baselines
    REGISTRY/models/<version>/selection_table.json
    REGISTRY/current/selection_table.json       the promoted model's table (what the shim loads)
    REGISTRY/current/metrics.json

index.json records each model file's sha256; `load_model` refuses a file whose hash differs,
and skops loads only the reviewed TRUSTED types (a hostile file can still crash predict:
the hash is the defence against a swapped file).
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

# Reviewed: the estimator classes this package stores and the scikit-learn internals they hold.
TRUSTED: tuple[str, ...] = (
    "everypath.selector.model.VariantSelector",  # ours: plain attributes (vocabularies, column names, the HGB)
    "sklearn.ensemble._hist_gradient_boosting.predictor.TreePredictor",  # HGB's trees (numpy node arrays)
    # HGB keeps functools.partial(check_array, ...) as its input validator: a function reference, no code
    "functools.partial",
    "sklearn.utils.validation.check_array",
)


class RegistryError(RuntimeError):
    """A registry entry that cannot be used (missing, hash mismatch, untrusted types)."""


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class Registry:
    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        self.index_path = self.root / "index.json"

    def index(self) -> dict[str, object]:
        if not self.index_path.exists():
            return {"current": None, "models": {}}
        return json.loads(self.index_path.read_text())

    def _write_index(self, idx: dict[str, object]) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = self.index_path.with_name(f".index.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(idx, indent=1, sort_keys=True))
        tmp.replace(self.index_path)  # atomic: readers see the old or the new index

    def current(self) -> str | None:
        return self.index().get("current")  # type: ignore[return-value]

    def model_dir(self, version: str) -> Path:
        return self.root / "models" / version.replace(":", "")

    def has(self, version: str) -> bool:
        return version in self.index()["models"]  # type: ignore[operator]

    def store(self, version: str, model: object, metrics: dict[str, object], table: dict[str, object]) -> Path:
        """Save a model with its metrics and table; records its hash. Idempotent per version."""
        import skops.io as sio

        if self.has(version):
            return self.model_dir(version)
        d = self.model_dir(version)
        d.mkdir(parents=True, exist_ok=True)
        sio.dump(model, d / "model.skops")
        (d / "metrics.json").write_text(json.dumps(metrics, indent=1, sort_keys=True))
        (d / "selection_table.json").write_text(json.dumps(table, indent=1, sort_keys=True))
        idx = self.index()
        idx["models"][version] = {"dir": str(d.relative_to(self.root)), "sha256": sha256_file(d / "model.skops"),  # type: ignore[index]
                                  "top1_score": metrics["top1_score"]}
        self._write_index(idx)
        return d

    def load_model(self, version: str) -> object:
        """The stored model, after checking its sha256 and that skops needs only TRUSTED types."""
        import skops.io as sio

        entry = self.index()["models"].get(version)  # type: ignore[union-attr]
        if entry is None:
            raise RegistryError(f"{self.root}: no model version {version!r}")
        path = self.root / entry["dir"] / "model.skops"
        if not path.exists():
            raise RegistryError(f"{path}: model file missing")
        if sha256_file(path) != entry["sha256"]:
            raise RegistryError(f"{path}: sha256 does not match index.json (tampered or corrupt); refusing to load")
        untrusted = set(sio.get_untrusted_types(file=path)) - set(TRUSTED)
        if untrusted:
            raise RegistryError(f"{path}: untrusted types {sorted(untrusted)}; refusing to load")
        return sio.load(path, trusted=list(TRUSTED))

    def promote(self, version: str) -> None:
        d = self.model_dir(version)
        cur = self.root / "current"
        cur.mkdir(parents=True, exist_ok=True)
        for name in ("selection_table.json", "metrics.json"):
            tmp = cur / f".{name}.tmp"
            tmp.write_bytes((d / name).read_bytes())
            tmp.replace(cur / name)
        idx = self.index()
        idx["current"] = version
        self._write_index(idx)

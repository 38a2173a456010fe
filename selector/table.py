"""Export: score the grid at retrain time and write a selection table (telemetry/table.py's
format) so the runtime never calls the model.

Grid: every device class in the training rows x every operator x n_elements buckets
[2^b, 2^(b+1)) for b in 0..MAX_LOG2 - 1, each scored at its geometric middle with the
operator's usual shape (square for 2-D operators) and weighted over the dtypes the class
called it with (by call count). Adjacent buckets with the same winner merge. "*" holds SBS's
choice per operator (no GPU assumed). Format-compatible extension: each entry may carry
"topk", per variant slot the k best variants in predicted order, for exploration; loaders
that do not know the key ignore it.
"""
from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

from everypath.selector.baselines import SBS
from everypath.selector.evaluate import DEVICE_KEYS
from everypath.selector.model import Chooser, expand

MAX_LOG2 = 26
TOP_K = 2
SQUARE_OPS = ("numpy.matmul", "numpy.linalg.svd", "cv2.GaussianBlur")


def _shape(op: str, n: float) -> list[int]:
    if op in SQUARE_OPS:
        side = max(1, int(round(math.sqrt(n))))
        return [side, side]
    return [max(1, int(round(n)))]


def grid(rows: pd.DataFrame, chooser: Chooser) -> pd.DataFrame:
    """Query rows of the grid with each candidate variant (column variant) and its dtype weight."""
    dev = rows.groupby("device_class", sort=True)[[k for k in DEVICE_KEYS if k != "device_class"]].first().reset_index()
    mix = rows.groupby(["device_class", "op", "dtype"], sort=True).size().rename("calls").reset_index()
    out = []
    for _, m in mix.iterrows():
        for b in range(MAX_LOG2):
            n = 2 ** (b + 0.5)
            out.append({"device_class": m["device_class"], "op": m["op"], "dtype": m["dtype"], "bucket": b,
                        "shape": _shape(m["op"], n), "calls": int(m["calls"])})
    q = pd.DataFrame(out).merge(dev, on="device_class")
    q["n_elements"] = [int(np.prod(s)) for s in q["shape"]]
    return q


def winners(rows: pd.DataFrame, chooser: Chooser) -> dict[tuple[str, str], list[list[str]]]:
    """(device class, op) -> per bucket, variants in predicted order (call-weighted over dtypes)."""
    q = grid(rows, chooser)
    cands = [chooser.candidates_for(op, gpu is not None and gpu == gpu) for op, gpu in zip(q["op"], q["gpu"])]
    x, idx = expand(q, cands)
    # weight each dtype's predicted latency by its share of the class's calls to the operator
    x["pred"] = np.exp(chooser.predict(x)) * q["calls"].to_numpy()[idx]
    total = x.groupby(["device_class", "op", "bucket", "variant"], sort=True)["pred"].sum()
    out: dict[tuple[str, str], list[list[str]]] = {}
    for (dc, op, _bucket), s in total.groupby(level=[0, 1, 2], sort=True):
        ranked = [v for (_, _, _, v), _ in sorted(s.items(), key=lambda kv: (kv[1], kv[0][3]))]
        out.setdefault((dc, op), []).append(ranked)
    return out


def entries(per_bucket: list[list[str]]) -> dict[str, object]:
    """Merge adjacent buckets with the same winner into bounds/variants (+ topk)."""
    bounds: list[int] = []
    variants: list[str] = [per_bucket[0][0]]
    topk: list[list[str]] = [per_bucket[0][:TOP_K]]
    for b, ranked in enumerate(per_bucket[1:], start=1):
        if ranked[0] != variants[-1]:
            bounds.append(2 ** b)
            variants.append(ranked[0])
            topk.append(ranked[:TOP_K])
    return {"bounds": bounds, "variants": variants, "topk": topk}


def build(rows: pd.DataFrame, chooser: Chooser, sbs: SBS, model_hash: str, timestamp: str) -> dict[str, object]:
    tables: dict[str, list[dict[str, object]]] = {}
    for (dc, op), per_bucket in sorted(winners(rows, chooser).items()):
        tables.setdefault(dc, []).append({"op": op, **entries(per_bucket)})
    tables["*"] = [{"op": op, "bounds": [], "variants": [sbs.pick(op, tuple(v for v in vs if v != "cuda"))]}
                   for op, vs in sorted(sbs.variants_.items()) if any(v != "cuda" for v in vs)]
    return {"format": 1, "version": f"{timestamp}-{model_hash[:6]}", "tables": tables}


def table_hash(doc: dict[str, object]) -> str:
    return hashlib.sha256(json.dumps(doc["tables"], sort_keys=True).encode()).hexdigest()


def write(doc: dict[str, object], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=1, sort_keys=True))
    tmp.replace(path)
    return path

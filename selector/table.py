"""Export: score the grid at retrain time and write a selection table (base/selection_table.py's
format) so the runtime never calls the model.

Grid: every device class in the training rows x every operator x n_elements buckets
[2^b, 2^(b+1)) for b in 0..MAX_LOG2 - 1, each scored at its geometric middle with the
operator's usual shape (square for 2-D operators) and weighted over the dtypes the class
called it with (by call count); a matrix product's bucket at the quantiles of the third dimension
the lake recorded there (`thirds_of`), since one entry serves them all. Adjacent buckets with
the same winner merge. "*" holds SBS's
choice per operator among the variants with no requirement at all. Every entry's candidates are what the
class can run (selector/availability.py): its fields allow them, and it has run them if the lake
saw it run the operator. Format-compatible extension: each entry may carry
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

from everypath.selector.availability import Seen, ran, requirements
from everypath.selector.baselines import SBS
from everypath.selector.evaluate import DEVICE_KEYS
from everypath.selector.features import family, third_dims
from everypath.selector.model import Chooser, candidate_lists, expand

MAX_LOG2 = 26
TOP_K = 2
THIRD_QUANTILES = tuple((i + 0.5) / 10 for i in range(10))  # a product's bucket is scored at these third dims
THIRD_MIN_ROWS = 20
SQUARE_OPS = ("numpy.matmul", "numpy.linalg.svd", "cv2.GaussianBlur")


def _shape(op: str, n: float) -> list[int]:
    if op in SQUARE_OPS:
        side = max(1, int(round(math.sqrt(n))))
        return [side, side]
    return [max(1, int(round(n)))]


def devices_of(rows: pd.DataFrame) -> pd.DataFrame:
    """One row of device fields per device class (its first row's)."""
    keys = [k for k in DEVICE_KEYS if k in rows and k != "device_class"]
    return rows.groupby("device_class", sort=True)[keys].first().reset_index()


def mix_of(rows: pd.DataFrame) -> pd.DataFrame:
    """Calls per (device class, op, dtype): the dtype weights of a class's entries."""
    return rows.groupby(["device_class", "op", "dtype"], sort=True).size().rename("calls").reset_index()


Thirds = dict[int, tuple[float, ...]]  # size bucket (-1: every bucket) -> log2(third_dim / side) quantiles


def thirds_of(rows: pd.DataFrame) -> Thirds:
    """How the third dimension of matrix products spreads around the square side at each size
    bucket, from rows that recorded it (the calls schema's third_dim): THIRD_QUANTILES of
    log2(third_dim) - log2(n_elements) / 2 per bucket with at least THIRD_MIN_ROWS, the pooled ones
    (key -1) for the others. Empty: no row recorded it (the grid then assumes square products)."""
    if "third_dim" not in rows or not len(rows):
        return {}
    third = third_dims(rows)
    ok = (rows["op"].map(family) == "matmul").to_numpy() & (third > 0)
    if ok.sum() < THIRD_MIN_ROWS:
        return {}
    lg = np.log2(rows["n_elements"].to_numpy(np.float64)[ok].clip(1))
    r = np.log2(third[ok]) - lg / 2
    b = np.floor(lg).astype(np.int64)
    out: Thirds = {-1: tuple(float(x) for x in np.quantile(r, THIRD_QUANTILES))}
    for bb in np.unique(b):
        if (b == bb).sum() >= THIRD_MIN_ROWS:
            out[int(bb)] = tuple(float(x) for x in np.quantile(r[b == bb], THIRD_QUANTILES))
    return out


def grid(devices: pd.DataFrame, mix: pd.DataFrame, thirds: Thirds | None = None) -> pd.DataFrame:
    """Query rows of the grid: per (class, op, dtype) of mix, one per size bucket, with its dtype weight.
    A matrix product's bucket is scored at each of `thirds`' third dimensions, each with an equal
    share of the weight: one entry serves all of them (the runtime keys on n_elements alone), so
    it should be the variant with the least expected latency over them, not at a square product."""
    out = []
    for m in mix.itertuples(index=False):
        spread = thirds and family(m.op) == "matmul"
        for b in range(MAX_LOG2):
            n = 2 ** (b + 0.5)
            row = {"device_class": m.device_class, "op": m.op, "dtype": m.dtype, "bucket": b,
                   "shape": _shape(m.op, n), "calls": float(m.calls), "third_dim": 0}
            if not spread:
                out.append(row)
                continue
            qs = thirds.get(b, thirds[-1])  # type: ignore[union-attr]
            side = math.log2(row["shape"][0])
            for r in qs:
                out.append({**row, "third_dim": max(1, int(round(2 ** (side + r)))), "calls": float(m.calls) / len(qs)})
    q = pd.DataFrame(out).merge(devices, on="device_class")
    q["n_elements"] = [int(np.prod(s)) for s in q["shape"]]
    return q


def ranked(chooser: Chooser, x: pd.DataFrame) -> np.ndarray:
    """Predicted latency of each (query, candidate) row: the model's, or for a chooser that only
    picks (SBS, lookup), 1 for its pick and 2 for the rest (a ranking the export can merge)."""
    if type(chooser).predict is not Chooser.predict:
        return np.exp(chooser.predict(x))
    q = x.drop_duplicates("qid")
    cands = x.groupby("qid", sort=False)["variant"].agg(tuple)
    best = dict(zip(q["qid"], chooser.choose_many(q, [cands[i] for i in q["qid"]])))
    return np.where(x["variant"].to_numpy() == x["qid"].map(best).to_numpy(), 1.0, 2.0)


def winners(devices: pd.DataFrame, mix: pd.DataFrame, chooser: Chooser,
            seen: dict[tuple[str, str], Seen] | None = None,
            thirds: Thirds | None = None) -> dict[tuple[str, str], list[list[str]]]:
    """(device class, op) -> per bucket, the candidates (availability.candidates: what the class's
    fields allow and what it ran, per `seen`) in predicted order (call-weighted
    over dtypes). A class and op with no candidate gets no entry."""
    q = grid(devices, mix, thirds)
    q["qid"] = np.arange(len(q))
    x, idx = expand(q, candidate_lists(q, chooser.variants_, seen))
    if not len(x):
        return {}
    # weight each dtype's predicted latency by its share of the class's calls to the operator
    x["pred"] = ranked(chooser, x) * q["calls"].to_numpy()[idx]
    keys = ["device_class", "op", "bucket"]
    total = x.groupby(keys + ["variant"], sort=True)["pred"].sum().reset_index()
    total = total.sort_values(keys + ["pred", "variant"], kind="stable")  # ties: by name, deterministic
    out: dict[tuple[str, str], list[list[str]]] = {}
    for (dc, op, _bucket), order in total.groupby(keys, sort=True)["variant"].agg(list).items():
        out.setdefault((dc, op), []).append(order)
    return out


def entries(per_bucket: list[list[str]]) -> dict[str, object]:
    """Merge adjacent buckets with the same winner into bounds/variants (+ topk)."""
    bounds: list[int] = []
    variants: list[str] = [per_bucket[0][0]]
    topk: list[list[str]] = [per_bucket[0][:TOP_K]]
    for b, order in enumerate(per_bucket[1:], start=1):
        if order[0] != variants[-1]:
            bounds.append(2 ** b)
            variants.append(order[0])
            topk.append(order[:TOP_K])
    return {"bounds": bounds, "variants": variants, "topk": topk}


def portable(op: str, variants: tuple[str, ...]) -> tuple[str, ...]:
    """Variants with no requirement at all (for "*": a class the file does not name may be any device)."""
    return tuple(v for v in variants if requirements(op, v) in (None, ((), (), None, (), None)) and v != "cuda")


def build(rows: pd.DataFrame, chooser: Chooser, sbs: SBS, model_hash: str, timestamp: str,
          devices: pd.DataFrame | None = None, mix: pd.DataFrame | None = None,
          seen: dict[tuple[str, str], Seen] | None = None, thirds: Thirds | None = None) -> dict[str, object]:
    """The selection table for every device class of rows (or of devices/mix when given): never
    a variant the class cannot run (selector/availability.py; `seen`: what each class ran, by
    default in rows; `thirds`: the spread of matrix products' third dimension, by default rows')."""
    devs = devices_of(rows) if devices is None else devices
    tables: dict[str, list[dict[str, object]]] = {}
    for (dc, op), per_bucket in sorted(winners(devs, mix_of(rows) if mix is None else mix, chooser,
                                               ran(rows) if seen is None else seen,
                                               thirds_of(rows) if thirds is None else thirds).items()):
        tables.setdefault(dc, []).append({"op": op, **entries(per_bucket)})
    tables["*"] = [{"op": op, "bounds": [], "variants": [sbs.pick(op, portable(op, vs))]}
                   for op, vs in sorted(sbs.variants_.items()) if portable(op, vs)]
    return {"format": 1, "version": f"{timestamp}-{model_hash[:6]}", "tables": tables}


def lookup(doc: dict[str, object], device_class: str, op: str, n: int) -> str | None:
    """The variant a table names for one call, as the runtime resolves it (the class's entry,
    else "*"; variants[i] serves n < bounds[i]); None: no entry for op."""
    tables: dict[str, list[dict[str, object]]] = doc["tables"]  # type: ignore[assignment]
    for e in tables.get(device_class, tables.get("*", [])):
        if e["op"] == op:
            bounds: list[int] = e["bounds"]  # type: ignore[assignment]
            return e["variants"][int(np.searchsorted(bounds, n, side="right"))]  # type: ignore[index]
    return None


def table_hash(doc: dict[str, object]) -> str:
    return hashlib.sha256(json.dumps(doc["tables"], sort_keys=True).encode()).hexdigest()


def write(doc: dict[str, object], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=1, sort_keys=True))
    tmp.replace(path)
    return path

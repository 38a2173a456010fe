"""Chosen variant against the oracle, per operator, device class and log2 size bucket (pure
pandas over `queries.bucket_medians`, which already aggregated the lake).

oracle  the variant with the lowest median latency in the bucket (ties: by name)
chosen  what the current selection table (base/selection_table.py format) picks for the bucket's
        lower edge 2^bucket (the exporter's bounds are powers of two, so one variant serves
        the whole bucket), when the lake measured that variant there; otherwise the variant the
        bucket's non-exploring calls used most (what the runtime actually ran)
ratio   chosen median / oracle median (1 = the selector picked the fastest)
"""
from __future__ import annotations

import bisect
import enum
from pathlib import Path
from typing import Iterable, Mapping

import numpy as np
import pandas as pd

from everypath.base.selection_table import SelectionTable, TableError, load_table


class ChosenBy(str, enum.Enum):
    TABLE = "selection table"
    RECORDED = "recorded calls"
    NONE = "unknown"


def load_tables(path: Path, device_classes: Iterable[str]) -> tuple[dict[str, SelectionTable | None], str | None]:
    """Each device class's table from a selection table file, and why none could be read
    (None: read fine, or no file at all, which just means the recorded choices count)."""
    if not path.is_file():
        return {}, None
    out: dict[str, SelectionTable | None] = {}
    try:
        for dc in device_classes:
            out[dc] = load_table(path, dc)
    except TableError as exc:
        return {}, str(exc)
    return out, None


def _table_pick(table: SelectionTable | None, op: str, bucket: int) -> str | None:
    if table is None:
        return None
    for e in table.entries:
        if e.op == op:
            return e.variants[bisect.bisect_right(e.bounds, 2 ** bucket)]
    return None


def chosen_vs_oracle(buckets: pd.DataFrame, tables: Mapping[str, SelectionTable | None]) -> pd.DataFrame:
    """One row per (op, device_class, bucket): n_lo, n_hi (element range), calls, oracle,
    oracle_p50_us, chosen, chosen_by, chosen_p50_us, ratio (NaN where chosen is unknown)."""
    keys = ["op", "device_class", "bucket"]
    cols = [*keys, "n_lo", "n_hi", "calls", "oracle", "oracle_p50_us", "chosen", "chosen_by", "chosen_p50_us", "ratio"]
    if buckets.empty:
        return pd.DataFrame(columns=cols)
    # vectorised: a 10 M-row lake has thousands of groups, a Python loop per group costs seconds
    out = buckets.groupby(keys, sort=True)["calls"].sum().reset_index()
    best = buckets.sort_values([*keys, "p50_us", "variant"]).drop_duplicates(keys)
    out = out.merge(best[[*keys, "variant", "p50_us"]].rename(columns={"variant": "oracle", "p50_us": "oracle_p50_us"}),
                    on=keys)
    prod = buckets[buckets["production_calls"] > 0].sort_values([*keys, "production_calls", "variant"],
                                                                ascending=[True, True, True, False, True])
    out = out.merge(prod.drop_duplicates(keys)[[*keys, "variant"]].rename(columns={"variant": "recorded"}),
                    on=keys, how="left")
    out["table"] = [_table_pick(tables.get(str(dc)), str(op), int(b))
                    for op, dc, b in zip(out["op"], out["device_class"], out["bucket"])]
    measured = buckets[[*keys, "variant", "p50_us"]]
    out = out.merge(measured.rename(columns={"variant": "table", "p50_us": "table_p50_us"}), on=[*keys, "table"],
                    how="left")
    use_table = out["table_p50_us"].notna()
    out["chosen"] = np.where(use_table, out["table"], out["recorded"].fillna(""))
    out["chosen_by"] = np.where(use_table, ChosenBy.TABLE.value,
                                np.where(out["recorded"].notna(), ChosenBy.RECORDED.value, ChosenBy.NONE.value))
    out = out.merge(measured.rename(columns={"variant": "chosen", "p50_us": "chosen_p50_us"}), on=[*keys, "chosen"],
                    how="left")
    out["bucket"] = out["bucket"].astype(int)
    out["n_lo"] = 2 ** out["bucket"]
    out["n_hi"] = 2 ** (out["bucket"] + 1) - 1
    out["ratio"] = out["chosen_p50_us"] / out["oracle_p50_us"].where(out["oracle_p50_us"] > 0)
    return out[cols].sort_values(keys).reset_index(drop=True)


def ratio_summary(cmp: pd.DataFrame) -> pd.DataFrame:
    """Per op and device class: calls, buckets, call-weighted latency ratio chosen/oracle
    (sum calls x chosen / sum calls x oracle, over buckets where chosen is known), and the share
    of buckets where chosen is the oracle."""
    known = cmp[cmp["ratio"].notna()]
    if known.empty:
        return pd.DataFrame(columns=["op", "device_class", "calls", "buckets", "ratio", "oracle_share"])
    k = known.assign(wc=known["calls"] * known["chosen_p50_us"], wo=known["calls"] * known["oracle_p50_us"],
                     hit=(known["chosen"] == known["oracle"]).astype(float))
    out = k.groupby(["op", "device_class"], sort=True).agg(calls=("calls", "sum"), buckets=("bucket", "size"),
                                                          wc=("wc", "sum"), wo=("wo", "sum"),
                                                          oracle_share=("hit", "mean")).reset_index()
    out["ratio"] = out["wc"] / out["wo"]
    return out[["op", "device_class", "calls", "buckets", "ratio", "oracle_share"]]

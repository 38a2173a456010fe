"""`selector retrain --engine spark`: the training rows gathered on Spark, the model fitted on the driver.

The same rows as DuckDB's load (retrain.load_rows): every call when the lake holds at most
max_rows, else a deterministic sample stratified by (device class, op), each stratum kept with
probability min(1, quota / its size) by a hash of the row. The hash is the engine's own (Spark's
Murmur3 vs DuckDB's), so past max_rows the two engines keep different, equally valid samples;
below it they return the same rows in the same total order (the same model version).
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

import pandas as pd

from everypath.telemetry.spark import DEFAULT_MASTER, calls_dataframe, session


def load_rows_spark(lake: str, columns: tuple[str, ...], max_rows: int, master: str | None = None,
                    spark: object = None) -> pd.DataFrame:
    # third_dim (schema 2) as DuckDB's load reads it: Spark's declared schema reads it null in files
    # that predate it, so the two engines give the same rows (and the same model version)
    columns = columns if "third_dim" in columns else (*columns, "third_dim")
    s = spark if spark is not None else session(master or DEFAULT_MASTER, "everypath-retrain")
    df = calls_dataframe(s, lake, columns)
    view = f"everypath_retrain_{id(df)}"
    df.createOrReplaceTempView(view)
    cols = ", ".join(columns)
    try:
        n = s.sql(f"SELECT count(*) AS n FROM {view}").collect()[0]["n"]
        if n <= max_rows:
            sql = f"SELECT {cols} FROM {view}"
        else:
            strata = s.sql(f"SELECT count(DISTINCT device_class, op) AS s FROM {view}").collect()[0]["s"]
            quota = max_rows / max(1, strata)
            sql = (f"SELECT {cols} FROM (SELECT *, count(*) OVER (PARTITION BY device_class, op) AS stratum_n "
                   f"FROM {view}) WHERE pmod(hash(ts, device_id, latency_ns, variant), 1000003) "
                   f"< 1000003 * least(1.0, {quota} / stratum_n)")
        sql += " ORDER BY " + ", ".join(f"{c} ASC NULLS LAST" for c in columns)
        out = s.sql(sql).toArrow().to_pandas()
    finally:
        s.catalog.dropTempView(view)
    if "ts" in out:  # nanoseconds (calls_dataframe) -> the timestamps DuckDB's load gives
        out["ts"] = pd.to_datetime(out["ts"], unit="ns", utc=True)
    return out


MIX_COLUMNS = ("device_class", "op", "dtype", "count", "device_id", "runtime", "date")


def load_mix_spark(lake: str, mix_sql: Callable[[str, str], str], master: str | None = None,
                   spark: object = None) -> pd.DataFrame:
    """retrain.load_mix on Spark: the same SQL over the calls and the aggregates."""
    from everypath.telemetry.lake import Lake
    from everypath.telemetry.rollup import AGGREGATE_COLUMNS
    from everypath.telemetry.rollup_job import local_files, spark_frame

    s = spark if spark is not None else session(master or DEFAULT_MASTER, "everypath-retrain")
    calls = calls_dataframe(s, lake, ("device_class", "op", "dtype", "inclusion", "device_id", "runtime", "date"))
    cols = (*AGGREGATE_COLUMNS, ("dtype", "STRING"))
    if "://" in lake:
        aggs = spark_frame(s, f"{lake.rstrip('/')}/aggregates", Path(), cols)
    else:
        aggs = spark_frame(s, local_files(Lake(lake))[1], Path(lake) / "aggregates", cols)
    names = {"c": f"everypath_mix_calls_{id(calls)}", "a": f"everypath_mix_aggs_{id(aggs)}"}
    calls.createOrReplaceTempView(names["c"])
    aggs.createOrReplaceTempView(names["a"])
    try:
        return s.sql(mix_sql(names["c"], names["a"])).toArrow().to_pandas()
    finally:
        for n in names.values():
            s.catalog.dropTempView(n)

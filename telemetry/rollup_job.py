"""`everypath telemetry rollup --engine duckdb|spark`: compute the fleet roll-up and store it in the lake.

The engines read the same `calls` and `aggregates` parts (a local lake's parts are validated and
quarantined first, as every reader does; a URI lake is read as it is) and run the one query of
telemetry/rollup.py: counts and percentiles from the merged aggregates, raw rows only where no
aggregates cover them. The roll-up is small (groups, not calls), so it comes back to this process
and is written as ROOT/rollups/fleet/date=D/part-0.parquet, one file per date, each replaced by
rename: a reader sees the old roll-up of a date or the new one. A lake given as a URI
(`s3a://bucket/lake`, `hdfs://...`) is written by the engine itself (Spark: `partitionBy("date")`,
overwrite), since only the engine has the store's credentials.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from everypath.telemetry.lake import Lake, write_parquet
from everypath.telemetry.rollup import (AGGREGATE_COLUMNS, INPUT_COLUMNS, ROLLUP_SCHEMA, Engine, ddl, duckdb_source,
                                        rollup_sql)

FLEET_DIR = Path("rollups") / "fleet"


@dataclass(frozen=True)
class RollupReport:
    engine: Engine
    groups: int
    dates: tuple[str, ...]
    written: str  # where the roll-up went
    seconds: float


def is_uri(lake: str | Path) -> bool:
    return "://" in str(lake)


def local_files(lake: Lake) -> tuple[list[str], list[str]]:
    """(calls parts, aggregates parts) of a local lake, after quarantining foreign or torn ones."""
    lake.quarantine()  # a foreign or torn part is moved aside, never read (as the views do)
    return [str(p) for p in lake.files()], [str(p) for p in lake.aggregate_files()]


def compute(engine: Engine, lake: str | Path, *, master: str | None = None, spark: Any = None) -> pa.Table:
    """The roll-up of every call in the lake (aggregates merged; raw rows where none cover them),
    as an Arrow table of ROLLUP_SCHEMA."""
    if is_uri(lake):
        root = str(lake).rstrip("/")
        calls: list[str] | str = f"{root}/calls"
        aggs: list[str] | str = f"{root}/aggregates"
    else:
        calls, aggs = local_files(Lake(lake))
        if not calls and not aggs:
            return ROLLUP_SCHEMA.empty_table()
    if engine is Engine.DUCKDB:
        import duckdb

        con = duckdb.connect(":memory:")
        try:
            con.execute("SET TimeZone = 'UTC'")
            c_src = duckdb_source(calls if isinstance(calls, list) else [calls + "/*/*/*.parquet"], INPUT_COLUMNS)
            a_src = duckdb_source(aggs if isinstance(aggs, list) else [aggs + "/*/*/*.parquet"], AGGREGATE_COLUMNS)
            # views, not subqueries: DuckDB binds FROM subqueries laterally, and hive_types' DATE would
            # bind to the other relation's `date` column
            con.execute(f"CREATE VIEW rollup_calls AS SELECT * FROM {c_src}")
            con.execute(f"CREATE VIEW rollup_aggregates AS SELECT * FROM {a_src}")
            return con.sql(rollup_sql(engine, "rollup_calls", "rollup_aggregates")).to_arrow_table().cast(ROLLUP_SCHEMA)
        finally:
            con.close()
    s = spark if spark is not None else _session(master)
    views = {"calls": spark_frame(s, calls, Path(lake) / "calls", INPUT_COLUMNS),
             "aggregates": spark_frame(s, aggs, Path(lake) / "aggregates", AGGREGATE_COLUMNS)}
    names = {k: f"everypath_{k}_{id(df)}" for k, df in views.items()}
    for k, df in views.items():
        df.createOrReplaceTempView(names[k])
    try:
        return s.sql(rollup_sql(engine, names["calls"], names["aggregates"])).toArrow().cast(ROLLUP_SCHEMA)
    finally:
        for n in names.values():
            s.catalog.dropTempView(n)


def spark_frame(s: Any, files: list[str] | str, base: Path, columns: tuple[tuple[str, str], ...]) -> Any:
    """A table's parts read with its declared schema; none (or a URI folder that does not exist,
    such as the aggregates of a lake written before them): an empty frame of that schema."""
    schema = ddl(Engine.SPARK, columns)
    if isinstance(files, str):
        from pyspark.errors import AnalysisException

        try:
            return s.read.schema(schema).option("basePath", files).parquet(files)
        except AnalysisException as e:
            if "PATH_NOT_FOUND" not in str(e) and "does not exist" not in str(e):
                raise
            return s.createDataFrame([], schema)
    if not files:
        return s.createDataFrame([], schema)
    return s.read.schema(schema).option("basePath", str(base)).parquet(*files)


def _session(master: str | None) -> Any:
    from everypath.telemetry.spark import DEFAULT_MASTER, session

    return session(master or DEFAULT_MASTER)


def write(table: pa.Table, lake: Path) -> list[Path]:
    """One part per date under ROOT/rollups/fleet, each replaced atomically."""
    out = []
    dates = sorted(set(table.column("date").to_pylist()))
    for d in dates:
        part = table.filter(pc.equal(table.column("date"), pa.scalar(d, pa.date32())))
        p = write_parquet(part, lake / FLEET_DIR / f"date={d.isoformat()}", "part-0.parquet", exclusive=False)
        if p is not None:
            out.append(p)
    return out


def run(engine: Engine, lake: str | Path, *, master: str | None = None, spark: Any = None) -> RollupReport:
    t0 = time.perf_counter()
    table = compute(engine, lake, master=master, spark=spark)
    dates = tuple(sorted({d.isoformat() for d in table.column("date").to_pylist()}))
    if is_uri(lake):
        where = f"{str(lake).rstrip('/')}/{FLEET_DIR.as_posix()}"
        if engine is not Engine.SPARK:
            raise ValueError(f"{lake}: a lake given as a URI is written by Spark (use --engine spark), "
                             "or roll up a local copy with duckdb")
        s = spark if spark is not None else _session(master)
        s.createDataFrame(table.to_pandas()).write.mode("overwrite").partitionBy("date").parquet(where)
    else:
        write(table, Path(lake))
        where = str(Path(lake) / FLEET_DIR)
    return RollupReport(engine, table.num_rows, dates, where, time.perf_counter() - t0)

"""`everypath telemetry rollup --engine duckdb|spark`: compute the fleet roll-up and store it in the lake.

The engines read the same `calls` parts (a local lake's parts are validated and quarantined
first, as every reader does; a URI lake is read as it is) and run the one query of
telemetry/rollup.py. The roll-up is small (groups, not calls), so it comes back to this process
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
from everypath.telemetry.rollup import ROLLUP_SCHEMA, Engine, duckdb_source, rollup_sql, spark_ddl

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


def _local_files(lake: Lake) -> list[str]:
    lake.quarantine()  # a foreign or torn part is moved aside, never read (as the views do)
    return [str(p) for p in lake.files()]


def compute(engine: Engine, lake: str | Path, *, approx: bool = False, master: str | None = None,
            spark: Any = None) -> pa.Table:
    """The roll-up of every call in the lake, as an Arrow table of ROLLUP_SCHEMA."""
    files: list[str] | str = f"{str(lake).rstrip('/')}/calls" if is_uri(lake) else _local_files(Lake(lake))
    if not files:
        return ROLLUP_SCHEMA.empty_table()
    if engine is Engine.DUCKDB:
        import duckdb

        con = duckdb.connect(":memory:")
        try:
            con.execute("SET TimeZone = 'UTC'")
            src = duckdb_source(files if isinstance(files, list) else files + "/*/*/*.parquet")
            return con.sql(rollup_sql(engine, src, approx)).to_arrow_table().cast(ROLLUP_SCHEMA)
        finally:
            con.close()
    s = spark if spark is not None else _session(master)
    base = files if isinstance(files, str) else str(Path(lake) / "calls")
    paths = [files] if isinstance(files, str) else files
    df = s.read.schema(spark_ddl()).option("basePath", base).parquet(*paths)
    view = f"everypath_calls_{id(df)}"
    df.createOrReplaceTempView(view)
    try:
        return s.sql(rollup_sql(engine, view, approx)).toArrow().cast(ROLLUP_SCHEMA)
    finally:
        s.catalog.dropTempView(view)


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


def run(engine: Engine, lake: str | Path, *, approx: bool = False, master: str | None = None,
        spark: Any = None) -> RollupReport:
    t0 = time.perf_counter()
    table = compute(engine, lake, approx=approx, master=master, spark=spark)
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

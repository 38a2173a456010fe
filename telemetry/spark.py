"""A Spark session for the scale-out roll-up (PySpark SQL over the same hive-partitioned Parquet).

Local runs (`local[N]`, the tests) bind to 127.0.0.1 with the web UI off and quiet logs; a cluster
(`--master spark://host:7077`, `yarn`, `k8s://...`) gets only the settings the job itself needs
(UTC session time zone, no progress bars) and keeps its own configuration otherwise. Reading an
object store needs the cluster's connector (`s3a://` needs hadoop-aws on the classpath, set up as
the cluster's docs say); nothing here is specific to a store.
"""
from __future__ import annotations

import os
from typing import Any

DEFAULT_MASTER = "local[2]"


class SparkUnavailable(RuntimeError):
    """PySpark or Java is missing (the message says how to get them)."""


def session(master: str = DEFAULT_MASTER, app: str = "everypath-rollup") -> Any:
    """A SparkSession (getOrCreate: a second call in one process reuses the first session)."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise SparkUnavailable("the spark engine needs PySpark: pip install 'everypath[spark]' "
                               "(make setup installs it)") from None
    if not (os.environ.get("JAVA_HOME") or _on_path("java")):
        raise SparkUnavailable("the spark engine needs Java 17 or newer on PATH or in JAVA_HOME "
                               "(Debian: openjdk-17-jdk-headless; make setup installs it)")
    b = (SparkSession.builder.master(master).appName(app)
         .config("spark.sql.session.timeZone", "UTC")
         .config("spark.ui.showConsoleProgress", "false"))
    if master.startswith("local"):
        b = (b.config("spark.ui.enabled", "false")
             .config("spark.driver.bindAddress", "127.0.0.1").config("spark.driver.host", "127.0.0.1")
             .config("spark.sql.shuffle.partitions", "4"))
    s = b.getOrCreate()
    s.sparkContext.setLogLevel("ERROR")
    return s


def _on_path(name: str) -> bool:
    import shutil

    return shutil.which(name) is not None


_SPARK_TYPES = {"string": "STRING", "int64": "BIGINT", "int32": "INT", "int16": "SMALLINT", "int8": "TINYINT",
                "float": "FLOAT", "double": "DOUBLE", "bool": "BOOLEAN", "list<item: int64>": "ARRAY<BIGINT>"}


def _spark_type(arrow_type: object) -> str:
    name = str(arrow_type)
    return "BIGINT" if name.startswith("timestamp") else _SPARK_TYPES[name]  # nanoseconds: see calls_dataframe


def calls_dataframe(spark: Any, lake: str, columns: tuple[str, ...]) -> Any:
    """The lake's `calls` as a Spark DataFrame of `columns`, read with a declared schema (partition
    columns included). Timestamps are nanoseconds since the epoch (BIGINT): Spark's own timestamps
    are microseconds and refuse Parquet's nanosecond unit, so `nanosAsLong` reads them exactly."""
    from everypath.telemetry.lake import Lake
    from everypath.telemetry.schema import CALLS_SCHEMA

    spark.conf.set("spark.sql.legacy.parquet.nanosAsLong", "true")
    partitions = {"date": "DATE", "device_class": "STRING"}
    ddl = [f"{name} {partitions.get(name) or _spark_type(CALLS_SCHEMA.field(name).type)}" for name in columns]
    ddl += [f"{name} {t}" for name, t in partitions.items() if name not in columns]
    reader = spark.read.schema(", ".join(ddl))
    if "://" in lake:
        return reader.option("basePath", f"{lake.rstrip('/')}/calls").parquet(f"{lake.rstrip('/')}/calls")
    local = Lake(lake)
    local.quarantine()
    files = [str(p) for p in local.files()]
    if not files:
        return spark.createDataFrame([], ", ".join(ddl))
    return reader.option("basePath", str(local.calls)).parquet(*files)

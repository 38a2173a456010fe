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

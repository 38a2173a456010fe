"""The fleet roll-up, written once for two engines: DuckDB (embedded, the default) and Spark SQL.

Per date x device class x operator x variant x size bucket: the count, p50/p95/p99 and min of
`latency_ns`, and their sum. The size bucket is floor(log2(n_elements)) computed on integers
(`length(bin(n)) - 1`: the same answer on both engines; a float log2 is not, Spark divides two logs).

Only the SQL that differs between the engines lives in `Dialect` (tinygrad-style: a table of the
differences, not branches in the query): the percentile function and how a relation is read. The
partition columns are declared, never inferred: Spark infers `date` as a date or a string and an
all-digit `device_class` as a number, DuckDB infers others; both read `date DATE, device_class VARCHAR`.

Exact percentiles (`quantile_cont` / `percentile`) interpolate linearly between order statistics on
both engines, so their results are equal to rounding. `approx=True` uses each engine's sketch
(`approx_quantile` / `percentile_approx`, accuracy 10000: rank error at most n / 10000): for
billions of rows, where exact percentiles need every value of a group in one place.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

import pyarrow as pa

# what the roll-up reads from `calls` (Spark is given exactly this schema; DuckDB casts to it)
INPUT_COLUMNS: tuple[tuple[str, str], ...] = (
    ("op", "STRING"), ("variant", "STRING"), ("n_elements", "BIGINT"), ("latency_ns", "BIGINT"),
    ("date", "DATE"), ("device_class", "STRING"),
)
PARTITION_COLUMNS = ("date", "device_class")
KEYS = ("date", "device_class", "op", "variant", "size_bucket")

ROLLUP_SCHEMA = pa.schema([
    ("date", pa.date32()), ("device_class", pa.string()), ("op", pa.string()), ("variant", pa.string()),
    ("size_bucket", pa.int32()), ("n", pa.int64()), ("p50_ns", pa.float64()), ("p95_ns", pa.float64()),
    ("p99_ns", pa.float64()), ("min_ns", pa.int64()), ("sum_ns", pa.float64()),
])
QUANTILES = (0.5, 0.95, 0.99)


class Engine(enum.Enum):
    DUCKDB = "duckdb"
    SPARK = "spark"


@dataclass(frozen=True)
class Dialect:
    exact_quantiles: str  # {col}, {qs}: one call returning a list of the QUANTILES
    approx_quantiles: str
    qs: str  # how a list literal of the quantiles is written
    first_index: int  # list subscripts: DuckDB counts from 1, Spark from 0


DIALECTS: dict[Engine, Dialect] = {
    Engine.DUCKDB: Dialect("quantile_cont({col}, {qs})", "approx_quantile({col}, {qs})", "[{items}]", 1),
    Engine.SPARK: Dialect("percentile({col}, {qs})", "percentile_approx({col}, {qs}, 10000)", "array({items})", 0),
}


def rollup_sql(engine: Engine, source: str, approx: bool = False) -> str:
    """The roll-up of a calls-shaped relation `source` (a table name or a parenthesised query)."""
    d = DIALECTS[engine]
    qs = d.qs.format(items=", ".join(repr(q) for q in QUANTILES))
    quant = (d.approx_quantiles if approx else d.exact_quantiles).format(col="latency_ns", qs=qs)
    i = d.first_index
    return f"""
        SELECT date, device_class, op, variant, size_bucket, n,
               CAST(q[{i}] AS DOUBLE) AS p50_ns, CAST(q[{i + 1}] AS DOUBLE) AS p95_ns,
               CAST(q[{i + 2}] AS DOUBLE) AS p99_ns, min_ns, sum_ns
        FROM (SELECT date, device_class, op, variant,
                     CAST(length(bin(greatest(n_elements, CAST(1 AS BIGINT)))) - 1 AS INT) AS size_bucket,
                     count(*) AS n, {quant} AS q, min(latency_ns) AS min_ns,
                     CAST(sum(latency_ns) AS DOUBLE) AS sum_ns
              FROM {source}
              GROUP BY date, device_class, op, variant,
                       CAST(length(bin(greatest(n_elements, CAST(1 AS BIGINT)))) - 1 AS INT)) AS g
        ORDER BY date, device_class, op, variant, size_bucket"""


def spark_ddl() -> str:
    """The calls schema Spark reads with (partition columns included: declared, not inferred)."""
    return ", ".join(f"{name} {t}" for name, t in INPUT_COLUMNS)


def duckdb_source(files_or_glob: str | list[str]) -> str:
    """A DuckDB relation over calls parts (hive partitions typed explicitly)."""
    if isinstance(files_or_glob, str):
        files = "'" + files_or_glob.replace("'", "''") + "'"
    else:
        files = "[" + ", ".join("'" + f.replace("'", "''") + "'" for f in files_or_glob) + "]"
    cols = ", ".join(name if name in PARTITION_COLUMNS else f"CAST({name} AS "
                     f"{'VARCHAR' if t == 'STRING' else t}) AS {name}" for name, t in INPUT_COLUMNS)
    return (f"(SELECT {cols} FROM read_parquet({files}, hive_partitioning = true, union_by_name = true, "
            f"hive_types = {{'date': DATE, 'device_class': VARCHAR}}))")

"""The fleet roll-up and the merge of aggregates, written once for two engines: DuckDB and Spark SQL.

Per date x device class x operator x variant x size bucket: the call count, sum, min and max of
the latency and p50/p95/p99. Counts and percentiles come from the exact `aggregates` table
(telemetry/aggregates.py), never from the sampled raw rows: count, sum, min and max add up per
group, the histograms merge by adding counts per bin (exact integer addition on both engines) and
a percentile is the midpoint of the bin holding the nearest-rank value, clamped to the exact min
and max (aggregates.hist_quantile; within 0.78% of the exact quantile). Raw `calls` rows count only
where no aggregates cover them: a (date, device class, device, runtime) with no aggregate row at
all (a foreign producer, the browser runtime, a lake older than the aggregates). Those rows enter
the same merge binned as the shim bins, each weighing 1 / inclusion (Horvitz-Thompson: unbiased).

The size bucket is floor(log2(n_elements)) (0 for 0 and 1 elements), on integers
(`length(bin(n)) - 1`: a float log2 differs between the engines); an aggregate's size_bucket b
(n in [2^(b-1), 2^b)) is the bucket greatest(b - 1, 0).

Only the SQL that differs between the engines lives in `Dialect` (tinygrad-style: a table of the
differences, not branches in the query): shifts, integer division, list explosion and type names.
The partition columns are declared, never inferred: Spark infers `date` as a date or a string and
an all-digit `device_class` as a number; both engines read `date DATE, device_class VARCHAR`.
"""
from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa

# what the roll-up reads (Spark is given exactly these schemas; DuckDB casts to them); generic type names
INPUT_COLUMNS: tuple[tuple[str, str], ...] = (
    ("op", "STRING"), ("variant", "STRING"), ("n_elements", "BIGINT"), ("latency_ns", "BIGINT"),
    ("inclusion", "FLOAT"), ("device_id", "STRING"), ("runtime", "STRING"), ("date", "DATE"),
    ("device_class", "STRING"),
)
AGGREGATE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("op", "STRING"), ("variant", "STRING"), ("size_bucket", "SMALLINT"), ("count", "BIGINT"),
    ("timed", "BIGINT"), ("sum_ns", "BIGINT"), ("min_ns", "BIGINT"), ("max_ns", "BIGINT"),
    ("hist_bin", "ARRAY<INT>"), ("hist_count", "ARRAY<BIGINT>"), ("device_id", "STRING"), ("runtime", "STRING"),
    ("date", "DATE"), ("device_class", "STRING"),
)
PARTITION_COLUMNS = ("date", "device_class")
KEYS = ("date", "device_class", "op", "variant", "size_bucket")
COVERAGE_KEYS = ("date", "device_class", "device_id", "runtime")  # where aggregates exist, raw rows never count

ROLLUP_SCHEMA = pa.schema([
    ("date", pa.date32()), ("device_class", pa.string()), ("op", pa.string()), ("variant", pa.string()),
    ("size_bucket", pa.int32()), ("n", pa.int64()), ("p50_ns", pa.float64()), ("p95_ns", pa.float64()),
    ("p99_ns", pa.float64()), ("min_ns", pa.int64()), ("max_ns", pa.int64()), ("sum_ns", pa.float64()),
])
QUANTILES = (0.5, 0.95, 0.99)
MAX_NS = (1 << 40) - 1  # aggregates.MAX_OCTAVE: larger latencies share the last bin


class Engine(enum.Enum):
    DUCKDB = "duckdb"
    SPARK = "spark"


@dataclass(frozen=True)
class Dialect:
    shl: str  # {a} << {b}
    shr: str  # {a} >> {b}
    idiv: str  # {a} integer-divided by {b}
    explode: str  # one row per (bin, c) of the lists {bins}, {counts}
    types: tuple[tuple[str, str], ...]  # generic type names -> the engine's (others are the same)

    def type(self, generic: str) -> str:
        return dict(self.types).get(generic, generic)


DIALECTS: dict[Engine, Dialect] = {
    Engine.DUCKDB: Dialect("(({a}) << ({b}))", "(({a}) >> ({b}))", "(({a}) // ({b}))", "unnest({bins}) AS bin, unnest({counts}) AS c",
                           (("STRING", "VARCHAR"), ("ARRAY<INT>", "INTEGER[]"), ("ARRAY<BIGINT>", "BIGINT[]"))),
    Engine.SPARK: Dialect("shiftleft({a}, {b})", "shiftright({a}, {b})", "(({a}) div ({b}))",
                          "inline(arrays_zip({bins}, {counts})) AS (bin, c)", ()),
}


def bin_of_sql(d: Dialect, v: str) -> str:
    """The histogram bin of latency v (aggregates.bin_of): v below 64, else 64 bins per octave."""
    x = f"least(greatest(CAST({v} AS BIGINT), CAST(0 AS BIGINT)), CAST({MAX_NS} AS BIGINT))"
    e = f"(length(bin({x})) - 1)"
    return (f"CAST(CASE WHEN {x} < 64 THEN {x} "
            f"ELSE 64 * ({e} - 5) + {d.shr.format(a=x, b=f'{e} - 6')} % 64 END AS INT)")


def bin_mid_sql(d: Dialect, b: str) -> str:
    """The midpoint of bin b (aggregates.bin_mid): low + (width - 1) div 2."""
    k = f"({d.idiv.format(a=b, b='64')} - 1)"
    width = d.shl.format(a="CAST(1 AS BIGINT)", b=k)
    low = d.shl.format(a=f"CAST(64 + {b} % 64 AS BIGINT)", b=k)
    return f"(CASE WHEN {b} < 64 THEN CAST({b} AS BIGINT) ELSE {low} + {d.idiv.format(a=f'{width} - 1', b='2')} END)"


def uncovered_sql(calls: str, aggregates: str, weight: str = "1.0 / CAST(coalesce(inclusion, 1.0) AS DOUBLE)") -> str:
    """The raw rows of `calls` in no (date, device class, device, runtime) that `aggregates` covers,
    with their Horvitz-Thompson weight `w` (1 / inclusion; null inclusion: 1)."""
    on = " AND ".join(f"c.{k} = k.{k}" for k in COVERAGE_KEYS)
    return (f"(SELECT c.*, {weight} AS w FROM {calls} c "
            f"LEFT JOIN (SELECT DISTINCT {', '.join(COVERAGE_KEYS)} FROM {aggregates}) k ON {on} "
            f"WHERE k.device_id IS NULL)")


def merged_sql(engine: Engine, aggregates: str, raw: str, keys: Sequence[str], quantiles: Sequence[float],
               names: Sequence[str]) -> str:
    """Per `keys`: n (BIGINT), sum_ns (DOUBLE), min_ns, max_ns (BIGINT) and the `quantiles` as `names`
    (DOUBLE, ns). `aggregates` has the keys and count, timed, sum_ns, min_ns, max_ns, hist_bin,
    hist_count; `raw` the keys, latency_ns and the weight w. Both may be subqueries."""
    d = DIALECTS[engine]
    k = ", ".join(keys)
    part = f"PARTITION BY {k}"
    picks = ", ".join(f"min(CASE WHEN cum >= greatest(1, ceil(CAST({q!r} AS DOUBLE) * total)) THEN bin END) AS b{i}"
                      for i, q in enumerate(quantiles))
    out = ", ".join(f"CASE WHEN q.b{i} IS NULL THEN NULL ELSE CAST(least(greatest({bin_mid_sql(d, f'q.b{i}')}, "
                    f"s.min_ns), s.max_ns) AS DOUBLE) END AS {name}" for i, name in enumerate(names))
    on = " AND ".join(f"s.{x} = q.{x}" for x in keys)
    # min/max only from rows that timed a call (an interval with none reports 0 for both)
    return f"""
        SELECT {', '.join(f's.{x}' for x in keys)}, CAST(round(s.n) AS BIGINT) AS n, s.sum_ns, s.min_ns, s.max_ns, {out}
        FROM (SELECT {k}, sum(n) AS n, sum(s) AS sum_ns, min(lo) AS min_ns, max(hi) AS max_ns
              FROM (SELECT {k}, CAST(count AS DOUBLE) AS n, CAST(sum_ns AS DOUBLE) AS s,
                           CASE WHEN timed > 0 THEN min_ns END AS lo, CASE WHEN timed > 0 THEN max_ns END AS hi
                    FROM {aggregates} a0
                    UNION ALL
                    SELECT {k}, w, CAST(latency_ns AS DOUBLE) * w, latency_ns, latency_ns FROM {raw} r0) u
              GROUP BY {k}) s
        LEFT JOIN (SELECT {k}, {picks}
                   FROM (SELECT {k}, bin, c, sum(c) OVER ({part} ORDER BY bin ROWS BETWEEN UNBOUNDED PRECEDING
                                                        AND CURRENT ROW) AS cum, sum(c) OVER ({part}) AS total
                         FROM (SELECT {k}, bin, sum(c) AS c
                               FROM (SELECT {k}, {d.explode.format(bins='hist_bin', counts='hist_count')}
                                     FROM {aggregates} a1
                                     UNION ALL
                                     SELECT {k}, {bin_of_sql(d, 'latency_ns')} AS bin, w AS c FROM {raw} r1) e
                               GROUP BY {k}, bin) b) w0
                   GROUP BY {k}) q ON {on}"""


def _bucket(n: str) -> str:
    return f"CAST(length(bin(greatest({n}, CAST(1 AS BIGINT)))) - 1 AS INT)"


def rollup_sql(engine: Engine, calls: str, aggregates: str) -> str:
    """The roll-up of a calls-shaped relation and an aggregates-shaped one (table names or
    parenthesised queries with INPUT_COLUMNS and AGGREGATE_COLUMNS)."""
    aggs = (f"(SELECT date, device_class, op, variant, CAST(greatest(size_bucket - 1, 0) AS INT) AS size_bucket, "
            f"count, timed, sum_ns, min_ns, max_ns, hist_bin, hist_count FROM {aggregates} a)")
    raw = (f"(SELECT date, device_class, op, variant, {_bucket('n_elements')} AS size_bucket, latency_ns, w "
           f"FROM {uncovered_sql(calls, aggregates)} u)")
    names = ("p50_ns", "p95_ns", "p99_ns")
    return f"""
        SELECT date, device_class, op, variant, size_bucket, n, p50_ns, p95_ns, p99_ns, min_ns, max_ns, sum_ns
        FROM ({merged_sql(engine, aggs, raw, KEYS, QUANTILES, names)}) m
        ORDER BY date, device_class, op, variant, size_bucket"""


def ddl(engine: Engine, columns: tuple[tuple[str, str], ...]) -> str:
    """A schema in the engine's DDL (Spark reads with it: partition columns declared, not inferred)."""
    d = DIALECTS[engine]
    return ", ".join(f"{name} {d.type(t)}" for name, t in columns)


def duckdb_source(files: list[str], columns: tuple[tuple[str, str], ...]) -> str:
    """A DuckDB relation over Parquet parts with `columns` (hive partitions typed explicitly); no
    files: an empty relation of those columns."""
    d = DIALECTS[Engine.DUCKDB]
    if not files:
        cols = ", ".join(f"CAST(NULL AS {d.type(t)}) AS {name}" for name, t in columns)
        return f"(SELECT {cols} WHERE 1 = 0)"
    listed = "[" + ", ".join("'" + f.replace("'", "''") + "'" for f in files) + "]"
    cols = ", ".join(name if name in PARTITION_COLUMNS else f"CAST({name} AS {d.type(t)}) AS {name}"
                     for name, t in columns)
    return (f"(SELECT {cols} FROM read_parquet({listed}, hive_partitioning = true, union_by_name = true, "
            f"hive_types = {{'date': DATE, 'device_class': VARCHAR}}))")

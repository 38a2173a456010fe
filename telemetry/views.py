"""DuckDB views over the lake (an in-memory DuckDB per connection, never a shared .duckdb file).

calls      one row per recorded operator call (the Parquet parts, hive partitions date + device_class)
aggregates the exact per-interval aggregates (every call counted; telemetry/aggregates.py)
calls_uncovered  the raw rows of (date, device class, device, runtime)s without aggregates (other
           producers, older lakes), with their Horvitz-Thompson weight w = 1 / inclusion
op_latency per op, variant, device_class, dtype: n, p50/p95/p99, mean of every call: aggregates merged
           with calls_uncovered binned alike (telemetry/rollup.merged_sql; <= 0.78% / 1.6%)
op_counts  per op, variant, device_class, dtype: exact n, sum, min, max, mean from the aggregates
op_latency_exact  the same keys: n and p50/p95/p99 from the aggregates' merged histograms alone
daily      per date, op, variant, device_class, function: n, p50/p95/p99, sum of every call (the same
           merge as op_latency: aggregates and uncovered raw rows); closed dates come from the
           roll-ups written by compaction (daily_computed over that date's parts), open dates from
           daily_computed
trend      hourly p50 per op and variant, of the raw sample
autotune   `everypath autotune` run summaries: medians per call site, variant and size; failures as rows
"""
from __future__ import annotations

import time
from pathlib import Path

import duckdb
import pyarrow as pa

from everypath.telemetry.lake import FILE_SCHEMA, Lake
from everypath.telemetry.rollup import Engine, merged_sql, uncovered_sql
from everypath.telemetry.schema import AUTOTUNE_SCHEMA

# ROLLUP_VERSION 2: counts and percentiles of every call (merged aggregates); 1 (no marker): of the
# raw sample. Compaction rewrites a closed date's roll-up written by an older version.
ROLLUP_VERSION = 2
ROLLUP_SCHEMA = pa.schema([
    ("op", pa.string()), ("variant", pa.string()), ("device_class", pa.string()), ("function", pa.string()),
    ("n", pa.int64()), ("p50", pa.float64()), ("p95", pa.float64()), ("p99", pa.float64()),
    ("sum_latency_ns", pa.float64()),
], metadata={b"everypath.schema": b"rollups_daily", b"everypath.schema_version": str(ROLLUP_VERSION).encode()})
DAILY_KEYS = ("date", "op", "variant", "device_class", "function")

_PARQUET_OPTS = "hive_partitioning = true, union_by_name = true, hive_types = {{{types}}}"


def _quote(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def _empty(con: duckdb.DuckDBPyConnection, name: str, schema: pa.Schema) -> str:
    con.register(name, schema.empty_table())
    return f"SELECT * FROM {name}"


def daily_sql(aggregates: str, raw: str) -> str:
    """The daily roll-up of every call (also what compaction stores): per DAILY_KEYS, n, nearest-rank
    p50/p95/p99 from the merged histograms and the sum, of an aggregates-shaped relation and the
    raw rows no aggregates cover (with their weight w), merged as op_latency merges them."""
    merged = merged_sql(Engine.DUCKDB, aggregates, raw, DAILY_KEYS, (0.5, 0.95, 0.99), ("p50", "p95", "p99"))
    return f"""
        SELECT date, op, variant, device_class, function, n, p50, p95, p99, sum_ns AS sum_latency_ns
        FROM ({merged}) m"""


def table_views(con: duckdb.DuckDBPyConnection, calls: list[str] | str | None, aggregates: list[str] | str | None) -> None:
    """The `calls` and `aggregates` views over parts (a glob or a list; None: an empty typed view), and
    `calls_uncovered` and `daily_computed` over them."""
    from everypath.telemetry.aggregates import file_schema

    opts = _PARQUET_OPTS.format(types="'date': DATE, 'device_class': VARCHAR")
    partitions = [pa.field("date", pa.date32()), pa.field("device_class", pa.string())]
    for view, files, schema in (("calls", calls, FILE_SCHEMA), ("aggregates", aggregates, file_schema())):
        if files:
            listed = _quote(files) if isinstance(files, str) else "[" + ", ".join(map(_quote, files)) + "]"
            src = f"SELECT * FROM read_parquet({listed}, {opts})"
        else:  # an empty lake still has typed views (dashboards and scripts need the columns)
            src = _empty(con, f"_empty_{view}", pa.schema([*schema, *partitions]))
        con.execute(f"CREATE VIEW {view} AS {src}")
    con.execute(f"CREATE VIEW calls_uncovered AS SELECT * FROM {_uncovered(con)}")
    con.execute(f"CREATE VIEW daily_computed AS {daily_sql('aggregates', 'calls_uncovered')}")


def _bin_mid(b: str) -> str:
    """SQL for the midpoint of histogram bin b (aggregates.bin_mid)."""
    return (f"(CASE WHEN {b} < 64 THEN {b}::BIGINT ELSE ((64 + {b} % 64)::BIGINT << ({b} // 64 - 1)) "
            f"+ ((1::BIGINT << ({b} // 64 - 1)) - 1) // 2 END)")


def hist_quantiles_sql(source: str, keys: str) -> str:
    """Nearest-rank p50/p95/p99 per `keys` from the histograms of an aggregates-shaped relation:
    counts merged per bin, the bin holding rank ceil(q * n), its midpoint clamped to [min, max]."""
    def q(p: float) -> str:  # rank within the histogram's own total (weighted counts: an estimate of n)
        return (f"least(greatest(min({_bin_mid('bin')}) FILTER (WHERE cum >= ceil({p} * total)), any_value(lo)), "
                f"any_value(hi))::DOUBLE")

    return f"""
        SELECT {keys}, any_value(n)::BIGINT AS n, {q(0.5)} AS p50, {q(0.95)} AS p95, {q(0.99)} AS p99
        FROM (SELECT *, sum(c) OVER (PARTITION BY {keys} ORDER BY bin ROWS UNBOUNDED PRECEDING) AS cum,
                     sum(c) OVER (PARTITION BY {keys}) AS total
              FROM (SELECT {keys}, bin, sum(c) AS c, any_value(n) AS n, any_value(lo) AS lo, any_value(hi) AS hi
                    FROM (SELECT {keys}, unnest(hist_bin) AS bin, unnest(hist_count) AS c,
                                 sum(count) OVER (PARTITION BY {keys}) AS n,
                                 min(min_ns) OVER (PARTITION BY {keys}) AS lo,
                                 max(max_ns) OVER (PARTITION BY {keys}) AS hi
                          FROM {source})
                    GROUP BY ALL))
        GROUP BY ALL"""


def _uncovered(con: duckdb.DuckDBPyConnection) -> str:
    """The raw rows no aggregates cover, with their weight w (rollup.uncovered_sql), as far as the
    calls' columns allow: files without device_id or runtime are all uncovered, without inclusion weigh 1."""
    have = {r[0] for r in con.execute("SELECT column_name FROM (DESCRIBE calls)").fetchall()}
    weight = "1.0 / coalesce(inclusion, 1.0)::DOUBLE" if "inclusion" in have else "1.0::DOUBLE"
    if {"date", "device_class", "device_id", "runtime"} <= have:
        return uncovered_sql("calls", "aggregates", weight)
    return f"(SELECT *, {weight} AS w FROM calls)"


def connect(lake: Lake | Path | str, *, validate: bool = True) -> duckdb.DuckDBPyConnection:
    """A fresh in-memory DuckDB with the lake's views (files validated/quarantined first)."""
    lake = lake if isinstance(lake, Lake) else Lake(lake)
    if validate:
        lake.quarantine()
    con = duckdb.connect(":memory:")
    con.execute("SET TimeZone = 'UTC'")  # hourly trends and dates in UTC, like the partitions
    table_views(con, lake.glob() if lake.files() else None,
                str(lake.aggregates / "*" / "*" / "*.parquet") if lake.aggregate_files() else None)
    if lake.rollup_files():
        rollups = (f"SELECT * FROM read_parquet({_quote(str(lake.rollups / '*' / '*.parquet'))}, "
                   + _PARQUET_OPTS.format(types="'date': DATE") + ")")
    else:
        rollups = _empty(con, "_empty_rollups", ROLLUP_SCHEMA.append(pa.field("date", pa.date32())))
    con.execute(f"CREATE VIEW rollups_daily AS {rollups}")
    # min/max only of rows that timed a call (an interval with none reports 0 for both)
    con.execute("""CREATE VIEW op_counts AS
        SELECT op, variant, device_class, dtype, sum(count)::BIGINT AS n, sum(timed)::BIGINT AS timed,
               sum(sum_ns)::BIGINT AS sum_ns, min(min_ns) FILTER (WHERE timed > 0) AS min_ns,
               max(max_ns) FILTER (WHERE timed > 0) AS max_ns, sum(sum_ns) / sum(count) AS mean
        FROM aggregates GROUP BY ALL""")
    con.execute("CREATE VIEW op_latency_exact AS "
                + hist_quantiles_sql("aggregates", "op, variant, device_class, dtype"))
    # `everypath autotune` run summaries (medians, failures kept as rows): selector/autotune.py
    runs = sorted((lake.root / "autotune").glob("*.parquet"))
    if runs:
        con.execute(f"CREATE VIEW autotune AS SELECT * FROM read_parquet({_quote(str(lake.root / 'autotune' / '*.parquet'))}, "
                    "union_by_name = true)")
    else:
        con.execute(f"CREATE VIEW autotune AS {_empty(con, '_empty_autotune', AUTOTUNE_SCHEMA)}")
    merged = merged_sql(Engine.DUCKDB, "aggregates", "calls_uncovered", ("op", "variant", "device_class", "dtype"),
                        (0.5, 0.95, 0.99), ("p50", "p95", "p99"))
    con.execute(f"""CREATE VIEW op_latency AS
        SELECT op, variant, device_class, dtype, n, p50, p95, p99, sum_ns / n AS mean FROM ({merged})""")
    con.execute("""CREATE VIEW daily AS
        SELECT date, op, variant, device_class, function, n, p50, p95, p99, sum_latency_ns FROM rollups_daily
        UNION ALL SELECT * FROM daily_computed WHERE date NOT IN (SELECT DISTINCT date FROM rollups_daily)""")
    con.execute("""CREATE VIEW trend AS
        SELECT date_trunc('hour', ts) AS hour, op, variant, count(*) AS n, quantile_cont(latency_ns, 0.5) AS p50
        FROM calls GROUP BY ALL""")
    return con


def _vanished(e: Exception) -> bool:
    msg = str(e).lower()
    return any(s in msg for s in ("no such file", "not found", "no files found", "cannot open", "could not open"))


def query(lake: Lake | Path | str, sql: str, params: list[object] | None = None) -> pa.Table:
    """Run SQL against the views; a query racing compactions (a part renamed away between
    the glob and the read) is retried on a fresh connection, a few times with growing pauses."""
    attempts = 6
    for attempt in range(attempts):
        con = None
        try:
            con = connect(lake)  # creating the views reads the parts' footers: it can race too
            rel = con.sql(sql, params=params) if params else con.sql(sql)
            return rel.to_arrow_table() if rel is not None else pa.table({})
        except duckdb.IOException as e:
            if attempt == attempts - 1 or not _vanished(e):
                raise
            time.sleep(0.02 * 2 ** attempt)
        finally:
            if con is not None:
                con.close()
    raise AssertionError("unreachable")

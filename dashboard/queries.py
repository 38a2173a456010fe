"""The dashboard's queries: a DuckDB connection over the lake (telemetry.views.connect) and a
`Filters` value in, a small pandas DataFrame out. Every aggregate runs in DuckDB: no raw rows
reach pandas, which keeps each view well under 2 s on a 10 M-row lake. Call counts and latency
percentiles are of every call (dashboard/counts.py: the exact aggregates, raw rows only where no
aggregates cover them; percentiles within 0.78%); the exploration share, which needs single
calls, is estimated from the raw rows weighted by 1 / inclusion. User values only ever travel as SQL parameters; the only identifiers
formatted into SQL come from the `Column` and `TimeUnit` enums.

Latencies come out in microseconds (columns ending in `_us`); sizes in elements.
"""
from __future__ import annotations

import datetime as dt
import enum
from dataclasses import dataclass, replace
from pathlib import Path

import duckdb
import pandas as pd

from everypath.dashboard import counts

NS_PER_US = 1000.0


class Column(str, enum.Enum):
    """The columns the sidebar filters on (and lists options for)."""

    FUNCTION = "function"
    OP = "op"
    DEVICE_CLASS = "device_class"
    DTYPE = "dtype"


class TimeUnit(str, enum.Enum):
    HOUR = "hour"
    DAY = "day"

    @property
    def seconds(self) -> int:
        return {TimeUnit.HOUR: 3600, TimeUnit.DAY: 86400}[self]


class MissingColumns(LookupError):
    """The lake's files lack columns a view needs (files written before a column existed)."""

    def __init__(self, what: str, missing: tuple[str, ...]) -> None:
        super().__init__(f"{what} needs the column{'s' if len(missing) > 1 else ''} {', '.join(missing)}, "
                         "which this lake's files do not have (written by an older everypath?)")
        self.what = what
        self.missing = missing


@dataclass(frozen=True)
class Filters:
    """What the sidebar selects; empty tuples and None bounds select everything."""

    start: dt.datetime | None = None  # inclusive; naive values are UTC
    end: dt.datetime | None = None  # inclusive
    functions: tuple[str, ...] = ()
    ops: tuple[str, ...] = ()
    device_classes: tuple[str, ...] = ()
    dtypes: tuple[str, ...] = ()

    def columns(self) -> tuple[str, ...]:
        """Columns the filter conditions read."""
        used = [("ts", self.start is not None or self.end is not None)]
        used += [(c.value, bool(v)) for c, v in self._sets()]
        return tuple(name for name, on in used if on)

    def _sets(self) -> tuple[tuple[Column, tuple[str, ...]], ...]:
        return ((Column.FUNCTION, self.functions), (Column.OP, self.ops),
                (Column.DEVICE_CLASS, self.device_classes), (Column.DTYPE, self.dtypes))

    def where(self) -> tuple[str, list[object]]:
        """A WHERE clause ("" when nothing is filtered) and its parameters."""
        clauses: list[str] = []
        params: list[object] = []
        if self.start is not None:
            clauses.append("ts >= ?")
            params.append(_utc(self.start))
        if self.end is not None:
            clauses.append("ts <= ?")
            params.append(_utc(self.end))
        for col, values in self._sets():
            if values:
                clauses.append(f"{col.value} IN ({', '.join('?' * len(values))})")
                params.extend(values)
        return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


def columns(con: duckdb.DuckDBPyConnection) -> frozenset[str]:
    """The columns of the calls view (older files may lack some)."""
    return frozenset(r[0] for r in con.execute("SELECT column_name FROM (DESCRIBE calls)").fetchall())


def _source(con: duckdb.DuckDBPyConnection, f: Filters, what: str, needed: tuple[str, ...]) -> tuple[str, list[object]]:
    """`calls` filtered by f, after checking the columns what needs (and f reads) exist."""
    have = columns(con)
    missing = tuple(dict.fromkeys(c for c in (*needed, *f.columns()) if c not in have))
    if missing:
        raise MissingColumns(what, missing)
    where, params = f.where()
    return f"(SELECT * FROM calls{where})", params


def _df(con: duckdb.DuckDBPyConnection, sql: str, params: list[object]) -> pd.DataFrame:
    df = con.execute(sql, params).df()
    for c in df.columns:  # `ts` is TIMESTAMP_NS holding UTC (DuckDB has no zoned ns type): say so
        if pd.api.types.is_datetime64_dtype(df[c]) and getattr(df[c].dtype, "tz", None) is None:
            df[c] = df[c].dt.tz_localize("UTC")
    return df


def _utc(t: dt.datetime) -> dt.datetime:
    """A naive UTC datetime, as `ts` is stored (comparing it with a zoned value casts every row)."""
    return t.astimezone(dt.timezone.utc).replace(tzinfo=None) if t.tzinfo is not None else t


def options(con: duckdb.DuckDBPyConnection, column: Column) -> list[str]:
    """Distinct non-null values of a filter column in the calls and the aggregates, sorted ([] when
    the calls lack the column and there are no aggregates)."""
    srcs = [f"SELECT DISTINCT {column.value} AS v FROM aggregates"]
    if column.value in columns(con):
        srcs.append(f"SELECT DISTINCT {column.value} FROM calls")
    rows = con.execute(f"SELECT DISTINCT v FROM ({' UNION ALL '.join(srcs)}) WHERE v IS NOT NULL").fetchall()
    return sorted(str(r[0]) for r in rows)


def _aggregates(f: Filters) -> tuple[str, list[object]]:
    where, params = f.where()
    return f"(SELECT * FROM aggregates{where})", params


def totals(con: duckdb.DuckDBPyConnection, f: Filters) -> pd.DataFrame:
    """One row: calls (every call: the aggregates, and raw rows where none cover them), functions,
    operators, devices, device_classes, oldest, newest (ts; of an aggregate: its interval)."""
    src, params = _source(con, f, "Totals", ("ts", "function", "op", "device_id", "device_class"))
    aggs, aparams = _aggregates(f)
    n, nparams = counts.counts(f, ())
    return _df(con, f"""SELECT coalesce((SELECT sum(calls) FROM ({n})), 0)::BIGINT AS calls,
            count(DISTINCT function) AS functions, count(DISTINCT op) AS operators,
            count(DISTINCT device_id) AS devices, count(DISTINCT device_class) AS device_classes,
            min(t0) AS oldest, max(t1) AS newest
        FROM (SELECT function, op, device_id, device_class, ts AS t0, ts AS t1 FROM {src}
              UNION ALL SELECT function, op, device_id, device_class, start, ts FROM {aggs})""",
               [*nparams, *params, *aparams])


def time_bounds(con: duckdb.DuckDBPyConnection, f: Filters) -> pd.DataFrame:
    """One row: oldest, newest (ts) of the filtered calls and aggregate intervals."""
    src, params = _source(con, f, "The time range", ("ts",))
    aggs, aparams = _aggregates(f)
    return _df(con, f"""SELECT min(t0) AS oldest, max(t1) AS newest
        FROM (SELECT ts AS t0, ts AS t1 FROM {src} UNION ALL SELECT start, ts FROM {aggs})""", [*params, *aparams])


FEATURES = ("arch", "isa_level", "cores", "cpu_model", "gpu", "runtime")


def device_classes(con: duckdb.DuckDBPyConnection, f: Filters) -> pd.DataFrame:
    """Per device class: its features (NULL where the files lack them), devices, calls."""
    src, params = _source(con, f, "The device class table", ("device_class", "device_id"))
    have = columns(con)
    aggs, aparams = _aggregates(f)
    n, nparams = counts.counts(f, (counts.column("device_class"),))
    raw = ", ".join(c if c in have else f"NULL AS {c}" for c in FEATURES)
    feats = ", ".join(f"any_value({c}) AS {c}" for c in FEATURES)
    return _df(con, f"""SELECT d.*, coalesce(n.calls, 0)::BIGINT AS calls
        FROM (SELECT device_class, {feats}, count(DISTINCT device_id) AS devices
              FROM (SELECT device_class, device_id, {raw} FROM {src}
                    UNION ALL SELECT device_class, device_id, {", ".join(FEATURES)} FROM {aggs})
              GROUP BY device_class) d
        LEFT JOIN ({n}) n USING (device_class)
        ORDER BY calls DESC, device_class""", [*params, *aparams, *nparams])


def calls_over_time(con: duckdb.DuckDBPyConnection, f: Filters, unit: TimeUnit = TimeUnit.DAY) -> pd.DataFrame:
    """Calls per period (UTC): period, calls (an aggregate interval counts in the period of its end)."""
    _source(con, f, "Calls over time", ("ts",))
    n, params = counts.counts(f, (counts.period(unit),))
    return _df(con, f"SELECT to_timestamp(p * {unit.seconds}) AS period, calls FROM ({n}) ORDER BY p", params)


def time_unit(oldest: dt.datetime | None, newest: dt.datetime | None) -> TimeUnit:
    """Hours for spans up to three days, days beyond (charts stay readable)."""
    if oldest is None or newest is None or pd.isna(oldest) or pd.isna(newest):
        return TimeUnit.DAY
    return TimeUnit.HOUR if newest - oldest <= dt.timedelta(days=3) else TimeUnit.DAY


def _us(names: tuple[str, ...]) -> str:
    return ", ".join(f"{c} / {NS_PER_US} AS {c}_us" for c in names)


def latency_table(con: duckdb.DuckDBPyConnection, f: Filters) -> pd.DataFrame:
    """Per op, variant, device class: calls, p50_us, p95_us, p99_us (merged histograms)."""
    _source(con, f, "The latency table", ("op", "variant", "device_class", "latency_ns"))
    names = ("p50", "p95", "p99")
    m, params = counts.latencies(f, [counts.column(c) for c in ("op", "variant", "device_class")], (0.5, 0.95, 0.99),
                                 names)
    return _df(con, f"SELECT op, variant, device_class, n AS calls, {_us(names)} FROM ({m}) "
               "ORDER BY op, variant, device_class", params)


def latency_boxes(con: duckdb.DuckDBPyConnection, f: Filters) -> pd.DataFrame:
    """Per op and variant: calls and the 5/25/50/75/95th percentiles (µs) for box plots."""
    _source(con, f, "The latency distributions", ("op", "variant", "latency_ns"))
    names = ("p05", "p25", "p50", "p75", "p95")
    m, params = counts.latencies(f, [counts.column("op"), counts.column("variant")], (0.05, 0.25, 0.5, 0.75, 0.95),
                                 names)
    return _df(con, f"SELECT op, variant, n AS calls, {_us(names)} FROM ({m}) ORDER BY op, variant", params)


def latency_histogram(con: duckdb.DuckDBPyConnection, f: Filters, bins_per_octave: int = 4) -> pd.DataFrame:
    """Per op and variant, calls in log2-spaced latency bins: op, variant, lo_us, hi_us, calls."""
    _source(con, f, "The latency histogram", ("op", "variant", "latency_ns"))
    h, params = counts.histogram(f, [counts.column("op"), counts.column("variant")], int(bins_per_octave))
    return _df(con, f"""SELECT op, variant, pow(2, b / ?) / {NS_PER_US} AS lo_us,
            pow(2, (b + 1) / ?) / {NS_PER_US} AS hi_us, calls FROM ({h}) ORDER BY op, variant, lo_us""",
               [float(bins_per_octave)] * 2 + params)


def latency_by_size(con: duckdb.DuckDBPyConnection, f: Filters) -> pd.DataFrame:
    """Per op, variant and log2 size bucket b = floor(log2 n_elements): calls, n_elements =
    2^(b + 0.5) (the bucket's geometric middle, its x position) and the median latency (µs)."""
    _source(con, f, "Latency against input size", ("op", "variant", "n_elements", "latency_ns"))
    m, params = counts.latencies(f, [counts.column("op"), counts.column("variant"), counts.BUCKET], (0.5,), ("p50",))
    return _df(con, f"""SELECT op, variant, bucket, n AS calls, pow(2, bucket + 0.5) AS n_elements,
            p50 / {NS_PER_US} AS p50_us FROM ({m}) ORDER BY op, variant, bucket""", params)


def _explore_share(con: duckdb.DuckDBPyConnection, src: str, keys: str) -> str:
    """Per keys: the share of calls chosen by exploration, estimated from the raw rows (each
    weighing 1 / inclusion: the aggregates do not know which calls explored)."""
    w = "1.0 / coalesce(inclusion, 1.0)::DOUBLE" if "inclusion" in columns(con) else "1.0"
    return f"SELECT {keys}, sum(w * explore::INTEGER) / sum(w) AS share FROM (SELECT *, {w} AS w FROM {src}) GROUP BY ALL"


def bucket_medians(con: duckdb.DuckDBPyConnection, f: Filters) -> pd.DataFrame:
    """Per op, device class, log2 size bucket and variant: calls, calls not exploring
    (production_calls: calls x the raw sample's non-exploring share) and median latency (µs)."""
    src, params = _source(con, f, "Chosen vs oracle",
                          ("op", "device_class", "variant", "n_elements", "latency_ns", "explore"))
    keys = [counts.column("op"), counts.column("device_class"), counts.BUCKET, counts.column("variant")]
    m, mparams = counts.latencies(f, keys, (0.5,), ("p50",))
    share = _explore_share(con, f"(SELECT *, {counts.BUCKET.raw} AS bucket FROM {src})", "op, device_class, bucket, variant")
    return _df(con, f"""SELECT op, device_class, bucket, variant, n AS calls,
            round(n * (1 - s.share))::BIGINT AS production_calls, p50 / {NS_PER_US} AS p50_us
        FROM ({m}) LEFT JOIN ({share}) s USING (op, device_class, bucket, variant)
        ORDER BY op, device_class, bucket, variant""", [*mparams, *params])


def explore_by_op(con: duckdb.DuckDBPyConnection, f: Filters) -> pd.DataFrame:
    """Per op: calls (every call), exploring and share (estimated from the raw rows)."""
    src, params = _source(con, f, "The exploration share", ("op", "explore"))
    n, nparams = counts.counts(f, (counts.column("op"),))
    return _df(con, f"""SELECT op, calls, round(calls * share)::BIGINT AS exploring, share
        FROM ({n}) LEFT JOIN ({_explore_share(con, src, "op")}) USING (op) ORDER BY op""", [*nparams, *params])


def explore_over_time(con: duckdb.DuckDBPyConnection, f: Filters, unit: TimeUnit) -> pd.DataFrame:
    """Per period (UTC): calls, exploring, share (as explore_by_op)."""
    src, params = _source(con, f, "The exploration share over time", ("ts", "explore"))
    key = counts.period(unit)
    n, nparams = counts.counts(f, (key,))
    share = _explore_share(con, f"(SELECT *, {key.raw} AS p FROM {src})", "p")
    return _df(con, f"""SELECT to_timestamp(p * {unit.seconds}) AS period, calls,
            round(calls * share)::BIGINT AS exploring, share
        FROM ({n}) LEFT JOIN ({share}) USING (p) ORDER BY p""", [*nparams, *params])


def functions(con: duckdb.DuckDBPyConnection, f: Filters) -> pd.DataFrame:
    """The functions with calls under the filters: function, calls (busiest first)."""
    _source(con, f, "The function list", ("function",))
    n, params = counts.counts(f, (counts.column("function"),))
    return _df(con, f"SELECT function, calls FROM ({n}) ORDER BY calls DESC, function", params)


def call_sites(con: duckdb.DuckDBPyConnection, f: Filters, function: str) -> pd.DataFrame:
    """One function's operator call sites: call_site, op, variants (comma-separated, sorted),
    calls, p50_us, ordered by the line number."""
    src, params = _source(con, f, "The function drill-down", ("function", "call_site", "op", "variant", "latency_ns"))
    g = replace(f, functions=(function,))
    m, mparams = counts.latencies(g, [counts.column("call_site"), counts.column("op")], (0.5,), ("p50",))
    aggs, aparams = _aggregates(g)
    return _df(con, f"""SELECT call_site, op, v.variants, n AS calls, p50 / {NS_PER_US} AS p50_us
        FROM ({m}) JOIN (SELECT call_site, op, string_agg(DISTINCT variant, ', ' ORDER BY variant) AS variants
                         FROM (SELECT call_site, op, variant FROM {src} WHERE function = ?
                               UNION ALL SELECT call_site, op, variant FROM {aggs}) GROUP BY ALL) v USING (call_site, op)
        ORDER BY TRY_CAST(split_part(call_site, ':', -1) AS BIGINT) NULLS LAST, call_site, op""",
               [*mparams, *params, function, *aparams])


def lake_state(lake: Path) -> str | None:
    """Why there is nothing to show for a lake path (None: it has parts to read). Looks only;
    never creates or moves anything."""
    if not lake.exists():
        return f"There is no lake at {lake} (the directory does not exist)."
    if not lake.is_dir():
        return f"The lake path {lake} is not a directory."
    if not any(any((lake / t).glob("date=*/device_class=*/*.parquet")) for t in ("calls", "aggregates")):
        return f"The lake at {lake} holds no calls yet."
    return None

"""The dashboard's queries: a DuckDB connection over the lake (telemetry.views.connect) and a
`Filters` value in, a small pandas DataFrame out. Every aggregate runs in DuckDB (GROUP BY,
quantile_cont, log2 size buckets): no raw rows reach pandas, which keeps each view well under
2 s on a 10 M-row lake. User values only ever travel as SQL parameters; the only identifiers
formatted into SQL come from the `Column` and `TimeUnit` enums.

Latencies come out in microseconds (columns ending in `_us`); sizes in elements.
"""
from __future__ import annotations

import datetime as dt
import enum
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pandas as pd

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


def _periods(unit: TimeUnit) -> tuple[str, str, list[object]]:
    """(period expression over the grouped `p`, the `p` expression, their parameters): UTC
    periods by integer division of epoch ns, ~5x faster than date_trunc on TIMESTAMPTZ."""
    return "to_timestamp(p * ?)", "epoch_ns(ts) // ?", [unit.seconds, unit.seconds * 10**9]


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
    """Distinct non-null values of a filter column, sorted ([] when the column is missing)."""
    if column.value not in columns(con):
        return []
    rows = con.execute(f"SELECT DISTINCT {column.value} FROM calls WHERE {column.value} IS NOT NULL").fetchall()
    return sorted(str(r[0]) for r in rows)


def totals(con: duckdb.DuckDBPyConnection, f: Filters) -> pd.DataFrame:
    """One row: calls, functions, operators, devices, device_classes, oldest, newest (ts)."""
    src, params = _source(con, f, "Totals", ("ts", "function", "op", "device_id", "device_class"))
    return _df(con, f"""SELECT count(*) AS calls, count(DISTINCT function) AS functions,
        count(DISTINCT op) AS operators, count(DISTINCT device_id) AS devices,
        count(DISTINCT device_class) AS device_classes, min(ts) AS oldest, max(ts) AS newest FROM {src}""", params)


def time_bounds(con: duckdb.DuckDBPyConnection, f: Filters) -> pd.DataFrame:
    """One row: oldest, newest (ts) of the filtered calls."""
    src, params = _source(con, f, "The time range", ("ts",))
    return _df(con, f"SELECT min(ts) AS oldest, max(ts) AS newest FROM {src}", params)


FEATURES = ("arch", "isa_level", "cores", "cpu_model", "gpu", "runtime")


def device_classes(con: duckdb.DuckDBPyConnection, f: Filters) -> pd.DataFrame:
    """Per device class: its features (NULL where the files lack them), devices, calls."""
    src, params = _source(con, f, "The device class table", ("device_class", "device_id"))
    have = columns(con)
    feats = ", ".join(f"any_value({c}) AS {c}" if c in have else f"NULL AS {c}" for c in FEATURES)
    return _df(con, f"""SELECT device_class, {feats}, count(DISTINCT device_id) AS devices, count(*) AS calls
        FROM {src} GROUP BY device_class ORDER BY calls DESC, device_class""", params)


def calls_over_time(con: duckdb.DuckDBPyConnection, f: Filters, unit: TimeUnit = TimeUnit.DAY) -> pd.DataFrame:
    """Calls per period (UTC): period, calls."""
    src, params = _source(con, f, "Calls over time", ("ts",))
    period, p, pparams = _periods(unit)
    return _df(con, f"""SELECT {period} AS period, calls
        FROM (SELECT {p} AS p, count(*) AS calls FROM {src} GROUP BY p) ORDER BY p""", [*pparams, *params])


def time_unit(oldest: dt.datetime | None, newest: dt.datetime | None) -> TimeUnit:
    """Hours for spans up to three days, days beyond (charts stay readable)."""
    if oldest is None or newest is None or pd.isna(oldest) or pd.isna(newest):
        return TimeUnit.DAY
    return TimeUnit.HOUR if newest - oldest <= dt.timedelta(days=3) else TimeUnit.DAY


def latency_table(con: duckdb.DuckDBPyConnection, f: Filters) -> pd.DataFrame:
    """Per op, variant, device class: calls, p50_us, p95_us, p99_us (one quantile_cont)."""
    src, params = _source(con, f, "The latency table", ("op", "variant", "device_class", "latency_ns"))
    return _df(con, f"""SELECT op, variant, device_class, calls, q[1] / {NS_PER_US} AS p50_us,
            q[2] / {NS_PER_US} AS p95_us, q[3] / {NS_PER_US} AS p99_us
        FROM (SELECT op, variant, device_class, count(*) AS calls,
                     quantile_cont(latency_ns, [0.5, 0.95, 0.99]) AS q FROM {src} GROUP BY ALL)
        ORDER BY op, variant, device_class""", params)


def latency_boxes(con: duckdb.DuckDBPyConnection, f: Filters) -> pd.DataFrame:
    """Per op and variant: calls and the 5/25/50/75/95th percentiles (µs) for box plots."""
    src, params = _source(con, f, "The latency distributions", ("op", "variant", "latency_ns"))
    qs = ", ".join(f"q[{i + 1}] / {NS_PER_US} AS p{p:02d}_us" for i, p in enumerate((5, 25, 50, 75, 95)))
    return _df(con, f"""SELECT op, variant, calls, {qs}
        FROM (SELECT op, variant, count(*) AS calls,
                     quantile_cont(latency_ns, [0.05, 0.25, 0.5, 0.75, 0.95]) AS q FROM {src} GROUP BY ALL)
        ORDER BY op, variant""", params)


def latency_histogram(con: duckdb.DuckDBPyConnection, f: Filters, bins_per_octave: int = 4) -> pd.DataFrame:
    """Per op and variant, calls in log2-spaced latency bins: op, variant, lo_us, hi_us, calls."""
    src, params = _source(con, f, "The latency histogram", ("op", "variant", "latency_ns"))
    return _df(con, f"""SELECT op, variant, pow(2, b / ?) / {NS_PER_US} AS lo_us,
            pow(2, (b + 1) / ?) / {NS_PER_US} AS hi_us, calls
        FROM (SELECT op, variant, floor(log2(greatest(latency_ns, 1)) * ?)::INTEGER AS b, count(*) AS calls
              FROM {src} GROUP BY ALL)
        ORDER BY op, variant, lo_us""", [float(bins_per_octave)] * 2 + [bins_per_octave, *params])


def latency_by_size(con: duckdb.DuckDBPyConnection, f: Filters) -> pd.DataFrame:
    """Per op, variant and log2 size bucket b = floor(log2 n_elements): calls, n_elements =
    2^(b + 0.5) (the bucket's geometric middle, its x position: any per-row size statistic
    costs ~15% more) and the median latency (µs)."""
    src, params = _source(con, f, "Latency against input size", ("op", "variant", "n_elements", "latency_ns"))
    return _df(con, f"""SELECT op, variant, bucket, calls, pow(2, bucket + 0.5) AS n_elements, p50 / {NS_PER_US} AS p50_us
        FROM (SELECT op, variant, floor(log2(greatest(n_elements, 1)))::INTEGER AS bucket, count(*) AS calls,
                     quantile_cont(latency_ns, 0.5) AS p50
              FROM {src} GROUP BY ALL)
        ORDER BY op, variant, bucket""", params)


def bucket_medians(con: duckdb.DuckDBPyConnection, f: Filters) -> pd.DataFrame:
    """Per op, device class, log2 size bucket and variant: calls, calls not exploring
    (production_calls) and median latency (µs); what the oracle/chosen comparison needs."""
    src, params = _source(con, f, "Chosen vs oracle",
                          ("op", "device_class", "variant", "n_elements", "latency_ns", "explore"))
    return _df(con, f"""SELECT op, device_class, floor(log2(greatest(n_elements, 1)))::INTEGER AS bucket, variant,
            count(*) AS calls, count(*) FILTER (WHERE NOT explore) AS production_calls,
            quantile_cont(latency_ns, 0.5) / {NS_PER_US} AS p50_us
        FROM {src} GROUP BY ALL ORDER BY op, device_class, bucket, variant""", params)


def explore_by_op(con: duckdb.DuckDBPyConnection, f: Filters) -> pd.DataFrame:
    """Per op: calls, exploring (calls chosen by exploration), share."""
    src, params = _source(con, f, "The exploration share", ("op", "explore"))
    return _df(con, f"""SELECT op, count(*) AS calls, count(*) FILTER (WHERE explore) AS exploring,
            avg(explore::INTEGER) AS share FROM {src} GROUP BY op ORDER BY op""", params)


def explore_over_time(con: duckdb.DuckDBPyConnection, f: Filters, unit: TimeUnit) -> pd.DataFrame:
    """Per period (UTC): calls, exploring, share."""
    src, params = _source(con, f, "The exploration share over time", ("ts", "explore"))
    period, p, pparams = _periods(unit)
    return _df(con, f"""SELECT {period} AS period, calls, exploring, share
        FROM (SELECT {p} AS p, count(*) AS calls, count(*) FILTER (WHERE explore) AS exploring,
                     avg(explore::INTEGER) AS share FROM {src} GROUP BY p) ORDER BY p""", [*pparams, *params])


def functions(con: duckdb.DuckDBPyConnection, f: Filters) -> pd.DataFrame:
    """The functions with calls under the filters: function, calls (busiest first)."""
    src, params = _source(con, f, "The function list", ("function",))
    return _df(con, f"SELECT function, count(*) AS calls FROM {src} GROUP BY function ORDER BY calls DESC, function",
               params)


def call_sites(con: duckdb.DuckDBPyConnection, f: Filters, function: str) -> pd.DataFrame:
    """One function's operator call sites: call_site, op, variants (comma-separated, sorted),
    calls, p50_us, ordered by the line number."""
    src, params = _source(con, f, "The function drill-down", ("function", "call_site", "op", "variant", "latency_ns"))
    return _df(con, f"""SELECT call_site, op, string_agg(DISTINCT variant, ', ' ORDER BY variant) AS variants,
            count(*) AS calls, quantile_cont(latency_ns, 0.5) / {NS_PER_US} AS p50_us
        FROM {src} WHERE function = ?
        GROUP BY call_site, op
        ORDER BY TRY_CAST(split_part(call_site, ':', -1) AS BIGINT) NULLS LAST, call_site, op""",
               [*params, function])


def lake_state(lake: Path) -> str | None:
    """Why there is nothing to show for a lake path (None: it has parts to read). Looks only;
    never creates or moves anything."""
    if not lake.exists():
        return f"There is no lake at {lake} (the directory does not exist)."
    if not lake.is_dir():
        return f"The lake path {lake} is not a directory."
    if not any((lake / "calls").glob("date=*/device_class=*/*.parquet")):
        return f"The lake at {lake} holds no calls yet."
    return None

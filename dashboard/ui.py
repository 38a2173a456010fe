"""Streamlit plumbing the pages share: the app's arguments, the cached read-only lake
connection, cached query results, the sidebar filters and the page context.

The connection is opened with telemetry.views.connect(lake, validate=False): validation
would move unreadable parts to quarantine, and the dashboard never writes to the lake. One
DuckDB connection serves every session (st.cache_resource) behind a lock (a connection is
not thread-safe, and cursors cannot see the empty lake's registered views); results are
cached per (lake, query, filters) with st.cache_data. Both expire after CACHE_TTL_S so new
parts (and a lake that was empty at first) show up.
"""
from __future__ import annotations

import argparse
import datetime as dt
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import duckdb
import pandas as pd
import streamlit as st

from everypath.dashboard import queries
from everypath.dashboard.queries import Column, Filters
from everypath.dashboard.registry_view import RegistryView, read_registry

CACHE_TTL_S = 60
CONTEXT_KEY = "everypath_dashboard_context"
FILTER_LABELS = {Column.FUNCTION: "Function", Column.OP: "Operator", Column.DEVICE_CLASS: "Device class",
                 Column.DTYPE: "Dtype"}
TIME_RANGE_LABEL = "Time range"


@dataclass(frozen=True)
class Config:
    lake: Path
    registry: Path


@dataclass(frozen=True)
class Context:
    """What a page needs: where the data is, why there is none (problem), the filters."""

    config: Config
    problem: str | None  # a message for an absent or empty lake (None: there are calls)
    filters: Filters


def parse_args(argv: list[str]) -> Config:
    """--lake and --registry after `streamlit run dashboard/app.py --`; defaults from Settings.
    Unknown arguments are ignored (under AppTest the process's argv is pytest's)."""
    from everypath.base.settings import Settings

    s = Settings.from_env()
    p = argparse.ArgumentParser(prog="dashboard/app.py", allow_abbrev=False, add_help=False, exit_on_error=False)
    p.add_argument("--lake", type=Path, default=s.lake)
    p.add_argument("--registry", type=Path, default=s.registry)
    args, _ = p.parse_known_args(argv)
    return Config(args.lake.expanduser(), args.registry.expanduser())


@dataclass(frozen=True)
class _Handle:
    con: duckdb.DuckDBPyConnection
    lock: threading.Lock


@st.cache_resource(ttl=CACHE_TTL_S, show_spinner=False)
def _handle(lake: str) -> _Handle:
    from everypath.telemetry.views import connect

    return _Handle(connect(Path(lake), validate=False), threading.Lock())


def _call(lake: str, fn: Callable[[duckdb.DuckDBPyConnection], pd.DataFrame]) -> pd.DataFrame:
    for attempt in range(2):
        h = _handle(lake)
        with h.lock:
            try:
                return fn(h.con)
            except duckdb.IOException:
                # a compaction renamed a part away under the view's glob: reconnect once
                if attempt:
                    raise
        _handle.clear()
    raise AssertionError("unreachable")


QUERIES: dict[str, Callable[..., pd.DataFrame]] = {
    name: getattr(queries, name) for name in (
        "totals", "time_bounds", "device_classes", "calls_over_time", "latency_table", "latency_boxes", "latency_histogram",
        "latency_by_size", "bucket_medians", "explore_by_op", "explore_over_time", "functions", "call_sites")}


@st.cache_data(ttl=CACHE_TTL_S, show_spinner=False)
def query(lake: str, name: str, filters: Filters, *args: object) -> pd.DataFrame:
    """queries.<name>(con, filters, *args) on the lake, cached per arguments."""
    return _call(lake, lambda con: QUERIES[name](con, filters, *args))


@st.cache_data(ttl=CACHE_TTL_S, show_spinner=False)
def options(lake: str, column: Column) -> list[str]:
    return list(_call(lake, lambda con: pd.DataFrame({"v": queries.options(con, column)}))["v"])


@st.cache_data(ttl=CACHE_TTL_S, show_spinner=False)
def registry(root: str, stamp: float) -> RegistryView:
    """The registry view; stamp (index.json's mtime) makes a retrain show up at once."""
    return read_registry(Path(root))


def time_unit(lake: str, f: Filters) -> queries.TimeUnit:
    """Hours or days for the filtered span, from the lake's bounds (cached for the sidebar)
    clipped to the time filter: no extra scan."""
    b = query(lake, "time_bounds", Filters()).iloc[0]
    lo, hi = b["oldest"], b["newest"]
    if f.start is not None and not pd.isna(lo):
        lo = max(lo, pd.Timestamp(f.start).tz_localize("UTC") if f.start.tzinfo is None else pd.Timestamp(f.start))
    if f.end is not None and not pd.isna(hi):
        hi = min(hi, pd.Timestamp(f.end).tz_localize("UTC") if f.end.tzinfo is None else pd.Timestamp(f.end))
    return queries.time_unit(lo, hi)


def registry_view(cfg: Config) -> RegistryView:
    index = cfg.registry / "index.json"
    return registry(str(cfg.registry), index.stat().st_mtime if index.exists() else 0.0)


def _step(span: dt.timedelta) -> dt.timedelta:
    if span <= dt.timedelta(days=2):
        return dt.timedelta(minutes=1)
    return dt.timedelta(hours=1) if span <= dt.timedelta(days=90) else dt.timedelta(days=1)


def _floor(t: dt.datetime, step: dt.timedelta) -> dt.datetime:
    epoch = dt.datetime(1970, 1, 1)
    return epoch + ((t - epoch) // step) * step


def _time_range(lake: str) -> tuple[dt.datetime | None, dt.datetime | None]:
    """The sidebar's time slider (naive UTC datetimes); (None, None) when it spans everything."""
    tot = query(lake, "time_bounds", Filters())
    oldest, newest = tot["oldest"].iloc[0], tot["newest"].iloc[0]
    if pd.isna(oldest) or pd.isna(newest):
        return None, None
    oldest = pd.Timestamp(oldest).tz_convert("UTC").tz_localize(None).to_pydatetime()
    newest = pd.Timestamp(newest).tz_convert("UTC").tz_localize(None).to_pydatetime()
    step = _step(newest - oldest)
    lo, hi = _floor(oldest, step), _floor(newest, step) + step  # hi > newest: the full range keeps every call
    # new calls move the bounds (the caches expire): a full range stays full, a narrower one is
    # kept, clipped (Streamlit alone would reset it to the full range whenever the bounds change)
    key, before = "filter_time_range", st.session_state.get("filter_time_range_bounds")
    if key not in st.session_state:
        st.session_state[key] = (lo, hi)
    elif before != (lo, hi):
        a, b = st.session_state[key]
        a, b = (lo, hi) if (a, b) == before else (min(max(a, lo), hi), max(min(b, hi), lo))
        st.session_state[key] = (a, b) if a < b else (lo, hi)
    st.session_state["filter_time_range_bounds"] = (lo, hi)
    start, end = st.slider(TIME_RANGE_LABEL, min_value=lo, max_value=hi, step=step, format="YYYY-MM-DD HH:mm",
                           key=key, help="UTC")
    utc = dt.timezone.utc
    return (None if start <= lo else start.replace(tzinfo=utc)), (None if end >= hi else end.replace(tzinfo=utc))


def sidebar(cfg: Config) -> Context:
    """Render the filters (every page shows the same ones) and return the page context."""
    problem = queries.lake_state(cfg.lake)
    lake = str(cfg.lake)
    with st.sidebar:
        st.caption(f"Lake: `{cfg.lake}`  \nRegistry: `{cfg.registry}`")
        if problem is not None:
            st.caption("Filters appear once the lake holds calls.")
            return Context(cfg, problem, Filters())
        try:
            start, end = _time_range(lake)
            choices = {c: options(lake, c) for c in FILTER_LABELS}
        except (queries.MissingColumns, duckdb.Error) as exc:
            st.warning(str(exc) if isinstance(exc, queries.MissingColumns) else read_failure(exc))
            start, end, choices = None, None, {c: [] for c in FILTER_LABELS}
        chosen = {c: tuple(st.multiselect(label, choices[c], key=f"filter_{c.value}", placeholder=f"All ({len(choices[c])})",
                                          disabled=not choices[c]))
                  for c, label in FILTER_LABELS.items()}
    return Context(cfg, None, Filters(start, end, chosen[Column.FUNCTION], chosen[Column.OP],
                                      chosen[Column.DEVICE_CLASS], chosen[Column.DTYPE]))


def context() -> Context:
    """The context app.py computed for this run (pages are only run through app.py)."""
    return st.session_state[CONTEXT_KEY]


def lake_problem(ctx: Context) -> bool:
    """Show why there is nothing to see (absent or empty lake); True when that is the case."""
    if ctx.problem is None:
        return False
    hint = (f"Start the dashboard with `--lake DIR`, or write a synthetic fleet: "
            f"`everypath telemetry simulate --lake {ctx.config.lake}`.")
    if ctx.config.lake.exists():
        st.info(f"{ctx.problem} Compiled functions record their operator calls as they run (docs/telemetry.md). {hint}")
    else:
        st.warning(f"{ctx.problem} {hint}")
    return True


def read_failure(exc: duckdb.Error) -> str:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return (f"Reading the lake failed: {first}. A damaged or foreign part file can cause this; "
            "`everypath telemetry query --lake LAKE 'SELECT 1'` moves such files to LAKE/quarantine "
            "(the dashboard itself never moves or writes anything).")


def section(fn: Callable[[], None]) -> None:
    """Run one part of a page; a lake whose files lack its columns gets a warning instead,
    one that cannot be read an error message (never a traceback)."""
    try:
        fn()
    except queries.MissingColumns as exc:
        st.warning(str(exc))
    except duckdb.Error as exc:
        st.error(read_failure(exc))


def no_rows(df: pd.DataFrame, what: str) -> bool:
    if df.empty:
        st.info(f"No calls match the filters for {what}.")
        return True
    return False


def chart(key: str, built: object) -> None:
    """An Altair chart in a container with a stable key (CSS class st-key-chart-<key>)."""
    with st.container(key=f"chart-{key}"):
        st.altair_chart(built)  # type: ignore[arg-type]


def us(label: str) -> object:
    return st.column_config.NumberColumn(label, format="%.2f")


def table(key: str, df: pd.DataFrame, columns: dict[str, object]) -> None:
    """A dataframe in a container with a stable key (CSS class st-key-table-<key>); columns
    maps the frame's columns to their headers (a str) or column configs, in display order."""
    with st.container(key=f"table-{key}"):
        st.dataframe(df[list(columns)], hide_index=True,
                     column_config={c: (v if not isinstance(v, str) else st.column_config.Column(v))
                                    for c, v in columns.items()})


def age(delta: dt.timedelta) -> str:
    """A short human duration: 45 s, 12 min, 5 h 3 min, 3 d 4 h."""
    s = max(0, int(delta.total_seconds()))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min"
    if s < 86400:
        return f"{s // 3600} h {s % 3600 // 60} min"
    return f"{s // 86400} d {s % 86400 // 3600} h"


def when(t: object) -> str:
    return "–" if t is None or pd.isna(t) else pd.Timestamp(t).tz_convert("UTC").strftime("%Y-%m-%d %H:%M:%S UTC")

"""The Streamlit app through AppTest (real script runs, real DuckDB over a real lake): every
page renders, every sidebar filter changes every page's tables and metrics to what pandas
computes on the raw rows, and absent/empty/old/damaged lakes and an empty registry give
messages, never a traceback. Plus the `everypath dashboard` command (busy port, real launch)."""
from __future__ import annotations

import datetime as dt
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from click.testing import CliRunner
from streamlit.testing.v1 import AppTest

from everypath.dashboard.source import NOT_AVAILABLE
from everypath.selector.simulate import simulate
from everypath.telemetry.aggregates import RELATIVE_ERROR
from everypath.telemetry.lake import Lake
from everypath.telemetry.records import CallSite, RawCalls, to_batch
from tests.dashboard._data import CFG, write_old_part

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"
PAGES = {"views/fleet.py": "Fleet overview", "views/latency.py": "Latency explorer", "views/selector.py": "Selector",
         "views/drilldown.py": "Function drill-down"}
MakeApp = Callable[..., AppTest]


@pytest.fixture
def make_app(monkeypatch: pytest.MonkeyPatch, lake: Path, registry: Path) -> MakeApp:
    def make(lake_dir: Path = lake, registry_dir: Path = registry) -> AppTest:
        monkeypatch.setenv("EVERYPATH_LAKE", str(lake_dir))  # the app's defaults come from Settings
        monkeypatch.setenv("EVERYPATH_REGISTRY", str(registry_dir))
        return AppTest.from_file(str(APP), default_timeout=30).run()  # pages switch only after a first run
    return make


def show(at: AppTest, page: str) -> AppTest:
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    assert [t.value for t in at.title] == [PAGES[page]]
    return at


def _find(node: object, key: str) -> object | None:
    if getattr(node, "key", None) == key:
        return node
    children = getattr(node, "children", None)
    for child in (children.values() if isinstance(children, dict) else []):
        hit = _find(child, key)
        if hit is not None:
            return hit
    return None


def table(at: AppTest, key: str) -> pd.DataFrame:
    block = _find(at._tree, f"table-{key}")
    assert block is not None, f"no table {key}"
    return block.children[0].value  # type: ignore[attr-defined]


def chart_title(at: AppTest, key: str) -> str:
    block = _find(at._tree, f"chart-{key}")
    assert block is not None, f"no chart {key}"
    title = json.loads(block.children[0].proto.spec)["title"]  # type: ignore[attr-defined]
    return title if isinstance(title, str) else title["text"]


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_every_page_renders_its_parts(make_app: MakeApp, raw: pd.DataFrame) -> None:
    at = make_app()
    show(at, "views/fleet.py")
    assert metric(at, "Calls") == f"{len(raw):,}" and metric(at, "Devices") == str(raw["device_id"].nunique())
    assert metric(at, "Newest call") == raw["ts"].max().strftime("%Y-%m-%d %H:%M:%S UTC")
    assert set(table(at, "device-classes")["device_class"]) == set(raw["device_class"])
    assert chart_title(at, "calls-over-time") == "Calls per hour"  # the simulated fleet spans hours
    show(at, "views/latency.py")
    assert len(table(at, "latency-percentiles")) == raw.groupby(["op", "variant", "device_class"]).ngroups
    assert chart_title(at, "latency-size").startswith("Median latency against input size")
    assert chart_title(at, "latency-histogram").startswith("Latency histogram")
    assert _find(at._tree, "chart-latency-boxes") is None  # box plots are one more pass: off by default
    at.toggle(key="latency_box_plots").set_value(True).run()
    assert chart_title(at, "latency-boxes").startswith("Latency distribution")
    show(at, "views/selector.py")
    versions = table(at, "model-versions")
    assert len(versions) == 1 and versions["current"].all() and metric(at, "Model versions") == "1"
    assert chart_title(at, "model-metrics") == "Holdout metrics over model versions"
    buckets = table(at, "chosen-vs-oracle-buckets")
    assert (buckets["chosen_by"] == "selection table").mean() > 0.5  # the promoted table decides most buckets
    assert float(metric(at, "Chosen / oracle latency (call-weighted)")) >= 1.0
    assert metric(at, "Calls spent exploring") == f"{raw['explore'].mean():.2%}"
    assert chart_title(at, "explore-over-time").startswith("Share of calls spent exploring")
    show(at, "views/drilldown.py")
    busiest = raw["function"].value_counts()
    assert at.selectbox(key="drilldown_function").value == sorted(busiest.index, key=lambda f: (-busiest[f], f))[0]
    sites = table(at, "call-sites")
    assert (sites["source"] == NOT_AVAILABLE).all()  # sim.kernels is no importable module


def _expect(at: AppTest, raw: pd.DataFrame, m: pd.Series) -> None:
    """Every page under the filter that selects raw[m]."""
    sub = raw[m]
    show(at, "views/fleet.py")
    assert metric(at, "Calls") == f"{len(sub):,}"
    assert metric(at, "Functions") == str(sub["function"].nunique())
    dcs = table(at, "device-classes")
    assert set(dcs["device_class"]) == set(sub["device_class"]) and dcs["calls"].sum() == len(sub)
    show(at, "views/latency.py")
    lat = table(at, "latency-percentiles")
    assert lat["calls"].sum() == len(sub) and set(lat["op"]) == set(sub["op"])
    first = lat.iloc[0]
    g = sub[(sub["op"] == first["op"]) & (sub["variant"] == first["variant"])
            & (sub["device_class"] == first["device_class"])]["latency_ns"]
    exact = float(np.percentile(g, 95, method="inverted_cdf")) / 1000  # merged histograms: nearest rank, <= 0.78%
    assert abs(first["p95_us"] - exact) <= RELATIVE_ERROR * exact
    show(at, "views/selector.py")
    assert table(at, "chosen-vs-oracle-buckets")["calls"].sum() == len(sub)
    assert set(table(at, "chosen-vs-oracle-summary")["op"]) <= set(sub["op"])
    assert metric(at, "Calls spent exploring") == f"{sub['explore'].mean():.2%}"
    show(at, "views/drilldown.py")
    box = at.selectbox(key="drilldown_function")
    assert sorted(box.options) == sorted(sub["function"].unique())
    sites = table(at, "call-sites")
    assert sites["calls"].sum() == (sub["function"] == box.value).sum()


@pytest.mark.parametrize("which", ["time", "function", "op", "device_class", "dtype"])
def test_each_filter_changes_every_page(make_app: MakeApp, raw: pd.DataFrame, which: str) -> None:
    at = make_app()
    show(at, "views/fleet.py")
    if which == "time":
        lo, _ = at.sidebar.slider(key="filter_time_range").value
        start, end = lo + dt.timedelta(minutes=20), lo + dt.timedelta(minutes=50)
        at.sidebar.slider(key="filter_time_range").set_range(start, end)
        utc = dt.timezone.utc
        m = (raw["ts"] >= pd.Timestamp(start.replace(tzinfo=utc))) & (raw["ts"] <= pd.Timestamp(end.replace(tzinfo=utc)))
    else:
        values = sorted(raw[which].unique())
        pick = [values[1]] if which != "op" else values[:2]
        at.sidebar.multiselect(key=f"filter_{which}").set_value(pick)
        m = raw[which].isin(pick)
    assert 0 < m.sum() < len(raw)
    _expect(at, raw, m)


def test_new_calls_extend_a_full_time_range_and_keep_a_narrow_one(make_app: MakeApp, tmp_path: Path) -> None:
    import streamlit as st

    batches = simulate(CFG)[:4]  # device i's calls start i x 1000 s after the first device's
    lake = Lake(tmp_path / "lake")
    lake.publish(pa.Table.from_batches(batches[:2]))
    at = make_app(tmp_path / "lake")
    assert metric(at, "Calls") == f"{sum(b.num_rows for b in batches[:2]):,}"

    def more(batch: pa.RecordBatch) -> None:
        lake.publish(batch)
        st.cache_data.clear()  # what the 60 s expiry does
        st.cache_resource.clear()
        show(at, "views/fleet.py")

    more(batches[2])
    assert metric(at, "Calls") == f"{sum(b.num_rows for b in batches[:3]):,}"
    lo, hi = at.sidebar.slider(key="filter_time_range").value
    assert hi - lo > dt.timedelta(minutes=33)
    at.sidebar.slider(key="filter_time_range").set_range(lo + dt.timedelta(minutes=10), lo + dt.timedelta(minutes=20))
    more(batches[3])
    assert at.sidebar.slider(key="filter_time_range").value == (lo + dt.timedelta(minutes=10),
                                                                lo + dt.timedelta(minutes=20))
    assert metric(at, "Calls") == f"{batches[1].num_rows:,}"  # only the second device called in that window


def test_missing_and_empty_lakes_and_registry(make_app: MakeApp, tmp_path: Path) -> None:
    absent, empty_reg = tmp_path / "no-lake", tmp_path / "no-registry"
    at = make_app(absent, empty_reg)
    for page in PAGES:
        show(at, page)
        assert any("There is no lake at" in w.value for w in at.warning), page
        if page == "views/selector.py":
            assert any("has no models yet" in i.value for i in at.info)
    assert not absent.exists() and not empty_reg.exists()  # nothing created
    (tmp_path / "empty").mkdir()
    at = make_app(tmp_path / "empty")
    for page in PAGES:
        show(at, page)
        assert any("holds no calls yet" in i.value for i in at.info), page
        if page == "views/selector.py":  # the registry part does not need the lake
            assert len(table(at, "model-versions")) == 1


def test_old_files_and_a_damaged_part_give_messages(make_app: MakeApp, tmp_path: Path) -> None:
    old = tmp_path / "old"
    write_old_part(old, pa.Table.from_batches(simulate(CFG)[:1]).slice(0, 400), ("explore", "propensity"))
    at = make_app(old)
    show(at, "views/fleet.py")
    assert metric(at, "Calls") == "400"
    show(at, "views/selector.py")
    assert sum("explore" in w.value and "older everypath" in w.value for w in at.warning) == 2
    bad = Lake(tmp_path / "bad").partition_dir(dt.date(2026, 1, 2), "x") / "part-bad.parquet"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"not parquet at all")
    at = make_app(tmp_path / "bad")
    for page in PAGES:
        show(at, page)
        assert any("Reading the lake failed" in e.value for e in at.error), page
    assert bad.exists() and not (tmp_path / "bad" / "quarantine").exists()  # read-only: never quarantined


def test_drilldown_shows_the_source_line(make_app: MakeApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "src" / "dash_app_probe"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "kern.py").write_text("import numpy as np\n\ndef kernel(x):\n    y = np.sort(x)\n    return np.sum(y)\n")
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    sites = [CallSite("dash_app_probe.kern.kernel", "numpy.sort", "kern.py:4", "float64", ("loops", "threads")),
             CallSite("dash_app_probe.kern.kernel", "numpy.sum", "kern.py:5", "float64", ("loops", "simd"))]
    n = 40
    r = np.random.default_rng(1)
    rawc = RawCalls(ts_ns=1_767_225_600_000_000_000 + np.arange(n, dtype=np.int64) * 10**9,
                    latency_ns=r.integers(1000, 9000, n), site=np.arange(n, dtype=np.int32) % 2,
                    variant=(np.arange(n) // 2 % 2).astype(np.int16), ndim=np.ones(n, np.int8),
                    shape=np.tile([[64, 0, 0, 0]], (n, 1)).astype(np.int64), n_elements=np.full(n, 64),
                    threads=np.ones(n, np.int16), explore=np.zeros(n, bool), propensity=np.ones(n, np.float32))
    device = {"device_id": "d" * 64, "device_class": "probeclass01", "runtime": "cpython-extension"}
    Lake(tmp_path / "lake").publish(to_batch(rawc, sites, device))
    at = make_app(tmp_path / "lake")
    show(at, "views/drilldown.py")
    got = table(at, "call-sites")
    assert list(got["call_site"]) == ["kern.py:4", "kern.py:5"]
    assert list(got["source"]) == ["y = np.sort(x)", "return np.sum(y)"]
    assert list(got["variants"]) == ["loops, threads", "loops, simd"] and list(got["calls"]) == [20, 20]
    assert "dash_app_probe" not in sys.modules


def test_cli_refuses_a_busy_port(tmp_path: Path) -> None:
    from everypath.cli import main

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        out = CliRunner().invoke(main, ["dashboard", "--lake", str(tmp_path), "--port", str(port)])
    assert out.exit_code == 2 and "--port" in out.output and f"127.0.0.1:{port} is not available" in out.output


def test_app_arguments(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from everypath.dashboard.ui import Config, parse_args

    monkeypatch.setenv("EVERYPATH_LAKE", str(tmp_path / "env-lake"))
    monkeypatch.setenv("EVERYPATH_REGISTRY", str(tmp_path / "env-reg"))
    assert parse_args(["--lake", "/l", "--registry=/r"]) == Config(Path("/l"), Path("/r"))
    assert parse_args(["-q", "--unrelated"]) == Config(tmp_path / "env-lake", tmp_path / "env-reg")
    assert parse_args(["--la", "/l"]).lake == tmp_path / "env-lake"  # no abbreviations: pytest's argv is no match


def test_streamlit_is_started_local_headless_and_without_usage_statistics(tmp_path: Path) -> None:
    from everypath.dashboard.cli import streamlit_command

    cmd = streamlit_command(tmp_path / "l", tmp_path / "r", "127.0.0.1", 8599)
    assert cmd[:4] == [sys.executable, "-m", "streamlit", "run"] and cmd[4] == str(APP)
    flags = dict(zip(cmd[5:cmd.index("--")][::2], cmd[5:cmd.index("--")][1::2]))
    assert flags == {"--server.address": "127.0.0.1", "--server.port": "8599", "--server.headless": "true",
                     "--browser.gatherUsageStats": "false", "--client.toolbarMode": "viewer"}
    assert cmd[cmd.index("--") + 1:] == ["--lake", str(tmp_path / "l"), "--registry", str(tmp_path / "r")]


def test_cli_serves_and_stops_on_ctrl_c(lake: Path, registry: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "everypath.cli", "dashboard", "--lake", str(lake), "--registry",
                             str(registry), "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        deadline, body = time.monotonic() + 30, ""
        while time.monotonic() < deadline and body != "ok":
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1) as resp:
                    body = resp.read().decode()
            except OSError:
                time.sleep(0.2)
        assert body == "ok"
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert f"http://127.0.0.1:{port}" in (proc.stdout.read() if proc.stdout else "")

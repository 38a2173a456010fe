"""The dashboard in a real browser: `everypath dashboard` served on 127.0.0.1 over the small
simulated lake and its registry (tests/dashboard/conftest.py), driven by Playwright in
Debian's Chromium. Every page renders its charts (by their titles, with a non-zero size and
drawn marks) and no exception; time axes read UTC whatever the browser's time zone; the
Operator filter redraws the Latency explorer's charts and table and carries over to the
Fleet overview; an empty lake gives the helpful message."""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pandas as pd
import pytest

from tests.dashboard._browser import BOXES, PAGES, DashboardBrowser, DashboardServer, PageSpec, missing_requirement

pytestmark = pytest.mark.browser
_missing = missing_requirement()
if _missing is not None:
    pytest.skip(f"browser test needs Chromium and Playwright: {_missing}", allow_module_level=True)


@pytest.fixture(scope="module")
def server(lake: Path, registry: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[DashboardServer]:
    with DashboardServer(lake, registry, tmp_path_factory.mktemp("dash-server") / "server.log") as s:
        yield s


@pytest.fixture(scope="module")
def browser(server: DashboardServer) -> Iterator[DashboardBrowser]:
    b = DashboardBrowser(server.url)
    yield b
    b.close()


def _no_problems(b: DashboardBrowser) -> None:
    assert b.texts("stException") == []
    assert b.texts("stAlert") == []  # the simulated lake and registry give no warning, error or info


@pytest.mark.parametrize("spec", PAGES, ids=[p.title for p in PAGES])
def test_page_renders_its_charts(browser: DashboardBrowser, spec: PageSpec) -> None:
    browser.goto(spec.slug)
    assert browser.heading() == spec.title
    assert browser.nav_links() == [p.title for p in PAGES]
    _no_problems(browser)
    for key, title in spec.charts:
        c = browser.chart(key)
        assert c.titles and c.titles[-1] == title, (key, c.titles)
        assert c.width > 100 and c.height > 100 and c.marks > 0, c
    for key in spec.tables:
        assert browser.table_rows(key) > 0, key


def test_viewers_get_no_developer_toolbar(browser: DashboardBrowser) -> None:
    """Served on localhost, Streamlit's default toolbar mode would show Deploy; `everypath dashboard` hides it."""
    browser.goto("")
    assert browser.page.locator('[data-testid="stMainMenu"]').count() == 1  # the page and its menu did render
    assert browser.page.locator('[data-testid="stAppDeployButton"]').count() == 0


def test_time_axes_read_utc_in_any_time_zone(browser: DashboardBrowser) -> None:
    """The axis title says UTC, so the labels must not follow the browser's local time."""
    browser.goto("")
    utc = browser.chart("chart-calls-over-time").axis_labels
    assert any("00:00" in label for label in utc), utc  # the simulated fleet starts at 2026-01-01 00:00 UTC
    with browser.time_zone("America/New_York"):
        browser.goto("")
        assert browser.chart("chart-calls-over-time").axis_labels == utc


def test_operator_filter_redraws_the_latency_explorer(browser: DashboardBrowser, raw: pd.DataFrame) -> None:
    ops = sorted(raw["op"].unique())
    pick = ops[-1]
    browser.goto("latency")
    hist, size = browser.chart("chart-latency-histogram"), browser.chart("chart-latency-size")
    assert set(ops) <= set(hist.titles) and set(ops) <= set(size.titles)  # one facet per operator
    assert browser.table_rows("table-latency-percentiles") == raw.groupby(["op", "variant", "device_class"]).ngroups

    browser.select("Operator", pick)
    hist2, size2 = browser.chart_changed(hist), browser.chart_changed(size)
    for before, after in ((hist, hist2), (size, size2)):
        assert set(after.titles) & set(ops) == {pick}, after.titles  # the other operators' facets are gone
        assert 0 < after.marks < before.marks and after.width > 100 and after.height > 100
    sub = raw[raw["op"] == pick]
    assert browser.table_rows("table-latency-percentiles") == sub.groupby(["variant", "device_class"]).ngroups
    assert set(browser.table_column("table-latency-percentiles", 1)) == {pick}
    _no_problems(browser)

    browser.toggle("Box plots")  # the extra chart follows the filter too
    boxes = browser.chart(BOXES[0])
    assert boxes.titles[-1] == BOXES[1] and set(boxes.titles) & set(ops) == {pick} and boxes.marks > 0

    browser.click_nav("Fleet overview")  # the filters live in the sidebar: they hold across pages
    assert browser.path() == "/" and browser.heading() == "Fleet overview"
    assert browser.metric("Calls") == f"{len(sub):,}" and browser.metric("Operators") == "1"
    assert browser.chart("chart-calls-over-time").marks > 0
    _no_problems(browser)


def test_empty_lake_shows_the_message(browser: DashboardBrowser, tmp_path: Path) -> None:
    (tmp_path / "lake").mkdir()
    with DashboardServer(tmp_path / "lake", tmp_path / "registry", tmp_path / "server.log") as empty:
        for spec in PAGES:
            browser.goto(spec.slug, empty.url)
            assert browser.heading() == spec.title
            assert browser.texts("stException") == []
            alerts = browser.texts("stAlert")
            assert any(f"The lake at {tmp_path / 'lake'} holds no calls yet." in a for a in alerts), alerts
            assert browser.page.locator('[data-testid="stVegaLiteChart"]').count() == 0
            if spec.slug == "selector":  # the registry part does not need the lake
                assert any("has no models yet" in a for a in alerts), alerts
        assert "Filters appear once the lake holds calls." in browser.page.locator('[data-testid="stSidebar"]').inner_text()
    assert not (tmp_path / "registry").exists()  # read-only: nothing created

"""Real-browser harness for the dashboard: `everypath dashboard` served on 127.0.0.1 as a
subprocess, driven by Playwright in Debian's Chromium (/usr/bin/chromium, installed by
`make setup`; Playwright never downloads a browser here).

Used by tests/dashboard/test_browser.py and bench/dashboard_screenshots.py. The expected page
titles, chart titles and container keys are the ones docs/dashboard.md lists (written out
here, not imported from the app, so a renamed chart fails the test)."""
from __future__ import annotations

import hashlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Callable, Iterator

CHROMIUM = Path("/usr/bin/chromium")
# headless, and nothing that phones home or updates itself (the machine has no browser downloads)
CHROMIUM_ARGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync")
VIEWPORT = {"width": 1400, "height": 1000}
READY_TIMEOUT_S = 60.0
IDLE_TIMEOUT_MS = 60_000


@dataclass(frozen=True)
class PageSpec:
    slug: str  # URL path of the page ("" is the default page)
    title: str  # navigation entry and st.title
    charts: tuple[tuple[str, str], ...]  # (container key, chart title) on the simulated lake
    tables: tuple[str, ...]  # table container keys


PAGES = (
    PageSpec("", "Fleet overview", (("chart-calls-over-time", "Calls per hour"),), ("table-device-classes",)),
    PageSpec("latency", "Latency explorer",
             (("chart-latency-histogram", "Latency histogram per operator (log2 bins)"),
              ("chart-latency-size", "Median latency against input size (log2 size bins)")),
             ("table-latency-percentiles",)),
    PageSpec("selector", "Selector",
             (("chart-model-metrics", "Holdout metrics over model versions"),
              ("chart-chosen-vs-oracle",
               "Chosen vs oracle: call-weighted latency ratio per operator and device class"),
              ("chart-explore-by-op", "Share of calls spent exploring, per operator"),
              ("chart-explore-over-time", "Share of calls spent exploring over time")),
             ("table-model-versions", "table-chosen-vs-oracle-summary")),
    PageSpec("function", "Function drill-down", (("chart-call-sites", "Median latency per call site"),),
             ("table-call-sites",)),
)
BOXES = ("chart-latency-boxes", "Latency distribution per operator and variant (box p25-p75, whiskers p5-p95)")


def missing_requirement() -> str | None:
    """Why the browser cannot run here (None: it can)."""
    if not CHROMIUM.is_file():
        return f"{CHROMIUM} is missing (`make setup` installs Debian's chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is missing (`make setup` installs the dev extras)"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class DashboardServer:
    """`everypath dashboard --lake L --registry R --port P` in its own process group; stop()
    sends it Ctrl-C (the CLI forwards it to Streamlit) and kills the group if that hangs."""

    def __init__(self, lake: Path, registry: Path, log: Path) -> None:
        self.lake, self.registry, self.log = lake, registry, log
        self._proc: subprocess.Popen[bytes] | None = None
        self.url = ""

    def start(self) -> str:
        for _ in range(3):  # a port taken between our probe and Streamlit's bind: try another
            port = _free_port()
            with self.log.open("ab") as out:
                self._proc = subprocess.Popen(
                    [sys.executable, "-m", "everypath.cli", "dashboard", "--lake", str(self.lake),
                     "--registry", str(self.registry), "--port", str(port)],
                    stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                    env={**os.environ, "PYTHONUNBUFFERED": "1"})
            self.url = f"http://127.0.0.1:{port}"
            if self._wait_ready():
                return self.url
            if self._proc.poll() is None:
                break  # running but never healthy: not a port clash
        self.stop()
        tail = self.log.read_text(errors="replace")[-3000:] if self.log.exists() else ""
        raise RuntimeError(f"everypath dashboard did not serve {self.url}/_stcore/health within "
                           f"{READY_TIMEOUT_S:.0f} s; its log ({self.log}):\n{tail}")

    def _wait_ready(self) -> bool:
        assert self._proc is not None
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline and self._proc.poll() is None:
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as resp:
                    if resp.read() == b"ok":
                        return True
            except OSError:
                pass
            time.sleep(0.2)
        return False

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None or proc.poll() is not None:
            return
        for sig, wait_s in ((signal.SIGINT, 15.0), (signal.SIGKILL, 10.0)):
            try:
                os.killpg(proc.pid, sig)  # the group this Popen created: the CLI and its Streamlit child
            except ProcessLookupError:
                return
            try:
                proc.wait(timeout=wait_s)
                return
            except subprocess.TimeoutExpired:
                continue

    def __enter__(self) -> DashboardServer:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()


@dataclass(frozen=True)
class ChartInfo:
    """What a rendered Vega-Lite chart shows: its box, its title texts (chart title, facet
    titles and facet labels), the number of drawn mark items and a digest of the drawing."""

    key: str
    width: float
    height: float
    titles: tuple[str, ...]
    axis_labels: tuple[str, ...]
    marks: int
    digest: str


# counts each start of a script run, so a wait after a click cannot see the previous run's idle state
_RUN_COUNTER = """
window.__epRuns = 0;
new MutationObserver(ms => { for (const m of ms) {
  if (m.target.getAttribute('data-test-script-state') === 'running') window.__epRuns += 1; } })
  .observe(document, {attributes: true, subtree: true, attributeFilter: ['data-test-script-state']});
"""
# finished: no script run, no stale element, every chart drawn and every shown table's grid present
_IDLE = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (document.querySelector('[data-stale="true"]')) return false;
  for (const c of document.querySelectorAll('[data-testid="stVegaLiteChart"]')) {
    const g = c.querySelector('svg.marks, canvas.marks');
    if (!g || g.getBoundingClientRect().width === 0) return false;
  }
  for (const t of document.querySelectorAll('[data-testid="stDataFrame"]'))  // a collapsed expander's stays empty
    if (t.checkVisibility() && !t.querySelector('[role="grid"]')) return false;
  return true;
}"""
_CHART = """e => {
  const g = e.querySelector('svg.marks, canvas.marks');
  const r = e.getBoundingClientRect();
  return {width: r.width, height: r.height, svg: g !== null && g.tagName.toLowerCase() === 'svg',
          html: g ? g.outerHTML : '',
          titles: [...e.querySelectorAll('g.role-title-text text')].map(t => t.textContent),
          labels: [...e.querySelectorAll('g.role-axis-label text')].map(t => t.textContent),
          marks: e.querySelectorAll('g.role-mark > *').length};
}"""


class DashboardBrowser:
    """One Chromium page on the dashboard, with waits that follow Streamlit's script runs;
    timezone_id is the browser's local time zone (Vega-Lite formats local times in it)."""

    def __init__(self, base_url: str, viewport: dict[str, int] | None = None, timezone_id: str = "UTC") -> None:
        from playwright.sync_api import sync_playwright

        self.base_url = base_url
        self._pw = sync_playwright().start()  # one per thread: other time zones get a context, not a browser
        try:
            self._browser = self._pw.chromium.launch(executable_path=str(CHROMIUM), args=list(CHROMIUM_ARGS),
                                                     headless=True)
            self._open(viewport or VIEWPORT, timezone_id)
        except BaseException:
            self._pw.stop()
            raise

    def _open(self, viewport: dict[str, int], timezone_id: str) -> None:
        self._context = self._browser.new_context(viewport=viewport, timezone_id=timezone_id)  # type: ignore[arg-type]
        self.page = self._context.new_page()
        self.page.add_init_script(_RUN_COUNTER)
        self.page.set_default_timeout(IDLE_TIMEOUT_MS)

    @contextmanager
    def time_zone(self, timezone_id: str) -> Iterator[None]:
        """Browse in another local time zone for a while (a fresh context, so a new session)."""
        before = self._context, self.page
        self._open(dict(self.page.viewport_size or VIEWPORT), timezone_id)
        try:
            yield
        finally:
            self._context.close()
            self._context, self.page = before

    def close(self) -> None:
        try:
            self._browser.close()
        finally:
            self._pw.stop()

    def _runs(self) -> int:
        return int(self.page.evaluate("() => window.__epRuns || 0"))

    def wait_idle(self, after_runs: int = 0) -> None:
        """Wait until more than after_runs script runs started and the last one is drawn."""
        self.page.wait_for_function(f"() => (window.__epRuns || 0) > {after_runs}", timeout=IDLE_TIMEOUT_MS)
        self.page.wait_for_function(_IDLE, timeout=IDLE_TIMEOUT_MS)

    def rerun(self, action: Callable[[], Any]) -> None:
        """Do something that reruns the script (a widget change, a page link) and wait for it."""
        before = self._runs()
        action()
        self.wait_idle(before)

    def goto(self, slug: str, base_url: str | None = None) -> None:
        """Load a page by its URL path (a fresh session); base_url: another server's."""
        self.page.goto(f"{base_url or self.base_url}/{slug}")
        self.wait_idle()

    def click_nav(self, title: str) -> None:
        link = self.page.locator('[data-testid="stSidebarNav"] a').filter(has_text=title)
        self.rerun(link.click)

    def nav_links(self) -> list[str]:
        return [a.inner_text().strip() for a in self.page.locator('[data-testid="stSidebarNav"] a').all()]

    def path(self) -> str:
        return "/" + self.page.url.removeprefix(self.base_url).strip("/")

    def heading(self) -> str:
        return self.page.locator('[data-testid="stMain"] h1').first.inner_text().strip()

    def texts(self, testid: str) -> list[str]:
        return [e.inner_text() for e in self.page.locator(f'[data-testid="{testid}"]').all()]

    def metric(self, label: str) -> str:
        box = self.page.locator('[data-testid="stMetric"]').filter(
            has=self.page.locator('[data-testid="stMetricLabel"]').get_by_text(label, exact=True))
        return box.locator('[data-testid="stMetricValue"]').inner_text().strip()

    def chart(self, key: str) -> ChartInfo:
        from playwright.sync_api import Error as PlaywrightError

        box = self.page.locator(f".st-key-{key} [data-testid='stVegaLiteChart']")
        try:  # the chart code loads lazily: the element can come after the run has ended
            box.locator("svg.marks, canvas.marks").wait_for(timeout=IDLE_TIMEOUT_MS)
        except PlaywrightError as exc:
            raise AssertionError(f"no chart drawn in .st-key-{key}: {exc.message.splitlines()[0]}") from None
        self.page.wait_for_function(_IDLE, timeout=IDLE_TIMEOUT_MS)
        d = box.evaluate(_CHART)
        # an svg is compared by its markup, a canvas by its pixels
        drawn = d["html"].encode() if d["svg"] else box.screenshot()
        return ChartInfo(key, d["width"], d["height"], tuple(d["titles"]), tuple(d["labels"]), d["marks"],
                         hashlib.sha256(drawn).hexdigest())

    def chart_changed(self, before: ChartInfo, timeout_s: float = 20.0) -> ChartInfo:
        """The chart once its drawing differs from before and holds still (Vega draws after the
        script run ends); AssertionError when it does not change in time."""
        deadline, last = time.monotonic() + timeout_s, before
        while time.monotonic() < deadline:
            now = self.chart(before.key)
            if now.digest != before.digest and now.digest == last.digest:
                return now
            last = now
            time.sleep(0.25)
        raise AssertionError(f"chart {before.key} did not change within {timeout_s:.0f} s")

    def table_rows(self, key: str) -> int:
        """Data rows of a st.dataframe (the grid's accessible row count includes the header)."""
        grid = self.page.locator(f".st-key-{key} [role='grid']")
        return int(grid.get_attribute("aria-rowcount") or 0) - 1

    def table_column(self, key: str, column: int) -> list[str]:
        """The cells of a 1-based column in the grid's rendered (visible) rows."""
        cells = self.page.locator(f".st-key-{key} [role='grid'] td[aria-colindex='{column}']")
        return [c.inner_text() for c in cells.all()]

    def select(self, label: str, option: str) -> None:
        """Pick one option of a sidebar multiselect and wait for the rerun."""
        box = self.page.locator('[data-testid="stMultiSelect"]').filter(
            has=self.page.get_by_text(label, exact=True))
        box.locator("input").click()
        choice = self.page.locator('[role="option"]').filter(has_text=option)
        self.rerun(lambda: choice.get_by_text(option, exact=True).click())
        self.page.keyboard.press("Escape")

    def toggle(self, label: str) -> None:
        self.rerun(self.page.locator('[data-testid="stCheckbox"]').get_by_text(label, exact=True).click)

    def screenshot(self, path: Path) -> None:
        """The whole page: Streamlit scrolls inside its own container, so the viewport is made
        as tall as the content before the shot."""
        height = int(self.page.evaluate("""() => {
          const b = document.querySelector('[data-testid="stMainBlockContainer"]');
          return Math.ceil(b.getBoundingClientRect().top + b.scrollHeight); }"""))
        width = self.page.viewport_size["width"] if self.page.viewport_size else VIEWPORT["width"]
        self.page.set_viewport_size({"width": width, "height": max(height, VIEWPORT["height"])})
        self.page.wait_for_function(_IDLE, timeout=IDLE_TIMEOUT_MS)
        self.page.wait_for_timeout(500)  # let Vega redraw at the new size
        path.parent.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(path))
        self.page.set_viewport_size({"width": width, "height": VIEWPORT["height"]})

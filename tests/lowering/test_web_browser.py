"""The web target in a real browser: NAME.mjs + NAME.wasm and a test page served from 127.0.0.1,
driven by Playwright in Debian's Chromium (as tests/dashboard/test_browser.py): the page imports the
module, calls the compiled function, and the results (dtype, shape, values; the exception's type
and message) equal CPython's; the module keeps working after a compiled-code exception; the page's
onTelemetry callback receives rows with exactly the lake's `calls` columns."""
from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pytest

from everypath.base.settings import Settings
from everypath.lowering.portable import build_function
from everypath.lowering.targets import ArtifactKind, get, status
from tests.dashboard._browser import CHROMIUM, CHROMIUM_ARGS, missing_requirement

pytestmark = [pytest.mark.browser, pytest.mark.slow]
_missing = missing_requirement()
if _missing is not None:
    pytest.skip(f"browser test needs Chromium and Playwright: {_missing}", allow_module_level=True)
if not status(get("web")).buildable:
    pytest.skip(f"the web target is not buildable here: {status(get('web')).reason}", allow_module_level=True)

Vec32 = np.ndarray[tuple[int], np.dtype[np.float32]]
Mat = np.ndarray[tuple[int, int], np.dtype[np.int64]]
IVec = np.ndarray[tuple[int], np.dtype[np.int64]]


def standardize(x: Vec32, eps: float) -> Vec32:
    centred = x - x.mean()
    return centred / (np.sqrt(np.mean(centred * centred)) + np.float32(eps))


def col_range(m: Mat) -> tuple[IVec, int]:
    if m.shape[0] == 0:
        raise ValueError(f"col_range needs at least one row, got shape ({m.shape[0]}, {m.shape[1]})")
    hi = m.max(axis=0)
    lo = m.min(axis=0)
    return hi - lo, int(np.argmax(hi - lo))


KERNELS = {"standardize": standardize, "col_range": col_range}

PAGE = """<!doctype html><meta charset="utf-8"><title>everypath web test</title>
<script type="module">
  import * as standardize from "./standardize/standardize.mjs";
  import * as col_range from "./col_range/col_range.mjs";
  window.rows = [];
  const onTelemetry = (r) => window.rows.push(...r.map((x) => ({ ...x, ts: x.ts.toString() })));
  await standardize.load(undefined, { onTelemetry, sample: 1.0 });
  await col_range.load(undefined, { onTelemetry, sample: 1.0 });
  window.mods = { standardize, col_range };
  window.ready = true;
</script>"""

# (name, args as the page builds them, CPython reference call)
CALL = """async ([name, args]) => {
  const TYPED = { float32: Float32Array, int64: BigInt64Array };
  const arg = (v) => v !== null && typeof v === "object" && v.dtype
    ? { data: TYPED[v.dtype].from(v.data, v.dtype === "int64" ? (x) => BigInt(x) : (x) => x), shape: v.shape } : v;
  try {
    const r = await window.mods[name].default(...args.map(arg));
    const out = (x) => Array.isArray(x) ? x.map(out) : x !== null && typeof x === "object"
      ? { ...x, typed: x.data.constructor.name, data: Array.from(x.data, (e) => typeof e === "bigint" ? e.toString() : e) } : x;
    return { ok: out(r) };
  } catch (e) {
    return { error: { name: e.name, message: e.message }, ...(e.pythonTraceback && e.pythonTraceback.length
      ? { traceback: e.pythonTraceback } : {}) };
  }
}"""


def _settings() -> Settings:
    return Settings.from_env({**os.environ, "EVERYPATH_TELEMETRY": "0"})


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, Any]]]:
    """The built modules and the page, served from 127.0.0.1 on a free port."""
    root = tmp_path_factory.mktemp("web-site")
    built = {}
    for name, fn in KERNELS.items():
        pf = build_function(fn, (get("web"),), _settings(), kinds=(ArtifactKind.WASM,))
        art = pf.artifact("web", ArtifactKind.WASM)
        (root / name).mkdir()
        for p in (art.path, *art.extra_files):
            shutil.copy(p, root / name / p.name)
        built[name] = pf
    (root / "index.html").write_text(PAGE)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                          ".mjs": "text/javascript", ".wasm": "application/wasm"}

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", built
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def page(site: tuple[str, dict[str, Any]]) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=list(CHROMIUM_ARGS), headless=True)
        try:
            pg = browser.new_page()
            errors: list[str] = []
            pg.on("pageerror", lambda e: errors.append(str(e)))
            pg.goto(site[0])
            pg.wait_for_function("window.ready === true", timeout=60_000)
            assert errors == []
            yield pg
        finally:
            browser.close()


def _call(page: Any, name: str, *args: Any) -> dict[str, Any]:
    def enc(v: Any) -> Any:
        if isinstance(v, np.ndarray):
            data = [str(x) for x in v.reshape(-1).tolist()] if v.dtype == np.int64 else v.reshape(-1).tolist()
            return {"dtype": v.dtype.name, "shape": list(v.shape), "data": data}
        return v

    return page.evaluate(CALL, [name, [enc(a) for a in args]])


def _array(r: dict[str, Any]) -> np.ndarray:
    big = r["typed"] == "BigInt64Array"
    return np.array([int(x) for x in r["data"]] if big else r["data"], dtype=r["dtype"]).reshape(r["shape"])


def test_standardize_in_the_browser(page: Any) -> None:
    x = np.random.default_rng(3).standard_normal(101).astype(np.float32)
    want = standardize(x, 1e-6)
    r = _call(page, "standardize", x, 1e-6)
    assert r["ok"]["dtype"] == "float32" and r["ok"]["typed"] == "Float32Array"
    got = _array(r["ok"])
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_tuple_result_error_and_recovery_in_the_browser(page: Any) -> None:
    m = np.random.default_rng(4).integers(-10**12, 10**12, (7, 5))
    (span, arg) = col_range(m)
    for _ in range(2):  # an exception traps the module; the next call runs on a fresh instance
        r = _call(page, "col_range", m)
        got = _array(r["ok"][0])
        assert r["ok"][0]["typed"] == "BigInt64Array" and got.dtype == np.int64 and got.shape == span.shape
        np.testing.assert_array_equal(got, span)
        assert r["ok"][1] == arg and isinstance(r["ok"][1], int)
        empty = np.zeros((0, 5), np.int64)
        with pytest.raises(ValueError) as info:
            col_range(empty)
        r = _call(page, "col_range", empty)
        assert r["error"] == {"name": "ValueError", "message": str(info.value)}
        # the user's line, as CPython's traceback ends (builds without C++ exceptions: the innermost frame)
        line = info.value.__traceback__.tb_next.tb_lineno  # type: ignore[union-attr]
        assert r["traceback"][-1] == {"file": Path(__file__).name, "line": line, "name": "col_range"}, r
    bad = _call(page, "col_range", np.zeros((2, 2), np.float32))
    assert bad["error"]["name"] == "TypeError"
    assert bad["error"]["message"].startswith("col_range() argument 'm': expected a int64 array of rank 2")


def test_telemetry_reaches_the_page(page: Any, site: tuple[str, dict[str, Any]]) -> None:
    from everypath.telemetry.device import device_class
    from everypath.telemetry.schema import CALLS_SCHEMA

    page.evaluate("() => { window.rows = []; }")
    x = np.arange(16, dtype=np.float32)
    assert "ok" in _call(page, "standardize", x, 0.5)
    rows = page.evaluate("() => window.rows")
    sites = {(o.op, o.call_site) for o in site[1]["standardize"].artifact("web", ArtifactKind.WASM).operators}
    assert rows and len(rows) >= len(sites) > 0
    cores = page.evaluate("() => navigator.hardwareConcurrency")
    for row in rows:
        assert set(row) == set(CALLS_SCHEMA.names), set(row) ^ set(CALLS_SCHEMA.names)
        assert (row["op"], row["call_site"]) in sites and row["function"].endswith(".standardize")
        assert row["arch"] == "wasm32" and row["runtime"] == "web" and row["os"] == "linux"
        assert row["cores"] == cores and row["variant"] == "loops" and row["n_elements"] == 16
        assert row["shape"] == [16] and row["dtype"] == "float32" and row["threads"] == 1
        assert row["device_class"] == device_class(row) and row["device_id"] is None
        assert row["explore"] is False and row["propensity"] == 1.0 and row["table_version"] is None
        assert abs(int(row["ts"]) / 1e9 - time.time()) < 600 and row["latency_ns"] >= 0

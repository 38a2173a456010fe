"""The web runtime counts every call: NAME.mjs under Node.js hands onTelemetry, beside the sampled
rows, the module's exact aggregates in the lake's `aggregates` columns; a lake holding both (rows
ingested as JSON Lines, aggregates conformed and published as the collector does) counts every
call the page made, and the result matches CPython's."""
from __future__ import annotations

import http.client
import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from everypath.base.settings import Settings
from everypath.lowering.portable import build_function
from everypath.lowering.targets import ArtifactKind, get, status

pytestmark = pytest.mark.slow
NODE = Path("/usr/bin/node")
if not status(get("web")).buildable:
    pytest.skip(f"web is not buildable here: {status(get('web')).reason}", allow_module_level=True)

Vec = np.ndarray[tuple[int], np.dtype[np.float64]]
CALLS, REPEAT = 4000, 3


def many_calls(x: Vec, n: int) -> float:
    y = x
    for _ in range(n):
        y = np.sqrt(y * y + 1.0)
    return float(np.sum(y))


DRIVER = r"""
import { readFileSync, writeFileSync } from "node:fs";
const spec = JSON.parse(readFileSync(process.argv[2], "utf8"));
const mod = await import(spec.module);
const rows = [], aggs = [];
await mod.load(undefined, { onTelemetry: (r, a) => { rows.push(...r); aggs.push(...a); }, deviceId: "dev-1",
                            aggregateSeconds: 3600 });
const x = Float64Array.from(spec.x);
const results = [];
for (let i = 0; i < spec.repeat; ++i) results.push(await mod.default(x, spec.n));
const before = aggs.length;  // none yet: they go every aggregateSeconds or on flushTelemetry()
mod.flushTelemetry();
const big = (k, v) => (typeof v === "bigint" ? v.toString() : v);
// what a page sends to the collector: JSON Lines, BigInts exact
writeFileSync(spec.rows_out, mod.telemetryJSONLines(rows));
writeFileSync(spec.aggs_out, mod.telemetryJSONLines(aggs));
console.log(JSON.stringify({ results, before, rows, aggs }, big));
"""


@pytest.mark.skipif(not NODE.is_file(), reason=f"{NODE} is missing (Debian's nodejs)")
def test_node_module_counts_every_call_in_its_aggregates(tmp_path: Path) -> None:
    from everypath.telemetry.collector import CollectorConfig, serve_in_thread
    from everypath.telemetry.device import device_class
    from everypath.telemetry.lake import Lake
    from everypath.telemetry.schema import AGGREGATES_SCHEMA, CALLS_SCHEMA
    from everypath.telemetry.views import query

    pf = build_function(many_calls, (get("web"),), Settings.from_env({**os.environ, "EVERYPATH_TELEMETRY": "0"}),
                        kinds=(ArtifactKind.WASM,))
    art = pf.artifact("web", ArtifactKind.WASM)
    mjs = next(p for p in art.extra_files if p.suffix == ".mjs")
    x = np.linspace(0.5, 2.0, 8)
    (tmp_path / "spec.json").write_text(json.dumps({"module": mjs.as_uri(), "x": x.tolist(), "n": CALLS,
                                                    "repeat": REPEAT, "rows_out": str(tmp_path / "rows.jsonl"),
                                                    "aggs_out": str(tmp_path / "aggs.jsonl")}))
    (tmp_path / "driver.mjs").write_text(DRIVER)
    p = subprocess.run([str(NODE), str(tmp_path / "driver.mjs"), str(tmp_path / "spec.json")], capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert out["results"] == [pytest.approx(many_calls(x, CALLS), rel=1e-12)] * REPEAT
    assert out["before"] == 0
    aggs, rows = out["aggs"], out["rows"]
    assert aggs and all(set(a) == set(AGGREGATES_SCHEMA.names) for a in aggs)
    per_op: dict[str, int] = {}
    for a in aggs:
        per_op[a["op"]] = per_op.get(a["op"], 0) + int(a["count"])
        assert a["device_id"] == "dev-1" and a["runtime"] == "node" and a["device_class"] == device_class(a)
        assert 0 <= int(a["timed"]) <= int(a["count"]) and len(a["hist_bin"]) == len(a["hist_count"])
        assert int(a["ts"]) >= int(a["start"]) and abs(int(a["ts"]) / 1e9 - __import__("time").time()) < 600
    loop = next(op for op, n in per_op.items() if n == CALLS * REPEAT)
    assert per_op == {loop: CALLS * REPEAT, "numpy.sum": REPEAT}, per_op  # every call, exactly
    # the raw rows are a sample (the tiny calls are timed in part), each with its inclusion probability
    assert all(set(r) == set(CALLS_SCHEMA.names) for r in rows)
    loop_rows = [r for r in rows if r["op"] == loop]
    assert 0 < len(loop_rows) < CALLS * REPEAT and all(0 < r["inclusion"] <= 1 for r in loop_rows)
    # into a lake through a real collector, as a page sends them: JSON Lines written by the module's
    # telemetryJSONLines (nanosecond times as exact integers) to POST /v1/calls and /v1/aggregates
    lake = Lake(tmp_path / "lake")
    server = serve_in_thread(CollectorConfig(lake, "wasm-token-0123456"))
    try:
        for path, body in (("/v1/calls", "rows.jsonl"), ("/v1/aggregates", "aggs.jsonl")):
            conn = http.client.HTTPConnection(*server.server_address[:2], timeout=60)
            conn.request("POST", path, body=(tmp_path / body).read_bytes(),
                         headers={"Authorization": "Bearer wasm-token-0123456", "X-Batch-Id": f"node-{body[:4]}-1",
                                  "Content-Type": "application/x-ndjson", "X-Everypath-Schema-Version": "1"})
            r = conn.getresponse()
            reply = json.loads(r.read())
            conn.close()
            assert r.status == 201, reply
    finally:
        server.shutdown()
        server.server_close()
    ts = query(lake, "SELECT epoch_ns(ts) AS ts FROM aggregates").column("ts").to_pylist()
    assert sorted(ts) == sorted(int(a["ts"]) for a in aggs)  # to the nanosecond
    got = query(lake, "SELECT op, sum(n)::BIGINT AS n FROM op_latency GROUP BY op ORDER BY op").to_pylist()
    assert got == sorted([{"op": loop, "n": CALLS * REPEAT}, {"op": "numpy.sum", "n": REPEAT}],
                         key=lambda r: r["op"])
    assert query(lake, "SELECT sum(n)::BIGINT AS n FROM daily").to_pylist() == [{"n": CALLS * REPEAT + REPEAT}]

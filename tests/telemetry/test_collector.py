from __future__ import annotations

import http.client
import io
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from everypath.cli import main
from everypath.telemetry.collector import ARROW_STREAM, PARQUET, CollectorConfig, serve_in_thread
from everypath.telemetry.lake import Lake
from everypath.telemetry.upload import ledger
from everypath.telemetry.views import query

from ._data import batch

TOKEN = "s3cret-token"


@pytest.fixture
def server(tmp_path):
    srv = serve_in_thread(CollectorConfig(Lake(tmp_path / "central"), TOKEN, max_bytes=200_000))
    yield srv
    srv.shutdown()
    srv.server_close()


def _arrow(b: pa.RecordBatch | pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, b.schema) as w:
        w.write(b)
    return sink.getvalue().to_pybytes()


def _post(server, body: bytes, *, batch_id: str | None = "batch-000001", token: str | None = TOKEN,
          ctype: str = ARROW_STREAM, headers: dict[str, str] | None = None) -> tuple[int, dict]:
    host, port = server.server_address[:2]
    conn = http.client.HTTPConnection(host, port, timeout=10)
    h = {"Content-Type": ctype, **(headers or {})}
    if token is not None:
        h["Authorization"] = f"Bearer {token}"
    if batch_id is not None:
        h["X-Batch-Id"] = batch_id
    conn.request("POST", "/v1/calls", body=body, headers=h)
    r = conn.getresponse()
    out = r.status, json.loads(r.read())
    conn.close()
    return out


def test_batches_are_stored_once(server, tmp_path):
    body = _arrow(batch(300))
    assert _post(server, body) == (201, {"rows": 300, "stored": True})
    status, reply = _post(server, body)  # a retry of the same batch
    assert status == 200 and reply == {"rows": 300, "stored": False, "reason": "duplicate batch"}
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_batches([batch(200, seed=1, ts0=10**18)]), buf)
    assert _post(server, buf.getvalue(), batch_id="parquet-batch-1", ctype=PARQUET)[0] == 201
    n = query(Lake(tmp_path / "central"), "SELECT count(*) AS n FROM calls").to_pylist()
    assert n == [{"n": 500}]
    host, port = server.server_address[:2]
    conn = http.client.HTTPConnection(host, port, timeout=5)
    conn.request("GET", "/healthz")
    assert conn.getresponse().status == 200


def test_bad_uploads_get_4xx_with_a_reason(server, tmp_path):
    body = _arrow(batch(100))
    s, r = _post(server, body, token=None)
    assert s == 401 and "bearer token" in r["error"]
    s, r = _post(server, body, token="wrong")
    assert s == 403 and r["error"] == "invalid token"
    s, r = _post(server, body, batch_id=None)
    assert s == 400 and "X-Batch-Id" in r["error"]
    s, r = _post(server, body, batch_id="../../etc")
    assert s == 400
    s, r = _post(server, b"this is not arrow at all")
    assert s == 400 and r["error"].startswith("malformed Arrow IPC stream")
    s, r = _post(server, b"PAR1 nope PAR1", ctype=PARQUET)
    assert s == 400 and r["error"].startswith("malformed Parquet file")
    s, r = _post(server, body, ctype="application/json")
    assert s == 415
    big = _arrow(batch(20_000))
    assert len(big) > 200_000
    s, r = _post(server, big)  # over max_bytes=200_000
    assert s == 413 and "over the limit" in r["error"]
    # a claimed huge body is refused from Content-Length alone, before a byte is read
    s, r = _post(server, b"x" * 10, headers={"Content-Length": str(10**12)})
    assert s == 413 and str(10**12) in r["error"]
    wrong = pa.table({"ts": pa.array([True, False]), "colour": ["red", "blue"]})  # no conversion from bool
    s, r = _post(server, _arrow(wrong))
    assert s == 422 and "unknown column 'colour'" in r["problems"]
    assert any("'ts' has type bool" in p for p in r["problems"])
    assert any("missing required column 'latency_ns'" in p for p in r["problems"])
    assert not Lake(tmp_path / "central").files()  # nothing rejected was stored


def test_upload_command_sends_each_part_once(server, tmp_path):
    local = Lake(tmp_path / "device")
    local.publish(batch(100, device_class="aaaa00000001"))
    local.publish(batch(50, seed=2, ts0=10**18, device_class="aaaa00000002"))
    url = "http://%s:%d" % server.server_address[:2]
    (tmp_path / "token").write_text(TOKEN + "\n")  # the way a deployment keeps it: a file, not an argument
    args = ["telemetry", "upload", "--lake", str(local.root), "--url", url, "--token-file", str(tmp_path / "token")]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0 and "sent 2 parts (150 rows)" in r.output, r.output
    assert len(ledger(local)) == 2
    r = CliRunner().invoke(main, args)
    assert "sent 0 parts" in r.output and "2 uploaded before" in r.output
    (local.root / ".uploaded").unlink()  # ledger lost: the collector still stores each part once
    r = CliRunner().invoke(main, args)
    assert "2 already there" in r.output
    got = query(Lake(tmp_path / "central"), "SELECT device_class, count(*) AS n FROM calls GROUP BY 1 ORDER BY 1")
    assert got.to_pylist() == [{"device_class": "aaaa00000001", "n": 100}, {"device_class": "aaaa00000002", "n": 50}]
    local.publish(batch(5, seed=3, ts0=2 * 10**18))  # a new part, sent with a wrong token
    bad = CliRunner().invoke(main, ["telemetry", "upload", "--lake", str(local.root), "--url", url, "--token", "x"])
    assert bad.exit_code == 1 and "HTTP 403" in bad.output
    (tmp_path / "empty").write_text("\n")
    empty = CliRunner().invoke(main, ["telemetry", "upload", "--lake", str(local.root), "--url", url,
                                      "--token-file", str(tmp_path / "empty")])
    assert empty.exit_code == 1 and "token file is empty" in empty.output
    both = CliRunner().invoke(main, [*args, "--token", TOKEN])
    assert both.exit_code == 2 and "not both" in both.output

"""The collector's POST /v1/aggregates: aggregate rows from other processes stored once per batch id,
with their schema version; bad versions, columns and values refused with the right status and
nothing written; what is stored reads back through the views as the uploaded counts."""
from __future__ import annotations

import http.client
import io
import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from everypath.telemetry.collector import ARROW_STREAM, CSV, JSONL, PARQUET, CollectorConfig, serve_in_thread
from everypath.telemetry.lake import Lake
from everypath.telemetry.views import query
from tests.telemetry._data import DEVICE, batch
from tests.telemetry._fleet import aggregate_table

TOKEN = "aggregates-token-0123"
HEADER = "X-Everypath-Schema-Version"


@pytest.fixture
def server(tmp_path):  # type: ignore[no-untyped-def]
    srv = serve_in_thread(CollectorConfig(Lake(tmp_path / "central"), TOKEN, max_bytes=500_000))
    yield srv
    srv.shutdown()
    srv.server_close()


def _rows(n: int, seed: int = 0, **over: object) -> pa.Table:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        v = rng.integers(100, 10**6, 50)
        bins, counts = np.unique(np.minimum(v // 1000 + 64, 2000), return_counts=True)
        rows.append({"ts": 2 * 10**18 + i, "start": 2 * 10**18 + i - 5 * 10**9, "function": "pkg.mod.kernel",
                     "op": "numpy.add", "call_site": f"kernel.py:{10 + i % 3}", "variant": ("loops", "simd")[i % 2],
                     "dtype": "float64", "size_bucket": 13, "count": 50 + i, "timed": 50, "sum_ns": int(v.sum()),
                     "min_ns": int(v.min()), "max_ns": int(v.max()), "hist_bin": bins.tolist(),
                     "hist_count": counts.tolist(), **over})
    return aggregate_table(rows, DEVICE)


def _arrow(t: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, t.schema) as w:
        w.write_table(t)
    return sink.getvalue().to_pybytes()


def _post(server, body: bytes, batch_id: str = "agg-batch-0001", ctype: str = ARROW_STREAM,  # type: ignore[no-untyped-def]
          headers: dict[str, str] | None = None, token: str | None = TOKEN) -> tuple[int, dict]:
    conn = http.client.HTTPConnection(*server.server_address[:2], timeout=10)
    h = {"Content-Type": ctype, "X-Batch-Id": batch_id, **(headers or {})}
    if token is not None:
        h["Authorization"] = f"Bearer {token}"
    conn.request("POST", "/v1/aggregates", body=body, headers=h)
    r = conn.getresponse()
    out = r.status, json.loads(r.read())
    conn.close()
    return out


def _stored(tmp_path) -> int:  # type: ignore[no-untyped-def]
    return int(query(tmp_path / "central", "SELECT coalesce(sum(count), 0) AS n FROM aggregates").column("n")[0].as_py())


def test_aggregates_are_stored_once_with_their_version(server, tmp_path) -> None:  # type: ignore[no-untyped-def]
    t = _rows(6)
    body = _arrow(t)
    assert _post(server, body) == (201, {"rows": 6, "stored": True, "schema_version": 1})
    assert _post(server, body) == (200, {"rows": 6, "stored": False, "reason": "duplicate batch", "schema_version": 1})
    assert _stored(tmp_path) == sum(50 + i for i in range(6))
    # Parquet, without metadata (another producer): the version comes from the header; narrower ints are cast
    plain = t.replace_schema_metadata(None).set_column(t.schema.get_field_index("count"), "count",
                                                        t.column("count").cast(pa.int32()))
    buf = io.BytesIO()
    pq.write_table(plain, buf)
    assert _post(server, buf.getvalue(), "agg-batch-0002", PARQUET, {HEADER: "1"})[0] == 201
    assert _stored(tmp_path) == 2 * sum(50 + i for i in range(6))
    got = query(tmp_path / "central", "SELECT variant, n FROM op_counts ORDER BY variant").to_pylist()
    assert got == [{"variant": "loops", "n": 2 * (50 + 52 + 54)}, {"variant": "simd", "n": 2 * (51 + 53 + 55)}]


@pytest.mark.parametrize("case, status, needle", [
    ("no version", 422, "schema version required"),
    ("newer version", 422, "version 2 is not supported"),
    ("bad version", 422, "not an integer"),
    ("calls body", 422, "not aggregates"),
    ("unknown column", 422, "aggregates schema"),
    ("timed over count", 422, "rows rejected"),
    ("bin out of range", 422, "rows rejected"),
    ("csv", 415, "Content-Type"),
    ("no token", 401, "bearer"),
])
def test_bad_uploads_are_refused_and_nothing_is_written(server, tmp_path, case, status, needle) -> None:  # type: ignore[no-untyped-def]
    t, headers, ctype, token = _rows(3), {}, ARROW_STREAM, TOKEN
    if case in ("no version", "newer version", "bad version"):
        t = t.replace_schema_metadata(None)
        headers = {"newer version": {HEADER: "2"}, "bad version": {HEADER: "v1"}}.get(case, {})
    body = _arrow(t)
    if case == "calls body":
        body = _arrow(pa.Table.from_batches([batch(5)]))
    elif case == "unknown column":
        body = _arrow(t.append_column("colour", pa.array(["red"] * 3)))
    elif case == "timed over count":
        body = _arrow(_rows(3, timed=10**6))
    elif case == "bin out of range":
        body = _arrow(_rows(3, hist_bin=[5000], hist_count=[50]))
    elif case == "csv":
        ctype = CSV
    elif case == "no token":
        token = None
    got, reply = _post(server, body, ctype=ctype, headers=headers, token=token)
    assert got == status and needle in json.dumps(reply), reply
    if case == "timed over count":
        assert [r["row"] for r in reply["rejected"]] == [1, 2, 3] and reply["rejected"][0]["column"] == "count"
    assert _stored(tmp_path) == 0 and not list((tmp_path / "central").glob("aggregates/**/*.parquet"))


def _jsonl(t: pa.Table, iso: bool = False) -> bytes:
    """The rows as a page writes them (telemetryJSONLines): times as integer ns (exact beyond 2^53) or ISO."""
    lines = []
    for r in t.to_pylist():
        for k in ("ts", "start"):
            v = pa.scalar(r[k], pa.timestamp("ns", "UTC")).cast(pa.int64()).as_py() if not isinstance(r[k], int) else r[k]
            r[k] = f"{np.datetime64(v, 'ns')}Z" if iso else v
        lines.append(json.dumps(r))
    return ("\n".join(lines) + "\n\n").encode()


def test_json_lines_aggregates_are_stored_exactly(server, tmp_path) -> None:  # type: ignore[no-untyped-def]
    t = _rows(5)
    body = _jsonl(t)
    assert b"2000000000000000000" in body  # nanoseconds as integer literals
    assert _post(server, body, "agg-jsonl-0001", JSONL[0], {HEADER: "1"}) == (201, {"rows": 5, "stored": True,
                                                                                     "schema_version": 1})
    assert _post(server, body, "agg-jsonl-0001", JSONL[0], {HEADER: "1"})[0] == 200  # a retry: stored once
    assert _post(server, _jsonl(t, iso=True), "agg-jsonl-0002", JSONL[0], {HEADER: "1"})[0] == 201
    assert _stored(tmp_path) == 2 * sum(50 + i for i in range(5))
    got = query(tmp_path / "central", "SELECT epoch_ns(ts) AS ts, hist_count FROM aggregates ORDER BY ts").to_pylist()
    want = sorted(2 * [(2 * 10**18 + i, c) for i, c in enumerate(t.column("hist_count").to_pylist())])
    assert [(g["ts"], g["hist_count"]) for g in got] == want  # times to the nanosecond, histograms whole


@pytest.mark.parametrize("body, status, needle", [
    (b'{"ts": 1}\nnot json\n', 400, "line 2 is not JSON"),
    (b'[1, 2]\n', 400, "line 1 is not a JSON object"),
    (b'{"ts": true}\n', 400, "column 'ts'"),
    (b'{"ts": "yesterday"}\n', 400, "column 'ts'"),
    (b'{"count": 1}\n{"count": "many"}\n', 400, "column 'count'"),
    (b'\xff\xfe', 400, "not UTF-8"),
    (b'{"ts": 1, "start": 0}\n', 422, "missing required column"),
])
def test_bad_json_lines_aggregates_are_refused(server, tmp_path, body, status, needle) -> None:  # type: ignore[no-untyped-def]
    got, reply = _post(server, body, "agg-jsonl-bad1", JSONL[0], {HEADER: "1"})
    assert got == status and needle in json.dumps(reply), reply
    assert not list((tmp_path / "central").glob("aggregates/**/*.parquet"))
    # and JSON Lines carry no metadata: the header is required
    got, reply = _post(server, _jsonl(_rows(2)), "agg-jsonl-bad2", JSONL[0])
    assert got == 422 and "schema version required" in reply["error"]

"""The collector: an HTTP endpoint that accepts batches of call rows from devices into a lake.

POST /v1/calls   Authorization: Bearer <token>, X-Batch-Id: [A-Za-z0-9_-]{8,64},
                 Content-Type application/vnd.apache.arrow.stream, application/vnd.apache.parquet,
                 text/csv or application/x-ndjson (JSON Lines), in the documented calls columns,
                 converted as `everypath telemetry ingest` converts files (telemetry/convert.py)
  201 {"rows": n, "stored": true}                 stored
  200 {"rows": n, "stored": false, "reason": ...} this batch id was stored before (a retry)
  400 malformed body or batch id, 401 no token, 403 wrong token, 411 no Content-Length,
  413 body over --max-bytes, 415 other content type, 422 columns that do not convert (with
  "problems") or rows rejected (with "rejected": row, column, problem): a batch is all or nothing
POST /v1/aggregates  the same headers, an Arrow IPC stream, Parquet file or JSON Lines (what the web
                 runtime's telemetryJSONLines writes) of the `aggregates` table (AGGREGATES_SCHEMA)
                 with its schema version in the body's metadata or in X-Everypath-Schema-Version
                 (required for JSON Lines; telemetry/aggregates_ingest.py); the same replies (422 for
                 a missing, unparsable or newer version too)
GET /healthz     200 {"ok": true}
Checks run cheapest and safest first: auth and size before a byte of the body is read.
Calls batches are stored by group commit (telemetry/group_commit.py): a 201 is sent once the
rows are in published parts, shared with the batches that arrived meanwhile; 503 while the
collector shuts down (SIGTERM, SIGINT: what was accepted is published and answered first).
"""
from __future__ import annotations

import hmac
import json
import logging
import os
import signal
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pyarrow as pa

from everypath.telemetry.convert import ConvertError
from everypath.telemetry.group_commit import Closed, GroupCommitter
from everypath.telemetry.ingest import convert_rows
from everypath.telemetry.readers import Rows, read_csv, read_jsonl, read_parquet
from everypath.telemetry.lake import BATCH_ID, Lake, SchemaError

log = logging.getLogger("everypath.telemetry.collector")

ARROW_STREAM = "application/vnd.apache.arrow.stream"
PARQUET = "application/vnd.apache.parquet"
CSV = "text/csv"
JSONL = ("application/x-ndjson", "application/jsonl", "application/x-jsonlines")
CONTENT_TYPES = (ARROW_STREAM, PARQUET, CSV, *JSONL)
AGGREGATES_PATH = "/v1/aggregates"
ENDPOINTS = {"/v1/calls": CONTENT_TYPES, AGGREGATES_PATH: (ARROW_STREAM, PARQUET, *JSONL)}
VERSION_HEADER = "X-Everypath-Schema-Version"
SHOWN_REJECTIONS = 100  # rejected rows listed in a 422 reply (the count is always given)
DISCARD_BYTES = 16 << 20  # a rejected body up to this size is read and dropped (see _discard)


@dataclass(frozen=True)
class CollectorConfig:
    lake: Lake
    token: str
    max_bytes: int = 64 << 20


class _Reject(Exception):
    def __init__(self, status: int, error: str, **extra: object) -> None:
        super().__init__(error)
        self.status, self.body = status, {"error": error, **extra}


def parse_body(body: bytes | memoryview, content_type: str) -> Rows:
    """The uploaded rows as read, or _Reject(400) with the parser's reason."""
    try:
        if content_type == ARROW_STREAM:
            with pa.ipc.open_stream(pa.py_buffer(body)) as reader:  # zero-copy: columns view the body
                table = reader.read_all()
            return Rows(table, np.arange(1, table.num_rows + 1))
        if content_type == CSV:
            return read_csv(bytes(body))
        if content_type in JSONL:
            return read_jsonl(bytes(body))
        return read_parquet(bytes(body))
    except (pa.ArrowException, OSError, ValueError) as e:
        kind = {ARROW_STREAM: "Arrow IPC stream", PARQUET: "Parquet file", CSV: "CSV"}.get(content_type, "JSON Lines")
        raise _Reject(400, f"malformed {kind}: {e}") from None


def _aggregates_jsonl(body: bytes | memoryview) -> pa.Table:
    from everypath.telemetry import aggregates_ingest as ai

    try:
        return ai.read_jsonl(bytes(body))
    except ValueError as e:
        raise _Reject(400, f"malformed JSON Lines: {e}") from None


def _store_aggregates(lake: Lake, table: pa.Table, batch_id: str, version: str | None) -> tuple[int, dict[str, object]]:
    """An aggregates upload: versioned, conformed, checked row by row, stored once per batch id."""
    from everypath.telemetry import aggregates_ingest as ai

    v, why = ai.version_of(table.schema, version)
    if v is None:
        raise _Reject(422, why or "bad schema version")
    rows, problems = ai.conform(table)
    shown = [{"row": p.row, "column": p.column, "problem": p.problem} for p in problems[:SHOWN_REJECTIONS]]
    if rows is None and problems and problems[0].row is None:
        raise _Reject(422, "batch does not have the aggregates schema", problems=shown)
    if rows is None:
        raise _Reject(422, f"{len({p.row for p in problems})} of {table.num_rows} rows rejected: nothing stored",
                      rejected=shown)
    try:
        stored = ai.publish_named(lake, rows, batch_id)
    except ValueError as e:
        raise _Reject(422, str(e)) from None
    if not stored and rows.num_rows:
        return 200, {"rows": rows.num_rows, "stored": False, "reason": "duplicate batch", "schema_version": v}
    return 201, {"rows": rows.num_rows, "stored": True, "schema_version": v}


def _handler(cfg: CollectorConfig, committer: GroupCommitter) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "everypath-collector/1"
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
            log.info("%s %s", self.address_string(), format % args)

        def _send(self, status: int, body: dict[str, object], close: bool = False) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if status == 401:
                self.send_header("WWW-Authenticate", 'Bearer realm="everypath"')
            if close:  # the unread body must not be parsed as the next request
                self.send_header("Connection", "close")
                self.close_connection = True
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path == "/healthz":
                self._send(200, {"ok": True})
            else:
                self._send(404, {"error": f"no such endpoint: GET {self.path}"})

        def do_POST(self) -> None:
            self._unread = 0  # body bytes not consumed yet
            with self.server.requests:  # type: ignore[attr-defined] - a CollectorServer
                self._send_post()

        def _send_post(self) -> None:
            try:
                self._send(*self._post())
            except _Reject as r:
                self._discard()
                self._send(r.status, r.body, close=True)
            except Exception as e:  # noqa: BLE001 - a server error is reported, the server lives on
                log.exception("collector: storing a batch failed")
                self._send(500, {"error": f"internal error: {type(e).__name__}: {e}"}, close=True)

        def _post(self) -> tuple[int, dict[str, object]]:
            if self.path not in ENDPOINTS:
                raise _Reject(404, f"no such endpoint: POST {self.path}")
            auth = self.headers.get("Authorization", "")
            if not auth.startswith("Bearer "):
                raise _Reject(401, "missing bearer token (Authorization: Bearer <token>)")
            if not hmac.compare_digest(auth.removeprefix("Bearer ").strip().encode(), cfg.token.encode()):
                raise _Reject(403, "invalid token")
            batch_id = self.headers.get("X-Batch-Id", "")
            if not BATCH_ID.fullmatch(batch_id):
                raise _Reject(400, "X-Batch-Id header missing or not [A-Za-z0-9_-]{8,64}")
            length = self.headers.get("Content-Length")
            if length is None:
                raise _Reject(411, "Content-Length required")
            try:
                n = int(length)
            except ValueError:
                raise _Reject(400, f"bad Content-Length {length!r}") from None
            self._unread = n
            if n > cfg.max_bytes:
                raise _Reject(413, f"body of {n} bytes is over the limit of {cfg.max_bytes} bytes")
            ctype = self.headers.get("Content-Type", "").split(";")[0].strip()
            if ctype not in ENDPOINTS[self.path]:
                raise _Reject(415, f"Content-Type must be one of {', '.join(ENDPOINTS[self.path])}, not {ctype!r}")
            body = self._read(n)
            if self.path == AGGREGATES_PATH:
                table = _aggregates_jsonl(body) if ctype in JSONL else parse_body(body, ctype).table
                return _store_aggregates(cfg.lake, table, batch_id, self.headers.get(VERSION_HEADER))
            rows = parse_body(body, ctype)
            try:
                converted = convert_rows(rows)
            except ConvertError as e:
                raise _Reject(422, "batch does not have the calls schema", problems=e.problems) from None
            total = rows.table.num_rows + len(rows.unreadable)
            if converted.rejected:
                raise _Reject(422, f"{len(converted.rejected)} of {total} rows rejected: nothing stored",
                              rejected=[{"row": r.row, "column": r.column, "problem": r.problem}
                                        for r in converted.rejected[:SHOWN_REJECTIONS]],
                              rejected_rows=len(converted.rejected))
            try:
                stored, _ = committer.submit(batch_id, converted.table)
            except SchemaError as e:
                raise _Reject(422, "batch does not have the calls schema", problems=e.problems) from None
            except Closed as e:
                raise _Reject(503, f"{e}: nothing stored, send the batch again") from None
            if not stored and total:
                return 200, {"rows": total, "stored": False, "reason": "duplicate batch"}
            return 201, {"rows": total, "stored": True}

        def _discard(self) -> None:
            """Read and drop a moderately sized unread body, so a client that sends its whole
            body before reading the answer gets the 4xx rather than a broken pipe; a huge one
            is not read at all (the connection is closed)."""
            if 0 < self._unread <= max(4 * cfg.max_bytes, DISCARD_BYTES):
                self.connection.settimeout(5)
                try:
                    while self._unread > 0:
                        chunk = self.rfile.read(min(1 << 20, self._unread))
                        if not chunk:
                            break
                        self._unread -= len(chunk)
                except OSError:
                    pass

        def _read(self, n: int) -> memoryview:
            """The body, read straight into one buffer (n <= max_bytes was checked): no chunk
            list joined into a second copy; Arrow reads its columns from it without a copy."""
            buf = memoryview(bytearray(n))
            got = 0
            while got < n:
                k = self.rfile.readinto(buf[got:min(n, got + (8 << 20))])
                if not k:
                    raise _Reject(400, f"body ended after {got} of {n} bytes")
                got += k
                self._unread -= k
            return buf

    return Handler


class _InProgress:
    """Counts the POSTs being handled, so a shutdown can wait for their answers."""

    def __init__(self) -> None:
        self._n = 0
        self._cond = threading.Condition()

    def __enter__(self) -> None:
        with self._cond:
            self._n += 1

    def __exit__(self, *exc: object) -> None:
        with self._cond:
            self._n -= 1
            self._cond.notify_all()

    def wait_idle(self, timeout_s: float) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: self._n == 0, timeout_s)


class CollectorServer(ThreadingHTTPServer):
    """One thread per connection; stored batches go through the server's GroupCommitter."""

    daemon_threads = True
    drain_s = 30.0  # how long a shutdown waits for the requests in progress to be answered

    def __init__(self, address: tuple[str, int], cfg: CollectorConfig) -> None:
        self.committer = GroupCommitter(cfg.lake)
        self.requests = _InProgress()
        try:
            super().__init__(address, _handler(cfg, self.committer))
        except BaseException:
            self.committer.close()
            raise

    def server_close(self) -> None:
        """The shutdown flush: stop listening, publish what was accepted, wait (drain_s at
        most) until every request in progress has its answer; later submits get a 503."""
        super().server_close()
        self.committer.close()
        if not self.requests.wait_idle(self.drain_s):
            log.warning("collector: requests still in progress after %.0f s at shutdown (not acknowledged: "
                        "their clients send them again)", self.drain_s)


def serve_until_signal(server: CollectorServer) -> None:
    """serve_forever until SIGTERM or SIGINT, then server_close (the flush); for the main thread."""
    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        server.server_close()


def _memory_pool() -> None:
    """jemalloc (else the system allocator) for Arrow's buffers, unless ARROW_DEFAULT_MEMORY_POOL
    chooses. With a thread per connection, mimalloc (pyarrow's default) returned and re-faulted
    its pages for every request: 2.6 s of kernel time per 1 M rows, 3x the rest of the work."""
    if os.environ.get("ARROW_DEFAULT_MEMORY_POOL") or pa.default_memory_pool().backend_name != "mimalloc":
        return
    try:
        pa.set_memory_pool(pa.jemalloc_memory_pool())
    except NotImplementedError:  # a pyarrow built without jemalloc
        pa.set_memory_pool(pa.system_memory_pool())


def make_server(cfg: CollectorConfig, host: str = "127.0.0.1", port: int = 8765) -> CollectorServer:
    if not cfg.token:
        raise ValueError("the collector needs a token (--token-file or EVERYPATH_COLLECTOR_TOKEN)")
    _memory_pool()
    server = CollectorServer((host, port), cfg)
    # temp files of parts a killed collector was writing: invisible, only disk space (an hour old:
    # never one another process is still writing)
    cfg.lake.clear_stale_tmp()
    return server


def serve_in_thread(cfg: CollectorConfig, host: str = "127.0.0.1", port: int = 0) -> CollectorServer:
    """Start a collector on a background thread (port 0: an ephemeral port, see server_address)."""
    server = make_server(cfg, host, port)
    threading.Thread(target=server.serve_forever, name="everypath-collector", daemon=True).start()
    return server

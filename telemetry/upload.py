"""Opt-in upload of local lake parts to a collector (`everypath telemetry upload`).

Both tables go: each `calls` part to POST /v1/calls and each `aggregates` part to POST
/v1/aggregates, as an Arrow IPC stream (with its device_class partition column put back; an
aggregates part also carries its schema version) under its content hash as the batch id
(`part-<hash>`, `agg-<hash>`), so a retry, or a second run after a crash between sending and
noting, is stored once by the collector. Uploaded ids are remembered, one per line, in
ROOT/.uploaded.

The ledger and compaction agree through ROOT/.upload.lock: a part is hashed, sent and noted
under the lock, and compaction decides on and merges a partition under it (compact.py), so a
merged part is either wholly uploaded (its id is noted too) or wholly not, never half, whatever
the interleaving; a part compacted away while a run was listing is picked up as the merged part
by the same run's second pass. A part merged from uploaded parts is marked so in its own
metadata (`everypath.uploaded`), so losing the ledger never sends its rows again; unmerged parts
are then sent again and the collector answers each with "duplicate batch".
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from everypath.telemetry.collector import AGGREGATES_PATH, ARROW_STREAM, VERSION_HEADER
from everypath.telemetry.lake import Lake


@dataclass(frozen=True)
class Table:
    """One table a device uploads: where its parts are, where they go, how their ids start."""

    name: str
    endpoint: str
    id_prefix: str
    files: Callable[[Lake], list[Path]]


# in a merged part's key-value metadata: every part it merged had been uploaded (compact.py)
UPLOADED_KEY = b"everypath.uploaded"
CALLS = Table("calls", "/v1/calls", "part-", Lake.files)
AGGREGATES = Table("aggregates", AGGREGATES_PATH, "agg-", Lake.aggregate_files)
TABLES = (CALLS, AGGREGATES)


@dataclass
class UploadReport:
    sent: int = 0  # calls parts stored by the collector
    rows: int = 0  # their rows
    aggregate_parts: int = 0  # aggregates parts stored by the collector
    aggregate_rows: int = 0
    duplicates: int = 0  # parts (either table) the collector already had
    skipped: int = 0  # parts already in the ledger
    failed: list[str] = field(default_factory=list)  # "path: reason"


def part_id(path: Path, prefix: str = CALLS.id_prefix) -> str:
    """A part's batch id: the table's prefix and its content hash (48 hex digits)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return prefix + h.hexdigest()[:48]


@contextlib.contextmanager
def upload_lock(lake: Lake) -> Iterator[None]:
    """ROOT/.upload.lock, exclusively: held while one part is sent and noted, and while compaction
    decides on and merges one partition (the ledger then never sees half a merged part)."""
    lake.root.mkdir(parents=True, exist_ok=True)
    with open(lake.root / ".upload.lock", "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def ledger(lake: Lake) -> set[str]:
    try:
        return set((lake.root / ".uploaded").read_text().split())
    except FileNotFoundError:
        return set()


def note_uploaded(lake: Lake, ids: list[str]) -> None:
    """Append ids to the ledger (O_APPEND: whole lines, concurrent appenders interleave safely)."""
    if not ids:
        return
    fd = os.open(lake.root / ".uploaded", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(fd, "".join(i + "\n" for i in ids).encode())
        os.fsync(fd)
    finally:
        os.close(fd)


def part_body(path: Path) -> tuple[bytes, int, str | None]:
    """A part as an Arrow IPC stream of its table's schema (device_class from its directory; the
    file's key-value metadata, schema name and version included), its rows and schema version."""
    table = pq.read_table(path)
    dc = path.parent.name.removeprefix("device_class=")
    table = table.append_column(pa.field("device_class", pa.string(), nullable=False),
                                pa.array([dc] * table.num_rows, pa.string()))
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    version = (table.schema.metadata or {}).get(b"everypath.schema_version")
    return sink.getvalue().to_pybytes(), table.num_rows, version.decode() if version else None


def post(url: str, token: str, batch_id: str, body: bytes, content_type: str = ARROW_STREAM,
         timeout: float = 30.0, endpoint: str = CALLS.endpoint,
         headers: dict[str, str] | None = None) -> tuple[int, dict[str, object]]:
    req = urllib.request.Request(url.rstrip("/") + endpoint, data=body, method="POST", headers={
        "Authorization": f"Bearer {token}", "X-Batch-Id": batch_id, "Content-Type": content_type, **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        try:
            return e.code, json.loads(e.read() or b"{}")
        except ValueError:
            return e.code, {"error": e.reason}


def upload(lake: Lake, url: str, token: str, *, retries: int = 3, backoff_s: float = 0.5) -> UploadReport:
    """Send every part of both tables not yet in the ledger; transport errors and 5xx are retried.
    A part compacted away before it was sent is sent as the merged part by a second pass."""
    report = UploadReport()
    for _ in range(2):
        vanished = False
        for table in TABLES:
            for path in table.files(lake):
                vanished |= not _send_part(lake, table, path, url, token, report, retries, backoff_s)
        if not vanished:
            break
    return report


def _send_part(lake: Lake, table: Table, path: Path, url: str, token: str, report: UploadReport, retries: int,
               backoff_s: float) -> bool:
    """Hash, send and note one part under the upload lock; False when it was compacted away."""
    with upload_lock(lake):
        try:
            pid = part_id(path, table.id_prefix)
            if pid in ledger(lake):
                report.skipped += 1
                return True
            if (pq.read_schema(path).metadata or {}).get(UPLOADED_KEY) == b"1":
                note_uploaded(lake, [pid])  # merged from uploaded parts: its rows are there (the ledger was lost)
                report.skipped += 1
                return True
            body, rows, version = part_body(path)
        except FileNotFoundError:
            return False  # merged meanwhile: the merged part is listed by the next pass
        headers = {VERSION_HEADER: version} if table is AGGREGATES and version else None
        for attempt in range(retries + 1):
            try:
                status, reply = post(url, token, pid, body, endpoint=table.endpoint, headers=headers)
            except (urllib.error.URLError, OSError) as e:
                status, reply = 0, {"error": str(e)}
            if status in (200, 201) or (400 <= status < 500):
                break
            time.sleep(backoff_s * 2 ** attempt)
        if status == 201 and table is AGGREGATES:
            report.aggregate_parts += 1
            report.aggregate_rows += rows
        elif status == 201:
            report.sent += 1
            report.rows += rows
        elif status == 200:
            report.duplicates += 1
        else:
            report.failed.append(f"{path}: HTTP {status}: {reply.get('error')}")
            return True
        note_uploaded(lake, [pid])
    return True

"""Opt-in upload of local lake parts to a collector (`everypath telemetry upload`).

Each part is sent as an Arrow IPC stream (with its device_class partition column put back)
under its content hash as the batch id, so a retry, or a second run after a crash between
sending and noting, is stored once by the collector. Uploaded ids are remembered, one per
line, in ROOT/.uploaded (compaction keeps this ledger consistent: see compact.py).
"""
from __future__ import annotations

import hashlib
import json
import os
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from everypath.telemetry.collector import ARROW_STREAM
from everypath.telemetry.lake import Lake


@dataclass
class UploadReport:
    sent: int = 0  # parts stored by the collector
    duplicates: int = 0  # parts the collector already had
    skipped: int = 0  # parts already in the ledger
    rows: int = 0
    failed: list[str] = field(default_factory=list)  # "path: reason"


def part_id(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return "part-" + h.hexdigest()[:48]


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


def part_body(path: Path) -> tuple[bytes, int]:
    """A part as an Arrow IPC stream of the calls schema (device_class from its directory)."""
    table = pq.read_table(path)
    dc = path.parent.name.removeprefix("device_class=")
    table = table.append_column(pa.field("device_class", pa.string(), nullable=False),
                                pa.array([dc] * table.num_rows, pa.string()))
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    return sink.getvalue().to_pybytes(), table.num_rows


def post(url: str, token: str, batch_id: str, body: bytes, content_type: str = ARROW_STREAM,
         timeout: float = 30.0) -> tuple[int, dict[str, object]]:
    req = urllib.request.Request(url.rstrip("/") + "/v1/calls", data=body, method="POST", headers={
        "Authorization": f"Bearer {token}", "X-Batch-Id": batch_id, "Content-Type": content_type})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        try:
            return e.code, json.loads(e.read() or b"{}")
        except ValueError:
            return e.code, {"error": e.reason}


def upload(lake: Lake, url: str, token: str, *, retries: int = 3, backoff_s: float = 0.5) -> UploadReport:
    """Send every part not yet in the ledger; transport errors and 5xx are retried."""
    report = UploadReport()
    done = ledger(lake)
    for path in lake.files():
        try:
            pid = part_id(path)
        except FileNotFoundError:
            continue  # compacted meanwhile: the merged part comes in a later run
        if pid in done:
            report.skipped += 1
            continue
        body, rows = part_body(path)
        for attempt in range(retries + 1):
            try:
                status, reply = post(url, token, pid, body)
            except (urllib.error.URLError, OSError) as e:
                status, reply = 0, {"error": str(e)}
            if status in (200, 201) or (400 <= status < 500):
                break
            time.sleep(backoff_s * 2 ** attempt)
        if status == 201:
            report.sent += 1
            report.rows += rows
        elif status == 200:
            report.duplicates += 1
        else:
            report.failed.append(f"{path}: HTTP {status}: {reply.get('error')}")
            continue
        note_uploaded(lake, [pid])
        done.add(pid)
    return report

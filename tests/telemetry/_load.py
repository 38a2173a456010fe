"""A collector under load, on 127.0.0.1: `everypath telemetry serve` in a child process that
can be SIGKILLed and restarted on its port, and concurrent uploaders that send pre-built
batches (each row with its own `ts`, so a row stored twice is visible), send some twice
(at once, from two uploaders), retry through the collector's downtime, and mix in batches
that must be refused. Used by tests/telemetry/test_collector_load.py (small) and
bench/collector_bench.py (1 M rows)."""
from __future__ import annotations

import http.client
import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from tests.telemetry._data import REPO, batch

TOKEN = "load-test-token-0123456789"
TS0 = 1_770_000_000_000_000_000
ARROW = "application/vnd.apache.arrow.stream"


def arrow_body(b: pa.RecordBatch | pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, b.schema) as w:
        w.write(b)
    return sink.getvalue().to_pybytes()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Collector:
    """`everypath telemetry serve` as a child process (its own group: a kill takes every thread)."""

    def __init__(self, lake: Path, max_bytes: int, log: Path) -> None:
        self.lake, self.max_bytes, self.log = lake, max_bytes, log
        self.port = free_port()
        self.token_file = log.with_name("token")
        self.token_file.write_text(TOKEN)
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self, timeout_s: float = 60.0) -> None:
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "everypath.cli", "telemetry", "serve", "--lake", str(self.lake),
                 "--port", str(self.port), "--token-file", str(self.token_file), "--max-bytes", str(self.max_bytes)],
                stdout=out, stderr=subprocess.STDOUT, cwd=REPO, start_new_session=True,
                env={**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")})
        self.starts += 1
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"collector exited {self.proc.returncode}: {self.log.read_text()[-2000:]}")
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
                conn.request("GET", "/healthz")
                if conn.getresponse().status == 200:
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"collector not healthy within {timeout_s} s: {self.log.read_text()[-2000:]}")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def __enter__(self) -> Collector:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()


@dataclass(frozen=True)
class Bad:
    """A batch the collector must refuse, with the status it must answer."""

    name: str
    body: bytes
    status: int
    token: str | None = TOKEN
    ctype: str = ARROW


def bad_batches(max_bytes: int) -> list[Bad]:
    """Every row of these is marked function 'bad.*' (none may reach the lake)."""
    def marked(n: int, seed: int) -> pa.Table:
        t = pa.Table.from_batches([batch(n, seed=seed, ts0=TS0 - 10**12)])  # storable but for its defect
        return t.set_column(t.schema.get_field_index("function"), "function",
                            pa.array([f"bad.{seed}"] * n, pa.string()))

    good = arrow_body(marked(50, 1))
    extra = marked(50, 2).append_column("colour", pa.array(["red"] * 50))
    negative = marked(50, 3)
    negative = negative.set_column(negative.schema.get_field_index("threads"), "threads",
                                   pa.array([-1] * 50, pa.int16()))
    # just over the limit: the collector reads and drops a body up to 4x its limit, so the client
    # gets the 413 (a far bigger one is not read at all: the client sees the connection close)
    per_row = len(arrow_body(marked(2000, 4))) / 2000
    big = arrow_body(marked(int(max_bytes * 1.2 / per_row), 4))
    assert max_bytes < len(big) < 4 * max_bytes
    return [Bad("unauthenticated", good, 401, token=None), Bad("wrong token", good, 403, token="nope"),
            Bad("malformed", good[: len(good) // 2], 400), Bad("oversized", big, 413),
            Bad("unknown column", arrow_body(extra), 422), Bad("invalid rows", arrow_body(negative), 422),
            Bad("content type", good, 415, ctype="application/json")]


@dataclass
class Outcome:
    rows_sent: int = 0  # rows of distinct good batches acknowledged (201 or 200)
    created: int = 0
    duplicates: int = 0  # 200 answers (a batch sent twice, or re-sent after a kill)
    retries: int = 0  # sends that failed in transport (the collector was down) and were repeated
    refused: dict[str, int] = field(default_factory=dict)  # bad batch name -> status answered
    seconds: float = 0.0
    kills: int = 0

    @property
    def rows_per_s(self) -> float:
        return self.rows_sent / self.seconds if self.seconds else 0.0


def _send(port: int, body: bytes, batch_id: str, token: str | None, ctype: str) -> tuple[int, dict[str, object]]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"X-Batch-Id": batch_id, "Content-Type": ctype, "Content-Length": str(len(body))}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    try:
        conn.request("POST", "/v1/calls", body=body, headers=headers)
        r = conn.getresponse()
        return r.status, json.loads(r.read() or b"{}")
    finally:
        conn.close()


def good_batches(rows: int, per_batch: int, classes: int = 8) -> list[tuple[str, bytes, int]]:
    """(batch id, Arrow IPC body, rows); row i of batch k has ts TS0 + k * per_batch + i."""
    out = []
    for k, start in enumerate(range(0, rows, per_batch)):
        n = min(per_batch, rows - start)
        b = batch(n, seed=k, ts0=TS0 + start, device_class=f"load{k % classes:08d}")
        out.append((f"load-{k:07d}", arrow_body(b), n))
    return out


def run(collector: Collector, batches: list[tuple[str, bytes, int]], *, uploaders: int = 32,
        duplicate_every: int = 0, kill_after: float | None = None, bad: list[Bad] | None = None,
        deadline_s: float = 300.0) -> Outcome:
    """Send every batch (a duplicate_every-th one twice, from two uploaders), bad ones among
    them; SIGKILL the collector once kill_after of the rows are acknowledged, restart it."""
    work: queue.Queue[tuple[str, bytes, int] | Bad | None] = queue.Queue()
    bad = bad or []
    spread = {(j + 1) * len(batches) // (len(bad) + 1): j for j in range(len(bad))}  # evenly among the good
    for i, b in enumerate(batches):
        work.put(b)
        if duplicate_every and i % duplicate_every == 0:
            work.put(b)
        if i in spread:
            work.put(bad[spread[i]])
    for j in sorted(set(range(len(bad))) - set(spread.values())):  # more kinds than batches
        work.put(bad[j])
    for _ in range(uploaders):
        work.put(None)
    out, lock, acked = Outcome(), threading.Lock(), set()
    killed = threading.Event()
    errors: list[str] = []
    end = time.monotonic() + deadline_s

    def uploader() -> None:
        while (item := work.get()) is not None:
            while True:
                if time.monotonic() > end:
                    errors.append("deadline passed")
                    return
                try:
                    if isinstance(item, Bad):
                        status, reply = _send(collector.port, item.body, f"bad-{item.name.replace(' ', '-')}",
                                              item.token, item.ctype)
                    else:
                        status, reply = _send(collector.port, item[1], item[0], TOKEN, ARROW)
                except (OSError, http.client.HTTPException):
                    with lock:
                        out.retries += 1
                    time.sleep(0.05)
                    continue
                if status >= 500:
                    errors.append(f"{status}: {reply}")
                    return
                break
            with lock:
                if isinstance(item, Bad):
                    out.refused[item.name] = status
                    continue
                if status not in (200, 201):
                    errors.append(f"{item[0]}: {status} {reply}")
                    return
                out.created += status == 201
                out.duplicates += status == 200
                if item[0] not in acked:
                    acked.add(item[0])
                    out.rows_sent += item[2]
                chaos = kill_after is not None and not killed.is_set() and out.rows_sent >= kill_after * total
                if chaos:
                    killed.set()
            if chaos:
                collector.kill()
                out.kills += 1
                time.sleep(0.2)
                collector.start()

    total = sum(b[2] for b in batches)
    threads = [threading.Thread(target=uploader, daemon=True) for _ in range(uploaders)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join(max(1.0, end - time.monotonic()))
    out.seconds = time.perf_counter() - t0
    if errors:
        raise AssertionError(f"uploads failed: {errors[:5]}")
    return out

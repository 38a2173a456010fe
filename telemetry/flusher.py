"""The background flusher: drains the shim's records, buffers them as Arrow rows and
publishes sizeable parts to the lake.

It drains every settings.flush_seconds (at once again while drains come back large),
publishes when the buffer holds a row group's worth or every `publish_seconds`, and on
flush()/close(), at exit and on SIGTERM/SIGINT (then hands the signal to the previous
handler, so Ctrl-C still raises KeyboardInterrupt and SIGTERM still terminates with the
right status). It never raises into user code: failures are logged and counted. A process
killed with SIGKILL loses only the rows not yet published; parts appear by rename, whole.
"""
from __future__ import annotations

import atexit
import logging
import os
import signal
import threading
import time
from collections.abc import Callable
from types import FrameType

import pyarrow as pa

from everypath.base.settings import Settings
from everypath.telemetry.lake import Lake
from everypath.telemetry.records import CallSite, RawCalls, to_batch

log = logging.getLogger("everypath.telemetry")

Drain = Callable[[], "tuple[RawCalls, list[CallSite]] | None"]
_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class Flusher:
    def __init__(self, drain: Drain, lake: Lake, settings: Settings, device: dict[str, object], *,
                 publish_rows: int = 256_000, publish_seconds: float | None = None, redrain_rows: int = 200_000,
                 max_buffer_rows: int = 8_000_000, install_signals: bool = True, start: bool = True) -> None:
        self.drain, self.lake, self.settings, self.device = drain, lake, settings, device
        self.publish_rows, self.redrain_rows, self.max_buffer_rows = publish_rows, redrain_rows, max_buffer_rows
        # default: a part at least every 6 drains (30 s with the default 5 s flush interval)
        self.publish_seconds = max(publish_seconds if publish_seconds is not None else 6 * settings.flush_seconds,
                                   settings.flush_seconds)
        self.errors = 0  # failures logged (drain, conversion or publish)
        self.dropped = 0  # rows discarded because publishing kept failing and the buffer was full
        self.published_rows = 0
        self._buf: list[pa.RecordBatch] = []
        self._buf_rows = 0
        self._last_publish = time.monotonic()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._closed = False
        self._prev: dict[int, object] = {}
        self._thread = threading.Thread(target=self._run, name="everypath-telemetry-flusher", daemon=True)
        atexit.register(self.close)
        if install_signals and threading.current_thread() is threading.main_thread():
            for sig in _SIGNALS:
                self._prev[sig] = signal.getsignal(sig)
                signal.signal(sig, self._on_signal)
        if start:
            self._thread.start()

    # ---- the loop -------------------------------------------------------------------
    def _run(self) -> None:
        while not self._stop.wait(self.settings.flush_seconds):
            with self._lock:
                self._drain_all()
                due = time.monotonic() - self._last_publish >= self.publish_seconds
                if self._buf_rows >= self.publish_rows or (due and self._buf_rows):
                    self._publish()

    def _drain_all(self) -> None:
        """Drain again while drains come back large (rings filling fast), but boundedly: a
        busy program must not keep the flusher (or a flush at exit) draining forever."""
        for _ in range(16):
            if self._drain_once() < self.redrain_rows:
                return

    def _drain_once(self) -> int:
        try:
            got = self.drain()
            if got is None:
                return 0
            raw, sites = got
            if not len(raw):
                return 0
            batch = to_batch(raw, sites, self.device)
        except Exception:  # noqa: BLE001 - telemetry must never break the user's program
            self.errors += 1
            log.exception("everypath telemetry: draining records failed")
            return 0
        self._buf.append(batch)
        self._buf_rows += batch.num_rows
        while self._buf_rows > self.max_buffer_rows and len(self._buf) > 1:
            old = self._buf.pop(0)
            self._buf_rows -= old.num_rows
            self.dropped += old.num_rows
        return batch.num_rows

    def _publish(self) -> None:
        if not self._buf:
            return
        try:
            self.lake.publish(pa.Table.from_batches(self._buf))
        except Exception:  # noqa: BLE001 - keep the rows and try again next time
            self.errors += 1
            log.exception("everypath telemetry: publishing %d rows to %s failed", self._buf_rows, self.lake.root)
            return
        self.published_rows += self._buf_rows
        self._buf, self._buf_rows = [], 0
        self._last_publish = time.monotonic()

    # ---- explicit flushes -------------------------------------------------------------
    def flush(self, timeout: float = -1) -> bool:
        """Drain and publish everything now; False when the lock was not had within timeout."""
        if not self._lock.acquire(timeout=timeout):
            return False
        try:
            self._drain_all()
            self._publish()
            return True
        finally:
            self._lock.release()

    def close(self) -> None:
        """Stop the thread, publish what is left, restore the signal handlers (idempotent)."""
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=10)
        try:
            self.flush(timeout=10)
        except Exception:  # noqa: BLE001
            self.errors += 1
            log.exception("everypath telemetry: final flush failed")
        if threading.current_thread() is threading.main_thread():
            for sig, prev in self._prev.items():
                if signal.getsignal(sig) == self._on_signal:
                    signal.signal(sig, prev)  # type: ignore[arg-type]
        atexit.unregister(self.close)

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        try:
            # the main thread may have been interrupted inside flush() itself: don't wait forever
            self.flush(timeout=2.0)
        except Exception:  # noqa: BLE001
            self.errors += 1
            log.exception("everypath telemetry: flush on signal %d failed", signum)
        prev = self._prev.get(signum)
        if callable(prev):
            prev(signum, frame)  # e.g. default_int_handler: KeyboardInterrupt as usual
        elif prev == signal.SIG_IGN:
            return
        else:  # SIG_DFL (or unknown): die of the signal itself, so the exit status is right
            self._closed = True
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)

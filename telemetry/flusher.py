"""The background flusher: drains the shim's records, buffers them as Arrow rows and
publishes sizeable parts to the lake.

It drains every settings.flush_seconds (at once again while drains come back large, and early
when `pressure()` says a thread's ring is half full: its raw sample has begun to thin), publishes
the raw rows and the exact aggregates (telemetry/aggregates.py) after every drain that got some
(`publish_seconds`, default flush_seconds: a SIGKILL loses at most that much), and on
flush()/close(), at exit and on SIGTERM/SIGINT (then hands the signal to the previous
handler, so Ctrl-C still raises KeyboardInterrupt and SIGTERM still terminates with the
right status). It never raises into user code: failures are logged and counted. A process
killed with SIGKILL loses only the rows and aggregates not yet published (at most the last
flush_seconds plus one publish); parts appear by rename, whole.

Drained records stay NumPy columns (RawCalls) until a publish converts them: the first publish
is what imports pyarrow and the lake (issue 13: a process that records nothing, or exits before
its first publish, never loads them on its way). The lake and the device fields may be given
as factories for the same reason; they are called at the first publish. Exit never waits on the
timer: close() wakes the thread, drains once more and writes what is left: published, once this
process has published; else into the exit journal (telemetry/journal.py, NumPy only), which the lake's
next reader or writer publishes, so a short-lived process never imports pyarrow on its way out.
"""
from __future__ import annotations

import atexit
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from everypath.base.settings import Settings
from everypath.telemetry.records import CallSite, RawCalls, to_batch

if TYPE_CHECKING:
    import pyarrow as pa

    from everypath.telemetry.aggregates import AggregateRows

    from everypath.telemetry.lake import Lake


class LazyLogger:
    """logging.getLogger(name), looked up on first use: logging (with traceback and string, ~1.5 ms)
    is not loaded on a first call's path only for a message telemetry may never have to say."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __getattr__(self, attr: str) -> Any:
        import logging

        return getattr(logging.getLogger(self.name), attr)


log = LazyLogger("everypath.telemetry")

Drain = Callable[[], "tuple[RawCalls, list[CallSite]] | None"]
Device = dict[str, object]
_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class Flusher:
    PRESSURE_POLL_S = 0.25  # how often `pressure` is asked between drains

    def __init__(self, drain: Drain, lake: Lake | Callable[[], Lake], settings: Settings,
                 device: Device | Callable[[], Device], *,
                 publish_rows: int = 256_000, publish_seconds: float | None = None, redrain_rows: int = 200_000,
                 max_buffer_rows: int = 8_000_000, install_signals: bool = True, start: bool = True,
                 pressure: Callable[[], bool] | None = None) -> None:
        self.drain, self.settings, self.pressure = drain, settings, pressure
        self._lake, self._device = lake, device  # factories are called at the first publish
        self.publish_rows, self.redrain_rows, self.max_buffer_rows = publish_rows, redrain_rows, max_buffer_rows
        # default: parts after every drain that got rows, so that a SIGKILL loses at most flush_seconds
        # (compaction merges the small parts of closed dates)
        self.publish_seconds = max(publish_seconds if publish_seconds is not None else settings.flush_seconds,
                                   settings.flush_seconds)
        self.errors = 0  # failures logged (drain, conversion or publish)
        self.dropped = 0  # rows discarded because publishing kept failing and the buffer was full
        self.published_rows = 0
        self.journaled_rows = 0  # rows of the last drain written to the exit journal (not yet in the lake)
        # drained pieces, (RawCalls, sites) until a publish converts them to Arrow batches (kept as such
        # when that publish fails, for the retry)
        self._buf: list[tuple[RawCalls, list[CallSite]] | pa.RecordBatch] = []
        self._buf_rows = 0
        # drained aggregates, (AggregateRows, sites) until a publish converts them (then a batch)
        self._agg: list[tuple[AggregateRows, list[CallSite]] | pa.RecordBatch] = []
        self.published_aggregates = 0
        self._last_publish = self._last_drain = time.monotonic()
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

    @property
    def lake(self) -> Lake:
        if callable(self._lake):
            self._lake = self._lake()
        return self._lake

    @property
    def device(self) -> Device:
        if callable(self._device):
            self._device = self._device()
        return self._device

    # ---- the loop -------------------------------------------------------------------
    def _run(self) -> None:
        period = self.settings.flush_seconds
        poll = min(period, self.PRESSURE_POLL_S) if self.pressure is not None else period
        while not self._stop.wait(poll):
            timed = time.monotonic() - self._last_drain >= period - 1e-3
            if not timed and not self._under_pressure():
                continue
            with self._lock:
                self._drain_all()
                due = time.monotonic() - self._last_publish >= self.publish_seconds - 1e-3
                if self._buf_rows >= self.publish_rows or (due and (self._buf_rows or self._agg)):
                    self._publish()

    def _under_pressure(self) -> bool:
        try:
            return bool(self.pressure is not None and self.pressure())
        except Exception:  # noqa: BLE001 - telemetry must never break the user's program
            self.errors += 1
            log.exception("everypath telemetry: asking the hub for ring pressure failed")
            self.pressure = None
            return False

    def _drain_all(self) -> None:
        """Drain again while drains come back large (rings filling fast), but boundedly: a
        busy program must not keep the flusher (or a flush at exit) draining forever."""
        for _ in range(16):
            if self._drain_once() < self.redrain_rows:
                return

    def _drain_once(self) -> int:
        self._last_drain = time.monotonic()
        try:
            got = self.drain()
            if got is None:
                return 0
            raw, sites = got
            n = len(raw)
            if raw.aggregates is not None and len(raw.aggregates):
                self._agg.append((raw.aggregates, list(sites)))
            if not n:
                return 0
        except Exception:  # noqa: BLE001 - telemetry must never break the user's program
            self.errors += 1
            log.exception("everypath telemetry: draining records failed")
            return 0
        self._buf.append((raw, list(sites)))  # the site list grows in place: keep this drain's view
        self._buf_rows += n
        while self._buf_rows > self.max_buffer_rows and len(self._buf) > 1:
            old = _rows(self._buf.pop(0))
            self._buf_rows -= old
            self.dropped += old
        return n

    def _batches(self) -> list[pa.RecordBatch]:
        """The buffer as Arrow batches (converted in place); a piece that cannot be converted is
        logged, counted and dropped (it would fail every retry)."""
        device = self.device  # raises into _publish: a publish failure, the rows are kept
        out: list[Any] = []
        for piece in self._buf:
            if isinstance(piece, tuple):
                try:
                    piece = to_batch(piece[0], piece[1], device)
                except Exception:  # noqa: BLE001
                    self.errors += 1
                    self._buf_rows -= len(piece[0])
                    log.exception("everypath telemetry: converting %d drained records failed", len(piece[0]))
                    continue
            out.append(piece)
        self._buf = out
        return out

    def _publish(self) -> None:
        self._publish_aggregates()
        if not self._buf:
            return  # nothing recorded: pyarrow and the lake stay unloaded
        try:
            batches = self._batches()
            if batches:
                import pyarrow as pa

                self.lake.publish(pa.Table.from_batches(batches))
        except Exception:  # noqa: BLE001 - keep the rows and try again next time
            self.errors += 1
            log.exception("everypath telemetry: publishing %d rows to %s failed", self._buf_rows,
                          getattr(self._lake, "root", "the lake"))
            return
        self.published_rows += self._buf_rows
        self._buf, self._buf_rows = [], 0
        self._last_publish = time.monotonic()
        try:
            self.lake.settle()  # exit journals other processes left (telemetry/journal.py)
        except Exception:  # noqa: BLE001 - theirs, not ours: never fails this publish
            self.errors += 1
            log.exception("everypath telemetry: publishing exit journals failed")

    def _publish_aggregates(self) -> None:
        """Publish the buffered aggregates (kept for the next try when that fails)."""
        if not self._agg:
            return
        from everypath.telemetry import aggregates

        try:
            device = self.device
            out: list[Any] = []
            for piece in self._agg:
                if isinstance(piece, tuple):
                    try:
                        piece = aggregates.to_batch(piece[0], piece[1], device)
                    except Exception:  # noqa: BLE001 - would fail every retry: logged, counted, dropped
                        self.errors += 1
                        log.exception("everypath telemetry: converting %d aggregate rows failed", len(piece[0]))
                        continue
                out.append(piece)
            self._agg = out
            if out:
                import pyarrow as pa

                aggregates.publish(self.lake, pa.Table.from_batches(out))
        except Exception:  # noqa: BLE001 - keep them and try again next time
            self.errors += 1
            log.exception("everypath telemetry: publishing aggregates to %s failed", getattr(self._lake, "root", "the lake"))
            return
        self.published_aggregates += sum(b.num_rows for b in self._agg)
        self._agg = []

    # ---- explicit flushes -------------------------------------------------------------
    def flush(self, timeout: float = -1) -> bool:
        """Drain and publish everything now; False when the lock was not had within timeout."""
        if not self._lock.acquire(timeout=timeout):
            return False
        try:
            self._drain_all()
            self._publish()
            self._last_publish = time.monotonic()
            return True
        finally:
            self._lock.release()

    def final_flush(self, timeout: float = 10.0) -> bool:
        """The last drain: published as usual once this process has published (pyarrow loaded), else written
        to the exit journal with NumPy alone (telemetry/journal.py), which the lake's next reader or writer
        publishes: importing pyarrow to write one small part would add ~100-150 ms to the exit (or to the
        grace a supervisor gives after SIGTERM). False when the lock was not had within timeout."""
        if not self._lock.acquire(timeout=timeout):
            return False
        try:
            self._drain_all()
            pieces = [*self._buf, *self._agg]
            if "pyarrow" in sys.modules or not pieces or not all(isinstance(p, tuple) for p in pieces):
                self._publish()
                return True
            from everypath.telemetry import journal

            root = getattr(self._lake, "root", None) or self.settings.lake
            journal.write(Path(root), self._buf, self._agg, self.device)  # type: ignore[arg-type]
            self.journaled_rows += self._buf_rows
            self._buf, self._buf_rows, self._agg = [], 0, []
        finally:
            self._lock.release()
        return True

    def close(self) -> None:
        """Stop the thread, publish what is left, restore the signal handlers (idempotent)."""
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=10)
        try:
            self.final_flush()
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
            # the main thread may have been interrupted inside flush() itself: don't wait forever; the
            # process is likely ending: the exit path (journal, no pyarrow import) rather than a publish
            self.final_flush(timeout=2.0)
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


def _rows(piece: tuple[RawCalls, list[CallSite]] | pa.RecordBatch) -> int:
    return len(piece[0]) if isinstance(piece, tuple) else piece.num_rows

"""The Python side of the runtime shim: configures the hub in lowering._runtime from
Settings, turns its drained columns into RawCalls with the process's site table, and
runs the background flusher that writes them to the lake.

Starting costs next to nothing on the caller's path (issue 13): the hub is configured (a few
atomics) and the flusher's thread started, both synchronously; pyarrow, the lake and the device
fingerprint load at the flusher's first publish, never when nothing is recorded or telemetry is
off. A selection table in force needs the device class before the first call: only that is made
then (CPU flags and caches, the GPU's model where an NVIDIA driver is loaded), not the device id.
At exit the flusher's own atexit hook drains once more and writes what is left, without
waiting for a timer tick.
"""
from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

import numpy as np

from everypath.base.settings import Settings

if TYPE_CHECKING:
    from everypath.telemetry.records import CallSite, RawCalls


class _Log:
    """logging.getLogger('everypath.telemetry') on first use (as flusher.LazyLogger, without importing the
    flusher, its records and signal: a first call with telemetry off never needs them)."""

    def __getattr__(self, attr: str) -> Any:
        import logging

        return getattr(logging.getLogger("everypath.telemetry"), attr)


log = _Log()


@dataclass
class SiteCatalog:
    """The process's call sites, in the hub's id order (grows as libraries load)."""

    sites: list[CallSite] = field(default_factory=list)
    dropped: int = 0  # raw records lost to full rings in this process (the aggregates still count them)
    overflow: int = 0  # calls counted beyond a thread's aggregate table (docs/telemetry.md)
    last_drain_ns: int = field(default_factory=time.time_ns)  # start of the next aggregates interval

    def refresh(self, runtime: Any) -> list[CallSite]:
        from everypath.telemetry.records import CallSite

        for function, op, call_site, dtype, variants in runtime.telemetry_sites(len(self.sites)):
            self.sites.append(CallSite(function, op, call_site, dtype or "", tuple(variants.split(","))))
        return self.sites


def drain(runtime: Any, catalog: SiteCatalog) -> tuple[RawCalls, list[CallSite]] | None:
    """Everything recorded since the last drain (None when nothing was): the raw sample, with the
    interval's exact aggregates attached (RawCalls.aggregates, None when no call ran)."""
    from everypath.telemetry.records import RawCalls

    d = runtime.telemetry_drain()
    now = time.time_ns()
    start, catalog.last_drain_ns = catalog.last_drain_ns, now
    if d["dropped"]:
        if not catalog.dropped:  # once per process: a hot loop of tiny calls would say it every drain
            log.warning("telemetry: raw records dropped because a thread's ring filled between drains "
                        "(the aggregates still count every call; EVERYPATH_TELEMETRY_SAMPLE lowers the rate)")
        catalog.dropped += int(d["dropped"])
    agg = d["aggregates"]
    if agg["overflow"]:
        if not catalog.overflow:
            log.warning("telemetry: a thread ran more distinct (call site, variant, size bucket) keys than its "
                        "aggregate table holds; the rest are counted without attribution")
        catalog.overflow += int(agg["overflow"])
    if len(d["site"]) == 0 and len(agg["site"]) == 0:
        return None
    from everypath.telemetry.aggregates import AggregateRows

    versions = np.array([v or None for v in runtime.telemetry_table_versions()], dtype=object)
    rows = AggregateRows.from_drain(agg, start, now) if len(agg["site"]) else None
    raw = RawCalls(ts_ns=d["ts_ns"], latency_ns=d["latency_ns"], site=d["site"], variant=d["variant"],
                   ndim=d["ndim"], shape=d["shape"], n_elements=d["n_elements"],  # (n, MAX_DIMS) already
                   threads=d["threads"], explore=d["explore"], propensity=d["propensity"],
                   table_version=versions[d["table"]], inclusion=d["inclusion"], aggregates=rows)
    return raw, catalog.refresh(runtime)


class Shim:
    """One per process: the hub's configuration and the flusher draining it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._started = False
        self.catalog = SiteCatalog()
        self.flusher: Any = None
        self.ready = threading.Event()  # set once start() has run (kept for callers that wait on it)
        self._prev_handlers: dict[int, Any] = {}

    def start(self, settings: Settings) -> None:
        from everypath.lowering import _runtime

        with self._lock:
            if self._started:
                return
            self._started = True
        # a sample of 0 keeps the exact aggregates and records no raw rows
        on = settings.telemetry
        _runtime.telemetry_configure(on, settings.telemetry_sample, settings.explore)
        table = self._table_path(settings)
        if table is not None:  # before the first call: the learned choice serves every call (~ms, once)
            try:
                from everypath.telemetry.device import process_device_class

                # the class alone: the device id (the lake's salt) waits for the flusher's first publish
                self._apply_table(table, process_device_class(settings))
            except Exception:  # noqa: BLE001 - a broken table or fingerprint never breaks user code
                log.exception("telemetry: cannot apply the selection table %s; the built-in thresholds choose", table)
        if on:
            try:
                self.flusher = self._flusher(settings)
                self._install_signals()
            except Exception:  # telemetry never breaks user code: stop recording, say why once
                log.exception("telemetry: cannot start the lake flusher; recording is off for this process")
                _runtime.telemetry_configure(False, 0.0, 0.0)
        self.ready.set()

    def _flusher(self, settings: Settings) -> Any:
        """The flusher, its thread running; the lake and the device fields are made at its first publish."""
        from everypath.lowering import _runtime
        from everypath.telemetry.flusher import Flusher  # light: NumPy only until its first publish

        def lake() -> Any:
            from everypath.telemetry.lake import Lake

            return Lake(settings.lake)

        def device() -> dict[str, object]:
            from everypath.telemetry.device import process_device

            return process_device(settings)

        return Flusher(lambda: drain(_runtime, self.catalog), lake, settings, device,
                       install_signals=False,  # the shim's own handlers (main thread)
                       pressure=_runtime.telemetry_pressure)

    def _install_signals(self) -> None:
        """SIGTERM/SIGINT publish what was recorded, then go on to the previous handler (Ctrl-C
        still raises KeyboardInterrupt; SIGTERM still ends the process with its status)."""
        if threading.current_thread() is not threading.main_thread():
            return  # Python handles signals only in the main thread
        import signal

        for sig in (signal.SIGTERM, signal.SIGINT):
            self._prev_handlers[sig] = signal.getsignal(sig)
            signal.signal(sig, self._on_signal)

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        import signal

        try:
            self.ready.wait(2.0)
            if self.flusher is not None:
                # the main thread may have been interrupted inside a flush: bounded wait; the exit path (the
                # journal when nothing was published yet: no pyarrow import inside a supervisor's grace)
                self.flusher.final_flush(timeout=2.0)
        except Exception:  # noqa: BLE001 - never let telemetry change how a signal ends the process
            log.exception("telemetry: flush on signal %d failed", signum)
        prev = self._prev_handlers.get(signum)
        if callable(prev):
            prev(signum, frame)
        elif prev != signal.SIG_IGN:  # SIG_DFL: die of the signal itself, so the exit status is right
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)

    @staticmethod
    def _table_path(settings: Settings) -> Path | None:
        from everypath.base.selection_table import table_in_force

        return table_in_force(settings.selection_table, settings.registry)

    @staticmethod
    def _apply_table(path: Path, device_class: str) -> None:
        from everypath.lowering import _runtime
        from everypath.base.selection_table import TableError, load_table

        try:
            table = load_table(path, device_class)
        except TableError as exc:
            log.warning("telemetry: %s; the built-in thresholds choose", exc)
            return
        if table is None:
            log.info("telemetry: %s has no table for device class %s; the built-in thresholds choose",
                     path, device_class)
            return
        _runtime.telemetry_set_table(table.version, table.as_runtime())

    def flush(self, timeout: float = 30.0) -> None:
        """Publish everything recorded so far (tests, `everypath` commands before they read the lake)."""
        self.ready.wait(timeout)
        if self.flusher is not None:
            self.flusher.flush()


    def stop(self, timeout: float = 30.0) -> None:
        """Publish what was recorded and stop draining the hub (it keeps recording into the
        rings until someone drains them: tests of the shim itself, embedders with their own sink)."""
        self.ready.wait(timeout)
        if self.flusher is not None:
            self.flusher.close()
            self.flusher = None


SHIM = Shim()  # the process's one hub is a C++ singleton too; this object mirrors it


def start_telemetry(settings: Settings) -> None:
    SHIM.start(settings)


def flush_telemetry(timeout: float = 30.0) -> None:
    SHIM.flush(timeout)


def stop_telemetry(timeout: float = 30.0) -> None:
    SHIM.stop(timeout)

"""`everypath autotune`: every available variant of every operator call a function makes,
measured on this device over a grid of sizes, into the telemetry lake.

Each (function, size, variant) block forces the variant through the runtime's selection
table (version "autotune:<run>:<variant>": the rows say how they were chosen), warms up
with recording off, then records `repeats` calls through the same shim production calls
use. Kept rows are those whose site ran the forced variant; they are stored as exploration
with propensity 1/k (k = the site's variants: each ran equally often, a uniform design),
which is how the selector weighs them. A variant that raises is a failure row in the
run's summary (lake/autotune/<run>.parquet, DuckDB view `autotune`), never dropped.
"""
from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np
import pyarrow as pa

from everypath.base.settings import Settings
from everypath.selector.autotune_inputs import Target
from everypath.telemetry.records import CallSite, RawCalls, to_batch
from everypath.telemetry.schema import AUTOTUNE_SCHEMA
from everypath.telemetry.shim import SiteCatalog, drain, stop_telemetry


class Status:
    OK = "ok"
    FAILED = "failed"  # the forced variant raised
    INPUT_ERROR = "input-error"  # the function rejects the generated inputs with its default variants


@dataclass(frozen=True)
class SweepConfig:
    sizes: tuple[int, ...] = (1_000, 30_000, 1_000_000)
    repeats: int = 7
    warmup: int = 2
    seed: int = 0


@dataclass(frozen=True)
class Measurement:
    """One (function, call site, variant, size) of a run: the median of its recorded calls."""

    function: str
    op: str
    call_site: str
    variant: str
    size: int  # the grid size asked for
    n_elements: int  # the recorded largest-operand size (0 for failures)
    dtype: str
    repeats: int
    median_ns: float | None
    status: str
    error: str | None = None




def _err(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:300]}"


class Sweep:
    """Runs the blocks of one autotune run in this process (the hub is the process's)."""

    def __init__(self, cfg: SweepConfig, settings: Settings, device: dict[str, object],
                 progress: Callable[[str], None] = lambda s: None) -> None:
        from everypath.lowering import _runtime

        self.rt, self.cfg, self.device, self.progress = _runtime, cfg, device, progress
        self.settings = replace(settings, telemetry=False)  # this sweep drains the hub itself
        self.run_id = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ-") + uuid.uuid4().hex[:6]
        self.catalog = SiteCatalog()
        self.batches: list[pa.RecordBatch] = []
        self.results: list[Measurement] = []

    def _quiet(self) -> None:
        self.rt.telemetry_configure(False)
        self.rt.telemetry_drain()

    def _record(self, fn: Callable[..., Any], args: tuple[Any, ...], calls: int) -> tuple[RawCalls, list[CallSite]] | None:
        self.rt.telemetry_configure(True, 1.0, 0.0, timing_budget=1.0)  # a sweep times every call
        try:
            for _ in range(calls):
                fn(*args)
        finally:
            self.rt.telemetry_configure(False)
        return drain(self.rt, self.catalog)

    def _force(self, label: str, ops: list[str], variant: str) -> None:
        self.rt.telemetry_set_table(f"autotune:{self.run_id}:{label}", [(op, [], [variant]) for op in ops])

    def run(self, targets: list[Target]) -> None:
        from everypath.lowering.compiled import CompiledFunction, CompileOptions

        stop_telemetry()  # a flusher of this process would drain the hub under us
        rng = np.random.default_rng(self.cfg.seed)
        for t in targets:
            fn = CompiledFunction(t.fn, CompileOptions(), self.settings)  # telemetry: this run's own hub
            for size in self.cfg.sizes:
                self._size(t, fn, size, t.inputs(size, rng))
        self._quiet()
        self.rt.telemetry_set_table(f"autotune:{self.run_id}:done", [])

    def _size(self, t: Target, fn: Callable[..., Any], size: int, args: tuple[Any, ...]) -> None:
        self._quiet()
        self.rt.telemetry_set_table(f"autotune:{self.run_id}:defaults", [])
        try:
            fn(*args)  # compiles and loads (telemetry off)
            got = self._record(fn, args, 1)  # which operator call sites run, with the default choices
        except Exception as exc:  # noqa: BLE001 - the inputs are data: say so and go on
            self._quiet()
            self.results.append(Measurement(t.name, "", "", "", size, 0, "", 0, None, Status.INPUT_ERROR, _err(exc)))
            self.progress(f"{t.name} n={size}: inputs rejected ({_err(exc)})")
            return
        if got is None:
            self.progress(f"{t.name} n={size}: no operator call was recorded")
            return
        raw, sites = got
        mine = sorted(set(raw.site.tolist()))
        variants = list(dict.fromkeys(v for s in mine for v in sites[s].variants))
        for v in variants:
            have = [s for s in mine if v in sites[s].variants]
            ops = sorted({sites[s].op for s in have})
            self.progress(f"{t.name} n={size}: {v} ({len(have)} call sites)")
            self._block(t, fn, size, args, v, have, ops)

    def _block(self, t: Target, fn: Callable[..., Any], size: int, args: tuple[Any, ...], v: str,
               have: list[int], ops: list[str]) -> None:
        self._quiet()
        self._force(v, ops, v)
        try:
            for _ in range(self.cfg.warmup):
                fn(*args)
            got = self._record(fn, args, self.cfg.repeats)
        except Exception as exc:  # noqa: BLE001 - a failing variant is data
            self._quiet()
            self._failures(t, fn, size, args, v, have, exc)
            return
        if got is None:
            return
        raw, sites = got
        names = np.array([sites[s].variants[k] if s in have else "" for s, k in zip(raw.site.tolist(),
                                                                                     raw.variant.tolist())])
        keep = names == v
        if not keep.any():
            return
        k = np.array([len(sites[s].variants) for s in raw.site[keep].tolist()], dtype=np.float32)
        part = RawCalls(ts_ns=raw.ts_ns[keep], latency_ns=raw.latency_ns[keep], site=raw.site[keep],
                        variant=raw.variant[keep], ndim=raw.ndim[keep], shape=raw.shape[keep],
                        n_elements=raw.n_elements[keep], threads=raw.threads[keep],
                        explore=np.ones(int(keep.sum()), dtype=bool), propensity=1.0 / k,
                        table_version=raw.table_version[keep] if isinstance(raw.table_version, np.ndarray)
                        else raw.table_version)
        self.batches.append(to_batch(part, sites, self.device))
        for s in sorted(set(part.site.tolist())):
            rows = part.site == s
            c = sites[s]
            self.results.append(Measurement(t.name, c.op, c.call_site, v, size, int(np.median(part.n_elements[rows])),
                                            c.dtype, int(rows.sum()), float(np.median(part.latency_ns[rows])),
                                            Status.OK))

    def _failures(self, t: Target, fn: Callable[..., Any], size: int, args: tuple[Any, ...], v: str,
                  have: list[int], exc: BaseException) -> None:
        """Which operators fail with v: force it on one operator at a time."""
        sites = self.catalog.sites
        for op in sorted({sites[s].op for s in have}):
            self._force(f"{v}:{op}", [op], v)
            try:
                fn(*args)
                continue
            except Exception as one:  # noqa: BLE001
                err = _err(one)
            for s in have:
                if sites[s].op == op:
                    c = sites[s]
                    self.results.append(Measurement(t.name, c.op, c.call_site, v, size, 0, c.dtype, 0, None,
                                                    Status.FAILED, err))
            self.progress(f"{t.name} n={size}: {v} failed on {op}: {err}")
        if not any(r.status == Status.FAILED and (r.function, r.variant, r.size) == (t.name, v, size)
                   for r in self.results):
            # fails only with every operator forced together: charge all of them
            for s in have:
                c = sites[s]
                self.results.append(Measurement(t.name, c.op, c.call_site, v, size, 0, c.dtype, 0, None,
                                                Status.FAILED, _err(exc)))
        self._quiet()

    def calls(self) -> pa.Table | None:
        return pa.Table.from_batches(self.batches) if self.batches else None

    def summary(self) -> pa.Table:
        now = dt.datetime.now(dt.timezone.utc)
        rows = [{"run_id": self.run_id, "ts": now, "device_id": self.device["device_id"],
                 "device_class": self.device["device_class"], **r.__dict__} for r in self.results]
        return pa.Table.from_pylist(rows, schema=AUTOTUNE_SCHEMA)

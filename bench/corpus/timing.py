"""One kernel, every engine: the CPython baseline, compile + first call +
correctness per engine, then timing side by side (round-robin samples of an
adaptive inner loop, so that slow drift of the machine hits every engine
alike)."""

from __future__ import annotations

import copy
import dataclasses
import gc
import math
import time
import types
import warnings
from typing import Any, Callable

import numpy as np

from .common import (
    ENGINES,
    MAX_BATCH_BYTES,
    TARGET_SAMPLE_NS,
    EngineResult,
    EngineTimeout,
    Kernel,
    KernelResult,
    compact_reason,
    deadline,
    full_reason,
    nbytes_of,
    short_reason,
)
from .engines import compare_peer, compare_strict, everypath_entry, numba_entry, observe
from .pythran_build import PythranBuild, pythran_load


# --------------------------------------------------------------------------
# timing
# --------------------------------------------------------------------------


class Timer:
    """Adaptive-inner-loop sampler for one engine on one kernel."""

    def __init__(self, fn: Callable[..., Any], args: tuple, mutates: tuple[int, ...]) -> None:
        self.fn = fn
        self.args = args
        self.mutating = bool(mutates)
        self.arg_bytes = max(1, nbytes_of(args))
        self.inner = 1
        self.sample_est_ns = 0.0

    def _batch(self, n: int) -> list[tuple]:
        if self.mutating:
            return [copy.deepcopy(self.args) for _ in range(n)]
        return [self.args] * n

    def sample(self, n: int | None = None) -> float:
        """ns per call, over one batch of n calls."""
        n = n or self.inner
        batch = self._batch(n)
        fn = self.fn
        gc_was = gc.isenabled()
        gc.disable()
        try:
            t0 = time.perf_counter_ns()
            for a in batch:
                fn(*a)
            t1 = time.perf_counter_ns()
        finally:
            if gc_was:
                gc.enable()
        return (t1 - t0) / n

    def calibrate(self) -> None:
        """Grow the inner loop until one sample lasts TARGET_SAMPLE_NS, within
        the memory the argument copies of a mutating kernel may take."""
        max_n = 10**7
        if self.mutating:
            max_n = max(1, min(max_n, MAX_BATCH_BYTES // self.arg_bytes))
        n = 1
        while True:
            per = self.sample(n)
            total = per * n
            if total >= TARGET_SAMPLE_NS or n >= max_n:
                break
            want = math.ceil(TARGET_SAMPLE_NS * 1.1 / max(per, 1.0))
            n = min(max_n, max(n * 2, min(want, n * 1000)))
        self.inner = n
        self.sample_est_ns = total


# --------------------------------------------------------------------------
# one kernel
# --------------------------------------------------------------------------


@dataclasses.dataclass
class Options:
    """The command-line settings run_kernel needs (also rebuilt in --isolate children)."""

    engines: tuple[str, ...]
    repeat: int
    timeout: float
    max_time: float
    verbose: bool


def run_kernel(
    kernel: Kernel,
    loader: types.ModuleType,
    opts: Options,
    builds: dict[str, PythranBuild],
    progress: Callable[[KernelResult], None],
) -> KernelResult:
    """Baseline, then compile + check each engine, then time the ones that
    were right side by side.  Never raises for an engine's failure: it is
    recorded in the result.  `progress` sees every state change (the
    --isolate child writes it to disk, so the parent knows whom to blame)."""
    kr = KernelResult(
        name=kernel.name,
        category=kernel.category,
        path=str(kernel.path),
        rtol=kernel.rtol,
        mutates=list(kernel.mutates),
    )
    for e in ENGINES:
        kr.engines[e] = EngineResult(e, status="pending" if e in opts.engines else "skipped",
                                     reason="" if e in opts.engines else "disabled")
    progress(kr)

    try:
        args0 = tuple(kernel.bench_args(np.random.default_rng(0)))
    except Exception as e:  # noqa: BLE001
        kr.status, kr.reason = "load-error", "bench_args: " + short_reason(e)
        kr.cpython.status, kr.cpython.reason, kr.cpython.detail = "error", kr.reason, full_reason(e)
        for er in kr.engines.values():
            if er.status == "pending":
                er.status, er.reason = "skipped", "no bench_args"
        progress(kr)
        return kr

    # ---- baseline ---------------------------------------------------------
    kr.cpython.status = "running"
    kr.current = "cpython"
    progress(kr)
    try:
        with deadline(opts.timeout):
            t0 = time.perf_counter()
            expected = observe(kernel, kernel.entry, copy.deepcopy(args0))
            kr.cpython.compile_s = time.perf_counter() - t0
        kr.cpython.status = "ok"
    except EngineTimeout as e:
        kr.status, kr.reason = "baseline-timeout", str(e)
        kr.cpython.status, kr.cpython.reason = "timeout", str(e)
    except Exception as e:  # noqa: BLE001
        kr.status, kr.reason = "baseline-error", short_reason(e)
        kr.cpython.status, kr.cpython.reason, kr.cpython.detail = "error", short_reason(e), full_reason(e)
    if kr.cpython.status != "ok":
        for er in kr.engines.values():
            if er.status == "pending":
                er.status, er.reason = "skipped", "no CPython baseline"
        progress(kr)
        return kr

    # ---- compile + correctness per engine ---------------------------------
    callables: dict[str, Callable[..., Any]] = {"cpython": kernel.entry}
    for eng in ENGINES:
        er = kr.engines[eng]
        if er.status != "pending":
            continue
        er.status = "running"
        kr.current = eng
        progress(kr)
        fn = None
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                with deadline(opts.timeout):
                    t0 = time.perf_counter()
                    if eng == "everypath":
                        fn = everypath_entry(kernel)
                    elif eng == "numba":
                        fn = numba_entry(kernel)
                    else:
                        b = builds.get(kernel.name)
                        if b is None:
                            raise RuntimeError("pythran build missing")
                        er.cached = b.cached
                        if b.status != "ok":
                            er.status, er.reason, er.detail, er.compile_s = b.status, b.reason, b.detail, b.compile_s
                            raise _Handled()
                        fn = pythran_load(b, kernel)
                    actual = observe(kernel, fn, copy.deepcopy(args0))
                    first = time.perf_counter() - t0
            er.compile_s = builds[kernel.name].compile_s if eng == "pythran" else first
            for w in caught[:3]:
                er.notes.append(f"warning: {w.category.__name__}: {str(w.message).splitlines()[0][:160]}")
        except _Handled:
            progress(kr)
            continue
        except EngineTimeout as e:
            er.status, er.reason = "timeout", f"compile/first call {e}"
            progress(kr)
            continue
        except Exception as e:  # noqa: BLE001
            er.status, er.reason, er.detail = "compile-fail", short_reason(e), full_reason(e)
            progress(kr)
            continue
        try:
            if eng == "everypath":
                compare_strict(loader, kernel, expected, actual)
            else:
                compare_peer(kernel, expected, actual, er.notes)
        except Exception as e:  # noqa: BLE001
            er.status, er.reason, er.detail = "wrong", compact_reason(e), str(e)[:4000]
            progress(kr)
            continue
        er.status = "timing"
        callables[eng] = fn
        progress(kr)

    # ---- timing, side by side ---------------------------------------------
    results = {"cpython": kr.cpython, **kr.engines}
    timers: dict[str, Timer] = {}
    for name, fn in callables.items():
        er = results[name]
        kr.current = name
        progress(kr)
        try:
            t = Timer(fn, copy.deepcopy(args0), tuple(kernel.mutates))
            with deadline(opts.timeout):
                t.sample(1)  # warm-up
                t.calibrate()
            timers[name] = t
            er.inner = t.inner
        except EngineTimeout as e:
            er.status, er.reason = "timeout", f"warm-up {e}"
        except Exception as e:  # noqa: BLE001
            er.status, er.reason, er.detail = "error", short_reason(e), full_reason(e)
    if "cpython" not in timers:
        kr.status = "baseline-error"
        kr.reason = kr.cpython.reason
        for name in timers:
            results[name].status = "ok"
        progress(kr)
        return kr

    # fewer repeats (never < 3) when one sample is long, to bound the run
    reps = {
        name: max(3, min(opts.repeat, int(opts.max_time * 1e9 / max(t.sample_est_ns, 1.0))))
        for name, t in timers.items()
    }
    order = list(timers)
    for r in range(max(reps.values())):
        rot = order[r % len(order):] + order[: r % len(order)]  # vary who goes first
        for name in rot:
            if name not in timers or len(results[name].samples_ns) >= reps[name]:
                continue
            kr.current = name
            progress(kr)  # (outside the timed region)
            try:
                results[name].samples_ns.append(timers[name].sample())
            except Exception as e:  # noqa: BLE001
                results[name].status, results[name].reason = "error", short_reason(e)
                results[name].detail = full_reason(e)
                del timers[name]

    base = results["cpython"]
    base.median_ns = float(np.median(base.samples_ns)) if base.samples_ns else None
    base.speedup = 1.0 if base.median_ns else None
    for name in ENGINES:
        er = results[name]
        if name in timers and er.samples_ns:
            er.median_ns = float(np.median(er.samples_ns))
            er.status = "ok"
            if base.median_ns and er.median_ns > 0:
                er.speedup = base.median_ns / er.median_ns
    kr.status = "ok"
    kr.current = ""
    progress(kr)
    return kr


class _Handled(Exception):
    """A Pythran build that already failed: its result is filled in."""

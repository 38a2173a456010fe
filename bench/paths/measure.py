"""One family: compile each case once per path, then for each size check every
path against the reference and time the right ones side by side with it
(``corpus.timing.Timer``: warm-up, adaptive inner loop >= 20 ms per sample,
GC off; samples round-robin with a rotating first engine)."""

from __future__ import annotations

import importlib.util
import pathlib
from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np

from corpus.common import EngineTimeout, deadline, short_reason
from corpus.timing import Timer
from everypath.base.errors import BuildError, CompileError, CompileErrors
from everypath.base.settings import Settings
from everypath.variants.availability import available
from everypath.variants.registry import lookup_operator

from .families import Family
from .recipes import Case

# the order paths are listed in (those missing on the host or for the operators are skipped)
PATH_ORDER = ("loops", "simd", "threads", "blas", "opencv", "accelerate", "vimage", "cuda", "metal")


@dataclass(frozen=True)
class Options:
    repeat: int  # timing samples per engine (median), >= 5
    timeout: float  # seconds for compile + first call of one path
    max_call: float  # a warm-up call slower than this is reported from that one call (status "slow")


@dataclass(frozen=True)
class Timing:
    """The reference or one path on one case at one size."""

    path: str
    status: str  # ok | slow | wrong | fail | timeout
    seconds: float | None = None  # median time per call
    ratio: float | None = None  # reference seconds / these seconds
    reason: str = ""
    samples_ns: tuple[float, ...] = ()
    inner: int = 0

    @property
    def timed(self) -> bool:
        return self.status in ("ok", "slow") and self.seconds is not None


@dataclass(frozen=True)
class Row:
    case: str
    ops: tuple[str, ...]
    size: int
    shapes: str  # the shapes of the inputs, e.g. "1000x1000, 1000x1000"
    reference: Timing
    paths: tuple[Timing, ...]
    best: str | None  # the fastest right path
    best_ratio: float | None


def case_paths(case: Case) -> list[str]:
    """The paths any of the case's operators has on this host."""
    have: set[str] = set()
    for key in case.ops:
        have |= {v.path for v in lookup_operator(key).variants if available(v)[0]}
    return [p for p in PATH_ORDER if p in have] + sorted(have - set(PATH_ORDER))


def load_kernel(case: Case, where: pathlib.Path, tag: str) -> Callable[..., Any]:
    """The case's source as a module file of its own (everypath reads the source back)."""
    path = where / f"ep_paths_{tag}.py"
    path.write_text(case.source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.kernel


def _numpy(v: Any) -> Any:
    if type(v).__module__.startswith("torch"):
        return v.detach().cpu().numpy()
    if isinstance(v, (tuple, list)):
        return tuple(_numpy(x) for x in v)
    return np.asarray(v)


def check(got: Any, want: Any, fam: Family, where: str = "result") -> None:
    """AssertionError naming the first difference: structure, shape, dtype, values."""
    got, want = _numpy(got), _numpy(want)
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), f"{where}: {type(got).__name__} != tuple of {len(want)}"
        for i, (g, w) in enumerate(zip(got, want)):
            check(g, w, fam, f"{where}[{i}]")
        return
    assert not isinstance(got, tuple), f"{where}: a tuple, expected an array"
    assert got.shape == want.shape, f"{where}: shape {got.shape} != {want.shape}"
    assert got.dtype == want.dtype, f"{where}: dtype {got.dtype} != {want.dtype}"
    if want.size == 0:
        return
    g, w = got.astype(np.complex128 if want.dtype.kind == "c" else np.float64), want.astype(
        np.complex128 if want.dtype.kind == "c" else np.float64)
    scale = float(np.nanmax(np.abs(w))) if np.isfinite(w).any() else 1.0
    tol = fam.atol * max(scale, 1.0) + fam.abs_tol + fam.rtol * np.abs(w)
    bad = ~((np.abs(g - w) <= tol) | (np.isnan(g) & np.isnan(w)) | (g == w))
    if bad.any():
        i = int(np.flatnonzero(bad.ravel())[0])
        raise AssertionError(f"{where}: {int(bad.sum())} of {w.size} values differ, first at flat index {i}: "
                             f"{g.ravel()[i]!r} != {w.ravel()[i]!r}")


def build_reason(e: BaseException) -> str:
    """short_reason, plus the compiler's first `error:` line when g++ failed (the
    message opens with the path of the generated file, which says nothing)."""
    first = [ln.strip() for ln in str(e).splitlines() if "error:" in ln]
    if isinstance(e, BuildError) and first:
        return f"{type(e).__name__}: g++: {first[0][-240:]}"
    return short_reason(e)


def _shapes(args: tuple[Any, ...]) -> str:
    return ", ".join("x".join(map(str, a.shape)) if hasattr(a, "shape") else repr(a) for a in args)


class CaseRunner:
    """A case compiled once per path; `row(n)` measures one size."""

    def __init__(self, fam: Family, case: Case, ref: Callable[..., Any], settings: Settings, opts: Options,
                 log: Callable[[str], None]) -> None:
        import everypath

        self.fam, self.case, self.ref, self.opts, self.log = fam, case, ref, opts, log
        self.paths = case_paths(case)
        self.compiled = {p: everypath.compile(ref, settings=replace(settings, force_path=p)) for p in self.paths}
        self.broken: dict[str, Timing] = {}  # paths whose build failed: the same answer at every size

    def _first_call(self, p: str, args: tuple[Any, ...], want: Any) -> Timing | None:
        """None when path p is right on args; else its FAIL / WRONG / timeout entry."""
        if p in self.broken:
            return self.broken[p]
        try:
            with deadline(self.opts.timeout):
                got = self.compiled[p](*args)
        except (CompileError, CompileErrors, BuildError) as e:
            self.broken[p] = Timing(p, "fail", reason="compile: " + build_reason(e))
            return self.broken[p]
        except EngineTimeout as e:
            return Timing(p, "timeout", reason=f"compile/first call {e}")
        except Exception as e:  # noqa: BLE001 -- a failing path is data
            return Timing(p, "fail", reason=short_reason(e))
        try:
            check(got, want, self.fam)
        except AssertionError as e:
            return Timing(p, "wrong", reason=str(e)[:300])
        return None

    def row(self, n: int) -> Row:
        args = self.case.inputs(n, np.random.default_rng(0))
        want = self.ref(*args)
        done: dict[str, Timing] = {}
        fns: dict[str, Callable[..., Any]] = {"reference": self.ref}
        for p in self.paths:
            self.log(f"    {self.case.name} n={n} {p}")
            bad = self._first_call(p, args, want)
            if bad is None:
                fns[p] = self.compiled[p]
            else:
                done[p] = bad
        done.update(time_side_by_side(fns, args, self.opts))
        ref = done.pop("reference")
        out = []
        for p in self.paths:
            t = done[p]
            if t.timed and ref.seconds:
                t = replace(t, ratio=ref.seconds / t.seconds)
            out.append(t)
        right = [t for t in out if t.timed and t.ratio]
        best = max(right, key=lambda t: t.ratio or 0.0, default=None)
        return Row(self.case.name, self.case.ops, n, _shapes(args), ref, tuple(out),
                   best.path if best else None, best.ratio if best else None)


def time_side_by_side(fns: dict[str, Callable[..., Any]], args: tuple[Any, ...], opts: Options) -> dict[str, Timing]:
    """Warm-up and calibrate each engine, then `repeat` round-robin samples each."""
    timers: dict[str, Timer] = {}
    out: dict[str, Timing] = {}
    for name, fn in fns.items():
        t = Timer(fn, args, ())
        try:
            one = t.sample(1)  # warm-up, and how long one call takes
            if one > opts.max_call * 1e9:
                out[name] = Timing(name, "slow", one / 1e9, reason=f"one call took {one / 1e9:.2f} s: timed once",
                                   samples_ns=(one,), inner=1)
                continue
            t.calibrate()
            timers[name] = t
        except Exception as e:  # noqa: BLE001
            out[name] = Timing(name, "fail", reason="timing: " + short_reason(e))
    samples: dict[str, list[float]] = {name: [] for name in timers}
    order = list(timers)
    for r in range(opts.repeat):
        for name in order[r % len(order):] + order[: r % len(order)]:  # vary who goes first
            if name in timers:
                try:
                    samples[name].append(timers[name].sample())
                except Exception as e:  # noqa: BLE001
                    out[name] = Timing(name, "fail", reason="timing: " + short_reason(e))
                    del timers[name]
    for name, t in timers.items():
        out[name] = Timing(name, "ok", float(np.median(samples[name])) / 1e9, samples_ns=tuple(samples[name]),
                           inner=t.inner)
    return out

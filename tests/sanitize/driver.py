"""Sanitized run of the corpus and the fuzzer's fixed seeds: builds with Settings.sanitize, compares with CPython.

Run it only in a process that has the ASan runtime preloaded (test_sanitize.py's ``sanitizer_env``):
a sanitized shared object loaded into a plain CPython aborts at dlopen otherwise.  Every corpus kernel
is compiled (its own temporary cache unless --cache) and run on its cases with bounds checks off and on;
results must equal CPython's (tests/test_corpus.py's comparison).  A sanitizer report ends the process
(-fno-sanitize-recover=all) with its report on stderr; a mismatch prints a ``FAIL`` line and exits 1.

    python tests/sanitize/driver.py [--jobs 2] [--checks off,on] [--no-fuzz] [--fuzz-seeds 0,1] [--cache DIR] [KERNEL ...]
"""
from __future__ import annotations

import argparse
import copy
import dataclasses
import os
import sys
import tempfile
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# Children (g++, the sandbox's observation run) must not inherit the preloaded runtime: the sandbox caps its
# address space (RLIMIT_AS) and ASan's shadow memory alone is terabytes of it.  This process keeps it loaded.
os.environ.pop("LD_PRELOAD", None)

import numpy as np  # noqa: E402
import numpy.typing as npt  # noqa: E402

import everypath  # noqa: E402
from everypath.base.settings import Settings  # noqa: E402
from tests.corpus._loader import CorpusKernel, assert_same_result, load_corpus  # noqa: E402

SANITIZE = "address,undefined"
FUZZ_SEEDS = (0, 1)  # the fixed seeds: every run sees the same generated programs
FUZZ_COUNT = 12  # programs per seed (one sanitized g++ run each)
_print_lock = threading.Lock()


def say(line: str) -> None:
    with _print_lock:
        print(line, flush=True)


def bounds_field() -> str:
    """The bounds-check setting's name: helper work renames ``checked`` to ``boundscheck``."""
    names = {f.name for f in dataclasses.fields(Settings)}
    return "boundscheck" if "boundscheck" in names else "checked"


FORCE_PATH: str | None = None  # --force-path: every operator on one implementation path (threads, simd, blas)


def sanitized_settings(cache: Path, checks: bool) -> Settings:
    base = replace(Settings.from_env(), sanitize=SANITIZE, cache_dir=cache, telemetry=False)
    if FORCE_PATH:
        base = replace(base, force_path=FORCE_PATH)
    return replace(base, **{bounds_field(): checks})


def _run(fn: Callable[..., Any], args: tuple) -> tuple[str, Any]:
    try:
        return "ok", fn(*args)
    except Exception as exc:  # compared by type and message
        return "raised", exc


def run_kernel(kernel: CorpusKernel, settings: Settings, checks: bool) -> list[str]:
    """Compile one kernel and run every case; the mismatches found (sanitizer reports abort instead)."""
    compiled = everypath.compile(kernel.entry, settings=settings)
    rng = np.random.default_rng(1234)
    problems = []
    for i, case in enumerate(kernel.cases(rng)):
        py_args, ep_args = copy.deepcopy(case), copy.deepcopy(case)
        want = _run(kernel.entry, py_args)
        if not checks and want[0] == "raised" and isinstance(want[1], IndexError):
            continue  # unchecked out-of-bounds indexing is undefined behaviour by definition: ASan would say so
        got = _run(compiled, ep_args)
        where = f"{kernel.name} case {i}"
        try:
            if want[0] == "raised":
                assert got[0] == "raised", f"CPython raised {want[1]!r}, everypath returned {got[1]!r:.200}"
                assert type(got[1]) is type(want[1]) and str(got[1]) == str(want[1]), f"{got[1]!r} != {want[1]!r}"
                continue
            assert got[0] == "ok", f"everypath raised {got[1]!r}"
            assert_same_result(want[1], got[1], rtol=kernel.rtol, where=where)
            for j in kernel.mutates:
                assert_same_result(py_args[j], ep_args[j], rtol=kernel.rtol, where=f"{where} argument {j}")
        except AssertionError as exc:
            problems.append(f"{where}: {exc}")
    return problems


def corpus(names: list[str] | None, cache: Path, checks_modes: list[bool], jobs: int) -> list[str]:
    """Every (kernel, bounds-check mode), `jobs` at a time: g++ runs outside the GIL, so threads overlap builds."""
    kernels = load_corpus(names)
    work = [(k, c) for c in checks_modes for k in kernels]

    def one(item: tuple[CorpusKernel, bool]) -> list[str]:
        kernel, checks = item
        tag = f"{kernel.name} [checks {'on' if checks else 'off'}]"
        t0 = time.perf_counter()
        say(f"START {tag}")
        try:
            problems = run_kernel(kernel, sanitized_settings(cache, checks), checks)
        except Exception:  # a compile error is a finding too, not a reason to stop the others
            problems = [f"{kernel.name}: {traceback.format_exc(limit=4)}"]
        say(f"{'FAIL' if problems else 'ok  '} {tag} {time.perf_counter() - t0:.1f}s")
        return [f"{tag}: {p}" for p in problems]

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return [p for ps in pool.map(one, work) for p in ps]


def fuzz(cache: Path, seeds: tuple[int, ...], count: int) -> list[str]:
    """The differential fuzzer's fixed seeds (tests/fuzz/runner.py), bounds checks on only: its programs may
    index out of range on purpose, which unchecked is undefined behaviour that ASan rightly reports."""
    try:
        from tests.fuzz import runner
    except ImportError as exc:
        say(f"SKIP fuzz: tests/fuzz/runner.py is not importable ({exc})")
        return []
    problems = []
    for seed in seeds:
        tag = f"fuzz seed {seed} x{count} [checks on]"
        t0 = time.perf_counter()
        say(f"START {tag}")
        try:
            outcomes = runner.run_programs(seed, count, sanitized_settings(cache, True))
            # REFUSED (a located CompileError) is an answer; a wrong value or a g++ failure is not
            bad = [f"{o.name} {o.kind.value}: {o.detail[:1500]}\n{o.source}" for o in outcomes
                   if o.kind not in (runner.Kind.OK, runner.Kind.REFUSED)]
        except Exception:
            bad = [traceback.format_exc(limit=6)]
        say(f"{'FAIL' if bad else 'ok  '} {tag} {time.perf_counter() - t0:.1f}s")
        problems += [f"{tag}: {b}" for b in bad]
    return problems


def poke(a: npt.NDArray[np.float64], i: int) -> float:
    """The positive control: unchecked, i = len(a) writes past the end of a's buffer."""
    a[i] = 1.0
    return a[i - 1]


def canary(cache: Path) -> int:
    """Prove the sanitizer is live: an out-of-bounds store, bounds checks off, must end in an ASan report."""
    compiled = everypath.compile(poke, settings=sanitized_settings(cache, False))
    a = np.zeros(100)
    say("CANARY poking one past the end")
    compiled(a, 100)
    say("CANARY survived: the build is not sanitized")
    return 3


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kernels", nargs="*", help="corpus kernel names (default: all)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--checks", default="off,on", help="bounds-check modes to run: off, on or off,on")
    ap.add_argument("--no-fuzz", action="store_true")
    ap.add_argument("--fuzz-seeds", default=",".join(map(str, FUZZ_SEEDS)))
    ap.add_argument("--fuzz-count", type=int, default=FUZZ_COUNT)
    ap.add_argument("--no-corpus", action="store_true")
    ap.add_argument("--force-path", default=None, help="run every operator on this path where it has one")
    ap.add_argument("--canary", action="store_true", help="only the positive control: must die with an ASan report")
    ap.add_argument("--cache", type=Path, default=None, help="build cache (default: a fresh temporary folder)")
    a = ap.parse_args(argv)
    global FORCE_PATH
    FORCE_PATH = a.force_path
    modes = [{"off": False, "on": True}[m.strip()] for m in a.checks.split(",") if m.strip()]
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="everypath-sanitize-") as tmp:
        cache = a.cache or Path(tmp)
        if a.canary:
            return canary(cache)
        problems = [] if a.no_corpus else corpus(a.kernels or None, cache, modes, a.jobs)
        if not a.no_fuzz and not a.kernels:
            problems += fuzz(cache, tuple(int(x) for x in a.fuzz_seeds.split(",") if x.strip()), a.fuzz_count)
    for p in problems:
        say(f"FAIL {p}")
    say(f"DONE {len(problems)} problem(s) in {time.perf_counter() - t0:.0f}s")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

"""AddressSanitizer + UBSan: the corpus and the fuzzer's fixed seeds, built with Settings.sanitize, report nothing.

One subprocess (driver.py) with the ASan runtime preloaded compiles every corpus kernel sanitized and runs
its cases with bounds checks off and on; it must exit 0 with no sanitizer report on stderr.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from everypath.base.settings import Settings

pytestmark = pytest.mark.sanitize

DRIVER = Path(__file__).resolve().parent / "driver.py"
REPORT = re.compile(r"ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer|AddressSanitizer: CHECK failed")


def _runtime(cxx: str, name: str) -> str | None:
    """The compiler's copy of a runtime library (g++ echoes the bare name back when it has none)."""
    try:
        out = subprocess.run([cxx, f"-print-file-name={name}"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    path = out.strip()
    return path if os.path.isabs(path) and os.path.exists(path) else None


def sanitizer_env(cxx: str = "g++") -> dict[str, str] | None:
    """Environment for a CPython that loads sanitized builds (None when the compiler has no libasan).

    libasan must come first in the process (CPython is not linked with it), and libstdc++ with it: ASan
    resolves the real __cxa_throw when it starts, and CPython alone has no libstdc++ loaded yet (the
    first C++ exception then fails ASan's CHECK in its __cxa_throw interceptor). Leak checking is off:
    CPython keeps its objects alive until exit by design. OpenMP (libgomp) and OpenBLAS are not
    instrumented; their memory goes through ASan's malloc, which is all they need."""
    asan, stdcxx = _runtime(cxx, "libasan.so"), _runtime(cxx, "libstdc++.so")
    if asan is None or stdcxx is None:
        return None
    env = dict(os.environ)
    env.update(
        LD_PRELOAD=f"{asan} {stdcxx}",
        ASAN_OPTIONS="detect_leaks=0:abort_on_error=0:halt_on_error=1",
        UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1",
        EVERYPATH_TELEMETRY="0",
    )
    return env


def _env_or_skip() -> dict[str, str]:
    env = sanitizer_env(Settings.from_env().cxx)
    if env is None:
        pytest.skip("the C++ compiler has no libasan.so (Debian: libasan8, installed with g++)")
    return env


def test_sanitizer_is_live() -> None:
    """The positive control: without it a run that reports nothing might just not be sanitized."""
    proc = subprocess.run([sys.executable, str(DRIVER), "--canary"], env=_env_or_skip(), capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode != 0, f"the out-of-bounds store was not caught:\n{proc.stdout}\n{proc.stderr[-3000:]}"
    assert "ERROR: AddressSanitizer: heap-buffer-overflow" in proc.stderr, proc.stderr[-3000:]
    assert "in poke" in proc.stderr, "the report names the kernel function: " + proc.stderr[-3000:]


# The suite's share (CI budget): every corpus kernel with bounds checks off (where a memory error would hide)
# and one fuzzer seed; `python tests/sanitize/driver.py` alone runs checks off and on and both fixed seeds.
SUITE_RUN = ("--checks", "off", "--fuzz-seeds", "0", "--fuzz-count", "8")


@pytest.mark.slow  # ~80 sanitized g++ runs: 4-9 min on 2 shared cores; one xdist worker runs it alongside the rest
def test_corpus_and_fuzzer_clean_under_asan_ubsan() -> None:
    env = _env_or_skip()
    proc = subprocess.run([sys.executable, str(DRIVER), "--jobs", "2", *SUITE_RUN], env=env, capture_output=True,
                          text=True, timeout=2400)
    reports = [line for line in proc.stderr.splitlines() if REPORT.search(line)]
    failures = [line for line in proc.stdout.splitlines() if line.startswith("FAIL")]
    if proc.returncode != 0 or reports:
        lines = proc.stdout.splitlines()
        done = {line[5:].rsplit(" ", 1)[0] for line in lines if line.startswith(("ok   ", "FAIL "))}
        in_flight = [line for line in lines if line.startswith("START") and line[6:] not in done]  # the culprit
        pytest.fail(f"sanitized corpus run: exit {proc.returncode}, {len(reports)} sanitizer report(s), "
                    f"{len(failures)} failure(s)\n" + "\n".join(failures) + "\nunfinished:\n" + "\n".join(in_flight)
                    + "\n--- stderr (tail) ---\n" + proc.stderr[-8000:])


def test_sanitize_setting_reaches_flags_and_cache_key() -> None:
    from everypath.lowering import cache

    plain = Settings()
    san = Settings.from_env({"EVERYPATH_SANITIZE": "address,undefined"})
    assert san.sanitize == "address,undefined" and plain.sanitize == ""
    flags = san.cxx_flags()
    assert "-fsanitize=address,undefined" in flags and "-fno-sanitize-recover=all" in flags
    assert "-fno-sanitize=signed-integer-overflow" in flags  # -fwrapv: wrapping is the documented semantics
    assert "-fsanitize=address,undefined" in san.link_flags()  # the shared object links the runtimes
    assert not any(f.startswith("-fsanitize") for f in plain.cxx_flags() + plain.link_flags())

    def kernel(x: float) -> float:
        return x + 1.0

    # a sanitized build never answers for a plain one (nor the other way round)
    assert cache.front_key(kernel, None, plain) != cache.front_key(kernel, None, san)

"""Build generated units for the cross targets with zig (PyPI ``ziglang``): the headers'
portability check.

For a Python function, ``unit_source`` gets its generated C++ (telemetry off, the paths a
target keeps: loops, simd and threads; loops only for wasm, which has neither xsimd 8 nor
threads) and ``build`` compiles it with ``python -m ziglang c++`` for one target of
``TARGETS``. No OpenMP on any of them: the threads path runs on its std::thread pool
(variants/include/everypath/paths/threads/pool.hpp); wasm has no C++ exceptions either
(``-fno-exceptions -DEP_NO_EXCEPTIONS=1``, see abi.h).

    python tests/variants/portable_build.py [--targets aarch64-linux-musl,wasm32-wasi] [KERNEL ...]

builds every kernel of tests/corpus (or the named ones) for every target and prints one line
per build and the failures. zig's cache is ZIG_GLOBAL_CACHE_DIR (default
~/.cache/everypath/zig): the first build for a target compiles its libc / libc++ (minutes).
"""
from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # run as a script
    sys.path.insert(0, str(ROOT))
INCLUDE = ROOT / "variants" / "include"
XSIMD = Path("/usr/include/xsimd")

COMMON = ("-std=c++20", "-O2", "-fwrapv", "-fno-math-errno", "-ffp-contract=off", "-fvisibility=hidden", "-w")

# corpus kernels that call into the host's OpenCV or PyTorch: not portable (no such library on the targets)
HOST_ONLY_MODULES = ("cv2", "torch")


@dataclass(frozen=True)
class Target:
    triple: str
    flags: tuple[str, ...]
    paths: str  # EVERYPATH_PATHS for the unit
    suffix: str

    @property
    def wasm(self) -> bool:
        return self.triple.startswith("wasm")


# wasm: a WASI reactor module exporting the C ABI (no -fPIC -shared: wasm-ld's shared libraries
# are experimental dylink modules that need a dynamic loader; wasmtime and JS instantiate this)
_WASM = ("-mcpu=generic+simd128", "-fno-exceptions", "-DEP_NO_EXCEPTIONS=1", "-mexec-model=reactor",
         "-Wl,--no-entry", "-Wl,--export-dynamic")

TARGETS: dict[str, Target] = {t.triple: t for t in (
    Target("aarch64-linux-musl", ("-mcpu=generic", "-fPIC", "-shared"), "loops,simd,threads", ".so"),
    Target("x86_64-windows-gnu", ("-mcpu=x86_64_v2", "-fPIC", "-shared"), "loops,simd,threads", ".dll"),
    Target("aarch64-macos", ("-mcpu=apple_m1", "-fPIC", "-shared"), "loops,simd,threads", ".dylib"),
    Target("x86_64-macos", ("-mcpu=x86_64_v2", "-fPIC", "-shared"), "loops,simd,threads", ".dylib"),
    Target("wasm32-wasi", _WASM, "loops", ".wasm"),
)}


@dataclass
class BuildResult:
    target: str
    ok: bool
    seconds: float
    output: Path | None
    log: str  # the compiler's stderr (trimmed)
    command: list[str]


def zig_available() -> bool:
    return importlib.util.find_spec("ziglang") is not None


def zig_env() -> dict[str, str]:
    """The toolchain's own zig environment: the shared cache and its stable lib folder (libc/libc++ builds
    keyed on that path are reused, not rebuilt per checkout)."""
    from everypath.lowering.toolchain import zig_env as toolchain_zig_env

    return toolchain_zig_env()


def xsimd_dir(base: Path | None = None) -> Path | None:
    """A folder holding only `xsimd -> /usr/include/xsimd`, for -isystem: -I/usr/include would let
    the host's glibc headers shadow the target's libc. None when xsimd is not installed."""
    if not (XSIMD / "xsimd.hpp").exists():
        return None
    d = (base or Path(tempfile.gettempdir())) / "everypath-xsimd-only"
    d.mkdir(parents=True, exist_ok=True)
    link = d / "xsimd"
    if not link.is_symlink():
        link.symlink_to(XSIMD)
    return d


def unit_source(fn: Callable, paths: str, example: tuple | None = None) -> str:
    """The generated translation unit of fn with the given EVERYPATH_PATHS, telemetry off.
    A function whose annotations leave a rank open is specialised on `example` (arguments)."""
    import everypath
    from everypath.base.errors import OpenSignatureError
    from everypath.base.settings import Settings

    settings = Settings.from_env({"EVERYPATH_TELEMETRY": "0", "EVERYPATH_PATHS": paths})
    cf = everypath.compile(fn, settings=settings)
    try:
        return cf.cpp_source
    except OpenSignatureError:
        if example is None:
            raise
    from everypath.base.annotations import describe_value_type

    from everypath.lowering.pipeline import generate

    args = cf._bind_call(tuple(example), {})
    key = tuple(describe_value_type(v) for v in args)
    # the source only: a host build of it would cost seconds of g++ the cross build does not need
    return generate(fn, settings, key, cf._observe(tuple(example), {})).source


def command(target: Target, source: Path, output: Path, extra: Iterable[str] = ()) -> list[str]:
    cmd = [sys.executable, "-m", "ziglang", "c++", "-target", target.triple, *COMMON, *target.flags,
           "-I", str(INCLUDE)]
    xs = xsimd_dir()
    if xs is not None and not target.wasm:
        cmd += ["-isystem", str(xs)]
    return [*cmd, *extra, str(source), "-o", str(output)]


def build(source_text: str, target: str | Target, out_dir: Path, name: str = "unit",
          extra: Iterable[str] = (), timeout: float = 1800) -> BuildResult:
    """Compile one generated unit (its text) for a target; the artifact lands in out_dir."""
    t = TARGETS[target] if isinstance(target, str) else target
    out_dir.mkdir(parents=True, exist_ok=True)
    src = out_dir / f"{name}.{t.triple}.cpp"
    src.write_text(source_text)
    out = out_dir / f"{name}.{t.triple}{t.suffix}"
    cmd = command(t, src, out, extra)
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=zig_env(), timeout=timeout)
        ok, log = proc.returncode == 0 and out.exists(), proc.stderr
    except subprocess.TimeoutExpired as exc:
        ok, log = False, f"timed out after {timeout:.0f} s\n{exc.stderr or ''}"
    seconds = time.perf_counter() - start
    return BuildResult(t.triple, ok, seconds, out if ok else None, log[-20000:], cmd)


def build_function(fn: Callable, targets: Iterable[str], out_dir: Path, name: str | None = None,
                   example: tuple | None = None) -> list[BuildResult]:
    """Generate fn's unit once per path set and build it for each target (`example`: arguments
    to specialise an open signature on)."""
    results = []
    sources: dict[str, str] = {}
    for triple in targets:
        t = TARGETS[triple]
        if t.paths not in sources:
            sources[t.paths] = unit_source(fn, t.paths, example)
        results.append(build(sources[t.paths], t, out_dir, name or fn.__name__))
    return results


def host_only(kernel) -> str | None:
    """Why a corpus kernel cannot be built for the cross targets (None: it can)."""
    text = kernel.path.read_text()
    for mod in HOST_ONLY_MODULES:
        if mod in vars(kernel.module) or f"import {mod}" in text or f"from {mod}" in text:
            return f"uses {mod} (the host's {'OpenCV' if mod == 'cv2' else 'PyTorch'}; not on cross targets)"
    return None


def example_args(kernel) -> tuple:
    """The kernel's first differential-test case (what an open-rank entry is specialised on)."""
    import numpy as np

    return tuple(kernel.cases(np.random.default_rng(0))[0])


def load_kernels(names: Iterable[str] | None = None):
    sys.path.insert(0, str(ROOT / "tests" / "corpus"))
    try:
        from _loader import load_corpus  # type: ignore[import-not-found]
    finally:
        sys.path.pop(0)
    return load_corpus(names)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kernels", nargs="*", help="corpus kernel names (default: all)")
    ap.add_argument("--targets", default=",".join(TARGETS), help="comma-separated zig triples")
    ap.add_argument("--out", type=Path, default=None, help="where artifacts go (default: a temporary folder)")
    args = ap.parse_args(argv)
    if not zig_available():
        print("ziglang is not installed (pip install ziglang)", file=sys.stderr)
        return 2
    targets = [t.strip() for t in args.targets.split(",") if t.strip()]
    out = args.out or Path(tempfile.mkdtemp(prefix="everypath-portable-"))
    failures: list[tuple[str, str, str]] = []
    skipped: list[tuple[str, str]] = []
    for k in load_kernels(args.kernels or None):
        why = host_only(k)
        if why:
            skipped.append((k.name, why))
            print(f"SKIP {k.name}: {why}", flush=True)
            continue
        try:
            results = build_function(k.entry, targets, out / k.name, k.name, example_args(k))
        except Exception as exc:  # the compiler refused the kernel: not a header problem
            failures.append((k.name, "generate", f"{type(exc).__name__}: {exc}"))
            print(f"FAIL {k.name}: generating the unit: {type(exc).__name__}: {str(exc)[:300]}", flush=True)
            continue
        for r in results:
            print(f"{'ok  ' if r.ok else 'FAIL'} {k.name:32s} {r.target:20s} {r.seconds:6.1f} s", flush=True)
            if not r.ok:
                failures.append((k.name, r.target, r.log))
    print(f"\n{len(failures)} failed builds, {len(skipped)} kernels skipped; artifacts in {out}")
    for name, target, log in failures:
        print(f"\n=== {name} {target}\n{log[-3000:]}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

"""Compiler command lines per target: the host g++ for linux-x86_64, zig (PyPI `ziglang`) for the rest.

zig's first build per (target, CPU, kind) compiles libc/libc++ for minutes; its cache lives in one stable
folder (Settings.zig_cache, EVERYPATH_ZIG_CACHE) so every later build takes seconds, and `make setup`
warms it (`python -m lowering.toolchain --warm`). zig keys those builds on its lib folder's path, so every
checkout's zig reads one copy of that folder per zig version in the cache (`stable_lib_dir`).
"""
from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from everypath.base.errors import BuildError
from everypath.lowering.targets import TARGETS, ArtifactKind, Target, Toolchain, sdk_path

INCLUDE_DIR = Path(__file__).resolve().parent.parent / "variants" / "include"

# flags every portable build shares: NumPy's integer wrap-around, no errno from math, no FMA contraction
# (bit-identical to the host build and to NumPy's loops)
COMMON = ("-std=c++20", "-fwrapv", "-fno-math-errno", "-ffp-contract=off", "-fvisibility=hidden", "-w",
          # one section per function, so the linker drops what the entry never reaches (artifact size)
          "-ffunction-sections", "-fdata-sections")


@functools.lru_cache(maxsize=1)
def zig_available() -> tuple[bool, str | None]:
    try:
        import ziglang  # noqa: F401  (PyPI ziglang: the zig binary inside the wheel)
    except ImportError:
        return False, "zig not installed (PyPI ziglang; `make setup` installs it)"
    return True, None


def zig_cache_dir() -> Path:
    env = os.environ.get("EVERYPATH_ZIG_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "everypath" / "zig"


def zig_env() -> dict[str, str]:
    cache = zig_cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    return {**os.environ, "ZIG_GLOBAL_CACHE_DIR": str(cache), "ZIG_LOCAL_CACHE_DIR": str(cache / "local"),
            "ZIG_LIB_DIR": str(stable_lib_dir(cache))}


@functools.lru_cache(maxsize=4)
def stable_lib_dir(cache: Path) -> Path:
    """zig's lib folder (libc/libc++ sources) copied once per zig version to a fixed path in its cache.

    zig keys its libc/libc++ builds on the lib folder's path, and the wheel's lib lies inside each
    checkout's .venv: every clean clone would rebuild libc/libc++ for every target (~2 minutes each)."""
    import importlib.metadata

    import ziglang

    src = Path(ziglang.__file__).resolve().parent / "lib"
    dst = cache / f"lib-{importlib.metadata.version('ziglang')}"
    if (dst / ".complete").is_file():
        return dst
    tmp = Path(tempfile.mkdtemp(prefix="lib-", dir=cache))
    try:
        shutil.copytree(src, tmp / "lib", symlinks=True)
        (tmp / "lib" / ".complete").touch()
        try:
            os.rename(tmp / "lib", dst)
        except OSError:  # another process finished first (or a stale incomplete copy is in the way)
            if not (dst / ".complete").is_file():
                shutil.rmtree(dst, ignore_errors=True)
                os.rename(tmp / "lib", dst)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return dst


@functools.lru_cache(maxsize=1)
def _xsimd_include() -> Path | None:
    """A folder holding only xsimd: cross builds must not see the host's /usr/include (glibc headers)."""
    src = Path("/usr/include/xsimd")
    if not src.is_dir():
        return None
    d = Path(tempfile.gettempdir()) / f"everypath-xsimd-{os.getuid()}"
    d.mkdir(exist_ok=True)
    link = d / "xsimd"
    if not link.exists():
        try:
            link.symlink_to(src)
        except FileExistsError:
            pass
    return d


def compiler(target: Target, kind: ArtifactKind | None = None) -> list[str]:
    if kind is not None:
        target = target.for_kind(kind)
    if target.toolchain is Toolchain.HOST_GXX:
        return ["g++"]
    triple = target.lib_triple if kind is ArtifactKind.SHARED and target.lib_triple else target.triple
    return [sys.executable, "-m", "ziglang", "c++", "-target", triple]


def compile_flags(target: Target, kind: ArtifactKind, opt: str = "-O2") -> list[str]:
    target = target.for_kind(kind)
    flags = [*COMMON, opt, *target.cpu_flags, f"-I{INCLUDE_DIR}"]
    if target.toolchain is Toolchain.ZIG:
        flags.append("-g0")  # zig c++ emits DWARF by default: the sources' paths would enter the artifact
        xs = _xsimd_include()
        if xs is not None and target.simd:
            flags.append(f"-isystem{xs}")
    if not target.exceptions:
        flags += ["-fno-exceptions", "-DEP_NO_EXCEPTIONS=1"]
    if target.threads:
        flags += ["-pthread"] if target.os not in ("windows",) else []
    if kind is ArtifactKind.SHARED:
        flags += ["-fPIC", "-shared"]
    elif kind is ArtifactKind.STATIC:
        flags += ["-c"]
    elif kind is ArtifactKind.WASM:
        # a WASI reactor: no main, exports the C ABI and the allocator the host fills arguments with
        flags += ["-mexec-model=reactor", "-Wl,--export-dynamic", "-Wl,--no-entry"]
    sdk = sdk_path(target)
    if sdk is not None:
        flags.append(f"--sysroot={sdk}")
    return flags


def link_flags(target: Target, kind: ArtifactKind) -> list[str]:
    target = target.for_kind(kind)
    return [*_link_flags(target, kind), *_gc_sections(target, kind)]


def _gc_sections(target: Target, kind: ArtifactKind) -> list[str]:
    if kind is ArtifactKind.STATIC or target.os == "wasi" or target.os == "web":  # wasm-ld collects by default
        return []
    return ["-Wl,-dead_strip"] if target.os in ("darwin", "ios") else ["-Wl,--gc-sections"]


def _link_flags(target: Target, kind: ArtifactKind) -> list[str]:
    if target.toolchain is Toolchain.HOST_GXX:
        # self-contained shared libraries: libstdc++ and libgcc inside (executables: zig + static musl)
        base = ["-static-libstdc++", "-static-libgcc", "-lmvec", "-lm", "-s"]
        return (["-static", *base] if kind is ArtifactKind.EXECUTABLE else base)
    # -s: zig's cached libc/libc++ carry DWARF naming the folders they were built from; stripped, an
    # artifact is byte-identical wherever it is built (bundles are reproducible)
    strip = [] if kind is ArtifactKind.STATIC else ["-s"]
    if target.os == "linux" and kind is ArtifactKind.EXECUTABLE:
        return ["-static", "-lm", *strip]
    if target.os == "android" and kind is ArtifactKind.EXECUTABLE:
        return ["-static", "-lm", *strip]
    return strip


@dataclass(frozen=True)
class Built:
    path: Path
    seconds: float
    command: tuple[str, ...]


def build(sources: list[Path], out: Path, target: Target, kind: ArtifactKind, opt: str = "-O2",
          extra: tuple[str, ...] = ()) -> Built:
    """Compile sources into `out` (temp folder + rename). A compiler failure is an everypath bug: BuildError."""
    out.parent.mkdir(parents=True, exist_ok=True)
    # a private folder holding the artifact under its own name: linkers record the output's name (a PE's
    # export table, an archive's member), so a random temporary name would make every build differ
    work = Path(tempfile.mkdtemp(prefix=out.name + ".", suffix=".tmp", dir=out.parent))
    try:
        tmp = work / (Path(out.name).stem + ".o" if kind is ArtifactKind.STATIC else out.name)
        # a Mach-O library's install name defaults to the output path: a build path inside the artifact
        name = [f"-Wl,-install_name,@rpath/{out.name}"] if target.os == "darwin" and kind is ArtifactKind.SHARED \
            else []
        cmd = [*compiler(target, kind), *compile_flags(target, kind, opt), *extra, *map(str, sources), "-o", str(tmp),
               *link_flags(target, kind), *name]
        env = zig_env() if target.for_kind(kind).toolchain is Toolchain.ZIG else None
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        dt = time.perf_counter() - t0
        if proc.returncode != 0:
            raise BuildError(f"{target.name} ({kind.value}): the compiler failed on generated code (an everypath "
                             f"bug):\n$ {' '.join(cmd)}\n{proc.stderr[-6000:]}")
        if kind is ArtifactKind.STATIC:  # one object -> an archive (zig ar: deterministic by default)
            arc = work / out.name
            ar = subprocess.run([sys.executable, "-m", "ziglang", "ar", "rcs", str(arc), str(tmp)],
                                capture_output=True, text=True, env=env)
            if ar.returncode != 0:
                raise BuildError(f"{target.name}: zig ar failed: {ar.stderr[-2000:]}")
            tmp = arc
        os.replace(tmp, out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return Built(out, dt, tuple(cmd))


_WARM = r'''
#include <everypath/everypath.hpp>
extern "C" __attribute__((visibility("default"))) int ep_warm(int n) {
  auto a = ep::empty<double, 1>({n});
  for (int i = 0; i < n; ++i) a.data[i] = i;
  return static_cast<int>(a.size());
}
#if EP_WARM_MAIN
int main() { return ep_warm(3) == 3 ? 0 : 1; }
#endif
'''


def warm(names: list[str] | None = None, log: bool = True) -> list[tuple[str, str, float, str | None]]:
    """Build a tiny unit for each zig target and kind once, so libc/libc++ are in zig's cache."""
    out = []
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "warm.cpp"
        src.write_text(_WARM)
        for t in TARGETS.values():
            if names and t.name not in names:
                continue
            from everypath.lowering.targets import kind_status

            for kind in t.kinds:
                if t.for_kind(kind).toolchain is not Toolchain.ZIG:
                    continue
                st = kind_status(t, kind)
                if not st.buildable:
                    out.append((t.name, kind.value, 0.0, st.reason))
                    continue
                extra = ("-DEP_WARM_MAIN=1",) if kind in (ArtifactKind.EXECUTABLE, ArtifactKind.WASI_EXE) else ()
                t0 = time.perf_counter()
                try:
                    build([src], Path(d) / f"{t.name}-{kind.value}", t, kind, extra=extra)
                    why = None
                except BuildError as exc:
                    why = str(exc).splitlines()[-1]
                out.append((t.name, kind.value, time.perf_counter() - t0, why))
                if log:
                    print(f"zig cache: {t.name} {kind.value} {out[-1][2]:.1f} s{' — ' + why if why else ''}",
                          flush=True)
    return out


if __name__ == "__main__":  # make setup: python -m lowering.toolchain --warm [TARGET ...]
    if sys.argv[1:2] == ["--warm"]:
        warm(sys.argv[2:] or None)

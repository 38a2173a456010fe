"""Host builds: one g++ run turns a translation unit into a C-ABI shared object."""
from __future__ import annotations

import functools
import os
import time
from dataclasses import dataclass
from pathlib import Path

from everypath.base.errors import BuildError
from everypath.base.settings import Settings

INCLUDE_DIR = Path(__file__).resolve().parent.parent / "variants" / "include"


@dataclass(frozen=True)
class BuildArtifact:
    path: Path
    seconds: float
    command: tuple[str, ...]


@functools.lru_cache(maxsize=8)
def compiler_version(cxx: str, cache_dir: str | None = None) -> str:
    """`cxx --version`, remembered on disk per binary (path, size, mtime): a
    subprocess per process would cost a warm first call several milliseconds."""
    import json
    import shutil

    exe = shutil.which(cxx)
    if exe is None:
        raise BuildError(f"C++ compiler '{cxx}' was not found on PATH (make setup installs g++)")
    st = os.stat(os.path.realpath(exe))
    stamp = f"{os.path.realpath(exe)}:{st.st_size}:{st.st_mtime_ns}"
    memo = Path(cache_dir) / "toolchains.json" if cache_dir else None
    known: dict[str, str] = {}
    if memo is not None:
        try:
            known = json.loads(memo.read_text())
        except (OSError, ValueError):
            known = {}
        if stamp in known:
            return known[stamp]
    import subprocess  # a miss's work, as tempfile: ~9 ms of a warm first call's import otherwise
    import tempfile

    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        raise BuildError(f"C++ compiler '{cxx}' is not usable: {exc}") from None
    version = out.splitlines()[0] if out else cxx
    if memo is not None:
        known[stamp] = version
        memo.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=memo.parent, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            json.dump(known, f)
        os.replace(tmp, memo)
    return version


@functools.lru_cache(maxsize=1)
def headers_digest() -> str:
    """Content hash of the operator library headers: part of every cache key."""
    import hashlib

    h = hashlib.sha256()
    for p in sorted(INCLUDE_DIR.rglob("*.h*")):
        h.update(str(p.relative_to(INCLUDE_DIR)).encode())
        h.update(p.read_bytes())
    return h.hexdigest()


def precompiled(source: str, compile_flags: list[str], settings: Settings) -> list[str]:
    """`-include <prefix>` when the unit's header prefix has a usable precompiled header (lowering/pch.py),
    else nothing. The .gch is built with exactly these flags (less the link-only -shared), so a sanitized
    build or another -march gets a .gch of its own."""
    from everypath.lowering import pch

    prefix = pch.unit_prefix(source)
    version = compiler_version(settings.cxx, str(settings.cache_dir))
    if not settings.pch or prefix is None or not pch.is_gcc(version):
        return []
    flags = [f for f in compile_flags if f != "-shared"]
    h = pch.header_for(prefix, flags, settings.cxx, version, headers_digest(), settings.cache_dir)
    return ["-include", str(h.text_path)] if pch.prepare(h, prefix, settings.pch_max_mb << 20) else []


def build_shared(source: str, out_path: Path, settings: Settings) -> BuildArtifact:
    """Compile C++ source into out_path atomically (temp name + rename)."""
    import subprocess
    import tempfile

    out_path.parent.mkdir(parents=True, exist_ok=True)
    cpp = out_path.with_suffix(".cpp")
    # temp name + rename: a concurrent build of the same key (`everypath compile -j`, another process)
    # must never see a half-written file; a g++ already reading the old one keeps its inode
    fd, tmp_cpp = tempfile.mkstemp(suffix=".cpp", dir=out_path.parent)
    with os.fdopen(fd, "w") as f:
        f.write(source)
    os.replace(tmp_cpp, cpp)
    fd, tmp = tempfile.mkstemp(suffix=".so", dir=out_path.parent)
    os.close(fd)
    from everypath.variants.paths import build_flags

    path_cxx, path_link = build_flags(source)  # the implementation paths this unit calls into
    compile_flags = [*settings.cxx_flags(), *path_cxx, f"-I{INCLUDE_DIR}"]
    t0 = time.perf_counter()  # a precompiled header built for this unit counts as part of its build
    pch_flags = precompiled(source, compile_flags, settings)

    def command(pch: list[str]) -> tuple[str, ...]:
        return (settings.cxx, *compile_flags, *pch, str(cpp), "-o", tmp, *settings.link_flags(), *path_link)

    cmd = command(pch_flags)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0 and pch_flags:
        # g++ stops on an unreadable .gch (cut short on disk) instead of reading the text: the precompiled
        # header must never be why a build fails, so build from the text and drop the .gch if that was it
        cmd = command([])
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode == 0:
            Path(pch_flags[1] + ".gch").unlink(missing_ok=True)
    dt = time.perf_counter() - t0
    if proc.returncode != 0:
        os.unlink(tmp)
        raise BuildError(f"g++ failed on generated code {cpp} (an everypath bug):\n{proc.stderr[-6000:]}")
    os.replace(tmp, out_path)
    return BuildArtifact(out_path, dt, cmd)

"""Host builds: one g++ run turns a translation unit into a C-ABI shared object."""
from __future__ import annotations

import functools
import os
import subprocess
import tempfile
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


def build_shared(source: str, out_path: Path, settings: Settings) -> BuildArtifact:
    """Compile C++ source into out_path atomically (temp name + rename)."""
    out_path.parent.mkdir(parents=True, exist_ok=True)
    cpp = out_path.with_suffix(".cpp")
    cpp.write_text(source)
    fd, tmp = tempfile.mkstemp(suffix=".so", dir=out_path.parent)
    os.close(fd)
    from everypath.variants.paths import build_flags

    path_cxx, path_link = build_flags(source)  # the implementation paths this unit calls into
    cmd = (settings.cxx, *settings.cxx_flags(), *path_cxx, f"-I{INCLUDE_DIR}", str(cpp), "-o", tmp,
           *settings.link_flags(), *path_link)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if proc.returncode != 0:
        os.unlink(tmp)
        raise BuildError(f"g++ failed on generated code {cpp} (an everypath bug):\n{proc.stderr[-6000:]}")
    os.replace(tmp, out_path)
    return BuildArtifact(out_path, dt, cmd)

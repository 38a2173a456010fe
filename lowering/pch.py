"""Precompiled headers for host builds: parsing the runtime headers is most of a small unit's build.

A generated unit starts with a few `#define EP_HAVE_*` / `#include <everypath/...>` lines (unit.py) and
the headers behind them (libstdc++, intrinsics, xsimd: 4-5 MB preprocessed) cost 1.5-3 s of g++ time in
every build. Units share few such prefixes (16 across the 71 corpus kernels), so each prefix is compiled
once into a g++ `.gch` and the unit is built with `-include <prefix>.hpp`.

Correct by construction: the prefix file holds exactly the unit's own leading lines, so the unit's text
after it is a no-op (identical macro redefinitions, `#pragma once` headers). g++ uses the `.gch` only when
it is valid for the command (else it reads the text: slower, same result), and the key covers everything
g++ does not check itself: the exact compile flags, the compiler, the prefix and the runtime headers'
digest. g++ never checks whether a header changed since the `.gch` was written (it uses the old text, or
fails on a redefinition where `#pragma once` meets the edited file), so every file the `.gch` was built
from (the -MD list, system headers included: ~530 stats, 2 ms) is recorded with its size and mtime and
checked on each use: a stale `.gch` is rebuilt, not used. build.build_shared retries a failed build
without the `.gch`, so it is never why a build fails.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import subprocess
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

PREFIX_NAME = "prefix.hpp"
MAX_BYTES = 1 << 30  # .gch bytes kept per cache (60-110 MB each, Settings.pch_max_mb); the least recently used go first


@dataclass(frozen=True)
class Header:
    """One precompiled prefix: where it lives and the command that builds it."""

    folder: Path
    command: tuple[str, ...]

    @property
    def text_path(self) -> Path:
        return self.folder / PREFIX_NAME

    @property
    def gch_path(self) -> Path:
        return self.folder / (PREFIX_NAME + ".gch")

    @property
    def deps_path(self) -> Path:
        return self.folder / "deps.json"


def unit_prefix(source: str) -> str | None:
    """The unit's leading #define/#include lines (comments and blank lines skipped), up to its last
    leading #include; None when the unit does not start with an #include block."""
    lines: list[str] = []
    for raw in source.splitlines():
        line = raw.strip()
        if not line or line.startswith("//"):
            continue
        if not (line.startswith("#define ") or line.startswith("#include ")):
            break
        lines.append(line)
    last = max((i for i, line in enumerate(lines) if line.startswith("#include ")), default=-1)
    return "\n".join(lines[: last + 1]) + "\n" if last >= 0 else None


def is_gcc(version: str) -> bool:
    """`.gch` files and their lookup beside `-include` are g++'s; clang's PCH works differently."""
    return "clang" not in version.lower() and ("g++" in version or "GCC" in version)


def header_for(prefix: str, flags: list[str], cxx: str, version: str, headers: str, cache_dir: Path) -> Header:
    """Where the `.gch` for this prefix and these compile flags lives (flags without -shared/-o/sources)."""
    key = hashlib.sha256("\x00".join([prefix, " ".join(flags), cxx, version, headers]).encode()).hexdigest()
    folder = cache_dir / "pch" / key[:32]
    return Header(folder, (cxx, *flags, "-x", "c++-header"))


def _stamp(path: str) -> list[object] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [path, st.st_size, st.st_mtime_ns]


def is_fresh(h: Header) -> bool:
    """The `.gch` exists and no file it was built from changed since."""
    try:
        deps = json.loads(h.deps_path.read_text())["deps"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return h.gch_path.exists() and all(_stamp(d[0]) == d for d in deps)


def _read_depfile(text: str) -> list[str]:
    body = text.replace("\\\n", " ").replace("\\ ", "\x00")
    _, _, files = body.partition(": ")
    return [f.replace("\x00", " ") for f in files.split()]


@contextmanager
def _locked(folder: Path) -> Iterator[None]:
    # one builder per prefix: the others wait for its .gch rather than parse the same headers again
    with open(folder / "lock", "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def build(h: Header) -> bool:
    """Compile the prefix into its `.gch` (atomically: temp names + rename). False when g++ refuses
    it; the unit then builds from the text and reports its own errors."""
    fd, tmp = tempfile.mkstemp(dir=h.folder, suffix=".gch.tmp")
    os.close(fd)
    dep = tmp + ".d"
    try:
        proc = subprocess.run([*h.command, str(h.text_path), "-o", tmp, "-MD", "-MF", dep],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            return False
        # stamps taken after the build: a header edited during it makes the next use rebuild
        deps = [s for s in (_stamp(p) for p in _read_depfile(Path(dep).read_text())) if s is not None]
        h.deps_path.unlink(missing_ok=True)  # never a new .gch beside the old one's stamps
        os.replace(tmp, h.gch_path)
        _write(h.deps_path, json.dumps({"deps": deps}))
        return True
    finally:
        for p in (tmp, dep):
            if os.path.exists(p):
                os.unlink(p)


def _evict(root: Path, max_bytes: int) -> None:
    """Drop the `.gch` of the least recently used prefixes once the newest ones fill max_bytes (the most
    recent one always stays; the text stays too: a build that already chose it reads the text instead)."""
    used = []
    for d in root.iterdir():
        gch = d / (PREFIX_NAME + ".gch")
        try:
            used.append(((d / "deps.json").stat().st_mtime_ns, gch.stat().st_size, gch))
        except OSError:
            continue
    total = 0
    for i, (_, size, gch) in enumerate(sorted(used, key=lambda u: u[0], reverse=True)):
        total += size
        if i > 0 and total > max_bytes:
            gch.unlink(missing_ok=True)


def prepare(h: Header, prefix: str, max_bytes: int = MAX_BYTES) -> bool:
    """Make the `.gch` usable (built or rebuilt when missing or stale); False: build without it.

    Not on a prefix's first build: writing a `.gch` costs about twice what it saves one build
    (g++ 12, softmax's prefix: 3 s parse + 4 s saving it, 108 MB, against 2 s saved per use), so a
    prefix built once only (a one-off kernel, the first function a user compiles) is never charged
    for it. The prefix text on disk records the first build."""
    h.folder.mkdir(parents=True, exist_ok=True)
    if not h.text_path.exists():
        _write(h.text_path, prefix)
        return False
    if not is_fresh(h):
        with _locked(h.folder):
            if not is_fresh(h) and not build(h):
                return False
        _evict(h.folder.parent, max_bytes)
    try:
        os.utime(h.deps_path)  # recently used: kept by _evict
    except OSError:  # another process is rebuilding it right now: g++ takes whichever it finds
        pass
    return True

"""`everypath run`: which executable of a bundle runs here, and how (natively, qemu-user, wasmtime).

The executables' interface is `NAME --inputs in.npz --out out.npz` (lowering/standalone.py); their
exit status and stderr are passed through unchanged. linux-arm64 (and android-arm64's static
executable) runs under qemu-aarch64-static on another arch; wasm32-wasi's command module under
wasmtime (lowering.wasm_runner). A level of linux-x86_64 above this CPU's is never run.
"""
from __future__ import annotations

import enum
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from everypath.base.settings import Settings
from everypath.lowering.bundle import Bundle
from everypath.lowering.loader import Host, NoArtifactError, choose, extract, host
from everypath.lowering.targets import ArtifactKind

QEMU = "qemu-aarch64-static"
_EXE_KINDS = (ArtifactKind.EXECUTABLE, ArtifactKind.WASI_EXE)


class How(str, enum.Enum):
    NATIVE = "native"
    QEMU = "qemu"
    WASMTIME = "wasmtime"


def _wasmtime_available() -> bool:
    try:
        import wasmtime  # noqa: F401
    except ImportError:
        return False
    return True


def runner_for(art: dict[str, Any], h: Host) -> How:
    """How `art` runs on this host, or NoArtifactError saying why it cannot."""
    if art["kind"] == ArtifactKind.WASI_EXE.value:
        if not _wasmtime_available():
            raise NoArtifactError(f"{art['target']} runs under wasmtime, which is not installed (PyPI wasmtime)")
        return How.WASMTIME
    static_linux = art["os"] in ("linux", "android") and art["arch"] == "aarch64"  # static: any Linux kernel
    if art["arch"] == h.arch and (art["os"] == h.os or (static_linux and h.os == "linux")):
        return How.NATIVE
    if static_linux and h.os == "linux":
        if shutil.which(QEMU) is None:
            raise NoArtifactError(f"{art['target']} needs {QEMU} to run on this {h.arch} host; install it "
                                  "(apt-get install qemu-user-static)")
        return How.QEMU
    raise NoArtifactError(f"a {art['os']} {art['arch']} executable ({art['target']}) cannot run on this device, "
                          f"{h.describe()}")


def plan(b: Bundle, target: str | None = None, h: Host | None = None) -> tuple[dict[str, Any], How]:
    """The executable artifact to run and how: --target's, else this device's own (the best ISA level
    the CPU has), else one an emulator here can run (wasm32-wasi under wasmtime, linux-arm64 under qemu)."""
    h = h or host()
    if target is not None:
        art = choose(b, _EXE_KINDS, h, target)
        return art, runner_for(art, h)
    try:
        art = choose(b, (ArtifactKind.EXECUTABLE,), h)
        return art, runner_for(art, h)
    except NoArtifactError as first:
        for a in b.artifacts:
            if a["kind"] in {k.value for k in _EXE_KINDS}:
                try:
                    return a, runner_for(a, h)
                except NoArtifactError:
                    continue
        raise first from None


def _host_spool_dir() -> Path:
    """Where native executables spool by default (standalone/session.hpp spool_dir): ingest looks there."""
    if os.environ.get("EVERYPATH_SPOOL_DIR"):
        return Path(os.environ["EVERYPATH_SPOOL_DIR"])
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "everypath" / "spool"


def run_artifact(b: Bundle, art: dict[str, Any], how: How, inputs: Path, out: Path, settings: Settings,
                 extra: list[str] | None = None, timeout: float | None = None) -> tuple[int, str, str]:
    """Extract (verified) and run an executable artifact: (exit status, stdout, stderr)."""
    exe = extract(b, art["path"], art["sha256"], settings, 0o755)
    args = ["--inputs", str(inputs), "--out", str(out), *(extra or [])]
    if how is How.WASMTIME:
        from everypath.lowering.wasm_runner import run_wasi_command

        # WASI sees only preopened folders: inputs and results go through one temporary folder
        with tempfile.TemporaryDirectory(prefix="everypath-wasi-") as d:
            work = Path(d)
            shutil.copyfile(inputs, work / "in.npz")
            # WASI has no home folder: the spool goes to the preopened folder, then where ingest looks
            telemetry = "--no-telemetry" not in (extra or []) and settings.telemetry
            # (and WASI sees none of the host's environment: telemetry off must be said on the command line)
            spool = ["--spool", str(work / "run.spool")] if telemetry else \
                ([] if "--no-telemetry" in (extra or []) else ["--no-telemetry"])
            rc, stdout, stderr = run_wasi_command(exe, ["--inputs", str(work / "in.npz"), "--out",
                                                        str(work / "out.npz"), *spool, *(extra or [])], [work])
            if rc == 0 and (work / "out.npz").is_file():
                out.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(work / "out.npz", out)
            if telemetry and (work / "run.spool").is_file():
                dest = _host_spool_dir()
                dest.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(work / "run.spool", dest / f"{Path(art['path']).stem}-wasi-{os.getpid()}-"
                                f"{time.time_ns() // 1_000_000}.spool")
            return rc, stdout, stderr
    cmd = [QEMU, str(exe), *args] if how is How.QEMU else [str(exe), *args]
    out.parent.mkdir(parents=True, exist_ok=True)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr

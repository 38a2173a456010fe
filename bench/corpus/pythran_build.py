"""Pythran builds: ahead of time, before any timing, in compiler subprocesses
run from a thread pool, each with a timeout, cached by a hash of everything
that decides the result in ``.everypath-cache/bench/pythran/<sha256>/``
(failures too; timeouts are not cached)."""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import dataclasses
import hashlib
import importlib.util
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
from typing import Any, Callable

import numpy as np

from .common import Kernel, cpu_model, entry_name, full_reason, safe_ident, short_reason
from .pythran_export import pythran_export_line, pythran_source


def pythran_blas_flags() -> list[str]:
    """Pythran calls CBLAS for np.dot & co.  Without a cblas.h on the system
    those builds fail; the pip package scipy-openblas64 (the OpenBLAS NumPy
    itself ships) is used when it is installed."""
    if importlib.util.find_spec("scipy_openblas64") is not None:
        return ["--config", "compiler.blas=scipy-openblas"]
    return []


def pythran_command() -> list[str]:
    exe = pathlib.Path(sys.executable).parent / "pythran"
    if exe.exists():
        return [str(exe)]
    found = shutil.which("pythran")
    if found:
        return [found]
    return [sys.executable, "-c", "import sys; from pythran.run import run; sys.exit(run())"]


def _pythran_version() -> str:
    try:
        import pythran

        return getattr(pythran, "__version__", "?")
    except Exception as e:  # noqa: BLE001
        return f"unavailable ({short_reason(e)})"


def _log_reason(log: str) -> str:
    """The first error line of a pythran build log, paths cut to their last
    parts (pythran's own C++ headers as pythonic/...)."""
    lines = [ln.strip() for ln in log.splitlines() if ln.strip()]
    for ln in lines:
        if re.search(r"\berror\b", ln, re.I) and "CRITICAL" not in ln:
            ln = re.sub(r"^/tmp/\S+?:", "", ln)
            ln = re.sub(r"\S*/pythran/(pythonic/)", r"\1", ln)
            ln = re.sub(r"(?<![\w.])/(?:[^\s/:]+/)+([^\s/:]+)", r"\1", ln)
            return ln[:200]
    return (lines[-1] if lines else "no output")[:200]


@dataclasses.dataclass
class PythranBuild:
    kernel: str
    status: str  # ok | compile-fail | timeout
    reason: str = ""
    detail: str = ""
    so_path: str = ""
    module_name: str = ""
    build_dir: str = ""
    compile_s: float | None = None
    cached: bool = False


def pythran_prepare(kernel: Kernel, flags: tuple[str, ...], cache_root: pathlib.Path) -> tuple[pathlib.Path, str, list[str]]:
    """Write the generated source into its cache folder; return (folder,
    module name, command) -- runs in the main process (needs the kernel)."""
    args = tuple(kernel.bench_args(np.random.default_rng(0)))
    export = pythran_export_line(kernel, args)
    modname = f"pt_{safe_ident(kernel.name)}"
    src = pythran_source(kernel, kernel.path.read_text(), export)
    key = "\0".join(
        [src, " ".join(flags), modname, _pythran_version(), sysconfig.get_config_var("EXT_SUFFIX") or "", cpu_model()]
    )
    folder = cache_root / hashlib.sha256(key.encode()).hexdigest()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{modname}.py").write_text(src)
    cmd = [*pythran_command(), *flags, f"{modname}.py", "-o", f"{modname}{sysconfig.get_config_var('EXT_SUFFIX') or '.so'}"]
    return folder, modname, cmd


def pythran_build(name: str, folder: pathlib.Path, modname: str, cmd: list[str], timeout: float, rebuild: bool) -> PythranBuild:
    """Build in a worker process (thread-safe; called from a thread pool)."""
    so = folder / f"{modname}{sysconfig.get_config_var('EXT_SUFFIX') or '.so'}"
    ok_marker, fail_marker = folder / "BUILD_OK", folder / "BUILD_FAILED"
    base = dict(kernel=name, module_name=modname, build_dir=str(folder), so_path=str(so))
    if not rebuild:
        if ok_marker.exists() and so.exists():
            return PythranBuild(status="ok", compile_s=0.0, cached=True, **base)
        if fail_marker.exists():
            log = fail_marker.read_text()
            return PythranBuild(status="compile-fail", reason=_log_reason(log), detail=log[-4000:], cached=True, **base)
    for m in (ok_marker, fail_marker):
        m.unlink(missing_ok=True)
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        cmd, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
    )
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        (folder / "build.log").write_text(out or "")
        return PythranBuild(status="timeout", reason=f"pythran build > {timeout:g} s", detail=(out or "")[-4000:], **base)
    elapsed = time.perf_counter() - t0
    (folder / "build.log").write_text(out or "")
    if proc.returncode != 0 or not so.exists():
        log = f"$ {' '.join(cmd)}\n(exit {proc.returncode})\n{out}"
        fail_marker.write_text(log)
        return PythranBuild(status="compile-fail", reason=_log_reason(out or ""), detail=log[-4000:], compile_s=elapsed, **base)
    ok_marker.write_text(f"{elapsed:.3f}\n")
    return PythranBuild(status="ok", compile_s=elapsed, **base)


def pythran_build_all(
    kernels: list[Kernel],
    flags: tuple[str, ...],
    cache_root: pathlib.Path,
    timeout: float,
    jobs: int,
    rebuild: bool,
    log: Callable[[str], None],
) -> dict[str, PythranBuild]:
    """Every kernel's module, built `jobs` at a time (threads waiting on
    compiler subprocesses); a failure is a PythranBuild, never an exception."""
    builds: dict[str, PythranBuild] = {}
    pending: list[tuple[str, pathlib.Path, str, list[str]]] = []
    for k in kernels:
        try:
            folder, modname, cmd = pythran_prepare(k, flags, cache_root)
        except Exception as e:  # noqa: BLE001
            builds[k.name] = PythranBuild(kernel=k.name, status="compile-fail", reason="export: " + short_reason(e), detail=full_reason(e))
            continue
        pending.append((k.name, folder, modname, cmd))
    if pending:
        log(f"pythran: building {len(pending)} module(s), {jobs} at a time, cache {cache_root}")
    with cf.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futs = {pool.submit(pythran_build, n, f, m, c, timeout, rebuild): n for n, f, m, c in pending}
        for fut in cf.as_completed(futs):
            name = futs[fut]
            try:
                b = fut.result()
            except Exception as e:  # noqa: BLE001
                b = PythranBuild(kernel=name, status="compile-fail", reason=short_reason(e), detail=full_reason(e))
            builds[name] = b
            how = "cached" if b.cached else (f"{b.compile_s:.1f} s" if b.compile_s is not None else "")
            log(f"  pythran {name}: {b.status} {how} {b.reason}".rstrip())
    return builds


def pythran_load(b: PythranBuild, kernel: Kernel) -> Callable[..., Any]:
    spec = importlib.util.spec_from_file_location(b.module_name, b.so_path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {b.so_path}")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, entry_name(kernel))

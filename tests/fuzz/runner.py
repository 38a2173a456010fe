"""Compile and run generated kernels next to CPython + NumPy and classify what differs.

run_programs runs in this process (the caller decides about isolation); run_isolated runs
them in worker processes so that a crash of native code is recorded, not fatal.
"""
from __future__ import annotations

import enum
import importlib.util
import json
import math
import os
import subprocess
import sys
import tempfile
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from everypath.base.settings import Settings
from tests.fuzz.programs import Program, module_source, program

GROUP = 6  # kernels per generated module (one file, one import)


class Kind(enum.Enum):
    OK = "ok"
    REFUSED = "refused"  # a located CompileError: the compiler said no
    WRONG = "wrong"  # a different value, dtype, Python type, mutation or exception
    CRASH = "crash"  # the process running the compiled code died
    GXX = "gxx"  # g++ failed on generated code


@dataclass(frozen=True)
class Outcome:
    name: str
    source: str
    kind: Kind
    detail: str = ""


def _call(fn: Any, prog: Program, run: int) -> tuple[Any, tuple[Any, ...]]:
    """(result, or the exception raised; the inputs after the call)."""
    args = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in prog.inputs(run))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return fn(*args), args
        except Exception as e:  # noqa: BLE001 - an exception is an observable result
            return e, args


def _scale(prog: Program, run: int) -> float:
    """Sum of |inputs|: how far reordered float additions can drift (documented summation order)."""
    s = 1.0
    for a in prog.inputs(run):
        if isinstance(a, np.ndarray) and a.dtype.kind == "f":
            s += float(np.abs(a.astype(np.float64)).sum())
        elif isinstance(a, float):
            s += abs(a)
    return s


def _narrow(prog: Program, run: int) -> bool:
    """A float32/complex64 input: its intermediates are float32, where NumPy's transcendental loops and ours may
    differ by an ulp (docs/semantics.md), also when a strong scalar widens the result to float64."""
    return any(isinstance(a, np.ndarray) and a.dtype in (np.float32, np.complex64, np.float16)
               for a in prog.inputs(run))


def differ(ref: Any, got: Any, scale: float, where: str = "result", narrow: bool = False) -> str:
    """'' when got matches the reference, else what differs (narrow: float32 intermediates, float32's rtol)."""
    if isinstance(ref, tuple):
        if not isinstance(got, tuple) or len(got) != len(ref):
            return f"{where}: {ref!r:.200} vs {got!r:.200}"
        for i, (r, g) in enumerate(zip(ref, got)):
            d = differ(r, g, scale, f"{where}[{i}]", narrow)
            if d:
                return d
        return ""
    if type(ref) is not type(got):
        return f"{where}: type {type(ref).__name__} vs {type(got).__name__} ({ref!r:.120} vs {got!r:.120})"
    if isinstance(ref, np.ndarray):
        if ref.dtype != got.dtype or ref.shape != got.shape:
            return f"{where}: {ref.dtype}{ref.shape} vs {got.dtype}{got.shape}"
        if ref.dtype.kind in "fc":
            eps = float(np.finfo(ref.dtype).eps)
            rtol = 1e-6 if eps > 1e-10 or narrow else 1e-12
            ok = np.isclose(got, ref, rtol=rtol, atol=4 * eps * scale, equal_nan=True)
            if not ok.all():
                i = tuple(np.argwhere(~ok)[0])
                return f"{where}{list(i)}: {ref[i]!r} vs {got[i]!r}"
            return ""
        if not np.array_equal(ref, got):
            i = tuple(np.argwhere(ref != got)[0])
            return f"{where}{list(i)}: {ref[i]!r} vs {got[i]!r}"
        return ""
    if isinstance(ref, (float, np.floating)):
        r, g = float(ref), float(got)
        eps = 1.2e-7 if isinstance(ref, (np.float32, np.float16)) else 2.3e-16
        rtol = 1e-6 if eps > 1e-10 or narrow else 1e-12
        if math.isnan(r) and math.isnan(g) or r == g or abs(r - g) <= rtol * abs(r) + 4 * eps * scale:
            return ""
        return f"{where}: {ref!r} vs {got!r}"
    if isinstance(ref, BaseException):
        return ""  # the same exception type (the messages may word things differently)
    if ref is None or isinstance(ref, (bool, int, np.integer, np.bool_, str, complex)):
        return "" if ref == got else f"{where}: {ref!r} vs {got!r}"
    return f"{where}: cannot compare {type(ref).__name__}"


def check(prog: Program, pyfn: Any, compiled: Any) -> Outcome:
    from everypath.base.errors import BuildError, CompileError

    for run in range(len(prog.shapes)):
        ref, ref_in = _call(pyfn, prog, run)
        got, got_in = _call(compiled, prog, run)
        if isinstance(got, CompileError):
            return Outcome(prog.name, prog.source, Kind.REFUSED, str(got).splitlines()[0])
        if isinstance(got, BuildError):
            return Outcome(prog.name, prog.source, Kind.GXX, str(got)[:3000])
        shape = prog.shapes[run]
        if isinstance(ref, BaseException) != isinstance(got, BaseException):
            tb = "".join(traceback.format_exception(got))[-1500:] if isinstance(got, BaseException) else ""
            return Outcome(prog.name, prog.source, Kind.WRONG,
                           f"shape {shape}: reference {ref!r:.300}, compiled {got!r:.300}\n{tb}")
        scale, narrow = _scale(prog, run), _narrow(prog, run)
        d = differ(ref, got, scale, narrow=narrow) or differ(ref_in, got_in, scale, "inputs after", narrow)
        if d:
            return Outcome(prog.name, prog.source, Kind.WRONG, f"shape {shape}: {d}")
    return Outcome(prog.name, prog.source, Kind.OK)


def _load(progs: list[Program], folder: Path, tag: str) -> Any:
    path = folder / f"ep_fuzz_{tag}.py"
    path.write_text(module_source(progs))  # a real file: inspect.getsource reads it
    spec = importlib.util.spec_from_file_location(f"ep_fuzz_{tag}", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def run_programs(seed: int, count: int, settings: Settings | None = None, start: int = 0,
                 progress: Any = None) -> list[Outcome]:
    """Kernels start .. start + count - 1 of sequence seed, each compiled and compared (in this process)."""
    import everypath as ep

    out: list[Outcome] = []
    folder = Path(tempfile.mkdtemp(prefix="ep_fuzz_"))
    for g0 in range(start, start + count, GROUP):
        progs = [program(seed, i) for i in range(g0, min(g0 + GROUP, start + count))]
        mod = _load(progs, folder, f"{seed}_{g0}")
        for p in progs:
            if progress is not None:
                progress(p)
            pyfn = getattr(mod, p.name)
            opts = {"settings": settings} if settings is not None else {}
            out.append(check(p, pyfn, ep.compile(pyfn, **opts)))
            if progress is not None:
                progress(out[-1])
    return out


def run_isolated(seed: int, count: int, start: int = 0, timeout: float = 900.0) -> list[Outcome]:
    """run_programs in worker processes: a kernel whose process dies is a CRASH; the rest go on."""
    out: list[Outcome] = []
    i = start
    env = {**os.environ, "EVERYPATH_TELEMETRY": os.environ.get("EVERYPATH_TELEMETRY", "0")}
    while i < start + count:
        cmd = [sys.executable, "-m", "tests.fuzz.runner", str(seed), str(i), str(start + count - i)]
        root = Path(__file__).resolve().parents[2]
        try:
            proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=timeout)
            stdout, rc, err = proc.stdout, proc.returncode, proc.stderr
        except subprocess.TimeoutExpired as e:  # a kernel that hangs: a CRASH too
            text = e.stdout or ""
            stdout, rc, err = text.decode() if isinstance(text, bytes) else text, f"timeout {timeout}s", ""
        current, before = None, i
        for line in stdout.splitlines():
            if line.startswith("BEGIN "):
                current = int(line.split()[1])
            elif line.startswith("OUTCOME "):
                d = json.loads(line[len("OUTCOME "):])
                out.append(Outcome(d["name"], d["source"], Kind(d["kind"]), d["detail"]))
                current = None
                i += 1
        if rc != 0:
            if current is None:  # died outside a kernel: report it on the next one
                current = i
            p = program(seed, current)
            out.append(Outcome(p.name, p.source, Kind.CRASH, f"exit {rc}: {err[-1500:]}"))
            i = current + 1
        elif i == before:  # a clean exit that ran nothing: do not spin
            raise RuntimeError(f"fuzz worker ran no kernel: {err[-1500:]}")
    return out


def _main(argv: list[str]) -> None:
    seed, start, count = map(int, argv[:3])

    def progress(x: Program | Outcome) -> None:
        if isinstance(x, Program):
            print("BEGIN", x.seed.split("/")[1], flush=True)
        else:
            print("OUTCOME", json.dumps({"name": x.name, "source": x.source, "kind": x.kind.value,
                                         "detail": x.detail}), flush=True)

    run_programs(seed, count, start=start, progress=progress)


if __name__ == "__main__":
    _main(sys.argv[1:])

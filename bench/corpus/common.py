"""Shared vocabulary of the corpus benchmark: constants, the alarm, one-line
failure reasons, the result records every other module fills in, and the
helpers that find a kernel's entry in its module."""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import math
import pathlib
import platform
import re
import signal
import sys
import threading
import traceback
import types
from typing import Any, Callable, Iterator, Protocol

import numpy as np

# bench/corpus/common.py -> the repository root
ROOT = pathlib.Path(__file__).resolve().parents[2]
DEFAULT_CORPUS = ROOT / "tests" / "corpus"
CACHE_ROOT = ROOT / ".everypath-cache" / "bench" / "pythran"

ENGINES = ("everypath", "numba", "pythran")
PEERS = ("numba", "pythran")
CATEGORIES = ("loop", "array", "mixed")
# Module-level names of a corpus file that belong to the test harness, not
# to the kernel.
META_NAMES = {"CATEGORY", "ENTRY", "RTOL", "MUTATES", "cases", "bench_args"}
PYTHRAN_FLAGS = ("-O3", "-march=native")
TARGET_SAMPLE_NS = 20_000_000  # each timing sample lasts at least 20 ms
MAX_BATCH_BYTES = 256 << 20  # cap on argument copies prepared for one sample

GOALS = {
    "loop": 50.0,  # loop kernels: everypath >= 50x CPython
    "array": 2.0,  # whole-array kernels: everypath >= 2x NumPy
    "slower_tolerance": 1.10,  # never slower than NumPy by more than 10 %
}


class Kernel(Protocol):
    """What the benchmark uses of a corpus kernel (``_loader.CorpusKernel``);
    structural, so that ``--corpus-dir`` may bring its own loader."""

    name: str
    path: pathlib.Path
    module: types.ModuleType
    entry: Callable[..., Any]
    category: str
    rtol: float | None
    mutates: tuple[int, ...]

    def bench_args(self, rng: np.random.Generator) -> tuple: ...


def log(msg: str) -> None:
    """Progress goes to stderr, so that stdout holds only the report."""
    print(msg, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# the alarm
# --------------------------------------------------------------------------


class EngineTimeout(BaseException):
    """Raised by the alarm; BaseException so `except Exception` in compilers
    or kernels does not swallow it."""


@contextlib.contextmanager
def deadline(seconds: float | None) -> Iterator[None]:
    """Raise EngineTimeout in the main thread after `seconds` (SIGALRM).

    Interrupts Python code and blocking syscalls (e.g. a compiler's
    subprocess.wait); it cannot interrupt a native loop that never returns to
    the interpreter -- use --isolate for that."""
    usable = (
        seconds
        and seconds > 0
        and hasattr(signal, "setitimer")
        and threading_is_main()
    )
    if not usable:
        yield
        return

    def _handler(signum: int, frame: Any) -> None:
        raise EngineTimeout(f"timed out after {seconds:g} s")

    old = signal.signal(signal.SIGALRM, _handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def threading_is_main() -> bool:
    return threading.current_thread() is threading.main_thread()


# --------------------------------------------------------------------------
# failure reasons
# --------------------------------------------------------------------------


_GENERIC_FIRST = re.compile(r"^Failed in \w+ mode pipeline")
_SPECIFIC = (
    re.compile(r"\b(?:TypingError|UnsupportedError|NumbaError|LoweringError|CompileError|NotImplementedError): (.+)"),
    re.compile(r"(.*(?:unsupported|Unsupported|Unknown attribute|Untyped global|Cannot |Invalid use|not supported|"
               r"unexpected keyword|No implementation|does not support).*)"),
)
_FILE_LINE = re.compile(r'File "([^"]+)", line (\d+)')


def short_reason(exc: BaseException, limit: int = 160) -> str:
    """One line: exception type and the most telling part of its message.

    Numba's messages open with a generic "Failed in nopython mode pipeline"
    line; the specific cause (and the kernel line) is picked from further
    down.  An exception without a message (a bare assert inside a compiler)
    names the place it was raised."""
    msg = str(exc).strip()
    lines = [ln.strip() for ln in msg.splitlines() if ln.strip()]
    name = type(exc).__name__
    if not lines:
        tb = traceback.extract_tb(exc.__traceback__) if exc.__traceback__ else []
        if tb:
            fr = tb[-1]
            where = "/".join(pathlib.Path(fr.filename).parts[-3:])
            text = f"{name} at {where}:{fr.lineno}" + (f": {fr.line.strip()}" if fr.line else "")
        else:
            text = name
    else:
        first = lines[0]
        if _GENERIC_FIRST.match(first):
            picked = None
            for pat in _SPECIFIC:
                for ln in lines[1:]:
                    m = pat.search(ln)
                    if m:
                        picked = m.group(1).strip()
                        break
                if picked:
                    break
            if picked is None and len(lines) > 1:
                picked = lines[1]
            loc = ""
            for ln in lines:
                m = _FILE_LINE.search(ln)
                if m and "site-packages" not in m.group(1):
                    loc = f" ({pathlib.Path(m.group(1)).name}:{m.group(2)})"
                    break
            first = f"{picked}{loc}" if picked else first
        text = f"{name}: {first}"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def compact_reason(exc: BaseException, limit: int = 220) -> str:
    """All non-empty lines of the message joined (numpy's assertion messages
    put the useful part on lines 2-4)."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    text = " | ".join(lines) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"


def full_reason(exc: BaseException, limit: int = 4000) -> str:
    text = "".join(traceback.format_exception(exc))
    return text if len(text) <= limit else "…" + text[-limit:]


# --------------------------------------------------------------------------
# small utilities
# --------------------------------------------------------------------------


def geomean(values: list[float]) -> float | None:
    vals = [v for v in values if v and v > 0 and math.isfinite(v)]
    if not vals:
        return None
    return math.exp(sum(math.log(v) for v in vals) / len(vals))


def nbytes_of(obj: Any) -> int:
    if isinstance(obj, np.ndarray):
        return obj.nbytes
    if isinstance(obj, (tuple, list)):
        return sum(nbytes_of(o) for o in obj)
    if isinstance(obj, dict):
        return sum(nbytes_of(o) for o in obj.values())
    return 64


def cpu_model() -> str:
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


# --------------------------------------------------------------------------
# results
# --------------------------------------------------------------------------


@dataclasses.dataclass
class EngineResult:
    engine: str
    status: str = "pending"  # ok | compile-fail | wrong | timeout | error | crash | skipped
    reason: str = ""  # short, for the table
    detail: str = ""  # long (traceback, build log excerpt), for the JSON
    compile_s: float | None = None  # pythran: build time (0 if cached); JIT: first call
    cached: bool | None = None
    median_ns: float | None = None
    samples_ns: list[float] = dataclasses.field(default_factory=list)
    inner: int | None = None
    speedup: float | None = None
    notes: list[str] = dataclasses.field(default_factory=list)

    @property
    def right(self) -> bool:
        return self.status == "ok" and self.speedup is not None

    def label(self) -> str:
        if self.status in ("ok",):
            return "ok"
        return f"{self.status}: {self.reason}" if self.reason else self.status


@dataclasses.dataclass
class KernelResult:
    name: str
    category: str
    path: str
    rtol: float | None
    mutates: list[int]
    status: str = "pending"  # ok | baseline-error | baseline-timeout | load-error
    reason: str = ""
    current: str = ""  # engine running right now (blamed if the process dies)
    cpython: EngineResult = dataclasses.field(default_factory=lambda: EngineResult("cpython"))
    engines: dict[str, EngineResult] = dataclasses.field(default_factory=dict)

    def to_json(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, d: dict) -> KernelResult:
        d = dict(d)
        d["cpython"] = EngineResult(**d["cpython"])
        d["engines"] = {k: EngineResult(**v) for k, v in d["engines"].items()}
        return cls(**d)


# --------------------------------------------------------------------------
# corpus loading
# --------------------------------------------------------------------------


def import_loader(corpus_dir: pathlib.Path) -> types.ModuleType:
    corpus_dir = corpus_dir.resolve()
    if str(corpus_dir) not in sys.path:
        sys.path.insert(0, str(corpus_dir))
    return importlib.import_module("_loader")


def entry_name(kernel: Kernel) -> str:
    """Name under which the entry function is bound in its module."""
    for name, obj in vars(kernel.module).items():
        if obj is kernel.entry and name not in META_NAMES:
            return name
    return kernel.entry.__name__


def safe_ident(name: str) -> str:
    s = re.sub(r"\W", "_", name)
    return s if s and not s[0].isdigit() else "k_" + s

"""The one typed settings object; every knob is read here and nowhere else."""
from __future__ import annotations

import os
import platform
from dataclasses import dataclass, field, replace
from pathlib import Path

from everypath.base.isa import DeviceVariant


def _default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "everypath"


def _default_lake() -> Path:
    # the process-wide location even for Settings() built in code: one lake per process
    if os.environ.get("EVERYPATH_LAKE"):
        return Path(os.environ["EVERYPATH_LAKE"])
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "everypath" / "lake"


def _default_registry() -> Path:
    if os.environ.get("EVERYPATH_REGISTRY"):
        return Path(os.environ["EVERYPATH_REGISTRY"])
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "everypath" / "registry"


def _rate(name: str, value: str) -> float:
    try:
        r = float(value)
    except ValueError:
        raise ValueError(f"{name}={value!r}: expected a number between 0 and 1") from None
    if not 0.0 <= r <= 1.0:
        raise ValueError(f"{name}={value!r}: expected a number between 0 and 1")
    return r


def _count(name: str, value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise ValueError(f"{name}={value!r}: expected a non-negative whole number") from None
    if n < 0:
        raise ValueError(f"{name}={value!r}: expected a non-negative whole number")
    return n


@dataclass(frozen=True)
class Settings:
    cache_dir: Path = field(default_factory=_default_cache)
    cxx: str = "g++"
    march: str = "native"  # host builds; -march=<this>
    opt: str = "-O3"
    boundscheck: bool = True  # out-of-range integer indices raise IndexError and Python int results beyond int64
    # raise OverflowError (off: undefined behaviour and wrap-around, as in C)
    keep_going: bool = False
    # implementation paths: None = every path this host can build; force = only that one
    # (where an operator has it, else loops) — for differential tests and `ops bench`
    paths: tuple[str, ...] | None = None
    force_path: str | None = None
    omp_wait_policy: str = "passive"  # see apply_openmp_defaults
    # telemetry (docs/telemetry.md): recording into the local lake is on by default
    telemetry: bool = True
    telemetry_sample: float = 1.0  # share of operator calls recorded
    explore: float = 0.0  # share of dispatched calls that try another available variant
    lake: Path = field(default_factory=_default_lake)
    flush_seconds: float = 5.0  # the background flusher publishes at least this often
    collector_url: str | None = None  # uploading is opt-in
    selection_table: Path | None = None  # base/selection_table.py format; None: the built-in thresholds choose
    collector_token: str | None = None
    registry: Path = field(default_factory=_default_registry)  # selector models (docs/selector.md)
    # a restricted view of this host recorded as a device of its own ("+x86-64-v2+1t": telemetry/device.py
    # DeviceVariant); `everypath autotune --isa/--threads` sets it for the processes it starts
    device_variant: str = ""
    # test builds under sanitizers ("address,undefined"): -fsanitize=<this> at -O1 -g1; the process that
    # loads such a build needs the ASan runtime preloaded (tests/sanitize/test_sanitize.py shows how)
    sanitize: str = ""
    # host builds parse the runtime headers once per header prefix and flags, into a g++ precompiled header
    # in cache_dir/pch (lowering/pch.py); off: every build parses them (same result, slower)
    pch: bool = True
    pch_max_mb: int = 1024  # disk the precompiled headers may take (least recently used dropped first)

    @staticmethod
    def from_env(env: dict[str, str] | None = None) -> "Settings":
        e = os.environ if env is None else env
        s = Settings()
        if e.get("EVERYPATH_CACHE"):
            s = replace(s, cache_dir=Path(e["EVERYPATH_CACHE"]))
        if e.get("EVERYPATH_CXX"):
            s = replace(s, cxx=e["EVERYPATH_CXX"])
        if e.get("EVERYPATH_MARCH"):
            s = replace(s, march=e["EVERYPATH_MARCH"])
        if e.get("EVERYPATH_CHECKED", ""):  # deprecated alias of EVERYPATH_BOUNDSCHECK
            s = replace(s, boundscheck=e["EVERYPATH_CHECKED"] != "0")
        if e.get("EVERYPATH_BOUNDSCHECK", ""):
            s = replace(s, boundscheck=e["EVERYPATH_BOUNDSCHECK"] != "0")
        if e.get("EVERYPATH_PATHS"):
            s = replace(s, paths=tuple(p.strip() for p in e["EVERYPATH_PATHS"].split(",") if p.strip()))
        if e.get("EVERYPATH_FORCE_PATH"):
            s = replace(s, force_path=e["EVERYPATH_FORCE_PATH"].strip())
        if e.get("EVERYPATH_TELEMETRY", "") == "0":
            s = replace(s, telemetry=False)
        if e.get("EVERYPATH_TELEMETRY_SAMPLE"):
            s = replace(s, telemetry_sample=_rate("EVERYPATH_TELEMETRY_SAMPLE", e["EVERYPATH_TELEMETRY_SAMPLE"]))
        if e.get("EVERYPATH_EXPLORE"):
            s = replace(s, explore=_rate("EVERYPATH_EXPLORE", e["EVERYPATH_EXPLORE"]))
        if e.get("EVERYPATH_LAKE"):
            s = replace(s, lake=Path(e["EVERYPATH_LAKE"]))
        if e.get("EVERYPATH_FLUSH_SECONDS"):
            s = replace(s, flush_seconds=float(e["EVERYPATH_FLUSH_SECONDS"]))
        if e.get("EVERYPATH_COLLECTOR_URL"):
            s = replace(s, collector_url=e["EVERYPATH_COLLECTOR_URL"])
        if e.get("EVERYPATH_SELECTION_TABLE"):
            s = replace(s, selection_table=Path(e["EVERYPATH_SELECTION_TABLE"]))
        if e.get("EVERYPATH_COLLECTOR_TOKEN"):
            s = replace(s, collector_token=e["EVERYPATH_COLLECTOR_TOKEN"])
        if e.get("EVERYPATH_REGISTRY"):
            s = replace(s, registry=Path(e["EVERYPATH_REGISTRY"]))
        if e.get("EVERYPATH_SANITIZE"):
            s = replace(s, sanitize=e["EVERYPATH_SANITIZE"].strip())
        if e.get("EVERYPATH_PCH", "") == "0":
            s = replace(s, pch=False)
        if e.get("EVERYPATH_PCH_MAX_MB"):
            s = replace(s, pch_max_mb=_count("EVERYPATH_PCH_MAX_MB", e["EVERYPATH_PCH_MAX_MB"]))
        if e.get("EVERYPATH_DEVICE_VARIANT"):
            DeviceVariant.parse(e["EVERYPATH_DEVICE_VARIANT"])  # refuse a bad label here, where it is read
            s = replace(s, device_variant=e["EVERYPATH_DEVICE_VARIANT"])
        return s

    def apply_openmp_defaults(self) -> None:
        """Threads-path code sleeps rather than spins while it waits (unless the user set
        OMP_WAIT_POLICY): on a shared or loaded machine a spinning team member that
        gets descheduled turns a 2 ms call into 20 ms (measured). libgomp reads this
        once, when it is first loaded into the process."""
        os.environ.setdefault("OMP_WAIT_POLICY", self.omp_wait_policy)

    def path_key(self) -> str:
        """The path choices as part of cache keys."""
        return f"paths={','.join(self.paths) if self.paths is not None else '*'};force={self.force_path or ''}"

    def link_flags(self) -> list[str]:
        # libmvec: glibc's vector math (see variants/include/everypath/simd_math.hpp)
        libs = ["-lmvec", "-lm"] if platform.system() == "Linux" and platform.machine() == "x86_64" else ["-lm"]
        return [*self.sanitize_flags(), *libs]

    def sanitize_flags(self) -> list[str]:
        """Compile and link flags of a sanitized build (none when sanitize is off)."""
        if not self.sanitize:
            return []
        flags = [f"-fsanitize={self.sanitize}", "-fno-omit-frame-pointer", "-fno-sanitize-recover=all"]
        if "undefined" in self.sanitize.split(","):
            # -fwrapv: wrapping is NumPy's documented integer semantics, so signed overflow is not a bug here
            flags.append("-fno-sanitize=signed-integer-overflow")
        return flags

    def cxx_flags(self) -> list[str]:
        # sanitized builds: -O1 (ASan's advice) and -g1: line tables for the reports, 2.5x cheaper to build than -g
        opt = ["-O1", "-g1"] if self.sanitize else [self.opt]
        return [
            "-std=c++20", *opt, f"-march={self.march}", "-fPIC", "-shared", "-fwrapv",
            "-fno-math-errno", "-ffp-contract=off", "-mprefer-vector-width=512", "-fvisibility=hidden", "-w",
            *self.sanitize_flags(),
        ]

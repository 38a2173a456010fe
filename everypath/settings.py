"""The one typed settings object; every knob is read here and nowhere else."""
from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path


def _default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "everypath"


@dataclass(frozen=True)
class Settings:
    cache_dir: Path = field(default_factory=_default_cache)
    cxx: str = "g++"
    march: str = "native"  # host builds; -march=<this>
    opt: str = "-O3"
    checked: bool = False  # bounds-checked indexing (IndexError instead of undefined behaviour)
    keep_going: bool = False

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
        if e.get("EVERYPATH_CHECKED", "") not in ("", "0"):
            s = replace(s, checked=True)
        return s

    def link_flags(self) -> list[str]:
        import platform

        # libmvec: glibc's vector math (see variants/include/everypath/simd_math.hpp)
        return ["-lmvec", "-lm"] if platform.system() == "Linux" and platform.machine() == "x86_64" else ["-lm"]

    def cxx_flags(self) -> list[str]:
        return [
            "-std=c++20", self.opt, f"-march={self.march}", "-fPIC", "-shared", "-fwrapv",
            "-fno-math-errno", "-ffp-contract=off", "-fvisibility=hidden", "-w",
        ]

"""Is a variant buildable on this host? A pure function of the variant's requirements and the host."""
from __future__ import annotations

import platform
import shutil

from variants.registry import Variant


def available(v: Variant) -> tuple[bool, str | None]:
    r = v.requires
    system = platform.system().lower()
    if r.os and system not in r.os:
        return False, f"needs OS {', '.join(r.os)}; this host is {system}"
    machine = platform.machine().lower()
    if r.arch and machine not in r.arch:
        return False, f"needs arch {', '.join(r.arch)}; this host is {machine}"
    if r.device == "cuda" and shutil.which("nvcc") is None:
        return False, "needs nvcc (CUDA toolkit) to build"
    return True, None

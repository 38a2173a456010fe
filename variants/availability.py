"""Is a variant buildable on this host? A pure function of the variant's requirements,
its path's host probe (variants.paths) and the host."""
from __future__ import annotations

import platform

from variants.paths import host_path
from variants.registry import Variant


def available(v: Variant) -> tuple[bool, str | None]:
    r = v.requires
    system = platform.system().lower()
    if r.os and system not in r.os:
        return False, f"needs OS {', '.join(r.os)}; this host is {system}"
    machine = platform.machine().lower()
    if r.arch and machine not in r.arch:
        return False, f"needs arch {', '.join(r.arch)}; this host is {machine}"
    hp = host_path(v.path)
    if not hp.available:
        return False, hp.reason
    return True, None

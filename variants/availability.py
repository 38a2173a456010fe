"""Is a variant buildable on this host? A pure function of the variant's requirements,
its path's host probe (variants.paths) and the host."""
from __future__ import annotations

import platform
from typing import Protocol

from everypath.variants.paths import host_path
from everypath.variants.registry import Variant


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


class TargetLike(Protocol):
    """What a build target tells about itself (lowering.targets.Target)."""

    name: str
    os: str
    arch: str

    @property
    def paths(self) -> frozenset[str]: ...


# the OS a variant's requirement names, as targets spell theirs (iOS is Apple's, web runs WASI code)
_OS_ALIASES = {"ios": "darwin", "web": "wasi", "android": "linux"}


def available_on(v: Variant, target: TargetLike) -> tuple[bool, str | None]:
    """Is v in `target`'s build? Its path must be one the target keeps and its requirements met;
    the path's headers must exist on this (building) host."""
    if v.path not in target.paths:
        return False, f"path {v.path} is not built for {target.name} (it keeps {', '.join(sorted(target.paths))})"
    r = v.requires
    if r.os and target.os not in r.os and _OS_ALIASES.get(target.os) not in r.os:
        return False, f"needs OS {', '.join(r.os)}; {target.name} is {target.os}"
    if r.arch and target.arch not in r.arch:
        return False, f"needs arch {', '.join(r.arch)}; {target.name} is {target.arch}"
    if v.path == "simd" and not host_path("simd").available:
        return False, host_path("simd").reason
    return True, None

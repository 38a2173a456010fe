"""What a device class can run: a hard constraint on every choice, never a prediction.

A variant is *allowed* on a device when its declared requirements (variants/registry.py's
`Requirements`, the data the build uses through variants.availability.available_on) are met by
the device's telemetry fields: OS (iOS counts as darwin, Android as linux, web as wasi, as
targets spell them), arch, ISA level, GPU and runtime. A shipped artifact (runtime
`native-executable` or `wasm`) keeps only the paths its target builds (lowering/targets.py's
`Target.paths`: loops, simd, threads; wasm only loops), so no OpenBLAS, OpenCV or Apple
framework there; CUDA needs an NVIDIA GPU (the schema's `gpu` is `nvidia-smi`'s: any GPU off
darwin and wasm), and the Apple paths need darwin.

A class's *candidates* for an operator combine that with the lake (`candidates`): the allowed
variants, plus those it has run (proven present in its build); once it has explored the
operator enough, the allowed ones it never ran count as absent. A class the lake has never seen
run the operator (a held-out or new class) gets every allowed variant the fleet has run.
"""
from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from everypath.selector.features import ISA_ORDINAL

OS_ALIASES = {"ios": "darwin", "android": "linux", "web": "wasi", "macos": "darwin"}
WASM_PATHS = frozenset({"loops"})  # lowering/targets.py: the wasm targets have no simd, no threads
SHIPPED_PATHS = frozenset({"loops", "simd", "threads"})  # Target.paths of every shipped artifact
SHIPPED_RUNTIMES = ("native-executable", "wasm")


def _os(device: Mapping[str, object]) -> str:
    raw = str(device.get("os") or "").lower()
    return OS_ALIASES.get(raw, raw)


def _is_wasm(device: Mapping[str, object]) -> bool:
    return (str(device.get("arch") or "").lower() == "wasm32" or _os(device) == "wasi"
            or str(device.get("runtime") or "") == "wasm")


def _present(x: object) -> bool:
    return x is not None and x == x and str(x) != ""  # NaN (pandas' missing) is not a GPU


@functools.lru_cache(maxsize=4096)
def requirements(op: str, variant: str) -> tuple[tuple[str, ...], tuple[str, ...], str | None,
                                                   tuple[str, ...], str | None] | None:
    """(os, arch, isa, libraries, device) the registry declares for op's variant; None: unknown."""
    from everypath.variants.registry import registry

    entry = registry().ops.get(op.removeprefix("fused:"))
    if entry is None:
        return None
    for v in entry.variants:
        if v.path == variant:
            r = v.requires
            return r.os, r.arch, r.isa, r.libraries, r.device
    return None


def allowed(device: Mapping[str, object], op: str, variant: str) -> bool:
    """Can a device with these fields run op's variant? Unknown operators or variants (not in
    this registry) are judged by the path name alone."""
    req = requirements(op, variant)
    os_req, arch_req, isa_req, _libs, dev = req if req is not None else _by_path(variant)
    os_, arch = _os(device), str(device.get("arch") or "").lower()
    if os_req and os_ not in os_req:
        return False
    if arch_req and arch not in arch_req:
        return False
    if isa_req is not None:
        have = ISA_ORDINAL.get(str(device.get("isa_level") or ""), 0)
        if have < ISA_ORDINAL.get(isa_req, 99):
            return False
    wasm = _is_wasm(device)
    if wasm and variant not in WASM_PATHS:
        return False
    if str(device.get("runtime") or "") in SHIPPED_RUNTIMES and variant not in SHIPPED_PATHS:
        return False
    if variant == "simd" and not _present(device.get("isa_level")):
        return False  # no ISA level recorded: no SIMD the build could target
    if dev == "cuda" and (not _present(device.get("gpu")) or os_ == "darwin" or wasm):
        return False
    if dev == "metal" and os_ != "darwin":
        return False
    return True


def _by_path(variant: str) -> tuple[tuple[str, ...], tuple[str, ...], str | None, tuple[str, ...], str | None]:
    if variant in ("accelerate", "vimage"):
        return ("darwin",), (), None, ("Accelerate",), None
    if variant == "metal":
        return ("darwin",), (), None, (), "metal"
    if variant == "cuda":
        return (), (), None, (), "cuda"
    if variant in ("blas", "opencv"):
        return (), (), None, ("openblas" if variant == "blas" else "opencv",), None
    return (), (), None, (), None


@dataclass(frozen=True)
class Seen:
    """What the lake shows of one class and operator: the variants it ran, and how many of its
    calls explored (uniformly among its variants)."""

    variants: frozenset[str]
    explored: int


SETTLED = 10  # explore calls per candidate after which a variant never run counts as absent


def ran(rows: pd.DataFrame) -> dict[tuple[str, str], Seen]:
    """(device class, op) -> what the class has run for op in these rows."""
    explore = rows["explore"].to_numpy(bool) if "explore" in rows else np.zeros(len(rows), bool)
    g = rows.assign(_e=explore).groupby(["device_class", "op"], sort=True)
    return {k: Seen(frozenset(v), int(e)) for (k, v), e in zip(g["variant"].unique().items(), g["_e"].sum())}


def candidates(device: Mapping[str, object], op: str, fleet: tuple[str, ...], seen: Seen | None) -> tuple[str, ...]:
    """The variants a choice for this device and op may name (in `fleet`'s order): those its
    fields allow, and those it has run (proven present). Once the class has explored op enough
    (SETTLED calls per candidate) a variant it never ran is taken to be absent from its build."""
    ok = tuple(v for v in fleet if allowed(device, op, v))
    if seen is None:
        return ok if ok else tuple(v for v in fleet if v == "loops")
    settled = seen.explored >= SETTLED * max(1, len(ok))
    out = tuple(v for v in fleet if v in seen.variants or (v in ok and not settled))
    return out if out else ok

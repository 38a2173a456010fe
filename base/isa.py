"""The ISA vocabulary every stage shares: psABI x86-64 levels, the CPU flags variants care about,
and DeviceVariant (a restricted view of a host, as settings and autotune name it)."""
from __future__ import annotations

import platform
from dataclasses import dataclass

# psABI x86-64 micro-architecture levels, by /proc/cpuinfo flag names
_X86_V2 = {"cx16", "lahf_lm", "popcnt", "sse4_1", "sse4_2", "ssse3"}
_X86_V3 = {"avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "xsave"}
_X86_V4 = {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"}

# the flags variants care about (a fixed subset keeps classes stable across kernel versions)
RELEVANT_FLAGS = (
    "sse4_2", "avx", "avx2", "fma", "f16c", "bmi2", "avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512cd",
    "avx512_vnni", "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16", "amx_int8",
    "neon", "asimd", "asimddp", "fphp", "asimdhp", "sve", "sve2", "sme", "i8mm", "bf16",
)
ARM_FLAGS = {"asimd": "neon"}  # /proc/cpuinfo says asimd where compilers say neon


def isa_level(arch: str, flags: set[str]) -> str:
    """x86-64-v1..v4 per the psABI levels; armv8 (+ .2 with dotprod/fp16, armv9 with sve2) on arm."""
    if arch == "x86_64":
        level = "x86-64-v1"
        if _X86_V2 <= flags:
            level = "x86-64-v2"
            if _X86_V3 <= flags:
                level = "x86-64-v3"
                if _X86_V4 <= flags:
                    level = "x86-64-v4"
        return level
    if arch == "aarch64":
        if "sve2" in flags:
            return "armv9"
        return "armv8.2" if {"asimddp", "asimdhp"} & flags else "armv8"
    return arch


# the RELEVANT_FLAGS each psABI level may use (a build for a level sees no flag of a higher one)
LEVEL_FLAGS = {
    "x86-64-v1": set(),
    "x86-64-v2": {"sse4_2"},
    "x86-64-v3": {"sse4_2", "avx", "avx2", "fma", "f16c", "bmi2"},
    "x86-64-v4": {"sse4_2", "avx", "avx2", "fma", "f16c", "bmi2", "avx512f", "avx512bw", "avx512vl", "avx512dq",
                  "avx512cd"},
}


@dataclass(frozen=True)
class DeviceVariant:
    """A restricted view of this host that `everypath autotune` measures as a device of its own:
    code built for a lower ISA level and/or OpenMP teams of fewer threads. Its rows say so:
    isa_level/isa_flags/cores describe what the code could use, and the device_id carries the
    label (e.g. "<id>+x86-64-v2+1t"), so they never pass for a different machine."""

    isa_level: str | None = None  # x86-64-v1..v4 (None: this host's own)
    threads: int | None = None  # OpenMP threads (None: all)

    @property
    def label(self) -> str:
        return "".join(f"+{p}" for p in (self.isa_level, f"{self.threads}t" if self.threads else None) if p)

    @staticmethod
    def parse(text: str) -> "DeviceVariant":
        """From a label as `label` writes it ("+x86-64-v2+1t", "+4t"; empty: the host itself)."""
        isa, threads = None, None
        for part in filter(None, text.split("+")):
            if part in LEVEL_FLAGS:
                isa = part
            elif part.endswith("t") and part[:-1].isdigit() and int(part[:-1]) > 0:
                threads = int(part[:-1])
            else:
                raise ValueError(f"device variant {text!r}: {part!r} is neither an x86-64 level "
                                 f"({', '.join(LEVEL_FLAGS)}) nor a thread count like '1t'")
        return DeviceVariant(isa, threads)


def cpuinfo() -> dict[str, str]:
    """The first processor block of /proc/cpuinfo (empty where there is none). Read line by line up
    to its end: the kernel makes the text as it is read, and a many-core host's is long."""
    out: dict[str, str] = {}
    try:
        with open("/proc/cpuinfo", errors="replace") as f:
            for line in f:
                if not line.strip():
                    if out:
                        break
                    continue
                k, _, v = line.partition(":")
                out.setdefault(k.strip().lower(), v.strip())
    except OSError:
        return {}
    return out


def machine_arch() -> str:
    """This machine's architecture as compilers and the artifacts name it (x86_64, aarch64)."""
    m = platform.machine().lower()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(m, m)


def cpu_flags(info: dict[str, str] | None = None) -> set[str]:
    """This CPU's feature flags as /proc/cpuinfo names them (aarch64: neon added, asimd read as neon)."""
    info = cpuinfo() if info is None else info
    raw = set((info.get("flags") or info.get("features") or "").split())
    if machine_arch() == "aarch64":
        raw |= {"neon"}  # always present on aarch64 (AdvSIMD is mandatory)
        raw |= {ARM_FLAGS[f] for f in raw if f in ARM_FLAGS}
    return raw

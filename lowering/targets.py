"""Build targets: what each one is, which toolchain builds it, and which implementation paths it keeps.

One table (TARGETS) declares every target a bundle can carry. A target is data: OS, arch, ISA level,
toolchain (host g++ or zig), compiler flags, the artifact kinds it gets and what it lacks (threads,
exceptions). Whether a target can be built *here* is `status(target)`: it names the missing SDK or
toolchain, never a silent skip. Which variants of an operator a target's build keeps is
`variants.availability.available_on(variant, target)`, the same rule the host build uses.
"""
from __future__ import annotations

import enum
import os
import platform
from dataclasses import dataclass, replace
from pathlib import Path


class Toolchain(str, enum.Enum):
    HOST_GXX = "g++"  # the host compiler: linux-x86_64 shared libraries (static libstdc++, glibc's libmvec)
    ZIG = "zig"  # ziglang from PyPI: every cross target (libc++)


class ArtifactKind(str, enum.Enum):
    SHARED = "shared"  # a library exporting the C ABI (ep_call_<name>)
    EXECUTABLE = "executable"  # NAME --inputs in.npz --out out.npz
    STATIC = "static"  # a static library + header (iOS)
    WASM = "wasm"  # a WASI reactor module exporting the C ABI (web, Node, wasmtime)
    WASI_EXE = "wasi-executable"  # a WASI command: the executable's interface under wasmtime


class BinaryFormat(str, enum.Enum):
    ELF = "elf"
    PE = "pe"
    MACHO = "mach-o"
    WASM = "wasm"


@dataclass(frozen=True)
class Target:
    name: str
    os: str  # linux, windows, darwin, android, ios, wasi, web
    arch: str  # x86_64, aarch64, wasm32
    toolchain: Toolchain
    triple: str  # zig's -target (or the g++ machine for the host)
    cpu_flags: tuple[str, ...]  # -march=... (g++) or -mcpu=... (zig)
    kinds: tuple[ArtifactKind, ...]
    fmt: BinaryFormat
    isa_level: str | None = None  # x86-64-v1..v4 for the linux-x86_64 levels
    threads: bool = True  # std::thread works (wasm32-wasi has none)
    exceptions: bool = True  # C++ exceptions (wasm: -fno-exceptions; errors trap into the error slot)
    simd: bool = True  # xsimd has an architecture for it
    sdk_env: str | None = None  # an environment variable naming the SDK/sysroot this target needs
    sdk_what: str = ""
    # shared libraries load into the platform's own processes: glibc on Linux (the static executables are musl)
    lib_triple: str | None = None
    # executables built by zig against static musl instead (static glibc alone is ~700 KB of an executable)
    exe_zig: tuple[str, tuple[str, ...]] | None = None  # (triple, cpu flags)

    def for_kind(self, kind: ArtifactKind) -> "Target":
        """The target as the toolchain sees it for one artifact kind (linux-x86_64 executables: zig + musl)."""
        if kind is ArtifactKind.EXECUTABLE and self.exe_zig is not None:
            return replace(self, toolchain=Toolchain.ZIG, triple=self.exe_zig[0], cpu_flags=self.exe_zig[1],
                           exe_zig=None)
        return self

    @property
    def lib_name(self) -> str:
        return {"windows": "{}.dll", "darwin": "lib{}.dylib", "ios": "lib{}.a", "wasi": "{}.wasm",
                "web": "{}.wasm"}.get(self.os, "lib{}.so")

    @property
    def exe_name(self) -> str:
        return {"windows": "{}.exe", "wasi": "{}-cli.wasm"}.get(self.os, "{}")

    @property
    def paths(self) -> frozenset[str]:
        """The implementation paths this target's builds keep. OpenBLAS and OpenCV are host-only
        (libstdc++-built, dynamically linked): a shipped artifact carries loops, simd and threads;
        the Apple paths need the macOS SDK's frameworks, which no registry here provides."""
        out = {"loops"}
        if self.simd:
            out.add("simd")
        if self.threads:
            out.add("threads")
        return frozenset(out)


_X86 = (("baseline", "x86-64", "x86-64-v1", "x86_64"), ("v2", "x86-64-v2", "x86-64-v2", "x86_64_v2"),
        ("v3", "x86-64-v3", "x86-64-v3", "x86_64_v3"), ("v4", "x86-64-v4", "x86-64-v4", "x86_64_v4"))
_NATIVE = (ArtifactKind.SHARED, ArtifactKind.EXECUTABLE)

TARGETS: dict[str, Target] = {t.name: t for t in (
    *(Target(f"linux-x86_64-{short}", "linux", "x86_64", Toolchain.HOST_GXX, "x86_64-linux-gnu",
             (f"-march={march}",), _NATIVE, BinaryFormat.ELF, isa_level=level,
             exe_zig=("x86_64-linux-musl", (f"-mcpu={mcpu}",))) for short, march, level, mcpu in _X86),
    Target("linux-arm64", "linux", "aarch64", Toolchain.ZIG, "aarch64-linux-musl", ("-mcpu=generic",), _NATIVE,
           BinaryFormat.ELF, isa_level="armv8", lib_triple="aarch64-linux-gnu.2.28"),
    Target("windows-x86_64", "windows", "x86_64", Toolchain.ZIG, "x86_64-windows-gnu", ("-mcpu=x86_64_v2",),
           _NATIVE, BinaryFormat.PE, isa_level="x86-64-v2"),
    Target("macos-arm64", "darwin", "aarch64", Toolchain.ZIG, "aarch64-macos", ("-mcpu=apple_m1",), _NATIVE,
           BinaryFormat.MACHO, isa_level="armv8.2"),
    Target("macos-x86_64", "darwin", "x86_64", Toolchain.ZIG, "x86_64-macos", ("-mcpu=x86_64_v2",), _NATIVE,
           BinaryFormat.MACHO, isa_level="x86-64-v2"),
    Target("wasm32-wasi", "wasi", "wasm32", Toolchain.ZIG, "wasm32-wasi", ("-mcpu=generic+simd128",),
           (ArtifactKind.WASM, ArtifactKind.WASI_EXE), BinaryFormat.WASM, threads=False, exceptions=False,
           simd=False),
    Target("web", "web", "wasm32", Toolchain.ZIG, "wasm32-wasi", ("-mcpu=generic+simd128",), (ArtifactKind.WASM,),
           BinaryFormat.WASM, threads=False, exceptions=False, simd=False),
    Target("android-arm64", "android", "aarch64", Toolchain.ZIG, "aarch64-linux-musl", ("-mcpu=generic",),
           (ArtifactKind.EXECUTABLE, ArtifactKind.SHARED), BinaryFormat.ELF, isa_level="armv8",
           sdk_env="ANDROID_NDK_SYSROOT", sdk_what="an Android NDK sysroot (for the JNI-loadable library)"),
    Target("ios-arm64", "ios", "aarch64", Toolchain.ZIG, "aarch64-ios", ("-mcpu=apple_a14",), (ArtifactKind.STATIC,),
           BinaryFormat.MACHO, isa_level="armv8.2", sdk_env="IOS_SDK_SYSROOT", sdk_what="an iOS SDK (iPhoneOS.sdk)"),
)}

# targets every bundle gets unless --targets says otherwise
DEFAULT_TARGETS = tuple(TARGETS)


def native_linux(arch: str, isa_level: str) -> tuple[Target, ...]:
    """The Linux targets a CPU of this arch and ISA level runs natively, lowest level first (the best last).
    A level the table does not list (armv8.2 on an arm64 table of armv8) runs every level of its arch."""
    group = [t for t in TARGETS.values() if t.os == "linux" and t.arch == arch]
    levels = [t.isa_level for t in group]
    return tuple(group[:levels.index(isa_level) + 1] if isa_level in levels else group)


def get(name: str) -> Target:
    try:
        return TARGETS[name]
    except KeyError:
        raise ValueError(f"unknown target '{name}' (known: {', '.join(TARGETS)})") from None


def parse_targets(spec: str | None) -> tuple[Target, ...]:
    """`--targets T,...`: names, or a prefix standing for its levels (linux-x86_64 = every ISA level)."""
    if not spec:
        return tuple(TARGETS.values())
    out: list[Target] = []
    for raw in spec.split(","):
        name = raw.strip()
        if not name:
            continue
        group = [t for t in TARGETS.values() if t.name == name or t.name.startswith(name + "-")]
        if not group:
            raise ValueError(f"unknown target '{name}' (known: {', '.join(TARGETS)}, or linux-x86_64 for every "
                             "ISA level)")
        out += [t for t in group if t not in out]
    return tuple(out)


@dataclass(frozen=True)
class TargetStatus:
    buildable: bool
    reason: str | None  # why not, when not
    sdk: Path | None = None  # the SDK/sysroot in use, when the target needs one


def sdk_path(target: Target, env: dict[str, str] | None = None) -> Path | None:
    e = os.environ if env is None else env
    if target.sdk_env and e.get(target.sdk_env):
        return Path(e[target.sdk_env])
    return None


def status(target: Target, env: dict[str, str] | None = None) -> TargetStatus:
    """Can this machine build `target`, and if not, exactly why."""
    if target.toolchain is Toolchain.HOST_GXX:
        if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
            return TargetStatus(False, f"built with the host g++ on Linux x86-64; this host is "
                                       f"{platform.system()} {platform.machine()}")
        return TargetStatus(True, None)
    from everypath.lowering.toolchain import zig_available

    ok, why = zig_available()
    if not ok:
        return TargetStatus(False, why)
    if target.sdk_env:
        sdk = sdk_path(target, env)
        if target.os == "android":  # the static executable needs no NDK; the JNI library does
            return TargetStatus(True, None, sdk)
        if sdk is None:
            return TargetStatus(False, f"needs {target.sdk_what}: set {target.sdk_env} to its path "
                                       "(no package registry reachable here provides one)")
        if not sdk.is_dir():
            return TargetStatus(False, f"{target.sdk_env}={sdk} is not a directory")
        return TargetStatus(True, None, sdk)
    return TargetStatus(True, None)


def kind_status(target: Target, kind: ArtifactKind, env: dict[str, str] | None = None) -> TargetStatus:
    """Per artifact kind: Android's JNI-loadable library needs the NDK sysroot, its executable does not."""
    st = status(target.for_kind(kind), env)
    if st.buildable and target.os == "android" and kind is ArtifactKind.SHARED and st.sdk is None:
        return TargetStatus(False, f"the JNI-loadable library needs {target.sdk_what}: set {target.sdk_env} "
                                   "(the static executable runs on Android's kernel without it)")
    return st

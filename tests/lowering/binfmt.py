"""What a built artifact is, read from its bytes by independent parsers: LIEF for ELF, PE and Mach-O
(the format, the machine, the exported symbols) and wasmtime for WebAssembly modules."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class BinaryInfo:
    fmt: str  # elf, pe, mach-o, wasm, archive
    arch: str  # x86_64, aarch64, wasm32
    kind: str  # shared, executable, object, module
    exports: frozenset[str]


def _lief_arch(binary: object) -> str:
    import lief

    if isinstance(binary, lief.ELF.Binary):
        m = binary.header.machine_type
        return {lief.ELF.ARCH.X86_64: "x86_64", lief.ELF.ARCH.AARCH64: "aarch64"}.get(m, str(m))
    if isinstance(binary, lief.PE.Binary):
        m = binary.header.machine
        return {lief.PE.Header.MACHINE_TYPES.AMD64: "x86_64", lief.PE.Header.MACHINE_TYPES.ARM64: "aarch64"}.get(
            m, str(m))
    if isinstance(binary, lief.MachO.Binary):
        c = binary.header.cpu_type
        return {lief.MachO.Header.CPU_TYPE.X86_64: "x86_64", lief.MachO.Header.CPU_TYPE.ARM64: "aarch64"}.get(
            c, str(c))
    return "unknown"


def describe(path: Path) -> BinaryInfo:
    data = Path(path).read_bytes()
    if data[:4] == b"\0asm":
        import wasmtime

        mod = wasmtime.Module(wasmtime.Engine(), data)
        return BinaryInfo("wasm", "wasm32", "module", frozenset(e.name for e in mod.exports))
    if data[:8] == b"!<arch>\n":
        return BinaryInfo("archive", "unknown", "static", frozenset())
    import lief

    b = lief.parse(str(path))
    if b is None:
        raise ValueError(f"{path}: not an ELF, PE, Mach-O or wasm file")
    if isinstance(b, lief.MachO.FatBinary):
        b = b.at(0)
    if isinstance(b, lief.ELF.Binary):
        fmt = "elf"
        # a PIE executable is ET_DYN too, but it has an interpreter (or is static with an entry and no exports)
        dyn = b.header.file_type == lief.ELF.Header.FILE_TYPE.DYN
        kind = "shared" if dyn and not b.has_interpreter and any(
            s.name.startswith("ep_") for s in b.exported_symbols) else "executable"
        names = {s.name for s in b.exported_symbols}
    elif isinstance(b, lief.PE.Binary):
        fmt = "pe"
        kind = "shared" if b.header.has_characteristic(lief.PE.Header.CHARACTERISTICS.DLL) else "executable"
        names = {e.name for e in b.get_export().entries} if b.has_exports else set()
    else:
        fmt = "mach-o"
        kind = "shared" if b.header.file_type == lief.MachO.Header.FILE_TYPE.DYLIB else "executable"
        names = {s.name.removeprefix("_") for s in b.exported_symbols}
    return BinaryInfo(fmt, _lief_arch(b), kind, frozenset(names))

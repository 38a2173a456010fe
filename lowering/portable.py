"""Portable builds: one compiled function as the artifacts of every target a bundle carries.

For each target the function is emitted with the paths that target keeps (lowering.targets), then built
once per artifact kind by the target's toolchain (lowering.toolchain): a shared library exporting the C
ABI with its C header, a standalone executable (`NAME --inputs in.npz --out out.npz`), a WASI reactor
module for the web, Node and wasmtime. Builds are cached by the content of everything that goes into
them, so tests and bundles share one build per target and kernel. A target or kind that cannot be built
here is returned as a Skipped with the reason: never faked, never silently dropped.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from everypath.base.settings import Settings
from everypath.lowering.build import compiler_version, headers_digest
from everypath.lowering.cache import COMPILER_VERSION, FORMAT_VERSION
from everypath.lowering.dispatch import PathPolicy
from everypath.lowering.pipeline import Generated, generate
from everypath.lowering.targets import ArtifactKind, Target, Toolchain, kind_status
from everypath.lowering import exceptions, toolchain

PORTABLE_FORMAT = 1  # bump when the artifacts' layout or glue changes


@dataclass(frozen=True)
class OperatorUse:
    """One operator call site in an artifact: the variants inside and those left out, with why."""

    op: str
    call_site: str
    variants: tuple[str, ...]
    left_out: tuple[tuple[str, str], ...]  # (path, reason)


@dataclass(frozen=True)
class Artifact:
    target: str
    kind: ArtifactKind
    path: Path
    isa_level: str | None
    os: str
    arch: str
    operators: tuple[OperatorUse, ...]
    extra_files: tuple[Path, ...] = ()  # beside the artifact: NAME.h, NAME.mjs, ...
    seconds: float = 0.0  # build time (0 when it came from the cache)
    cached: bool = False

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.path.read_bytes()).hexdigest()

    @property
    def size(self) -> int:
        return self.path.stat().st_size


@dataclass(frozen=True)
class Skipped:
    target: str
    kind: ArtifactKind
    reason: str


@dataclass
class PortableFunction:
    """Everything built for one function: artifacts, what was not buildable here, the signature."""

    name: str
    signature: dict[str, object]
    artifacts: list[Artifact] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)

    def artifact(self, target: str, kind: ArtifactKind) -> Artifact:
        for a in self.artifacts:
            if a.target == target and a.kind is kind:
                return a
        why = next((s.reason for s in self.skipped if s.target == target and s.kind is kind), None)
        raise LookupError(f"no {kind.value} artifact for {target}" + (f": {why}" if why else ""))


def _operators(gen: Generated, target: Target) -> tuple[OperatorUse, ...]:
    from everypath.variants.availability import available_on
    from everypath.variants.ops.elementwise import ELEMENTWISE_VARIANTS
    from everypath.variants.registry import TypingError, lookup_operator

    out = []
    for s in gen.sites:
        inside = tuple(v.path for v in s.variants)
        declared: tuple = ()
        if s.op.startswith("fused:"):
            declared = ELEMENTWISE_VARIANTS
        else:
            try:
                declared = lookup_operator(s.op).variants
            except (KeyError, TypingError):
                declared = s.variants
        left = []
        for v in declared:
            if v.path in inside:
                continue
            ok, why = available_on(v, target)
            left.append((v.path, why or "declined by the operator's lowering for this call"))
        out.append(OperatorUse(s.op, s.call_site, inside, tuple(left)))
    return tuple(out)


def _toolchain_id(target: Target, kind: ArtifactKind) -> str:
    if target.for_kind(kind).toolchain is Toolchain.HOST_GXX:
        return compiler_version("g++")
    import importlib.metadata as md

    return "zig " + md.version("ziglang")


def _key(target: Target, kind: ArtifactKind, texts: list[str], opt: str) -> str:
    flags = toolchain.compiler(target, kind)[-1:] + toolchain.compile_flags(target, kind, opt) + \
        toolchain.link_flags(target, kind)
    h = hashlib.sha256()
    for part in (f"portable {PORTABLE_FORMAT} format {FORMAT_VERSION} compiler {COMPILER_VERSION}", target.name,
                 kind.value, " ".join(f for f in flags if not f.startswith(("-I", "-isystem"))), _toolchain_id(target, kind),
                 headers_digest(), *texts):
        h.update(part.encode())
        h.update(b"\x00")
    return h.hexdigest()


def _glue(gen: Generated, target: Target, kind: ArtifactKind, unit_name: str, table: str | None) -> list[str]:
    """Sources beside the unit for one artifact kind (the executable's main, the wasm exports)."""
    if kind in (ArtifactKind.EXECUTABLE, ArtifactKind.WASI_EXE):
        from everypath.lowering import standalone

        return [standalone.main_source(gen, unit_name, table, target)]
    if kind is ArtifactKind.WASM:
        from everypath.lowering import web

        return [web.wasm_exports_source(gen, unit_name, table)]
    return []


def _extras(gen: Generated, target: Target, kind: ArtifactKind, out_dir: Path) -> tuple[Path, ...]:
    from everypath.lowering import cheader

    files = []
    if kind in (ArtifactKind.SHARED, ArtifactKind.STATIC, ArtifactKind.WASM):
        files.append(_write_atomically(out_dir / f"{gen.name}.h", cheader.c_header(gen, target)))
    if kind is ArtifactKind.WASM and target.os == "web":
        from everypath.lowering import web

        files.append(_write_atomically(out_dir / f"{gen.name}.mjs", web.es_module(gen)))
    return tuple(files)


def _write_atomically(path: Path, text: str) -> Path:
    """Temp name + rename: the cache folder is shared by concurrent builds (test workers), and a reader
    must never see a half-written header."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)
    return path


def _file_name(gen: Generated, target: Target, kind: ArtifactKind) -> str:
    if kind in (ArtifactKind.EXECUTABLE, ArtifactKind.WASI_EXE):
        return target.exe_name.format(gen.name)
    return target.lib_name.format(gen.name)


# what the C header, npz, JNI and wasm glue cannot carry yet (they know numbers, arrays, tuples and lists of them):
# signature kinds and dtypes that cross only the Python runtime's ABI, and how a user would name them
PYTHON_ONLY_KINDS = {"str": "str", "dict": "dict", "set": "set", "generator": "generators", "union": "union values",
                     "record": "dataclasses and NamedTuples", "enum": "Enum and Literal values"}
PYTHON_ONLY_DTYPES = {"float16": "float16 arrays and scalars"}


def python_only(d: Any) -> list[str]:
    """What in a signature descriptor crosses only the Python runtime's ABI (empty: everything is portable)."""
    found: list[str] = []
    if isinstance(d, dict):
        if d.get("kind") in PYTHON_ONLY_KINDS:
            found.append(PYTHON_ONLY_KINDS[d["kind"]])
        if d.get("dtype") in PYTHON_ONLY_DTYPES:
            found.append(PYTHON_ONLY_DTYPES[d["dtype"]])
        for v in d.values():
            found += python_only(v)
    elif isinstance(d, list):
        for v in d:
            found += python_only(v)
    return list(dict.fromkeys(found))


def build_target(gen: Generated, target: Target, settings: Settings, table: str | None = None,
                 kinds: tuple[ArtifactKind, ...] | None = None, opt: str = "-O2",
                 ) -> tuple[list[Artifact], list[Skipped]]:
    """Every artifact kind of one target for an emitted function (cached by content)."""
    arts: list[Artifact] = []
    skipped: list[Skipped] = []
    only = python_only(gen.signature)
    if only:  # a clear skip with the reason, never a KeyError deep in the glue
        why = (f"{gen.name}: {', '.join(only)} in its parameters or results cross only the Python runtime's ABI "
               "so far (the C header, npz, JNI and wasm glue carry numbers, arrays, tuples and lists of them)")
        return [], [Skipped(target.name, kind, why) for kind in kinds or target.kinds]
    ops = _operators(gen, target)
    for kind in kinds or target.kinds:
        if kind not in target.kinds:
            skipped.append(Skipped(target.name, kind, f"{target.name} has no {kind.value} artifact"))
            continue
        no_try = None if target.exceptions else exceptions.portable_refusal(gen.source)
        if no_try is not None:  # wasm builds without C++ exceptions: lowering/exceptions.py
            skipped.append(Skipped(target.name, kind, no_try))
            continue
        st = kind_status(target, kind)
        if not st.buildable:
            skipped.append(Skipped(target.name, kind, st.reason or "not buildable here"))
            continue
        unit_name = "unit.cpp"
        glue = _glue(gen, target, kind, unit_name, table)
        key = _key(target, kind, [gen.source, *glue], opt)
        out_dir = settings.cache_dir / "targets" / key[:2] / key
        out = out_dir / _file_name(gen, target, kind)
        extras = _extras(gen, target, kind, out_dir) if out.exists() else ()
        if out.exists():
            arts.append(Artifact(target.name, kind, out, target.isa_level, target.os, target.arch, ops, extras,
                                 0.0, True))
            continue
        # a work folder of this build's own: concurrent builds of the same key (test workers) must not
        # remove each other's files; the artifact itself lands by rename (the last one wins, same bytes)
        out_dir.parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=out_dir.name + ".work.", dir=out_dir.parent))
        (work / unit_name).write_text(gen.source)
        sources = [work / unit_name]
        if glue:
            sources = []
            for i, text in enumerate(glue):
                p = work / f"glue{i}.cpp"
                p.write_text(text)
                sources.append(p)
        built = toolchain.build(sources, work / out.name, target, kind, opt)
        out_dir.mkdir(parents=True, exist_ok=True)
        extras = _extras(gen, target, kind, out_dir)
        (work / out.name).replace(out)
        shutil.rmtree(work, ignore_errors=True)
        arts.append(Artifact(target.name, kind, out, target.isa_level, target.os, target.arch, ops, extras,
                             built.seconds, False))
    return arts, skipped


def build_function(pyfunc: types.FunctionType, targets: tuple[Target, ...], settings: Settings,
                   table: str | None = None, on_target: Callable[[str], None] | None = None,
                   kinds: tuple[ArtifactKind, ...] | None = None) -> PortableFunction:
    """Emit and build pyfunc for each target (emission shared between targets that keep the same paths)."""
    emitted: dict[tuple[frozenset[str], str, str], Generated] = {}
    result: PortableFunction | None = None
    for t in targets:
        if on_target is not None:
            on_target(t.name)
        k = (t.paths, t.os, t.arch)
        if k not in emitted:
            emitted[k] = generate(pyfunc, settings, policy=PathPolicy.for_target(t, settings))
        gen = emitted[k]
        if result is None:
            result = PortableFunction(gen.name, gen.signature)
        want = tuple(x for x in kinds if x in t.kinds) if kinds else None
        if kinds and not want:
            continue
        arts, skipped = build_target(gen, t, settings, table, want)
        result.artifacts += arts
        result.skipped += skipped
    if result is None:
        raise ValueError("no targets to build")
    return result

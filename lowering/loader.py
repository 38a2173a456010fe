"""Picking a bundle's artifact for this device, and `everypath.load`: a bundle's shared library
called from Python like the original function.

The device is the OS and arch Python reports and, on x86-64, the best psABI level this CPU has
(telemetry/device.py): an artifact for a level above the CPU's is never chosen (its first AVX-512
instruction would be SIGILL). A loaded library is first extracted to a content-addressed folder
(Settings.cache_dir/bundles/<sha256>/) and checked against the manifest's sha256 (and the manifest
against its signature when a key is given) *before* dlopen runs any of its code.
"""
from __future__ import annotations

import hashlib
import inspect
import os
import platform
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from everypath.base.settings import Settings
from everypath.lowering.bundle import Bundle, BundleError, open_bundle
from everypath.lowering.targets import ArtifactKind

# ISA levels per arch, lowest first: an artifact runs on a CPU whose level is at least its own
LEVELS: dict[str, tuple[str, ...]] = {"x86_64": ("x86-64-v1", "x86-64-v2", "x86-64-v3", "x86-64-v4"),
                                      "aarch64": ("armv8", "armv8.2", "armv9")}


class NoArtifactError(BundleError):
    """The bundle has no artifact of the wanted kind that this device can run."""


@dataclass(frozen=True)
class Host:
    os: str  # linux, darwin, windows, android, ...
    arch: str  # x86_64, aarch64
    isa_level: str

    def describe(self) -> str:
        return f"{self.os} {self.arch} ({self.isa_level})"


def host() -> Host:
    """This device (tests monkeypatch it to play a smaller CPU)."""
    from everypath.base.isa import cpu_flags, isa_level, machine_arch

    arch = machine_arch()
    return Host(platform.system().lower(), arch, isa_level(arch, cpu_flags()))


def level_rank(arch: str, level: str | None) -> int:
    """Position of an ISA level among its arch's (0 when the artifact names none or one unknown here)."""
    levels = LEVELS.get(arch, ())
    return levels.index(level) if level in levels else 0


def cpu_has(h: Host, art: dict[str, Any]) -> bool:
    return level_rank(h.arch, h.isa_level) >= level_rank(art["arch"], art.get("isa_level"))


def _listing(b: Bundle, kinds: tuple[ArtifactKind, ...]) -> str:
    have = [f"{a['target']} ({a['kind']})" for a in b.artifacts if a["kind"] in {k.value for k in kinds}]
    return ", ".join(have) if have else "none"


def choose(b: Bundle, kinds: tuple[ArtifactKind, ...], h: Host | None = None, target: str | None = None,
           ) -> dict[str, Any]:
    """The artifact of one of `kinds` for this device: the highest ISA level the CPU has. With target,
    that target's artifact, refused when it is built for a higher ISA level than this CPU's."""
    h = h or host()
    want = {k.value for k in kinds}
    names = " or ".join(k.value for k in kinds)
    cands = [a for a in b.artifacts if a["kind"] in want]
    if target is not None:
        forced = [a for a in cands if a["target"] == target]
        if not forced:
            why = [n["reason"] for n in b.manifest.get("not_built", []) if n["target"] == target and n["kind"] in want]
            raise NoArtifactError(f"{b.path} has no {names} artifact for {target}"
                                  + (f" (not built: {why[0]})" if why else "")
                                  + f"; it has: {_listing(b, kinds)}")
        a = forced[0]
        if a["arch"] == h.arch and not cpu_has(h, a):
            raise NoArtifactError(f"{target} is built for {a['isa_level']}, above this CPU's {h.isa_level}: it "
                                  f"would stop on an illegal instruction; choose a level up to {h.isa_level}")
        return a
    native = [a for a in cands if a["os"] == h.os and a["arch"] == h.arch]
    fits = [a for a in native if cpu_has(h, a)]
    if fits:
        return max(fits, key=lambda a: level_rank(a["arch"], a.get("isa_level")))
    hint = ""
    if native:
        hint = f" (its {h.os} {h.arch} ones need a higher ISA level than this CPU's {h.isa_level})"
    raise NoArtifactError(f"{b.path} has no {names} artifact for this device, {h.describe()}{hint}; it has: "
                          f"{_listing(b, kinds)}")


def _file_sha256(p: Path) -> str:
    h = hashlib.sha256()
    with open(p, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def extract(b: Bundle, entry: str, sha256: str, settings: Settings, mode: int = 0o644) -> Path:
    """An entry in Settings.cache_dir/bundles/<sha256>/, checked against the manifest before it is used.
    The bundle's entry is always read and checked (a tampered bundle is refused even when the cache
    holds a good copy), and so is a copy already there: anyone with the user's rights can edit it."""
    data = b.read(entry)  # BundleError naming the entry when its hash is not the manifest's
    dest = settings.cache_dir / "bundles" / sha256 / Path(entry).name
    if dest.is_file() and _file_sha256(dest) == sha256:
        return dest  # never rewritten in place: a process may have it mapped
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=dest.name + ".", suffix=".tmp", dir=dest.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, dest)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return dest


def runtime_signature(manifest: dict[str, Any]) -> dict[str, Any]:
    """The descriptor the runtime binds with; defaults come back from JSON (tuples were lists)."""
    sig = dict(manifest["function"]["signature"])
    params = []
    for p in sig["params"]:
        p = {k: v for k, v in p.items() if k != "has_default"}
        if p.get("type", {}).get("kind") == "tuple" and isinstance(p.get("default"), list):
            p["default"] = tuple(p["default"])
        params.append(p)
    sig["params"] = params
    return sig


def _python_signature(sig: dict[str, Any]) -> inspect.Signature:
    P = inspect.Parameter
    return inspect.Signature([P(p["name"], P.POSITIONAL_OR_KEYWORD, **({"default": p["default"]} if "default" in p
                                                                       else {})) for p in sig["params"]])


class LoadedFunction:
    """A bundle's function bound through the runtime module: call it like the original."""

    def __init__(self, fn: Any, b: Bundle, artifact: dict[str, Any], path: Path, sig: dict[str, Any]) -> None:
        self._fn = fn
        self.bundle = b.path
        self.manifest = b.manifest
        self.artifact = artifact
        self.path = path
        f = b.manifest["function"]
        self.__name__ = f["name"]
        self.__qualname__ = f["qualname"]
        self.__module__ = f.get("module") or "everypath_bundle"
        self.__signature__ = _python_signature(sig)

    @property
    def target(self) -> str:
        return str(self.artifact["target"])

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<everypath bundle function {self.__qualname__} ({self.target}, {self.bundle})>"


def _table(b: Bundle, settings: Settings) -> Path | None:
    rec = b.manifest.get("selection_table")
    return extract(b, rec["path"], rec["sha256"], settings) if rec else None  # tampered: the bundle is refused


def load(path: str | os.PathLike, key: Any = None, settings: Settings | None = None,
         start: Callable[[Settings, Path | None], None] | None = None) -> LoadedFunction:
    """The shared library of a bundle for this device, verified and bound (see the module's doc).

    `start(settings, table)` runs once everything is verified and before the library is loaded: the
    public everypath.load starts telemetry there and puts the bundle's selection table in force (a later
    stage's work, injected so this layer does not import it)."""
    settings = settings or Settings.from_env()
    b = open_bundle(path, key)  # the signature first, when a key is given
    art = choose(b, (ArtifactKind.SHARED,))
    so = extract(b, art["path"], art["sha256"], settings, 0o755)
    table = _table(b, settings)  # every entry it uses is checked before any of its code runs
    sig = runtime_signature(b.manifest)
    settings.apply_openmp_defaults()
    if start is not None:
        start(settings, table)
    from everypath.lowering.torch_boundary import wrap
    from everypath.lowering import _runtime

    lib = _runtime.Library(str(so))
    fn = wrap(lib.bind(str(b.manifest["function"]["symbol"]), sig), sig)
    return LoadedFunction(fn, b, art, so, sig)

"""Bundles: one compiled function for every target in one reproducible, optionally signed zip.

Layout of NAME.everypath::

    manifest.json                 what is inside (below), JSON with sorted keys
    manifest.sig                  optional: ed25519 signature (64 raw bytes) over manifest.json's exact bytes
    artifacts/<target>/<file>     the artifacts and their extra files (NAME.h, NAME.mjs)
    selection_table.json          optional: the selection table in force when the bundle was made

The manifest pins every other entry by sha256, so the signature covers the whole bundle. The same
inputs give a byte-identical bundle: entries sorted, fixed time stamps and permissions, no build paths
or build times in the manifest (the artifacts themselves are byte-reproducible per toolchain: see
lowering/toolchain.py's -s/-g0 for zig). Readers check each entry's hash as they read it and refuse a
bundle whose entry, manifest, signature or version is not what it should be (BundleError naming it).
"""
from __future__ import annotations

import ast
import hashlib
import inspect
import json
import os
import tempfile
import textwrap
import types
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from everypath.lowering.targets import ArtifactKind

MAGIC = "everypath-bundle"
BUNDLE_FORMAT = 1  # the manifest version: bump when a reader of the old one would misread the new
MANIFEST = "manifest.json"
SIGNATURE = "manifest.sig"
TABLE = "selection_table.json"
_EPOCH = (1980, 1, 1, 0, 0, 0)  # the zip format's earliest time stamp: every entry gets it


class BundleError(ValueError):
    """A bundle that cannot be made, read or trusted (the message names the file, entry or key)."""


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# ---- writing ----------------------------------------------------------------------------------------

def annotations_as_written(pyfunc: types.FunctionType) -> dict[str, str]:
    """Each parameter's annotation and the return annotation as the source spells them."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(pyfunc)))
    except (OSError, TypeError, SyntaxError):
        return {}
    fdef = next((n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
    if fdef is None:
        return {}
    a = fdef.args
    out = {p.arg: ast.unparse(p.annotation) for p in (*a.posonlyargs, *a.args, *a.kwonlyargs) if p.annotation}
    if fdef.returns is not None:
        out["return"] = ast.unparse(fdef.returns)
    return out


def compiler_info() -> dict[str, Any]:
    from everypath.base import __version__
    from everypath.lowering.cache import COMPILER_VERSION, FORMAT_VERSION
    from everypath.lowering.portable import PORTABLE_FORMAT

    return {"everypath": __version__, "compiler": COMPILER_VERSION, "format": FORMAT_VERSION,
            "portable": PORTABLE_FORMAT}


def function_info(pyfunc: types.FunctionType, name: str, signature: dict[str, Any]) -> dict[str, Any]:
    module = pyfunc.__module__ or ""
    # `everypath bundle FILE.py:FUNC` imports FILE.py as everypath_user.FILE (tracer/modules.py)
    module = module.removeprefix("everypath_user.")
    src = inspect.getsourcefile(pyfunc)
    return {"name": name, "module": module, "qualname": pyfunc.__qualname__,
            "file": Path(src).name if src else None,  # the name only: no build paths in the manifest
            "symbol": f"ep_call_{name}", "signature": signature, "annotations": annotations_as_written(pyfunc)}


def read_table(path: Path) -> tuple[bytes, str]:
    """A selection table file's bytes and version (base/selection_table.py format), checked enough to ship."""
    from everypath.base.selection_table import FORMAT

    try:
        data = Path(path).read_bytes()
        doc = json.loads(data)
    except OSError as exc:
        raise BundleError(f"cannot read the selection table {path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise BundleError(f"selection table {path} is not JSON ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise BundleError(f"selection table {path}: 'format' must be {FORMAT} (base/selection_table.py)")
    version = doc.get("version")
    if not isinstance(version, str) or not version:
        raise BundleError(f"selection table {path}: 'version' must be a non-empty string")
    return data, version


def table_in_force(table: Path | None, settings: Any) -> Path | None:
    """--table, else the table the shim would put in force (Settings.selection_table, else the one
    `everypath selector retrain` promoted into the registry), else none."""
    if table is not None:
        return Path(table)
    from everypath.base.selection_table import table_in_force as configured

    return configured(settings.selection_table, settings.registry)


def _operators(ops: tuple[Any, ...]) -> list[dict[str, Any]]:
    return [{"op": o.op, "call_site": o.call_site, "variants": list(o.variants),
             "left_out": [{"path": p, "reason": r} for p, r in o.left_out]} for o in ops]


def build_manifest(pyfunc: types.FunctionType, pf: Any, table: Path | None = None,
                   ) -> tuple[dict[str, Any], dict[str, bytes]]:
    """The manifest of a PortableFunction (lowering.portable) and the zip entries it describes."""
    from everypath.lowering.portable import _toolchain_id
    from everypath.lowering.targets import get

    entries: dict[str, bytes] = {}

    def put(name: str, data: bytes) -> dict[str, Any]:
        if name in entries and entries[name] != data:
            raise BundleError(f"two different files would both be {name} in the bundle")
        entries[name] = data
        return {"path": name, "sha256": _sha256(data), "size": len(data)}

    artifacts = []
    for a in sorted(pf.artifacts, key=lambda a: (a.target, a.kind.value)):
        rec = put(f"artifacts/{a.target}/{a.path.name}", a.path.read_bytes())
        files = [put(f"artifacts/{a.target}/{f.name}", f.read_bytes()) for f in sorted(a.extra_files)]
        artifacts.append({"target": a.target, "kind": a.kind.value, "os": a.os, "arch": a.arch,
                          "isa_level": a.isa_level, **rec, "toolchain": _toolchain_id(get(a.target), a.kind),
                          "operators": _operators(a.operators), "files": files})
    table_rec = None
    if table is not None:
        data, version = read_table(table)
        table_rec = {**put(TABLE, data), "version": version}
    manifest = {
        "format": MAGIC, "version": BUNDLE_FORMAT,
        "function": function_info(pyfunc, pf.name, pf.signature),
        "compiler": compiler_info(),
        "artifacts": artifacts,
        "not_built": [{"target": s.target, "kind": s.kind.value, "reason": s.reason}
                      for s in sorted(pf.skipped, key=lambda s: (s.target, s.kind.value))],
        "selection_table": table_rec,
    }
    return manifest, entries


def manifest_bytes(manifest: dict[str, Any]) -> bytes:
    return (json.dumps(manifest, sort_keys=True, indent=1, ensure_ascii=False) + "\n").encode()


def write_zip(path: Path, entries: dict[str, bytes], executables: set[str]) -> None:
    """Sorted entries, fixed time stamps and modes, one compression level: byte-identical per input."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        with zipfile.ZipFile(tmp, "w") as zf:
            for name in sorted(entries):
                info = zipfile.ZipInfo(name, date_time=_EPOCH)
                info.create_system = 3  # unix, so external_attr's mode bits mean what they say
                info.external_attr = (0o100755 if name in executables else 0o100644) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                zf.writestr(info, entries[name], compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_bundle(pyfunc: types.FunctionType, pf: Any, out: Path, table: Path | None = None,
                 signing_key: Any = None) -> dict[str, Any]:
    """Write NAME.everypath; signing_key: an Ed25519PrivateKey (lowering.bundle_sign) or None."""
    manifest, entries = build_manifest(pyfunc, pf, table)
    data = manifest_bytes(manifest)
    entries[MANIFEST] = data
    if signing_key is not None:
        from everypath.lowering.bundle_sign import sign

        entries[SIGNATURE] = sign(data, signing_key)
    exes = {a["path"] for a in manifest["artifacts"]
            if a["kind"] in (ArtifactKind.EXECUTABLE.value, ArtifactKind.WASI_EXE.value)}
    write_zip(out, entries, exes)
    return manifest


# ---- reading ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Bundle:
    path: Path
    manifest: dict[str, Any]
    manifest_bytes: bytes
    signature: bytes | None
    names: tuple[str, ...]  # every entry in the zip

    @property
    def artifacts(self) -> list[dict[str, Any]]:
        return list(self.manifest["artifacts"])

    @property
    def signed(self) -> bool:
        return self.signature is not None

    def pinned(self) -> dict[str, str]:
        """Every entry the manifest pins, with its sha256."""
        out = {a["path"]: a["sha256"] for a in self.artifacts}
        for a in self.artifacts:
            out.update({f["path"]: f["sha256"] for f in a.get("files", [])})
        if self.manifest.get("selection_table"):
            out[self.manifest["selection_table"]["path"]] = self.manifest["selection_table"]["sha256"]
        return out

    def read(self, name: str) -> bytes:
        """An entry's bytes, checked against the manifest's sha256 (BundleError naming the entry)."""
        want = self.pinned().get(name)
        if want is None:
            raise BundleError(f"{self.path}: entry {name} is not listed in the manifest")
        try:
            with zipfile.ZipFile(self.path) as zf:
                data = zf.read(name)
        except KeyError:
            raise BundleError(f"{self.path}: entry {name} is missing (the manifest lists it)") from None
        except (zipfile.BadZipFile, OSError, EOFError) as exc:
            raise BundleError(f"{self.path}: entry {name} is corrupt ({exc})") from None
        got = _sha256(data)
        if got != want:
            raise BundleError(f"{self.path}: entry {name} was tampered with: its sha256 is {got}, the manifest "
                              f"says {want}")
        return data

    def verify_signature(self, key: Any) -> None:
        """Refuse unless manifest.sig is a valid signature by `key` (a public key source: bundle_sign)."""
        from everypath.lowering.bundle_sign import load_public_key, public_hex, verify

        pub = load_public_key(key)
        if self.signature is None:
            raise BundleError(f"{self.path} is not signed ({SIGNATURE} missing) and a key was given: refusing it")
        if not verify(self.manifest_bytes, self.signature, pub):
            raise BundleError(f"{self.path}: the signature does not verify with key {public_hex(pub)[:16]}...: "
                              "the manifest was tampered with or signed by another key")

    def problems(self) -> list[str]:
        """Every entry that is missing, corrupt, tampered with or unlisted (empty: all good)."""
        out = []
        for name in sorted(self.pinned()):
            try:
                self.read(name)
            except BundleError as exc:
                out.append(str(exc))
        extra = set(self.names) - set(self.pinned()) - {MANIFEST, SIGNATURE}
        out += [f"{self.path}: entry {n} is not listed in the manifest" for n in sorted(extra)]
        return out


def _check_manifest(path: Path, m: Any) -> None:
    if not isinstance(m, dict) or m.get("format") != MAGIC:
        raise BundleError(f"{path} is not an everypath bundle ({MANIFEST} is not a bundle manifest)")
    if m.get("version") != BUNDLE_FORMAT:
        raise BundleError(f"{path}: unknown manifest version {m.get('version')!r} (this everypath reads version "
                          f"{BUNDLE_FORMAT}; a newer everypath made it)")
    arts = m.get("artifacts")
    if not isinstance(arts, list) or not isinstance(m.get("function"), dict):
        raise BundleError(f"{path}: {MANIFEST} has no 'artifacts' list or no 'function'")
    for a in arts:
        p = a.get("path") if isinstance(a, dict) else None
        if not isinstance(p, str) or not p.startswith("artifacts/") or ".." in p.split("/"):
            raise BundleError(f"{path}: {MANIFEST} has an artifact with a bad path {p!r}")


def open_bundle(path: str | os.PathLike, key: Any = None) -> Bundle:
    """Read a bundle's manifest (and check its signature when a key is given); entries are checked as read."""
    p = Path(path)
    try:
        with zipfile.ZipFile(p) as zf:
            names = tuple(zf.namelist())
            if MANIFEST not in names:
                raise BundleError(f"{p} is not an everypath bundle: the zip has no {MANIFEST}")
            dup = sorted({n for n in names if names.count(n) > 1})
            if dup:
                raise BundleError(f"{p}: entry {dup[0]} appears twice in the zip (tampered with)")
            data = zf.read(MANIFEST)
            sig = zf.read(SIGNATURE) if SIGNATURE in names else None
    except FileNotFoundError:
        raise BundleError(f"no such bundle: {p}") from None
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise BundleError(f"{p} is not an everypath bundle (not a readable zip: {exc})") from None
    if key is not None:  # before reading anything the manifest says
        Bundle(p, {}, data, sig, names).verify_signature(key)
    try:
        manifest = json.loads(data)
    except ValueError as exc:
        raise BundleError(f"{p} is not an everypath bundle ({MANIFEST} is not JSON: {exc})") from None
    _check_manifest(p, manifest)
    return Bundle(p, manifest, data, sig, names)

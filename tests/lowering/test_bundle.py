"""`everypath bundle`, `inspect` and `run` on a function written the way a user writes one (arrays and
scalars, a default, a tuple result, a raise), bundled once per module for a few targets (builds are cached
by content, so the second bundle of the same inputs costs no compile). Results are compared with the
same Python function run by CPython; every refusal is checked to name what failed."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from everypath.cli import main

USER_SOURCE = '''\
import numpy as np

import everypath

Vec = np.ndarray[tuple[int], np.dtype[np.float64]]


@everypath.compile
def scale_stats(x: Vec, k: float, n: int = 3) -> tuple[Vec, float]:
    """Scaled and shifted values and their sum."""
    if n < 0:
        raise ValueError("n must be non-negative")
    y = x * k + n
    return y, float(np.sum(y))
'''

# two x86-64 levels (the loader must pick the best the CPU has), arm64 (qemu), wasm (when it builds),
# and ios-arm64, which is never built here without an iOS SDK: it must be listed as not built, with why
X86 = ("linux-x86_64-v2", "linux-x86_64-v3")
TARGETS = (*X86, "linux-arm64", "wasm32-wasi", "ios-arm64")
QEMU = shutil.which("qemu-aarch64-static")


def cli(*args: str, env: dict[str, str] | None = None) -> Any:
    result = CliRunner().invoke(main, list(args), env={"EVERYPATH_TELEMETRY": "0", **(env or {})},
                                                catch_exceptions=False)
    return result


def user_module(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / "bundle_user.py"
    p.write_text(USER_SOURCE)
    return p


def reference() -> Any:
    """The user's function run by CPython (an independent import of the same source)."""
    ns: dict[str, Any] = {"__name__": "bundle_user_reference"}
    exec(compile(USER_SOURCE, "bundle_user.py", "exec"), ns)
    return ns["scale_stats"].py_function


class Bundled:
    """One bundle per test module: its path, the user's file, which targets it holds."""

    def __init__(self, root: Path, targets: tuple[str, ...] = TARGETS, *extra: str) -> None:
        self.src = user_module(root / "src")
        self.path = root / "scale_stats.everypath"
        r = cli("bundle", f"{self.src}:scale_stats", "-o", str(self.path), "--targets", ",".join(targets), *extra)
        self.wasm_error = None
        if r.exit_code != 0 and "wasm32-wasi" in targets and "wasm32-wasi" in (r.stderr or ""):
            # wasm builds of code that raises need the no-exceptions headers: bundle the rest, say why
            self.wasm_error = next((ln for ln in r.stderr.splitlines() if "wasm32-wasi (" in ln), r.stderr[-300:])
            targets = tuple(t for t in targets if t != "wasm32-wasi")
            r = cli("bundle", f"{self.src}:scale_stats", "-o", str(self.path), "--targets", ",".join(targets),
                    *extra)
        assert r.exit_code == 0, r.stderr or r.output
        self.targets = targets
        self.output = r.output

    def manifest(self) -> dict[str, Any]:
        with zipfile.ZipFile(self.path) as zf:
            return json.loads(zf.read("manifest.json"))


@pytest.fixture(scope="module")
def bundled(tmp_path_factory: pytest.TempPathFactory) -> Bundled:
    return Bundled(tmp_path_factory.mktemp("bundle"))


def rewrite(src: Path, dst: Path, change: dict[str, bytes | None]) -> None:
    """A copy of a zip with some entries replaced (None: removed), CRCs recomputed: a careful tamperer."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            if info.filename in change:
                if change[info.filename] is not None:
                    zout.writestr(info, change.pop(info.filename))
                continue
            zout.writestr(info, zin.read(info.filename))
        for name, data in change.items():
            if data is not None:
                zout.writestr(name, data)


def first_artifact(m: dict[str, Any], target: str, kind: str = "shared") -> dict[str, Any]:
    return next(a for a in m["artifacts"] if a["target"] == target and a["kind"] == kind)


# ---- bundle + inspect ---------------------------------------------------------------------------------

def test_inspect_json_lists_every_artifact_with_hashes_that_match_the_zip(bundled: Bundled) -> None:
    r = cli("inspect", str(bundled.path), "--json")
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["ok"] and doc["problems"] == [] and doc["signature"] == {"present": False, "verified": None}
    got = {(a["target"], a["kind"]) for a in doc["artifacts"]}
    built = [t for t in bundled.targets if t != "ios-arm64"]
    want = {(t, k) for t in built for k in (("wasm", "wasi-executable") if t.startswith("wasm") else
                                            ("shared", "executable"))}
    assert got == want
    with zipfile.ZipFile(bundled.path) as zf:  # an independent reading of the zip
        for a in doc["artifacts"]:
            data = zf.read(a["path"])
            assert a["path"] == f"artifacts/{a['target']}/{Path(a['path']).name}"
            assert (a["sha256"], a["size"]) == (hashlib.sha256(data).hexdigest(), len(data)) and a["verified"]
            for f in a["files"]:
                assert hashlib.sha256(zf.read(f["path"])).hexdigest() == f["sha256"]
        names = zf.namelist()
    assert names == sorted(names)
    x3 = first_artifact(doc["manifest"], "linux-x86_64-v3")
    assert (x3["os"], x3["arch"], x3["isa_level"]) == ("linux", "x86_64", "x86-64-v3")
    assert [f["path"] for f in x3["files"]] == ["artifacts/linux-x86_64-v3/scale_stats.h"]
    ops = {o["op"]: o for o in x3["operators"]}
    assert "numpy.sum" in ops and "loops" in ops["numpy.sum"]["variants"]
    assert all(lo["reason"] for o in x3["operators"] for lo in o["left_out"])
    nb = {(n["target"], n["kind"]): n["reason"] for n in doc["not_built"]}
    if not os.environ.get("IOS_SDK_SYSROOT"):
        assert "IOS_SDK_SYSROOT" in nb[("ios-arm64", "static")]


def test_manifest_records_the_function_and_compiler_and_no_build_paths(bundled: Bundled) -> None:
    import everypath
    from everypath.lowering.cache import COMPILER_VERSION, FORMAT_VERSION

    m = bundled.manifest()
    assert (m["format"], m["version"]) == ("everypath-bundle", 1)
    f = m["function"]
    assert (f["name"], f["module"], f["qualname"], f["file"], f["symbol"]) == (
        "scale_stats", "bundle_user", "scale_stats", "bundle_user.py", "ep_call_scale_stats")
    assert f["annotations"] == {"x": "Vec", "k": "float", "n": "int", "return": "tuple[Vec, float]"}
    assert [p["name"] for p in f["signature"]["params"]] == ["x", "k", "n"]
    assert f["signature"]["params"][2]["default"] == 3
    assert f["signature"]["result"]["kind"] == "tuple"
    assert m["compiler"] == {"everypath": everypath.__version__, "compiler": COMPILER_VERSION,
                             "format": FORMAT_VERSION, "portable": m["compiler"]["portable"]}
    assert m["selection_table"] is None  # the test registry promotes none
    text = json.dumps(m)
    assert str(bundled.path.parent) not in text and "/tmp" not in text and str(Path.home()) not in text


def test_inspect_table_names_targets_and_says_the_hashes_are_good(bundled: Bundled) -> None:
    r = cli("inspect", str(bundled.path))
    assert r.exit_code == 0, r.stderr
    for t in bundled.targets:
        assert t in r.output
    assert "scale_stats" in r.output and "numpy.sum" in r.output and "BAD" not in r.output
    assert "signature: none" in r.output


def test_the_same_inputs_give_a_byte_identical_bundle(bundled: Bundled, tmp_path: Path) -> None:
    # another folder and file for the user's module: no build path may reach the bundle
    src = user_module(tmp_path / "elsewhere")
    again = tmp_path / "again.everypath"
    r = cli("bundle", f"{src}:scale_stats", "-o", str(again), "--targets", ",".join(bundled.targets))
    assert r.exit_code == 0, r.stderr
    assert again.read_bytes() == bundled.path.read_bytes()


@pytest.mark.slow
def test_artifacts_are_byte_identical_when_built_afresh_elsewhere(bundled: Bundled, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Not the content-addressed cache: an empty one in another folder, from another working directory,
    so every toolchain (g++, zig for arm64 and wasm) really compiles again."""
    monkeypatch.chdir(tmp_path)
    src = user_module(tmp_path / "src2")
    fresh = tmp_path / "fresh.everypath"
    targets = [t for t in ("linux-x86_64-v2", "linux-arm64", "wasm32-wasi") if t in bundled.targets]
    r = cli("bundle", f"{src}:scale_stats", "-o", str(fresh), "--targets", ",".join(targets),
            env={"EVERYPATH_CACHE": str(tmp_path / "cache")})
    assert r.exit_code == 0, r.stderr
    with zipfile.ZipFile(fresh) as zf:
        got = {(a["target"], a["kind"]): a["sha256"] for a in json.loads(zf.read("manifest.json"))["artifacts"]}
    want = {(a["target"], a["kind"]): a["sha256"] for a in bundled.manifest()["artifacts"] if a["target"] in targets}
    assert got == want


# ---- signatures ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def signed(bundled: Bundled, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    d = tmp_path_factory.mktemp("signed")
    key = d / "key"
    r = cli("bundle", "keygen", str(key))
    assert r.exit_code == 0, r.stderr
    out = d / "signed.everypath"
    r = cli("bundle", f"{bundled.src}:scale_stats", "-o", str(out), "--targets", ",".join(bundled.targets),
            "--sign", str(key))
    assert r.exit_code == 0, r.stderr
    return out, key, key.with_name("key.pub")


def test_keygen_writes_a_private_key_only_its_owner_reads_and_refuses_to_overwrite(signed: tuple) -> None:
    _, key, pub = signed
    assert key.stat().st_mode & 0o777 == 0o600
    assert pub.read_text().startswith("ssh-ed25519 ")
    r = cli("bundle", "keygen", str(key))
    assert r.exit_code != 0 and "refusing to overwrite" in r.stderr


def test_a_signed_bundle_verifies_with_its_key_and_is_reproducible(signed: tuple, bundled: Bundled,
                                                                   tmp_path: Path) -> None:
    out, key, pub = signed
    with zipfile.ZipFile(out) as zf:
        assert len(zf.read("manifest.sig")) == 64
        assert zf.read("manifest.json") == zipfile.ZipFile(bundled.path).read("manifest.json")
    r = cli("inspect", str(out), "--json", "--key", str(pub))
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["signature"] == {"present": True, "verified": True}
    again = tmp_path / "again.everypath"
    cli("bundle", f"{bundled.src}:scale_stats", "-o", str(again), "--targets", ",".join(bundled.targets),
        "--sign", str(key))
    assert again.read_bytes() == out.read_bytes()  # ed25519 signatures are deterministic


def test_another_key_or_a_tampered_manifest_fails_the_signature(signed: tuple, tmp_path: Path) -> None:
    out, _, pub = signed
    other = tmp_path / "other"
    cli("bundle", "keygen", str(other))
    r = cli("inspect", str(out), "--key", str(other) + ".pub")
    assert r.exit_code == 1 and "signature does not verify" in r.stderr
    inp = _inputs(tmp_path, np.ones(2), 1.0)
    r = cli("run", str(out), "--inputs", str(inp), "--key", str(other) + ".pub")
    assert r.exit_code == 1 and "signature does not verify" in r.stderr and "result_0" not in r.output
    r = cli("run", str(out), "--inputs", str(inp), "--key", str(pub))
    assert r.exit_code == 0 and "result_0: float64 (2,)" in r.output, r.stderr
    m = json.loads(zipfile.ZipFile(out).read("manifest.json"))
    m["function"]["qualname"] = "evil"
    bad = tmp_path / "manifest-tampered.everypath"
    rewrite(out, bad, {"manifest.json": json.dumps(m, sort_keys=True).encode()})
    r = cli("inspect", str(bad), "--key", str(pub))
    assert r.exit_code == 1 and "signature does not verify" in r.stderr and "tampered" in r.stderr
    unsigned = tmp_path / "unsigned.everypath"
    rewrite(out, unsigned, {"manifest.sig": None})
    r = cli("inspect", str(unsigned), "--key", str(pub))
    assert r.exit_code == 1 and "is not signed" in r.stderr


# ---- tampering and things that are not bundles -------------------------------------------------------

def test_a_tampered_artifact_is_named(bundled: Bundled, tmp_path: Path) -> None:
    entry = first_artifact(bundled.manifest(), "linux-x86_64-v2")["path"]
    data = bytearray(zipfile.ZipFile(bundled.path).read(entry))
    data[len(data) // 2] ^= 0xFF
    bad = tmp_path / "artifact-tampered.everypath"
    rewrite(bundled.path, bad, {entry: bytes(data)})
    r = cli("inspect", str(bad), "--json")
    assert r.exit_code == 1 and f"entry {entry} was tampered with" in r.stderr
    doc = json.loads(r.stdout)
    assert not doc["ok"] and [a["target"] for a in doc["artifacts"] if not a["verified"]] == ["linux-x86_64-v2"]
    r = cli("inspect", str(bad))
    assert r.exit_code == 1 and "BAD" in r.output


def test_corrupt_bytes_unlisted_and_missing_entries_are_named(bundled: Bundled, tmp_path: Path) -> None:
    m = bundled.manifest()
    entry = first_artifact(m, "linux-x86_64-v3")["path"]
    raw = bytearray(bundled.path.read_bytes())
    with zipfile.ZipFile(bundled.path) as zf:
        info = zf.getinfo(entry)
    at = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra) + info.compress_size // 2
    raw[at] ^= 0xFF  # inside the compressed data: the zip's own CRC or inflate fails
    flipped = tmp_path / "flipped.everypath"
    flipped.write_bytes(bytes(raw))
    r = cli("inspect", str(flipped))
    assert r.exit_code == 1 and f"entry {entry}" in r.stderr
    extra = tmp_path / "extra.everypath"
    rewrite(bundled.path, extra, {"artifacts/linux-x86_64-v2/evil.so": b"\x7fELF"})
    r = cli("inspect", str(extra))
    assert r.exit_code == 1 and "entry artifacts/linux-x86_64-v2/evil.so is not listed in the manifest" in r.stderr
    missing = tmp_path / "missing.everypath"
    rewrite(bundled.path, missing, {entry: None})
    r = cli("inspect", str(missing))
    assert r.exit_code == 1 and f"entry {entry} is missing" in r.stderr


def test_zips_that_are_not_bundles_and_unknown_versions_are_refused(bundled: Bundled, tmp_path: Path) -> None:
    notzip = tmp_path / "notzip.everypath"
    notzip.write_bytes(b"hello")
    r = cli("inspect", str(notzip))
    assert r.exit_code == 1 and "is not an everypath bundle" in r.stderr and "not a readable zip" in r.stderr
    plain = tmp_path / "plain.everypath"
    with zipfile.ZipFile(plain, "w") as zf:
        zf.writestr("hello.txt", "hi")
    r = cli("inspect", str(plain))
    assert r.exit_code == 1 and "has no manifest.json" in r.stderr
    other = tmp_path / "other.everypath"
    with zipfile.ZipFile(other, "w") as zf:
        zf.writestr("manifest.json", json.dumps({"name": "something else"}))
    r = cli("inspect", str(other))
    assert r.exit_code == 1 and "is not an everypath bundle" in r.stderr
    m = bundled.manifest()
    m["version"] = 99
    future = tmp_path / "future.everypath"
    rewrite(bundled.path, future, {"manifest.json": json.dumps(m).encode()})
    r = cli("inspect", str(future))
    assert r.exit_code == 1 and "unknown manifest version 99" in r.stderr


def test_bad_targets_and_keys_are_refused_when_bundling(bundled: Bundled, tmp_path: Path) -> None:
    r = cli("bundle", f"{bundled.src}:scale_stats", "-o", str(tmp_path / "x.everypath"), "--targets", "amiga")
    assert r.exit_code == 2 and "unknown target 'amiga'" in r.stderr
    notkey = tmp_path / "notkey"
    notkey.write_text("not a key")
    r = cli("bundle", f"{bundled.src}:scale_stats", "-o", str(tmp_path / "x.everypath"), "--sign", str(notkey))
    assert r.exit_code == 2 and "not an unencrypted ed25519 private key" in r.stderr
    r = cli("bundle", f"{bundled.src}:nope", "-o", str(tmp_path / "x.everypath"))
    assert r.exit_code == 2 and "has no function 'nope'" in r.stderr


# ---- everypath run -------------------------------------------------------------------------------------

def _inputs(tmp_path: Path, x: np.ndarray, k: float, n: int | None = None) -> Path:
    p = tmp_path / "in.npz"
    arrays = {"x": x, "k": np.float64(k)}
    if n is not None:
        arrays["n"] = np.int64(n)
    np.savez(p, **arrays)
    return p


def _check(out: Path, x: np.ndarray, k: float, n: int = 3) -> None:
    y, s = reference()(x.copy(), k, n)
    with np.load(out) as z:
        assert sorted(z.files) == ["result_0", "result_1"]
        assert z["result_0"].dtype == np.float64 and z["result_0"].shape == y.shape
        np.testing.assert_array_equal(z["result_0"], y)
        assert z["result_1"].shape == () and float(z["result_1"]) == pytest.approx(s, rel=1e-12)


def test_run_picks_this_cpus_executable_and_prints_or_writes_the_results(bundled: Bundled, tmp_path: Path) -> None:
    x = np.linspace(-2.0, 3.0, 11)
    inp = _inputs(tmp_path, x, 1.5)
    r = cli("run", str(bundled.path), "--inputs", str(inp))
    assert r.exit_code == 0, r.stderr
    y, s = reference()(x.copy(), 1.5, 3)
    assert "result_0: float64 (11,)" in r.output and "result_1: float64 ()" in r.output
    assert f"{y[-1]}" in r.output
    out = tmp_path / "out.npz"
    r = cli("run", str(bundled.path), "--inputs", str(_inputs(tmp_path, x, -0.25, 7)), "--out", str(out))
    assert r.exit_code == 0, r.stderr
    _check(out, x, -0.25, 7)


def test_run_passes_the_executables_error_and_exit_status_through(bundled: Bundled, tmp_path: Path) -> None:
    try:
        reference()(np.ones(3), 1.0, -1)
        raise AssertionError("the reference did not raise")
    except ValueError as exc:
        want = f"ValueError: {exc}"
    r = cli("run", str(bundled.path), "--inputs", str(_inputs(tmp_path, np.ones(3), 1.0, -1)))
    assert r.exit_code == 1 and want in r.stderr


@pytest.mark.parametrize("target", [*X86, "linux-arm64", "wasm32-wasi"])
def test_run_forced_target(bundled: Bundled, tmp_path: Path, target: str) -> None:
    from everypath.lowering.loader import LEVELS, host

    if target == "linux-arm64" and QEMU is None and host().arch != "aarch64":
        pytest.skip("qemu-aarch64-static is not installed (apt-get install qemu-user-static)")
    if target == "wasm32-wasi" and target not in bundled.targets:
        pytest.skip(f"wasm32-wasi did not build: {bundled.wasm_error}")
    h = host()
    if target in X86 and (h.arch != "x86_64" or LEVELS["x86_64"].index(h.isa_level) < int(target[-1]) - 1):
        pytest.skip(f"this CPU ({h.describe()}) cannot run {target}")
    x = np.arange(7, dtype=np.float64) ** 1.5
    out = tmp_path / "out.npz"
    r = cli("run", str(bundled.path), "--inputs", str(_inputs(tmp_path, x, 0.5)), "--out", str(out),
            "--target", target)
    assert r.exit_code == 0, r.stderr
    _check(out, x, 0.5)
    r = cli("run", str(bundled.path), "--inputs", str(_inputs(tmp_path, x, 0.5, -2)), "--target", target)
    assert r.exit_code == 1 and "ValueError: n must be non-negative" in r.stderr


def test_run_never_runs_a_level_above_the_cpus(bundled: Bundled, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from everypath.lowering import bundle_exec
    from everypath.lowering.loader import Host

    monkeypatch.setattr(bundle_exec, "host", lambda: Host("linux", "x86_64", "x86-64-v2"))
    inp = _inputs(tmp_path, np.ones(2), 1.0)
    r = cli("run", str(bundled.path), "--inputs", str(inp), "--target", "linux-x86_64-v3")
    assert r.exit_code == 1 and "x86-64-v3, above this CPU's x86-64-v2" in r.stderr
    out = tmp_path / "out.npz"  # unforced, the v2 executable is the one that fits
    r = cli("run", str(bundled.path), "--inputs", str(inp), "--out", str(out))
    assert r.exit_code == 0, r.stderr
    _check(out, np.ones(2), 1.0)
    monkeypatch.setattr(bundle_exec, "host", lambda: Host("linux", "x86_64", "x86-64-v1"))
    r = cli("run", str(bundled.path), "--inputs", str(inp), "--target", "linux-x86_64-v2")
    assert r.exit_code == 1 and "above this CPU's x86-64-v1" in r.stderr


def test_run_without_a_native_executable_falls_back_to_an_emulated_one(bundled: Bundled) -> None:
    from everypath.lowering.bundle import open_bundle
    from everypath.lowering.bundle_exec import How, plan
    from everypath.lowering.loader import Host, NoArtifactError

    b = open_bundle(bundled.path)
    if "wasm32-wasi" in bundled.targets:  # a Mac runs none of this bundle's ELF files: wasmtime does
        art, how = plan(b, None, Host("darwin", "aarch64", "armv8.2"))
        assert (art["target"], how) == ("wasm32-wasi", How.WASMTIME)
    if QEMU:  # a RISC-V Linux box with qemu-user runs the arm64 executable
        art, how = plan(b, None, Host("linux", "riscv64", "riscv64"))
        assert (art["target"], art["kind"], how) == ("linux-arm64", "executable", How.QEMU)
    art, how = plan(b, None, Host("linux", "aarch64", "armv8"))
    assert (art["target"], how) == ("linux-arm64", How.NATIVE)
    with pytest.raises(NoArtifactError, match="cannot run on this device, windows x86_64"):
        plan(b, "linux-arm64", Host("windows", "x86_64", "x86-64-v3"))


def test_run_refuses_targets_the_bundle_lacks(bundled: Bundled, tmp_path: Path) -> None:
    inp = _inputs(tmp_path, np.ones(2), 1.0)
    r = cli("run", str(bundled.path), "--inputs", str(inp), "--target", "windows-x86_64")
    assert r.exit_code == 1 and "has no executable or wasi-executable artifact for windows-x86_64" in r.stderr
    assert "linux-x86_64-v2 (executable)" in r.stderr



def test_a_wasi_run_spools_where_ingest_looks(bundled: Bundled, tmp_path: Path) -> None:
    """WASI has no home folder: `everypath run --target wasm32-wasi` spools into the preopened folder and moves
    the spool to EVERYPATH_SPOOL_DIR (no "telemetry off" on stderr), where `telemetry ingest` takes it."""
    if "wasm32-wasi" not in bundled.targets:
        pytest.skip(f"wasm32-wasi did not build: {bundled.wasm_error}")
    x = np.arange(7, dtype=np.float64)
    r = cli("run", str(bundled.path), "--inputs", str(_inputs(tmp_path, x, 0.5)), "--target", "wasm32-wasi")
    assert r.exit_code == 0 and "telemetry" not in r.stderr, r.stderr  # off: no spool, no complaint
    assert not (tmp_path / "spool").exists()
    r = cli("run", str(bundled.path), "--inputs", str(_inputs(tmp_path, x, 0.5)), "--target", "wasm32-wasi",
            env={"EVERYPATH_TELEMETRY": "1", "EVERYPATH_SPOOL_DIR": str(tmp_path / "spool")})
    assert r.exit_code == 0 and "telemetry off" not in r.stderr, r.stderr
    spools = list((tmp_path / "spool").glob("*.spool"))
    assert len(spools) == 1
    from everypath.telemetry.spool import read_spool_full

    raw, sites, _, device = read_spool_full(spools[0])
    assert len(raw) > 0 and sites and device is not None and device["arch"] == "wasm32"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-x", "-q"]))

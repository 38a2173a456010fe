"""`everypath.load`: a bundle's shared library for this device, verified before it is loaded, called like
the original function (results, argument errors, exceptions compared with CPython's run of the same
source), and every refusal naming what failed."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

import everypath
from everypath.base.settings import Settings
from everypath.lowering.bundle import BundleError
from everypath.lowering.loader import LEVELS, Host, NoArtifactError, host
from tests.lowering.test_bundle import X86, Bundled, cli, first_artifact, reference, rewrite


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVERYPATH_TELEMETRY", "0")


@pytest.fixture(scope="module")
def bundled(tmp_path_factory: pytest.TempPathFactory) -> Bundled:
    # no wasm here: load() only ever picks a shared library
    return Bundled(tmp_path_factory.mktemp("load"), (*X86, "linux-arm64"))


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    d = tmp_path_factory.mktemp("keys")
    assert cli("bundle", "keygen", str(d / "key")).exit_code == 0
    return d / "key", d / "key.pub"


def _expected_target() -> str:
    h = host()
    assert h.arch == "x86_64" and h.os == "linux", "these tests build linux-x86_64 artifacts"
    best = LEVELS["x86_64"].index(h.isa_level) + 1
    fits = [t for t in X86 if int(t[-1]) <= best]
    if not fits:
        pytest.skip(f"this CPU ({h.describe()}) runs neither of {X86}")
    return fits[-1]


def test_load_picks_the_best_level_this_cpu_has_and_calls_like_cpython(bundled: Bundled) -> None:
    f = everypath.load(bundled.path)
    assert f.target == _expected_target() and f.__name__ == "scale_stats"
    ref = reference()
    rng = np.random.default_rng(5)
    for x, args, kwargs in [(rng.standard_normal(17), (2.5,), {}), (np.zeros(0), (1.0, 4), {}),
                            (rng.standard_normal(1000), (-0.5,), {"n": 0}), (np.arange(5.0)[::2], (3,), {})]:
        got = f(x, *args, **kwargs)
        want = ref(x.copy(), *args, **kwargs)
        assert type(got) is tuple and len(got) == 2
        assert isinstance(got[0], np.ndarray) and got[0].dtype == np.float64 and got[0].shape == want[0].shape
        np.testing.assert_array_equal(got[0], want[0])
        assert type(got[1]) is float and got[1] == pytest.approx(want[1], rel=1e-12, abs=1e-12)


def test_a_loaded_function_raises_what_cpython_raises(bundled: Bundled) -> None:
    f = everypath.load(bundled.path)
    with pytest.raises(ValueError) as want:
        reference()(np.ones(3), 1.0, -1)
    with pytest.raises(ValueError) as got:
        f(np.ones(3), 1.0, -1)
    assert str(got.value) == str(want.value)
    with pytest.raises(TypeError, match=r"argument 'x'.*float64.*got ndarray of dtype float32"):
        f(np.ones(3, dtype=np.float32), 1.0)
    with pytest.raises(TypeError, match=r"argument 'x'.*ndim 2"):
        f(np.ones((2, 2)), 1.0)
    with pytest.raises(TypeError, match="'k'"):
        f(np.ones(3))


def test_the_library_is_extracted_by_content_and_a_tampered_copy_is_replaced(bundled: Bundled, tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from everypath.lowering.bundle import open_bundle
    from everypath.lowering.loader import extract

    f = everypath.load(bundled.path)
    art = first_artifact(bundled.manifest(), f.target)
    want = Settings.from_env().cache_dir / "bundles" / art["sha256"] / "libscale_stats.so"
    assert f.path == want and hashlib.sha256(want.read_bytes()).hexdigest() == art["sha256"]
    # someone edited a cached copy (a fresh cache: the library above is mapped, and must stay intact)
    monkeypatch.setenv("EVERYPATH_CACHE", str(tmp_path / "cache"))
    settings = Settings.from_env()
    b = open_bundle(bundled.path)
    copy = extract(b, art["path"], art["sha256"], settings)
    copy.write_bytes(b"not the library")
    again = extract(b, art["path"], art["sha256"], settings)
    assert again == copy and hashlib.sha256(again.read_bytes()).hexdigest() == art["sha256"]
    g = everypath.load(bundled.path)
    assert g.path == again
    np.testing.assert_array_equal(g(np.ones(2), 1.0)[0], [4.0, 4.0])


def test_load_starts_telemetry_like_compiled_functions(bundled: Bundled, tmp_path: Path) -> None:
    """In a fresh process with telemetry on: the loaded function's calls reach the lake."""
    code = (
        "import sys, numpy as np, pyarrow.parquet as pq, everypath\n"
        "from everypath.telemetry.shim import SHIM, flush_telemetry\n"
        "from everypath.telemetry.lake import Lake\n"
        "from everypath.base.settings import Settings\n"
        "assert not SHIM._started\n"
        "f = everypath.load(sys.argv[1])\n"
        "assert SHIM._started\n"
        "for _ in range(5): f(np.ones(1000), 2.0)\n"
        "flush_telemetry()\n"
        "files = Lake(Settings.from_env().lake).aggregate_files()\n"  # every call counted (raw rows: a sample)
        "print(sum(pq.read_table(p).column('count').to_numpy().sum() for p in files))\n")
    env = {**os.environ, "EVERYPATH_TELEMETRY": "1", "EVERYPATH_LAKE": str(tmp_path / "lake")}
    p = subprocess.run([sys.executable, "-c", code, str(bundled.path)], capture_output=True, text=True, env=env,
                       cwd=Path(__file__).resolve().parents[2], timeout=120)
    assert p.returncode == 0, p.stderr
    assert int(p.stdout.split()[-1]) == 10  # two operator sites, five calls


def test_a_tampered_artifact_is_refused_before_it_is_loaded(bundled: Bundled, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVERYPATH_CACHE", str(tmp_path / "cache"))  # nothing extracted yet
    entry = first_artifact(bundled.manifest(), _expected_target())["path"]
    data = bytearray(zipfile.ZipFile(bundled.path).read(entry))
    data[-100] ^= 1
    bad = tmp_path / "bad.everypath"
    rewrite(bundled.path, bad, {entry: bytes(data)})
    with pytest.raises(BundleError, match=f"entry {entry} was tampered with"):
        everypath.load(bad)
    assert not list((tmp_path / "cache").rglob("*.so"))


def test_signatures_good_bad_and_missing(bundled: Bundled, keys: tuple[Path, Path], tmp_path: Path) -> None:
    key, pub = keys
    signed = tmp_path / "signed.everypath"
    r = cli("bundle", f"{bundled.src}:scale_stats", "-o", str(signed), "--targets", ",".join(bundled.targets),
            "--sign", str(key))
    assert r.exit_code == 0, r.stderr
    for k in (pub, str(pub), pub.read_bytes()):  # a file, its name, its bytes
        assert everypath.load(signed, key=k)(np.ones(1), 2.0)[1] == 5.0
    from everypath.lowering.bundle_sign import load_private_key, public_hex

    raw = bytes.fromhex(public_hex(load_private_key(key).public_key()))
    assert everypath.load(signed, key=raw).target == _expected_target()  # 32 raw bytes
    other = tmp_path / "other"
    cli("bundle", "keygen", str(other))
    with pytest.raises(BundleError, match="signature does not verify"):
        everypath.load(signed, key=other.with_name("other.pub"))
    with pytest.raises(BundleError, match="is not signed"):
        everypath.load(bundled.path, key=pub)
    m = json.loads(zipfile.ZipFile(signed).read("manifest.json"))
    entry = first_artifact(m, _expected_target())
    data = bytearray(zipfile.ZipFile(signed).read(entry["path"]))
    data[-100] ^= 1
    entry["sha256"] = hashlib.sha256(bytes(data)).hexdigest()  # a consistent forgery: only the signature fails
    forged = tmp_path / "forged.everypath"
    rewrite(signed, forged, {entry["path"]: bytes(data), "manifest.json": json.dumps(m, sort_keys=True).encode()})
    with pytest.raises(BundleError, match="signature does not verify"):
        everypath.load(forged, key=pub)
    from everypath.lowering.bundle_sign import BadKeyError

    with pytest.raises(BadKeyError, match="private key"):
        everypath.load(signed, key=key)


def test_no_artifact_for_this_device_lists_what_the_bundle_has(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    arm = Bundled(tmp_path / "arm", ("linux-arm64",))
    with pytest.raises(NoArtifactError, match=r"no shared artifact for this device, linux x86_64 .*it has: "
                                              r"linux-arm64 \(shared\)"):
        everypath.load(arm.path)
    from everypath.lowering import loader

    monkeypatch.setattr(loader, "host", lambda: Host("linux", "x86_64", "x86-64-v1"))
    b = Bundled(tmp_path / "x86", ("linux-x86_64-v2",))
    with pytest.raises(NoArtifactError, match="need a higher ISA level than this CPU's x86-64-v1"):
        everypath.load(b.path)


def test_the_bundles_selection_table_is_put_in_force(bundled: Bundled, tmp_path: Path) -> None:
    from everypath.lowering import _runtime

    table = tmp_path / "table.json"
    table.write_text(json.dumps({"format": 1, "version": "bundle-test-7", "tables": {"*": [
        {"op": "numpy.sum", "bounds": [], "variants": ["loops"]}]}}))
    out = tmp_path / "tabled.everypath"
    r = cli("bundle", f"{bundled.src}:scale_stats", "-o", str(out), "--targets", _expected_target(),
            "--table", str(table))
    assert r.exit_code == 0, r.stderr
    m = json.loads(zipfile.ZipFile(out).read("manifest.json"))
    assert m["selection_table"] == {"path": "selection_table.json", "version": "bundle-test-7",
                                    "sha256": hashlib.sha256(table.read_bytes()).hexdigest(),
                                    "size": table.stat().st_size}
    try:
        f = everypath.load(out)
        assert "bundle-test-7" in _runtime.telemetry_table_versions()
        np.testing.assert_array_equal(f(np.ones(2), 1.0)[0], [4.0, 4.0])
    finally:
        _runtime.telemetry_set_table("", [])  # the built-in thresholds again, for the tests after this one
    bad = tmp_path / "table-tampered.everypath"
    rewrite(out, bad, {"selection_table.json": table.read_bytes().replace(b"loops", b"simd!")})
    generations = len(_runtime.telemetry_table_versions())
    with pytest.raises(BundleError, match="entry selection_table.json was tampered with"):
        everypath.load(bad)
    assert len(_runtime.telemetry_table_versions()) == generations  # no table was put in force


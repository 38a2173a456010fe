"""Telemetry of the standalone executable: the spool it writes (where, when not, with the device
block of the machine it ran on), `everypath telemetry ingest` bringing it into a lake (device_id
salted from the block's machine_key), the selection table embedded at build time and put in
force before the first call, and the same executable as a WASI command under wasmtime."""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from everypath.cli import main as cli
from everypath.lowering.portable import build_function
from everypath.lowering.targets import ArtifactKind, get, kind_status
from everypath.telemetry.spool import read_spool_full
from tests.lowering import test_standalone_exe as sx

X = np.random.default_rng(11).normal(size=(40, 6))


def _ingest(lake: Path, *spools: Path) -> list[dict[str, object]]:
    from everypath.telemetry.views import query

    res = CliRunner().invoke(cli, ["telemetry", "ingest", "--lake", str(lake), *map(str, spools)])
    assert res.exit_code == 0, res.output
    return query(lake, "SELECT * FROM calls ORDER BY ts").to_pylist()


def _run_with_spool(exe: sx.Exe, tmp: Path, extra_env: dict[str, str] | None = None) -> tuple[Path, dict]:
    np.savez(tmp / "in.npz", x=X)
    spool = tmp / "run.spool"
    p = exe.run("--inputs", tmp / "in.npz", "--out", tmp / "out.npz", "--spool", spool,
                env={"EVERYPATH_TELEMETRY": "1", **(extra_env or {})})
    assert p.returncode == 0, p.stderr
    with np.load(tmp / "out.npz") as z:
        np.testing.assert_allclose(z["result"], sx.standardize(X), rtol=1e-12)
    return spool, json.loads(exe.run("--device").stdout)


@pytest.mark.parametrize("target", [sx.HOST, "linux-arm64"])
def test_the_spool_is_ingested_with_the_device_it_ran_on(target: str, tmp_path: Path) -> None:
    from everypath.telemetry.device import salt

    exe = sx.built(target)["standardize"]
    spool, device = _run_with_spool(exe, tmp_path)
    _, sites, runtime, block = read_spool_full(spool)
    assert runtime == "native-executable" and block is not None
    assert {s.op for s in sites} == {"numpy.mean", "numpy.std", "fused:operator.truediv"}
    rows = _ingest(tmp_path / "lake", spool)
    assert len(rows) == 3  # one call of each site, every call sampled
    assert {r["op"] for r in rows} == {s.op for s in sites}
    assert all(r["latency_ns"] > 0 and r["call_site"].startswith("test_standalone_exe.py:") for r in rows)
    want_id = hashlib.sha256(salt(tmp_path / "lake") + block["machine_key"].encode()).hexdigest()
    for r in rows:
        assert r["device_id"] == want_id and r["runtime"] == "native-executable"
        for k in ("arch", "os", "isa_level", "isa_flags", "cores", "cpu_model", "device_class"):
            assert r[k] == block[k] == device[k], k
    assert rows[0]["arch"] == ("aarch64" if target == "linux-arm64" else "x86_64")


def test_where_the_spool_goes_and_when_there_is_none(tmp_path: Path) -> None:
    exe = sx.built(sx.HOST)["safe_log"]
    np.savez(tmp_path / "in.npz", x=sx.POS)
    args = ("--inputs", tmp_path / "in.npz", "--out", tmp_path / "out.npz")
    name = re.compile(r"safe_log-\d+-\d{13}\.spool")

    def spools(d: Path) -> list[Path]:
        return sorted(p for p in d.rglob("*.spool")) if d.exists() else []

    d1 = tmp_path / "spooldir"
    assert exe.run(*args, env={"EVERYPATH_TELEMETRY": "1", "EVERYPATH_SPOOL_DIR": str(d1)}).returncode == 0
    assert [p.parent for p in spools(d1)] == [d1] and name.fullmatch(spools(d1)[0].name)
    d2 = tmp_path / "xdg"
    assert exe.run(*args, env={"EVERYPATH_TELEMETRY": "1", "XDG_DATA_HOME": str(d2)}).returncode == 0
    assert [p.parent for p in spools(d2)] == [d2 / "everypath" / "spool"]
    d3 = tmp_path / "home"
    assert exe.run(*args, env={"EVERYPATH_TELEMETRY": "1", "HOME": str(d3)}).returncode == 0
    assert [p.parent for p in spools(d3)] == [d3 / ".local" / "share" / "everypath" / "spool"]
    # off: by flag or by environment
    d4 = tmp_path / "off"
    assert exe.run(*args, "--no-telemetry", env={"EVERYPATH_TELEMETRY": "1", "EVERYPATH_SPOOL_DIR": str(d4)}
                   ).returncode == 0
    assert exe.run(*args, env={"EVERYPATH_TELEMETRY": "0", "EVERYPATH_SPOOL_DIR": str(d4)}).returncode == 0
    assert spools(d4) == []
    # a spool that cannot be written costs the telemetry, never the result
    p = exe.run(*args, "--spool", tmp_path / "missing" / "dir" / "x.spool", env={"EVERYPATH_TELEMETRY": "1"})
    assert p.returncode == 0 and "telemetry off" in p.stderr and "x.spool" in p.stderr
    p = exe.run(*args, env={"EVERYPATH_TELEMETRY": "1", "EVERYPATH_TELEMETRY_SAMPLE": "often"})
    assert p.returncode == 2 and "EVERYPATH_TELEMETRY_SAMPLE='often': expected a number between 0 and 1" in p.stderr


def test_the_embedded_selection_table_chooses_for_this_device_class(tmp_path: Path) -> None:
    from everypath.telemetry.device import device_class

    plain = sx.built(sx.HOST)["standardize"]
    spool, device = _run_with_spool(plain, tmp_path)
    _, sites, _, _ = read_spool_full(spool)
    before = {r["op"]: r["variant"] for r in _ingest(tmp_path / "lake0", spool)}
    # per operator a variant the built-in thresholds did not choose; "*" would keep the defaults
    forced = {s.op: next(v for v in s.variants if v != before[s.op]) for s in sites if len(s.variants) > 1}
    assert forced, "standardize has no call site with two variants"
    mine = device_class(device)
    table = {"format": 1, "version": "test-table-7",
             "tables": {mine: [{"op": op, "bounds": [], "variants": [v]} for op, v in forced.items()],
                        "*": [{"op": op, "bounds": [], "variants": [before[op]]} for op in forced],
                        "ffffffffffff": [{"op": "numpy.mean", "bounds": [10], "variants": ["loops", "threads"]}]}}
    pf = build_function(sx.standardize, (get(sx.HOST),), sx._settings(), table=json.dumps(table),
                        kinds=(ArtifactKind.EXECUTABLE,))
    exe = sx.Exe(sx.HOST, pf.artifact(sx.HOST, ArtifactKind.EXECUTABLE).path)
    (tmp_path / "t").mkdir()
    spool2, _ = _run_with_spool(exe, tmp_path / "t")
    rows = _ingest(tmp_path / "lake1", spool2)
    assert {r["op"]: r["variant"] for r in rows if r["op"] in forced} == forced
    assert {r["table_version"] for r in rows} == {"test-table-7"}


def test_a_table_the_python_host_would_refuse_is_refused_at_build_time() -> None:
    from everypath.base.settings import Settings
    from everypath.lowering.pipeline import generate
    from everypath.lowering.standalone import main_source
    from everypath.base.selection_table import TableError

    gen = generate(sx.safe_log, Settings.from_env({"EVERYPATH_TELEMETRY": "0"}))
    bad = {"format": 1, "version": "v", "tables": {"*": [{"op": "numpy.log", "bounds": [5], "variants": ["loops"]}]}}
    with pytest.raises(TableError, match="1 variants for 1 bounds"):
        main_source(gen, "unit.cpp", json.dumps(bad), get(sx.HOST))
    with pytest.raises(TableError, match="format"):
        main_source(gen, "unit.cpp", json.dumps({"format": 2}), get(sx.HOST))
    good = {"format": 1, "version": "v2", "tables": {"*": [{"op": "numpy.log", "bounds": [5],
                                                            "variants": ["loops", "simd"], "topk": [["loops", "simd"],
                                                                                                    []]}]}}
    src = main_source(gen, "unit.cpp", json.dumps(good), get(sx.HOST))
    assert '{"numpy.log", ep_sa_bounds_0_0, 1, "loops,simd", "loops,simd|"}' in src


def test_the_wasi_command_runs_like_cpython_and_spools(tmp_path: Path) -> None:
    target = get("wasm32-wasi")
    st = kind_status(target, ArtifactKind.WASI_EXE)
    if not st.buildable:
        pytest.skip(f"wasm32-wasi: {st.reason}")
    from everypath.lowering.wasm_runner import run_wasi_command

    pf = build_function(sx.safe_log, (target,), sx._settings(), kinds=(ArtifactKind.WASI_EXE,))
    wasm = pf.artifact("wasm32-wasi", ArtifactKind.WASI_EXE).path
    np.savez_compressed(tmp_path / "in.npz", x=sx.POS)
    spool = tmp_path / "w.spool"
    rc, _, err = run_wasi_command(wasm, ["--inputs", tmp_path / "in.npz", "--out", tmp_path / "out.npz",
                                         "--spool", spool], [tmp_path])
    assert rc == 0, err
    with np.load(tmp_path / "out.npz") as z:
        sx.check_same({k: z[k] for k in z.files}, sx.expected_outputs(sx.safe_log(sx.POS)), "wasm32-wasi")
    bad = sx.POS.copy()
    bad[3] = 0.0
    np.savez(tmp_path / "bad.npz", x=bad)
    rc, _, err = run_wasi_command(wasm, ["--inputs", tmp_path / "bad.npz", "--out", tmp_path / "o2.npz",
                                         "--no-telemetry"], [tmp_path])
    assert (rc, err.strip().splitlines()[-1]) == (1, "ValueError: safe_log: every value must be positive")
    assert err.startswith("Traceback (most recent call last):\n  File \"test_standalone_exe.py\", line "), err
    rows = _ingest(tmp_path / "lake", spool)
    assert rows and {r["runtime"] for r in rows} == {"wasi"} and {r["arch"] for r in rows} == {"wasm32"}
    # no /etc/machine-id inside WASI: a random key kept beside the spool stands for the installation
    assert len((tmp_path / ".everypath-machine-key").read_text()) == 64


def test_an_arm64_run_under_qemu_shows_up_in_the_dashboard(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The round trip from a non-Python target: spool under qemu-user, ingest, the dashboard's fleet page."""
    import shutil

    from streamlit.testing.v1 import AppTest

    from tests.dashboard.test_app import APP, show, table

    if shutil.which("qemu-aarch64-static") is None:
        pytest.skip("qemu-aarch64-static is not installed (make setup installs qemu-user-static)")
    spool, device = _run_with_spool(sx.built("linux-arm64")["standardize"], tmp_path)
    lake = tmp_path / "lake"
    rows = _ingest(lake, spool)
    monkeypatch.setenv("EVERYPATH_LAKE", str(lake))
    monkeypatch.setenv("EVERYPATH_REGISTRY", str(tmp_path / "registry"))
    at = show(AppTest.from_file(str(APP), default_timeout=30).run(), "views/fleet.py")
    classes = table(at, "device-classes")
    arm = classes[classes["device_class"] == device["device_class"]]
    assert len(arm) == 1 and arm.iloc[0]["arch"] == "aarch64" and arm.iloc[0]["calls"] == len(rows) == 3
    assert arm.iloc[0]["runtime"] == "native-executable" and arm.iloc[0]["isa_level"] == device["isa_level"]


def many_calls(x: sx.F64, n: int) -> float:
    y = x
    for _ in range(n):
        y = np.sqrt(y * y + 1.0)
    return float(np.sum(y))


def test_every_call_is_counted_in_the_spools_aggregates(tmp_path: Path) -> None:
    """A loop of 200 000 sub-microsecond element-wise calls: the spool's aggregates count each call
    (timing only a share: the raw rows are a sample whose 1 / inclusion weights estimate the count),
    ingested into the lake's aggregates table and counted by op_latency and daily."""
    from everypath.telemetry.spool import read
    from everypath.telemetry.views import query

    why = sx._skip_reason(sx.HOST)
    if why:
        pytest.skip(why)
    n = 200_000
    pf = build_function(many_calls, (get(sx.HOST),), sx._settings(), kinds=(ArtifactKind.EXECUTABLE,))
    exe = sx.Exe(sx.HOST, pf.artifact(sx.HOST, ArtifactKind.EXECUTABLE).path)
    x = np.linspace(0.5, 2.0, 8)
    np.savez(tmp_path / "in.npz", x=x, n=np.int64(n))
    spool = tmp_path / "run.spool"
    p = exe.run("--inputs", tmp_path / "in.npz", "--out", tmp_path / "out.npz", "--spool", spool,
                env={"EVERYPATH_TELEMETRY": "1"})
    assert p.returncode == 0, p.stderr
    with np.load(tmp_path / "out.npz") as z:
        assert z["result"].item() == pytest.approx(many_calls(x, n), rel=1e-12)
    s = read(spool)
    assert s.version == 2 and s.aggregates, "the spool carries no aggregates"
    want = {i: (1 if site.op == "numpy.sum" else n) for i, site in enumerate(s.sites)}
    assert sorted(want.values()) == [1, n], s.sites
    got: dict[int, int] = {}
    for a in s.aggregates:
        for site, count in zip(a.site.tolist(), a.count.tolist()):
            got[site] = got.get(site, 0) + count
    assert got == want  # every call, exactly
    loop = next(i for i, c in want.items() if c == n)
    raw = s.raw.site == loop
    assert raw.sum() < n  # only a share of the tiny calls was timed, so recorded raw
    assert np.all((s.raw.inclusion > 0) & (s.raw.inclusion <= 1))
    est = float(np.sum(1.0 / s.raw.inclusion[raw].astype(np.float64)))
    # an unbiased but noisy estimate (the exact count is the aggregates'), judged by its own variance
    # (Horvitz-Thompson's, sum (1 - p) / p^2 over the sample), 4 sigma: ~150 records of inclusion ~1/1000 give
    # sigma ~8%, so a sampler off by 2x still fails. (20 000 calls kept ~25 records, sigma ~22%, and a fixed
    # "within 50%" failed on a loaded machine: 9616 of 20 000.)
    p_in = s.raw.inclusion[raw].astype(np.float64)
    sigma = float(np.sqrt(np.sum((1.0 - p_in) / p_in**2)))
    assert raw.sum() >= 8 and abs(est - n) <= 4.0 * sigma + 1.0, (est, int(raw.sum()), sigma)
    lake = tmp_path / "lake"
    _ingest(lake, spool)
    assert query(lake, "SELECT sum(count)::BIGINT AS n FROM aggregates").to_pylist() == [{"n": n + 1}]
    assert query(lake, "SELECT sum(n)::BIGINT AS n FROM op_latency").to_pylist() == [{"n": n + 1}]
    assert query(lake, "SELECT sum(n)::BIGINT AS n FROM daily").to_pylist() == [{"n": n + 1}]

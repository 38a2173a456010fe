"""`everypath autotune`: every variant of every operator call measured into the lake (real
compiles, the real hub and lake), failures kept as rows, restricted device variants labelled."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from everypath.cli import main
from everypath.base.settings import Settings
from everypath.selector.autotune import Status, Sweep, SweepConfig
from everypath.selector.autotune_inputs import module_targets, parse_fixed
from everypath.telemetry.device import DeviceVariant, device_fields, restrict
from everypath.telemetry.views import query

KERNELS = textwrap.dedent('''
    import numpy as np
    V = np.ndarray[tuple[int], np.dtype[np.float64]]
    M = np.ndarray[tuple[int, int], np.dtype[np.float64]]

    def pipeline(x: V, a: M, scale: float, reps: int):
        s = np.sort(x) * scale
        return s, a @ a, reps

    def untyped(x: V, k: int):
        return x * k
''')


@pytest.fixture
def module(tmp_path: Path) -> Path:
    p = tmp_path / "at_kernels.py"
    p.write_text(KERNELS)
    return p


def _calls(lake: Path) -> "object":
    return query(lake, "SELECT function, op, variant, n_elements, latency_ns, explore, propensity, table_version "
                       "FROM calls").to_pandas()


def test_function_target_measures_every_variant_of_every_call_site(module: Path, tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    r = CliRunner().invoke(main, ["autotune", f"{module}:pipeline", "--sizes", "400,40000", "--repeats", "4",
                                  "--warmup", "1", "--arg", "reps=3", "--lake", str(lake), "--json"])
    assert r.exit_code == 0, r.output
    summary = json.loads(r.output)
    calls = _calls(lake)
    assert set(calls.function) == {"at_kernels.pipeline"}
    # every call site's every variant at every size: repeats rows each, as exploration with 1/k propensity
    for op, variants in (("numpy.sort", {"loops", "threads"}), ("operator.matmul", {"loops", "threads", "blas"})):
        mine = calls[calls.op == op]
        assert variants <= set(mine.variant), (op, set(mine.variant))
        counts = mine.groupby(["variant", "n_elements"]).size()
        assert (counts == 4).all() and len(counts) == 2 * mine.variant.nunique()
        k = mine.variant.nunique()
        assert np.allclose(mine.propensity, 1.0 / k) and mine.explore.all()
        assert mine.table_version.str.startswith("autotune:").all()
    # the forced variant is what ran: the threads path ran on an OpenMP team, the others on one thread
    th = query(lake, "SELECT DISTINCT variant, threads FROM calls").to_pandas()
    assert (th[th.variant != "threads"].threads == 1).all()
    assert (th[th.variant == "threads"].threads == device_fields(lake_root=lake)["cores"]).all()
    # the summary's medians are the medians of the stored calls
    for row in (s for s in summary if s["status"] == Status.OK):
        got = calls[(calls.op == row["op"]) & (calls.variant == row["variant"])
                    & (calls.n_elements == row["n_elements"])].latency_ns
        assert row["median_ns"] == pytest.approx(float(np.median(got)))
    stored = query(lake, "SELECT count(*) AS n, count(DISTINCT run_id) AS runs FROM autotune").to_pylist()[0]
    assert stored == {"n": len(summary), "runs": 1}


def test_a_failing_variant_is_a_failure_row_not_dropped(module: Path, tmp_path: Path) -> None:
    import everypath
    from everypath.lowering import _runtime as rt

    (target,) = module_targets(f"{module}:pipeline", parse_fixed(("reps=1",)))
    compiled = everypath.compile(target.fn, settings=Settings.from_env({"EVERYPATH_TELEMETRY": "0"}))

    def fails_under_blas(*args):  # a variant that raises: the table in force names it
        if rt.telemetry_table_versions()[-1].endswith(":blas"):
            raise FloatingPointError("blas variant broke")
        return compiled(*args)

    sweep = Sweep(SweepConfig(sizes=(2500,), repeats=2, warmup=0), Settings.from_env(),
                  device_fields(lake_root=tmp_path))
    sweep._size(target, fails_under_blas, 2500, target.inputs(2500, np.random.default_rng(0)))
    failed = [m for m in sweep.results if m.status == Status.FAILED]
    assert failed and {m.variant for m in failed} == {"blas"}
    assert all(m.error == "FloatingPointError: blas variant broke" and m.median_ns is None for m in failed)
    ok = {(m.op, m.variant) for m in sweep.results if m.status == Status.OK}
    assert ("operator.matmul", "loops") in ok and ("numpy.sort", "loops") in ok
    assert "blas" not in set(sweep.calls().column("variant").to_pylist())


def test_inputs_the_function_rejects_are_recorded(tmp_path: Path) -> None:
    p = tmp_path / "at_bad.py"
    p.write_text("import numpy as np\nM = np.ndarray[tuple[int, int], np.dtype[np.float64]]\n"
                 "def chol(a: M):\n    return np.linalg.cholesky(a - 10.0)\n")
    lake = tmp_path / "lake"
    r = CliRunner().invoke(main, ["autotune", f"{p}:chol", "--sizes", "100", "--lake", str(lake), "--json"])
    assert r.exit_code == 0, r.output
    (row,) = json.loads(r.output)
    assert row["status"] == Status.INPUT_ERROR and row["error"].startswith("LinAlgError")


@pytest.mark.parametrize("args, message", [
    (["nope.py"], "nope.py: no such file"),
    (["{m}:missing"], "no function named 'missing'"),
    (["{m}:untyped"], "parameter 'k' (int) has no default; pass --arg k=VALUE"),
    (["{m}:pipeline", "--arg", "reps"], "--arg 'reps': expected NAME=VALUE"),
    (["{m}:pipeline", "--arg", "reps=1", "--arg", "nope=2"], "--arg nope: at_kernels.pipeline has no such parameter"),
    (["--ops", "numpy.nonexistent_op"], "--ops numpy.nonexistent_op"),
    (["{m}:pipeline", "--sizes", "0"], "--sizes"),
    (["{m}:pipeline", "--isa", "v9"], "'v9' is not one of native, baseline, v2, v3, v4"),
    (["{m}:pipeline", "--threads", "0"], "expected 'all' or a positive thread count"),
    ([], "give a TARGET"),
])
def test_bad_input_is_named(module: Path, tmp_path: Path, args: list[str], message: str) -> None:
    r = CliRunner().invoke(main, ["autotune", *[a.format(m=module) for a in args], "--lake", str(tmp_path / "l")])
    assert r.exit_code != 0 and message in r.output, r.output
    assert "Traceback" not in r.output


def test_device_variants_are_labelled_restrictions_of_this_host(tmp_path: Path) -> None:
    host = device_fields(lake_root=tmp_path)
    v = DeviceVariant.parse("+x86-64-v2+1t")
    assert v == DeviceVariant("x86-64-v2", 1) and v.label == "+x86-64-v2+1t"
    if host["arch"] != "x86_64":
        pytest.skip("ISA levels are x86-64 levels")
    r = restrict(host, v)
    assert r["isa_level"] == "x86-64-v2" and r["cores"] == 1 and r["device_id"] == f"{host['device_id']}+x86-64-v2+1t"
    assert set(str(r["isa_flags"]).split()) <= {"sse4_2"} and r["device_class"] != host["device_class"]
    assert r["cpu_model"] == host["cpu_model"]  # the same machine, honestly: only what the code may use differs
    with pytest.raises(ValueError, match="neither an x86-64 level"):
        DeviceVariant.parse("+x86-64-v7")
    with pytest.raises(ValueError, match="EVERYPATH_DEVICE_VARIANT|neither"):
        Settings.from_env({"EVERYPATH_DEVICE_VARIANT": "fast"})


@pytest.mark.slow
def test_isa_and_thread_variants_run_as_devices_of_their_own(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    host = device_fields(lake_root=lake)
    if host["arch"] != "x86_64":
        pytest.skip("ISA levels are x86-64 levels")
    r = CliRunner().invoke(main, ["autotune", "--ops", "numpy.sum", "--sizes", "3000", "--repeats", "2",
                                  "--isa", "baseline", "--threads", "1,all", "--lake", str(lake), "--json"])
    assert r.exit_code == 0, r.output
    got = query(lake, "SELECT DISTINCT device_id, isa_level, isa_flags, cores, threads, variant FROM calls").to_pandas()
    assert set(got.device_id) == {host["device_id"] + "+x86-64-v1+1t", host["device_id"] + "+x86-64-v1"}
    assert (got.isa_level == "x86-64-v1").all() and (got.isa_flags == "").all()
    one = got[got.device_id.str.endswith("+1t")]
    assert (one.cores == 1).all() and (one.threads == 1).all()
    allt = got[~got.device_id.str.endswith("+1t")]
    assert (allt[allt.variant == "threads"].threads == host["cores"]).all()

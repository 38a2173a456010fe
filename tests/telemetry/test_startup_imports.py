"""Start-up and exit of a real process calling ahead-of-time built functions (issue 13): the
first call loads neither pyarrow, pandas and duckdb nor the compiler (the cache has the build),
with telemetry off or on; with telemetry on, what was recorded is written at exit (the flush timer set
to an hour, so only the exit can have written it) to the exit journal, which the next lake reader
publishes; read back with DuckDB here.
The flusher itself makes its lake and device fields only when it first has rows to publish."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import duckdb
import pytest

from tests.aot_kernels import SCALE_ADD

from everypath.base.settings import Settings
from everypath.telemetry.flusher import Flusher
from everypath.telemetry.lake import Lake

from ._data import DEVICE, SITES, raw

KERNELS = SCALE_ADD

# The first atexit hook runs last (LIFO): it sees the modules after everypath's own exit hook ran.
CHILD = textwrap.dedent("""
    import atexit, json, sys
    WATCH = ("pyarrow", "pandas", "duckdb", "everypath.lowering.pipeline", "everypath.tracer.frontend")
    atexit.register(lambda: print("at-exit", json.dumps([m for m in WATCH if m in sys.modules]), flush=True))
    import numpy as np
    import startup_kernels as k
    assert k.scale(2.0, 3.0) == 7.0
    for _ in range({adds}):
        assert (k.add(np.ones(3), np.arange(3.0)) == [1.0, 2.0, 3.0]).all()
    print("after-calls", json.dumps([m for m in WATCH if m in sys.modules]), flush=True)
""")


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A module built ahead of time into a private cache (telemetry off: the lake starts empty)."""
    d = tmp_path_factory.mktemp("startup")
    (d / "startup_kernels.py").write_text(KERNELS)
    out = _run(d, d / "unused-lake", telemetry="0", adds=1)
    assert "everypath.lowering.pipeline" in out["at-exit"]  # this one compiled
    return d


def _run(d: Path, lake: Path, telemetry: str, adds: int) -> dict[str, list[str]]:
    env = {**os.environ, "EVERYPATH_CACHE": str(d / "cache"), "EVERYPATH_LAKE": str(lake),
           "EVERYPATH_REGISTRY": str(d / "registry"), "EVERYPATH_TELEMETRY": telemetry,
           "EVERYPATH_FLUSH_SECONDS": "3600"}  # no timer tick within the run: only the exit publishes
    proc = subprocess.run([sys.executable, "-c", CHILD.format(adds=adds)], cwd=d, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "telemetry" not in proc.stderr, proc.stderr  # nothing logged
    return {line.split(" ", 1)[0]: json.loads(line.split(" ", 1)[1]) for line in proc.stdout.splitlines()}


def _lake_rows(lake: Path) -> list[tuple[str, str, int]]:
    parts = list((lake / "calls").glob("*/*/*.parquet"))
    if not parts:
        return []
    return duckdb.sql(f"SELECT function, op, count(*) FROM read_parquet('{lake}/calls/*/*/*.parquet', "
                      "hive_partitioning = true) GROUP BY ALL").fetchall()


def test_telemetry_off_never_loads_arrow_or_the_compiler(workdir: Path, tmp_path: Path) -> None:
    out = _run(workdir, tmp_path / "lake", telemetry="0", adds=3)
    assert out["after-calls"] == []  # a cache hit: neither the compiler nor pyarrow, pandas, duckdb
    assert out["at-exit"] == []  # and exit loads none of them either
    assert _lake_rows(tmp_path / "lake") == []


def test_telemetry_on_exits_without_arrow_and_the_lake_publishes_its_journal(workdir: Path, tmp_path: Path) -> None:
    out = _run(workdir, tmp_path / "lake", telemetry="1", adds=5)
    assert out["after-calls"] == []  # recording and draining are NumPy only: nothing published yet
    # the exit wrote the last drain to the exit journal with NumPy alone: no pyarrow (~100-150 ms of exit),
    # pandas (its import at exit can fail: it registers a threading exit hook) or duckdb
    assert out["at-exit"] == []
    lake = tmp_path / "lake"
    assert _lake_rows(lake) == [] and len(list((lake / "journal").glob("*.npz"))) == 1
    for _ in range(2):  # the next reader publishes it, once
        Lake(lake).files()
        assert list((lake / "journal").iterdir()) == []
        rows = _lake_rows(lake)  # raw rows: the timed share of these sub-microsecond calls
        assert len(rows) == 1 and rows[0][:2] == ("startup_kernels.add", "numpy.add") and 1 <= rows[0][2] <= 5
        counted = duckdb.sql(f"SELECT function, op, sum(count)::BIGINT FROM read_parquet('{lake}/aggregates/*/*/"
                             "*.parquet') GROUP BY ALL").fetchall()
        assert counted == [("startup_kernels.add", "numpy.add", 5)]  # every call, once


def test_telemetry_on_with_nothing_recorded_exits_without_arrow(workdir: Path, tmp_path: Path) -> None:
    out = _run(workdir, tmp_path / "lake", telemetry="1", adds=0)  # scalar code: no operator call to record
    assert out["after-calls"] == [] and out["at-exit"] == []
    assert _lake_rows(tmp_path / "lake") == []


def test_the_flusher_makes_its_lake_and_device_at_the_first_publish(tmp_path: Path) -> None:
    made: list[str] = []
    tries = [0]

    def lake() -> Lake:
        made.append("lake")
        return Lake(tmp_path)

    def device() -> dict[str, object]:
        tries[0] += 1
        if tries[0] == 1:
            raise OSError("no fingerprint yet")  # a failed publish: the rows wait for the next one
        made.append("device")
        return DEVICE

    settings = Settings(lake=tmp_path, flush_seconds=3600)
    idle = Flusher(lambda: None, lake, settings, device, install_signals=False, start=False)
    idle.close()
    assert made == [] and tries == [0]  # nothing drained: neither is ever made

    pending = [raw(100, seed=1, ts0=0), raw(50, seed=2, ts0=100)]
    f = Flusher(lambda: (pending.pop(0), SITES) if pending else None, lake, settings, device, install_signals=False,
                start=False)
    f.flush()
    assert f.errors == 1 and f.published_rows == 0 and made == []
    f.close()  # drains the second piece and publishes both
    assert made == ["device", "lake"] and f.published_rows == 150 and f.errors == 1
    got = duckdb.sql(f"SELECT count(*), count(DISTINCT ts), min(epoch_ns(ts)), max(epoch_ns(ts)) FROM "
                     f"read_parquet('{tmp_path}/calls/*/*/*.parquet')").fetchall()
    assert got == [(150, 150, 0, 149)]


# ---- a selection table in force: the device class before the first call, the id at the first publish ----

FAKE_SMI = '#!/bin/sh\necho started > "{marker}"\necho "GPU 0: Fake GPU 9000 (UUID: GPU-0000)"\n'


def test_the_class_a_table_is_chosen_by_is_the_fingerprints_and_touches_no_lake(tmp_path: Path) -> None:
    from everypath.telemetry.device import process_device, process_device_class

    for variant in ("", "+1t"):  # the host, and the restricted view `everypath autotune --threads 1` records as
        lake = tmp_path / f"lake{variant}"
        settings = Settings(lake=lake, device_variant=variant)
        cls = process_device_class(settings)
        assert not lake.exists()  # no salt, no lake folder: they wait for the first publish
        assert cls == process_device(settings)["device_class"]  # the class the rows are then recorded under
        assert lake.joinpath(".salt").exists()


@pytest.mark.parametrize("driver", [False, True])
def test_nvidia_smi_is_started_only_where_an_nvidia_driver_is_loaded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                     driver: bool) -> None:
    import platform

    from everypath.telemetry import device

    if platform.system() != "Linux":
        pytest.skip("the driver check is Linux's (/proc/driver/nvidia, /dev/nvidiactl)")
    marker, bin_dir, driver_dir = tmp_path / "started", tmp_path / "bin", tmp_path / "proc-driver-nvidia"
    bin_dir.mkdir()
    (bin_dir / "nvidia-smi").write_text(FAKE_SMI.format(marker=marker))
    (bin_dir / "nvidia-smi").chmod(0o755)
    if driver:
        driver_dir.mkdir()
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setattr(device, "_NVIDIA_DRIVER", (str(driver_dir),))  # where this test says the driver is
    monkeypatch.setattr(device, "_classes", {})  # this process's fields, made again
    fields = device.class_fields()
    assert marker.exists() is driver
    assert fields["gpu"] == ("Fake GPU 9000" if driver else None)  # the model, never the UUID


TERMINATED = textwrap.dedent("""
    import json, os, signal, sys
    WATCH = ("pyarrow", "pandas", "duckdb")
    def supervised(signum, frame):  # the program's own handler: everypath's runs first, then hands over
        print("at-signal", json.dumps([m for m in WATCH if m in sys.modules]), flush=True)
        os._exit(143)
    if {own_handler}:
        signal.signal(signal.SIGTERM, supervised)
    import numpy as np
    import startup_kernels as k
    for _ in range(5):
        k.add(np.ones(3), np.arange(3.0))
    os.kill(os.getpid(), signal.SIGTERM)
    signal.pause()
""")


@pytest.mark.parametrize("own_handler", [True, False], ids=["program-handler", "default-action"])
def test_sigterm_writes_the_journal_without_arrow_and_keeps_the_exit_status(workdir: Path, tmp_path: Path,
                                                                           own_handler: bool) -> None:
    lake = tmp_path / "lake"
    env = {**os.environ, "EVERYPATH_CACHE": str(workdir / "cache"), "EVERYPATH_LAKE": str(lake),
           "EVERYPATH_REGISTRY": str(workdir / "registry"), "EVERYPATH_TELEMETRY": "1",
           "EVERYPATH_FLUSH_SECONDS": "3600"}
    proc = subprocess.run([sys.executable, "-c", TERMINATED.format(own_handler=own_handler)], cwd=workdir, env=env,
                          capture_output=True, text=True, timeout=300)
    assert "Traceback" not in proc.stderr, proc.stderr
    if own_handler:  # the program's handler still runs, after the journal was written with NumPy alone
        assert proc.returncode == 143 and proc.stdout.strip() == 'at-signal []', (proc.stdout, proc.stderr)
    else:  # the default action: the process still dies of SIGTERM
        assert proc.returncode == -15, proc.stderr
    assert _lake_rows(lake) == [] and len(list((lake / "journal").glob("*.npz"))) == 1
    Lake(lake).files()  # the next reader publishes it: every call counted once
    counted = duckdb.sql(f"SELECT function, op, sum(count)::BIGINT FROM read_parquet('{lake}/aggregates/*/*/"
                         "*.parquet') GROUP BY ALL").fetchall()
    assert counted == [("startup_kernels.add", "numpy.add", 5)]

"""The whole chain in real processes: a compiled kernel's operator calls are recorded by
the shim, flushed by the background thread into the lake, and read back through DuckDB —
on a normal exit, and after SIGKILL (at most the unflushed tail is lost, nothing torn)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pyarrow.parquet as pq

from everypath.telemetry.views import query

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent('''
    import sys, time
    import numpy as np
    import everypath

    @everypath.compile
    def step(x: np.ndarray[tuple[int], np.dtype[np.float64]], a: np.ndarray[tuple[int, int], np.dtype[np.float64]]):
        return np.tanh(x) * 0.5 + 1.0, a @ a

    x, a = np.random.rand(512), np.random.rand(16, 16)
    n = int(sys.argv[1])  # < 0: until killed
    i = 0
    while n < 0 or i < n:
        step(x, a)
        if i == 9:
            print("running", flush=True)
        if n < 0:
            time.sleep(0.002)
        i += 1
    print("done", flush=True)
''')


def _run(tmp: Path, n: int, **env: str) -> subprocess.Popen[str]:
    script = tmp / "kernel_prog.py"
    script.write_text(SCRIPT)
    full = {**os.environ, "EVERYPATH_LAKE": str(tmp / "lake"), "PYTHONPATH": str(ROOT), **env}
    return subprocess.Popen([sys.executable, str(script), str(n)], cwd=tmp, env=full, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_recorded_calls_reach_the_lake_on_exit(tmp_path: Path) -> None:
    p = _run(tmp_path, 300)
    out, err = p.communicate(timeout=300)
    assert p.returncode == 0, err
    rows = query(tmp_path / "lake", "SELECT function, op, variant, call_site, dtype, n_elements, latency_ns, "
                 "device_class, device_id, runtime, propensity, inclusion FROM calls").to_pylist()
    counts = query(tmp_path / "lake", "SELECT op, sum(count) AS n FROM aggregates GROUP BY op ORDER BY op").to_pylist()
    # two operator calls per step, every one counted: nothing lost on a normal exit
    assert counts == [{"op": "fused:operator.add", "n": 300}, {"op": "operator.matmul", "n": 300}]
    # raw rows: the timed share of sub-microsecond calls, each weighted by 1 / inclusion
    assert 0 < len(rows) <= 600
    est = sum(1 / r["inclusion"] for r in rows)
    sd = sum((1 - r["inclusion"]) / r["inclusion"] ** 2 for r in rows) ** 0.5
    assert abs(est - 600) <= 5 * sd + 1e-6, (est, sd)
    ops = {(r["function"], r["op"], r["call_site"]) for r in rows}
    # the function is named by its file, never by its import name ('__main__' here): lowering.sites.site_function
    assert ops == {("kernel_prog.step", "fused:operator.add", "kernel_prog.py:8"),
                   ("kernel_prog.step", "operator.matmul", "kernel_prog.py:8")}
    assert {r["n_elements"] for r in rows} == {512, 256}
    assert all(r["latency_ns"] > 0 and r["runtime"] == "cpython-extension" and r["propensity"] == 1.0 for r in rows)
    assert len({r["device_id"] for r in rows}) == 1 and len(rows[0]["device_id"]) == 64
    assert {r["variant"] for r in rows} <= {"loops", "simd", "threads", "blas"}
    stats = query(tmp_path / "lake", "SELECT op, variant, n, p50, p99 FROM op_latency").to_pylist()
    # op_latency counts every call (the aggregates), not the raw sample's rows
    assert sum(s["n"] for s in stats) == 600 and all(s["p50"] <= s["p99"] for s in stats)


def test_sigkill_loses_at_most_the_unflushed_tail(tmp_path: Path) -> None:
    p = _run(tmp_path, -1, EVERYPATH_FLUSH_SECONDS="0.05")  # runs until killed
    assert p.stdout is not None and p.stdout.readline().strip() == "running"
    time.sleep(1.5)  # several flushes
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=60)
    lake = tmp_path / "lake"
    for f in lake.rglob("*"):  # nothing torn is visible: every part reads fully, temporaries are hidden
        if f.is_file() and f.suffix == ".parquet":
            pq.read_table(f)
    n = query(lake, "SELECT sum(count) AS n FROM aggregates").to_pylist()[0]["n"]
    assert n > 0  # what was published before the kill is there; the unflushed tail is simply absent


def test_sigterm_publishes_what_was_recorded_and_keeps_the_exit_status(tmp_path: Path) -> None:
    p = _run(tmp_path, -1)  # default intervals: nothing would be published within the first seconds
    assert p.stdout is not None and p.stdout.readline().strip() == "running"
    time.sleep(1.0)
    p.send_signal(signal.SIGTERM)
    assert p.wait(timeout=60) == -signal.SIGTERM
    n = query(tmp_path / "lake", "SELECT sum(count) AS n FROM aggregates").to_pylist()[0]["n"]
    assert n >= 20  # at least the ten steps before "running", flushed by the signal handler


def test_the_promoted_selection_table_chooses_in_a_new_process(tmp_path: Path) -> None:
    import json

    current = tmp_path / "registry" / "current"
    current.mkdir(parents=True)
    (current / "selection_table.json").write_text(json.dumps({
        "format": 1, "version": "v-test",
        "tables": {"*": [{"op": "operator.matmul", "bounds": [], "variants": ["threads"]}]}}))
    p = _run(tmp_path, 300, EVERYPATH_REGISTRY=str(tmp_path / "registry"))
    _, err = p.communicate(timeout=300)
    assert p.returncode == 0, err
    rows = query(tmp_path / "lake", "SELECT variant, table_version FROM calls WHERE op = 'operator.matmul'").to_pylist()
    counts = query(tmp_path / "lake", "SELECT variant, sum(count) AS n FROM aggregates WHERE op = 'operator.matmul' "
                                      "GROUP BY variant").to_pylist()
    # the table is in force before the first call: every matmul ran the table's variant, and says so
    assert counts == [{"variant": "threads", "n": 300}]
    assert rows and {(r["variant"], r["table_version"]) for r in rows} == {("threads", "v-test")}

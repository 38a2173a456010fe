"""What a crash may lose (issue 16): a process SIGKILLed at a random moment leaves a readable lake,
nothing twice, and loses at most the last flush interval of raw rows and aggregates; a short-lived
process writes everything at exit. Child processes record a fused element-wise kernel."""
from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from everypath.telemetry.views import query

from ._data import env

FLUSH_S = 0.5  # the bound under test is flush_seconds (5 s by default; shorter here to keep the test fast)
SLACK_S = 1.5  # one publish (a Parquet write) on a loaded machine, and the drain's own time

CHILD = textwrap.dedent("""
    import sys, time
    import numpy as np
    import everypath

    F32 = np.ndarray[tuple[int], np.dtype[np.float32]]

    def axpy(a: F32, b: F32) -> F32:
        return a * 2.0 + b

    f = everypath.compile(axpy)
    x = np.ones(4096, np.float32)
    if sys.argv[1] == "short":
        for _ in range(2000):
            f(x, x)
        sys.exit(0)
    f(x, x)  # built (or loaded from the cache) before the clock starts
    progress = open(sys.argv[2], "w")
    n = 1
    print("ready", flush=True)
    while True:
        for _ in range(100):
            f(x, x)
        n += 100
        progress.write(f"{time.time()} {n}\\n")
        progress.flush()
        time.sleep(0.001)
""")


@pytest.fixture(scope="module")
def script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("crash") / "child.py"  # one file: both tests share its build
    path.write_text(CHILD)
    return path


def _child(script: Path, tmp: Path, lake: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, str(script), *args], env={**env(lake), "EVERYPATH_FLUSH_SECONDS": str(FLUSH_S)},
                            stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=tmp)


def test_a_short_lived_process_writes_every_call_at_exit(script, tmp_path) -> None:
    lake = tmp_path / "lake"
    p = _child(script, tmp_path, lake, "short")
    _, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    assert "dropped" not in err  # the case: 2000 calls used to fill the ring and warn
    got = query(lake, "SELECT (SELECT count(*) FROM calls) AS rows, (SELECT sum(1 / inclusion) FROM calls) AS est, "
                      "(SELECT sqrt(sum((1 - inclusion) / inclusion ^ 2)) FROM calls) AS sd, "
                      "(SELECT sum(count) FROM aggregates) AS n").to_pylist()[0]
    assert got["n"] == 2000 and 0 < got["rows"] <= 2000, got  # counted exactly; raw rows: the timed share
    assert abs(got["est"] - 2000) <= 5 * got["sd"] + 1e-6, got  # 1/inclusion weights: an unbiased count


def test_sigkill_at_random_points_loses_at_most_the_last_interval(script, tmp_path) -> None:
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    for k in range(3):
        tmp = tmp_path / f"run{k}"
        tmp.mkdir()
        lake, progress = tmp / "lake", tmp / "progress"
        p = _child(script, tmp, lake, "loop", str(progress))
        assert p.stdout is not None and p.stdout.readline().strip() == "ready", p.stderr.read() if p.stderr else ""
        time.sleep(rng.uniform(0.2, 2.5))
        killed_at = time.time()
        os.kill(p.pid, signal.SIGKILL)
        p.wait(timeout=30)
        p.stdout.close()
        assert p.stderr is not None
        p.stderr.close()
        marks = [(float(t), int(n)) for t, n in (line.split() for line in progress.read_text().splitlines()
                                                 if line.count(" ") == 1)]
        done = marks[-1][1] + 100 if marks else 101  # the batch in flight may have run
        kept = max([n for t, n in marks if t <= killed_at - FLUSH_S - SLACK_S], default=0)
        assert marks, "the child made no progress before the kill"
        got = query(lake, "SELECT (SELECT sum(count) FROM aggregates) AS n, (SELECT count(*) FROM calls) AS rows, "
                          "(SELECT count(DISTINCT (ts, latency_ns)) FROM calls) AS distinct_rows, "
                          "(SELECT count(*) FROM aggregates) AS agg_rows, "
                          "(SELECT count(DISTINCT (ts, function, variant, size_bucket)) FROM aggregates) AS agg_keys"
                    ).to_pylist()[0]
        n = got["n"] or 0
        why = f"seed {seed}, run {k}: {got}, calls done {done}, done {FLUSH_S + SLACK_S} s before the kill {kept}"
        assert kept <= n <= done, why
        assert got["rows"] == got["distinct_rows"] and got["agg_rows"] == got["agg_keys"], why  # nothing twice
        assert not (lake / "quarantine").exists(), why

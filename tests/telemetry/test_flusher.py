from __future__ import annotations

import random
import signal
import subprocess
import sys
import textwrap
import time

import pyarrow.parquet as pq
import pytest

from everypath.base.settings import Settings
from everypath.telemetry.flusher import Flusher
from everypath.telemetry.lake import Lake
from everypath.telemetry.views import query

from ._data import DEVICE, REPO, SITES, env, raw

# a child process publishing rows with consecutive timestamps through a Flusher
CHILD = textwrap.dedent("""
    import sys, time
    from everypath.base.settings import Settings
    from everypath.telemetry.flusher import Flusher
    from everypath.telemetry.lake import Lake
    from tests.telemetry._data import DEVICE, SITES, raw
    mode = sys.argv[1]
    made = [0]
    def drain():  # kill: 2000 rows per drain forever; term: all 6000 rows at the first drain
        if mode != "kill" and made[0] >= 6000:
            return None
        n = 2000 if mode == "kill" else 6000
        r = raw(n, seed=made[0], ts0=made[0])
        made[0] += n
        return r, SITES
    s = Settings.from_env()
    f = Flusher(drain, Lake(s.lake), s, DEVICE, publish_rows=4000, publish_seconds=s.flush_seconds)
    print("ready", flush=True)
    last = -1
    try:
        while True:
            if f.published_rows != last:
                last = f.published_rows
                print("published", last, flush=True)
            time.sleep(0.002)
    except KeyboardInterrupt:
        print("interrupted", f.published_rows, flush=True)
        sys.exit(3)
""")


def _settings(tmp_path, flush=0.02) -> Settings:
    return Settings(lake=tmp_path, flush_seconds=flush)


def test_flushes_on_schedule_and_on_close(tmp_path):
    made = [0]

    def drain():
        if made[0] >= 5:
            return None
        made[0] += 1
        return raw(1000, seed=made[0], ts0=made[0] * 10**6), SITES

    lake = Lake(tmp_path)
    f = Flusher(drain, lake, _settings(tmp_path), DEVICE, publish_rows=2000, publish_seconds=60,
                install_signals=False)
    deadline = time.monotonic() + 10
    while f.published_rows < 4000 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert f.published_rows == 4000  # two sizeable parts, the fifth batch still buffered
    f.close()
    assert f.published_rows == 5000 and f.errors == 0
    assert query(lake, "SELECT count(*) AS n, count(DISTINCT ts) AS d FROM calls").to_pylist() == [
        {"n": 5000, "d": 5000}]
    assert len(lake.files()) == 3


def test_errors_are_logged_and_counted_never_raised(tmp_path, caplog):
    calls = [0]

    def drain():
        calls[0] += 1
        if calls[0] == 1:
            raise RuntimeError("ring corrupted")
        return raw(10, seed=calls[0]), SITES

    (tmp_path / "file").write_text("not a directory")
    lake = Lake(tmp_path / "file" / "lake")  # publishing can only fail
    f = Flusher(drain, lake, _settings(tmp_path), DEVICE, install_signals=False, start=False)
    f.flush()
    f.flush()
    assert f.errors >= 2 and f.published_rows == 0 and f._buf_rows > 0  # rows kept for a retry
    assert "ring corrupted" in caplog.text and "publishing" in caplog.text
    f.close()


def test_sigkill_loses_only_the_unpublished_tail(tmp_path):
    e = {**env(tmp_path), "EVERYPATH_FLUSH_SECONDS": "0.01"}
    child = subprocess.Popen([sys.executable, "-c", CHILD, "kill"], env=e, cwd=REPO, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert child.stdout.readline().strip() == "ready"
    published = 0
    stop_at = time.monotonic() + random.uniform(0.5, 1.5)
    while time.monotonic() < stop_at:
        line = child.stdout.readline().split()
        if line and line[0] == "published":
            published = int(line[1])
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=10)
    assert published > 0
    lake = Lake(tmp_path)
    for part in lake.files():  # every visible file reads fully
        assert pq.read_table(part).num_rows > 0
    got = query(lake, "SELECT count(*) AS n, count(DISTINCT ts) AS d, min(ts) AS lo, max(ts) AS hi FROM calls")
    row = got.to_pylist()[0]
    assert row["n"] == row["d"] >= published  # nothing published was lost, nothing twice
    # what is missing is only the tail: the rows present are exactly the first n made
    assert query(lake, "SELECT max(epoch_ns(ts)) AS hi FROM calls").to_pylist()[0]["hi"] == row["n"] - 1


@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, -signal.SIGTERM), (signal.SIGINT, 3)])
def test_signal_flushes_then_chains(tmp_path, sig, code):
    e = {**env(tmp_path), "EVERYPATH_FLUSH_SECONDS": "3600"}  # only the signal can publish
    child = subprocess.Popen([sys.executable, "-c", CHILD, "term"], env=e, cwd=REPO, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert child.stdout.readline().strip() == "ready"
    assert child.stdout.readline().split() == ["published", "0"]
    child.send_signal(sig)
    out, err = child.communicate(timeout=20)
    assert child.returncode == code, err
    if sig == signal.SIGINT:
        assert "interrupted" in out  # KeyboardInterrupt reached the program as usual
    # the thread waits an hour: only the signal's flush can have drained and published
    assert query(Lake(tmp_path), "SELECT count(*) AS n FROM calls").to_pylist() == [{"n": 6000}]

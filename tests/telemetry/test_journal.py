"""The exit journal (telemetry/journal.py): what a process wrote at exit with NumPy alone reaches the lake
exactly once, whoever publishes it, also after a publisher died half-way; a journal that cannot be read is
set aside, never blocks the lake, and readers see every row through Lake.files()."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from everypath.telemetry import journal
from everypath.telemetry.aggregates import AggregateRows, bin_of
from everypath.telemetry.lake import Lake
from everypath.telemetry.views import query

from ._data import DEVICE, SITES, raw


def _aggregates(n: int, t0: int) -> AggregateRows:
    v = np.random.default_rng(3).integers(100, 10_000, n)
    b, c = np.unique(bin_of(v), return_counts=True)
    return AggregateRows(t0, t0 + 5 * 10**9, np.array([1], np.int32), np.array([0], np.int16),
                         np.array([10], np.uint8), np.array([n], np.int64), np.array([n], np.int64),
                         np.array([v.sum()], np.int64), np.array([v.min()], np.int64), np.array([v.max()], np.int64),
                         np.array([0, len(b)], np.int64), b.astype(np.int32), c.astype(np.int64))


def _write(root: Path, n: int = 50) -> Path:
    r = raw(n)
    r = type(r)(**{**r.__dict__, "inclusion": np.full(n, 0.5, np.float32), "table_version": "t-1"})
    return journal.write(root, [(r, list(SITES))], [(_aggregates(400, int(r.ts_ns[0])), list(SITES))], DEVICE)


def _counts(root: Path) -> tuple[int, int, float]:
    row = query(root, "SELECT count(*) AS n, sum(1 / inclusion) AS est FROM calls").to_pylist()[0]
    agg = query(root, "SELECT sum(count) AS n FROM aggregates").to_pylist()[0]["n"]
    return row["n"], int(agg or 0), row["est"]


def test_a_journal_reaches_the_lake_once_with_every_column(tmp_path: Path) -> None:
    path = _write(tmp_path)
    device, calls, aggs = journal.read(path)
    assert device == DEVICE and len(calls[0][0]) == 50 and int(aggs[0][0].count[0]) == 400
    np.testing.assert_array_equal(calls[0][0].shape, raw(50).shape)
    assert _counts(tmp_path) == (50, 400, 100.0)  # query() opens the lake: the journal is published first
    assert journal.pending(tmp_path) == [] and list(journal.journal_dir(tmp_path).iterdir()) == []
    assert Lake(tmp_path).settle() == 0 and _counts(tmp_path) == (50, 400, 100.0)
    tv = query(tmp_path, "SELECT DISTINCT table_version FROM calls").to_pylist()
    assert tv == [{"table_version": "t-1"}]


def test_a_publisher_that_died_half_way_never_doubles_a_count(tmp_path: Path) -> None:
    """A claim whose process is gone is taken over; what it had published already is not published again."""
    path = _write(tmp_path)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    pid = int(dead.stdout)
    claimed = path.with_name(f"{path.stem}.claimed-{pid}")
    lake = Lake(tmp_path)
    journal._publish(lake, path)  # the dead publisher got this far (aggregates and calls) ...
    os.rename(path, claimed)  # ... holding its claim, then died before removing the journal
    os.utime(claimed, (1, 1))  # old enough to be stale
    assert journal.settle(lake) == 50  # taken over and published again: named batches, so nothing doubles
    assert not claimed.exists()
    assert _counts(tmp_path) == (50, 400, 100.0)


def test_a_live_claim_is_left_to_its_process(tmp_path: Path) -> None:
    path = _write(tmp_path)
    claimed = path.with_name(f"{path.stem}.claimed-{os.getpid()}")
    os.rename(path, claimed)
    os.utime(claimed, (1, 1))
    assert journal.settle(Lake(tmp_path)) == 0 and claimed.exists()


def test_an_unreadable_journal_is_set_aside_and_the_lake_still_reads(tmp_path: Path, caplog) -> None:
    _write(tmp_path)
    bad = journal.journal_dir(tmp_path) / "1764000000-00000000deadbeef.npz"
    bad.write_bytes(b"not a zip")
    assert _counts(tmp_path) == (50, 400, 100.0)
    assert [p.name for p in journal.journal_dir(tmp_path).iterdir()] == ["1764000000-00000000deadbeef.bad"]
    assert "cannot be published" in caplog.text

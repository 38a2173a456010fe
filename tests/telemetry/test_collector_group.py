"""Group commit (telemetry/group_commit.py): many uploads share one part per device class, an
acknowledgement means the rows are published, a commit that dies between its parts and its
markers is finished by the next one (nothing stored twice, nothing lost), and a collector
stopped with SIGTERM publishes and answers what it accepted."""
from __future__ import annotations

import signal
import threading
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

from everypath.telemetry import group_commit as gc
from everypath.telemetry.group_commit import Closed, GroupCommitter
from everypath.telemetry.ingest import publish_rows
from everypath.telemetry.lake import Lake

from ._data import batch
from ._load import ARROW, TOKEN, TS0, Collector, _send, good_batches


def _table(n: int, k: int, device_class: str = "cls000000001") -> pa.Table:
    return pa.Table.from_batches([batch(n, seed=k, ts0=TS0 + k * 10_000, device_class=device_class)])


def _mixed(n: int, k: int) -> pa.Table:
    """A batch with rows of two device classes (stored as two pieces)."""
    return pa.concat_tables([_table(n, k, "clsA00000001"), _table(n, k + 1, "clsB00000002")])


def _count(lake: Lake) -> tuple[int, int]:
    n, distinct = duckdb.sql(f"SELECT count(*), count(DISTINCT ts) FROM read_parquet('{lake.glob()}')").fetchall()[0]
    return n, distinct


def test_concurrent_uploads_share_parts_and_each_is_stored_once(tmp_path: Path) -> None:
    lake = Lake(tmp_path)
    c = GroupCommitter(lake)
    tables = [_table(200, k) for k in range(40)]
    out: dict[int, tuple[int, int]] = {}

    def up(k: int) -> None:
        out[k] = c.submit(f"batch-{k % 40:04d}", tables[k % 40])  # 40..79 repeat 0..39's ids: duplicates

    threads = [threading.Thread(target=up, args=(k,)) for k in range(80)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    c.close()
    assert sum(s for s, _ in out.values()) == 40 * 200  # each id stored once, the other answer a duplicate
    assert sum(d for _, d in out.values()) == 40 * 200
    assert _count(lake) == (8000, 8000)
    parts = lake.files()
    assert len(parts) < 40 and all(p.name.startswith("part-g-") for p in parts)  # shared, not one per upload
    assert not list(lake.batches.glob(".group-*"))  # every manifest settled
    again = GroupCommitter(lake)  # a restarted collector knows every id
    assert again.submit("batch-0007", tables[7]) == (0, 200)
    assert again.submit("batch-0100", _table(0, 100)) == (0, 0)  # an empty batch stores nothing
    again.close()
    again.close()  # a second close (server_close twice) is harmless
    with pytest.raises(Closed):
        again.submit("batch-0101", tables[1])


def test_a_commit_that_dies_after_its_parts_is_finished_by_the_next(tmp_path: Path, monkeypatch) -> None:
    """The worst moment: parts renamed into place, markers not written (the process dies, or
    the disk fails). The next commit marks the published pieces; the client's retry stores
    only what is missing."""
    lake = Lake(tmp_path)
    c = GroupCommitter(lake)
    real = lake.mark_batches
    calls = []

    def die_after_first_part(names: list[str], paths: list[Path]) -> None:
        calls.append(names)
        if len(calls) == 1:
            real(names, paths)  # the first class's piece is marked ...
        raise OSError("disk gone")  # ... the second's part is published, its marker never written

    monkeypatch.setattr(lake, "mark_batches", die_after_first_part)
    with pytest.raises(OSError, match="disk gone"):
        c.submit("mixed-0001", _mixed(300, 1))  # not acknowledged: the client will send it again
    monkeypatch.setattr(lake, "mark_batches", real)
    assert list(lake.batches.glob(".group-*.json"))  # the manifest outlives the failure
    assert _count(lake) == (600, 600)  # both classes' rows are in the lake already
    c.close()
    restarted = GroupCommitter(lake)  # recovery at start-up marks both pieces
    assert not list(lake.batches.glob(".group-*.json"))
    assert restarted.submit("mixed-0001", _mixed(300, 1)) == (0, 600)
    restarted.close()
    assert _count(lake) == (600, 600)


def test_a_commit_that_dies_between_two_classes_parts_is_completed_by_the_retry(tmp_path: Path, monkeypatch) -> None:
    lake = Lake(tmp_path)
    c = GroupCommitter(lake, writers=1)  # the two parts one after the other
    real = gc.write_parquet
    written = []

    def one_part_then_die(table: pa.Table, directory: Path, name: str, *, exclusive: bool) -> Path | None:
        if written:
            raise OSError("killed")
        written.append(directory)
        return real(table, directory, name, exclusive=exclusive)

    monkeypatch.setattr(gc, "write_parquet", one_part_then_die)
    with pytest.raises(OSError, match="killed"):
        c.submit("mixed-0002", _mixed(250, 5))
    monkeypatch.setattr(gc, "write_parquet", real)
    assert _count(lake) == (250, 250)  # one class's part made it
    stored, before = c.submit("mixed-0002", _mixed(250, 5))  # the retry (this commit recovers first)
    assert (stored, before) == (250, 250)
    c.close()
    assert _count(lake) == (500, 500)
    # the per-request path (ingest, older collectors) recognises the pieces too
    assert publish_rows(lake, _mixed(250, 5), "mixed-0002") == (0, 500)


def test_sigterm_publishes_and_answers_what_was_accepted(tmp_path: Path) -> None:
    """Uploads in flight when the collector gets SIGTERM: every 201 is in the lake, the rest
    are refused or cut off (never half stored), and after a restart every batch is stored once."""
    lake = tmp_path / "lake"
    batches = good_batches(60_000, 2_000)
    answers: dict[str, int] = {}
    with Collector(lake, 64 << 20, tmp_path / "collector.log") as col:
        first = threading.Event()

        def up(bid: str, body: bytes) -> None:
            try:
                answers[bid] = _send(col.port, body, bid, TOKEN, ARROW)[0]
                first.set()
            except OSError:
                answers[bid] = -1  # the connection was refused or closed: not acknowledged

        threads = [threading.Thread(target=up, args=(b, body)) for b, body, _ in batches]
        for t in threads:
            t.start()
        assert first.wait(60)  # uploads are flowing
        assert col.proc is not None
        col.proc.send_signal(signal.SIGTERM)
        for t in threads:
            t.join(60)
        assert col.proc.wait(60) == 0  # a clean exit after the flush
        acked = {b for b, s in answers.items() if s in (200, 201)}
        assert set(answers.values()) <= {200, 201, 503, -1}, answers
        got = {r[0] for r in duckdb.sql(
            f"SELECT DISTINCT (epoch_ns(ts) - {TS0}) // 2000 FROM read_parquet('{Lake(lake).glob()}')").fetchall()}
        assert acked and {int(b.removeprefix("load-")) for b in acked} <= got  # every acknowledged one is there
        col.start()  # the clients send the rest again
        for b, body, _ in batches:
            assert _send(col.port, body, b, TOKEN, ARROW)[0] == (200 if b in acked else 201)
    assert _count(Lake(lake)) == (60_000, 60_000)

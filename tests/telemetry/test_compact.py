from __future__ import annotations

import datetime as dt
import json
import shutil
import threading

import pyarrow.parquet as pq

from everypath.telemetry.compact import compact, recover
from everypath.telemetry.lake import Lake
from everypath.telemetry.views import query

from ._data import batch

YESTERDAY = dt.datetime.now(dt.timezone.utc).date() - dt.timedelta(days=1)
CHECK = "SELECT count(*) AS n, count(DISTINCT ts) AS d, sum(hash(ts, latency_ns, call_site, variant, shape)::HUGEINT)" \
        "::VARCHAR AS h FROM calls"


def _fill(lake: Lake, parts: int, date: dt.date, seed0: int = 0) -> int:
    n = 0
    for i in range(parts):
        rows = 500 + 37 * i
        lake.publish(batch(rows, seed=seed0 + i, ts0=(seed0 + i) * 10**12, device_class=f"class{i % 2}"), date=date)
        n += rows
    return n


def test_compaction_keeps_every_row_once_and_writes_rollups(tmp_path):
    lake = Lake(tmp_path)
    n = _fill(lake, 8, YESTERDAY)
    n_today = _fill(lake, 3, dt.datetime.now(dt.timezone.utc).date(), seed0=100)
    before = query(lake, CHECK).to_pylist()
    daily_before = query(lake, "SELECT sum(n) AS n, sum(sum_latency_ns) AS s FROM daily").to_pylist()
    r = compact(lake, grace_s=0)
    assert len(r.partitions) == 2 and r.files_in == 8 and r.rows == n and r.rollups == [YESTERDAY.isoformat()]
    assert query(lake, CHECK).to_pylist() == before
    assert before[0]["n"] == before[0]["d"] == n + n_today
    ydir = lake.calls / f"date={YESTERDAY.isoformat()}"
    parts = sorted(ydir.glob("*/*.parquet"))
    assert len(parts) == 2 and all(p.name.startswith("part-c-") for p in parts)
    assert all(pq.ParquetFile(p).metadata.num_row_groups == 1 for p in parts)
    assert not (tmp_path / "staging").exists() and not list(tmp_path.rglob(".tmp-*"))
    # daily: the closed date from its roll-up, today from raw rows, nothing twice
    assert query(lake, "SELECT sum(n) AS n, sum(sum_latency_ns) AS s FROM daily").to_pylist() == daily_before
    assert query(lake, "SELECT count(*) AS k FROM rollups_daily").to_pylist()[0]["k"] > 0
    # idempotent: a second run has nothing to do
    r2 = compact(lake, grace_s=0)
    assert r2.partitions == [] and r2.rollups == []
    assert query(lake, CHECK).to_pylist() == before


def test_grace_period_and_open_dates_are_left_alone(tmp_path):
    lake = Lake(tmp_path)
    _fill(lake, 4, YESTERDAY)
    _fill(lake, 4, dt.datetime.now(dt.timezone.utc).date(), seed0=50)
    r = compact(lake, grace_s=3600)  # yesterday's files are seconds old: not closed yet
    assert r.partitions == [] and len(lake.files()) == 8


def test_concurrent_publisher_and_reader_during_compaction(tmp_path):
    lake = Lake(tmp_path)
    published = [_fill(lake, 6, YESTERDAY)]
    stop = threading.Event()
    errors: list[BaseException] = []
    seen: list[tuple[int, int, int]] = []

    def publisher() -> None:
        i = 0
        while not stop.is_set():
            rows = 200 + i
            Lake(tmp_path).publish(batch(rows, seed=1000 + i, ts0=(1000 + i) * 10**12,
                                         device_class=f"class{i % 2}"), date=YESTERDAY)
            published[0] += rows
            i += 1

    def reader() -> None:
        while not stop.is_set():
            hi_before = published[0]
            row = query(lake, "SELECT count(*) AS n, count(DISTINCT ts) AS d FROM calls").to_pylist()[0]
            seen.append((row["n"], row["d"], hi_before))
            if row["n"] != row["d"] or row["n"] > published[0] + 1000:  # +1000: a publish in flight
                errors.append(AssertionError(f"double count: {row} with {published[0]} published"))

    def guard(f):  # noqa: ANN001, ANN202
        def run() -> None:
            try:
                f()
            except BaseException as e:  # noqa: BLE001
                errors.append(e)
        return run

    threads = [threading.Thread(target=guard(f)) for f in (publisher, reader)]
    for t in threads:
        t.start()
    try:
        for _ in range(6):
            compact(lake, grace_s=0)
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=60)
    assert not errors, errors[:3]
    assert len(seen) > 3
    got = query(lake, "SELECT count(*) AS n, count(DISTINCT ts) AS d FROM calls").to_pylist()[0]
    assert got == {"n": published[0], "d": published[0]}


def test_recover_finishes_a_swapped_compaction(tmp_path):
    """A compaction that crashed after the swap: the old files sit in staging; the next run
    deletes the merged inputs and carries a late file back into the live partition."""
    lake = Lake(tmp_path)
    _fill(lake, 2, YESTERDAY)
    pdir = sorted((lake.calls / f"date={YESTERDAY.isoformat()}").glob("*"))[0]
    [old] = list(pdir.glob("*.parquet"))
    late = lake.publish(batch(7, seed=9, ts0=9 * 10**15, device_class=pdir.name.split("=")[1]), date=YESTERDAY)[0]
    staging = tmp_path / "staging" / "deadbeef"
    sdir = staging / pdir.relative_to(tmp_path)
    sdir.mkdir(parents=True)
    merged = "part-c-merged.parquet"
    (staging / "journal.json").write_text(json.dumps({"partition": str(pdir.relative_to(tmp_path)),
                                                      "inputs": [old.name], "merged": merged}))
    # the state right after the swap: live has the merged copy, staging the old input + a late part
    old.rename(pdir / merged)
    shutil.copy(pdir / merged, sdir / old.name)
    late.rename(sdir / late.name)
    assert recover(lake) == 1
    assert sorted(p.name for p in pdir.iterdir()) == sorted([merged, late.name])
    assert not staging.exists()

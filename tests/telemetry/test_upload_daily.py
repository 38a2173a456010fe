"""Both tables uploaded to a real collector process, the ledger and compaction agreeing (every
row stored once, none skipped, across compactions); and the `daily` view and compaction's daily
roll-ups counting every call of a lake whose raw rows are a sample (tests/telemetry/_fleet.py)."""
from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from everypath.telemetry import aggregates
from everypath.telemetry.aggregates import RELATIVE_ERROR, bin_of, hist_quantile
from everypath.telemetry.compact import compact
from everypath.telemetry.lake import Lake
from everypath.telemetry.upload import ledger, part_id, upload
from everypath.telemetry.views import ROLLUP_VERSION, query
from tests.telemetry._data import DEVICE, batch
from tests.telemetry._fleet import SITES, Truth, aggregate_table, make_fleet
from tests.telemetry._load import TOKEN, Collector

T0 = 1_764_000_000_000_000_000  # 2025-11: inside the collector's accepted range
YESTERDAY = dt.datetime.now(dt.timezone.utc).date() - dt.timedelta(days=1)
CALLS_CHECK = "SELECT count(*) AS n, sum(hash(ts, latency_ns, call_site)::HUGEINT)::VARCHAR AS h FROM calls"
AGG_CHECK = ("SELECT coalesce(sum(count), 0)::BIGINT AS n, count(*) AS rows, "
             "sum(hash(ts, call_site, variant, count, sum_ns)::HUGEINT)::VARCHAR AS h FROM aggregates")


def _publish_aggs(lake: Lake, k: int, seed: int, device_class: str, date: dt.date = YESTERDAY) -> int:
    """One aggregates part of k rows; returns the calls it counts."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(k):
        v = rng.integers(100, 10**6, 40)
        bins, counts = np.unique(bin_of(v), return_counts=True)
        rows.append({"ts": 2 * 10**18 + seed * 1000 + i, "start": 2 * 10**18 + seed * 1000 + i - 5 * 10**9,
                     "function": "pkg.mod.kernel", "op": "numpy.add", "call_site": f"kernel.py:{seed}",
                     "variant": ("loops", "simd")[i % 2], "dtype": "float64", "size_bucket": 13, "count": 40 + i,
                     "timed": 40, "sum_ns": int(v.sum()), "min_ns": int(v.min()), "max_ns": int(v.max()),
                     "hist_bin": bins.tolist(), "hist_count": counts.tolist()})
    aggregates.publish(lake, aggregate_table(rows, {**DEVICE, "device_class": device_class}), date=date)
    return sum(40 + i for i in range(k))


def _same(a: Lake, b: Path) -> None:
    """The collector's lake holds exactly the device's rows of both tables (each once)."""
    assert query(b, CALLS_CHECK).to_pylist() == query(a, CALLS_CHECK).to_pylist()
    assert query(b, AGG_CHECK).to_pylist() == query(a, AGG_CHECK).to_pylist()


def test_upload_sends_both_tables_once_across_compactions(tmp_path: Path) -> None:
    local = Lake(tmp_path / "device")
    for i in range(2):  # two partitions of each table, two parts each
        for j in range(2):
            local.publish(batch(100 + 10 * j, seed=10 * i + j, ts0=T0 + (10 * i + j) * 10**12, device_class=f"dc{i}"),
                          date=YESTERDAY)
            _publish_aggs(local, 3 + j, seed=10 * i + j, device_class=f"dc{i}")
    with Collector(tmp_path / "central", 4 << 20, tmp_path / "collector.log") as c:
        url = f"http://127.0.0.1:{c.port}"
        r = upload(local, url, TOKEN)
        assert (r.sent, r.rows, r.aggregate_parts, r.aggregate_rows, r.failed) == (4, 420, 4, 14, [])
        assert len(ledger(local)) == 8 and all(i.startswith(("part-", "agg-")) for i in ledger(local))
        _same(local, c.lake)
        # a new part in each table's dc0 partition: the partition mixes sent and unsent parts, so compaction
        # leaves it (a merged part would be half uploaded) and merges the wholly uploaded dc1 ones, noting them
        local.publish(batch(7, seed=99, ts0=T0 + 99 * 10**12, device_class="dc0"), date=YESTERDAY)
        _publish_aggs(local, 2, seed=99, device_class="dc0")
        rep = compact(local, grace_s=0)
        assert sorted(rep.partitions) == [f"aggregates/date={YESTERDAY}/device_class=dc1",
                                          f"calls/date={YESTERDAY}/device_class=dc1"]
        merged = [p for p in [*local.files(), *local.aggregate_files()] if p.name.startswith("part-c-")]
        assert len(merged) == 2
        assert {part_id(m, "agg-" if m.is_relative_to(local.aggregates) else "part-") for m in merged} <= ledger(local)
        r = upload(local, url, TOKEN)  # only the two new parts go; the merged ones are known
        assert (r.sent, r.rows, r.aggregate_parts, r.aggregate_rows, r.duplicates) == (1, 7, 1, 2, 0)
        assert r.skipped == 6 and r.failed == []
        _same(local, c.lake)
        rep = compact(local, grace_s=0)  # dc0 is wholly uploaded now: merged and noted
        assert sorted(rep.partitions) == [f"aggregates/date={YESTERDAY}/device_class=dc0",
                                          f"calls/date={YESTERDAY}/device_class=dc0"]
        c.kill()  # a collector that is down: nothing to send anyway, and nothing is noted wrongly
        r = upload(local, url, TOKEN, retries=0)
        assert (r.sent, r.aggregate_parts, r.failed) == (0, 0, []) and r.skipped == 4
        c.start()
        # a partition compacted before any of it was sent: the merged part is sent, once
        local.publish(batch(5, seed=7, ts0=T0 + 7 * 10**12, device_class="dc9"), date=YESTERDAY)
        local.publish(batch(6, seed=8, ts0=T0 + 8 * 10**12, device_class="dc9"), date=YESTERDAY)
        _publish_aggs(local, 1, seed=7, device_class="dc9")
        _publish_aggs(local, 2, seed=8, device_class="dc9")
        compact(local, grace_s=0)
        r = upload(local, url, TOKEN)
        assert (r.sent, r.rows, r.aggregate_parts, r.aggregate_rows) == (1, 11, 1, 3)
        _same(local, c.lake)
        # the ledger lost: parts merged from uploaded parts say so themselves (not sent: the collector has
        # their rows under the old ids); the others are offered again and answered "duplicate batch"
        (local.root / ".uploaded").unlink()
        r = upload(local, url, TOKEN)
        assert (r.sent, r.aggregate_parts, r.duplicates, r.skipped) == (0, 0, 2, 4)
        assert len(ledger(local)) == 6
        _same(local, c.lake)


def test_upload_refusals_are_reported_and_not_noted(tmp_path: Path) -> None:
    local = Lake(tmp_path / "device")
    _publish_aggs(local, 2, seed=1, device_class="dcx")
    with Collector(tmp_path / "central", 4 << 20, tmp_path / "collector.log") as c:
        r = upload(local, f"http://127.0.0.1:{c.port}", "wrong-token")
        assert len(r.failed) == 1 and "HTTP 403" in r.failed[0] and not ledger(local)
        r = upload(local, f"http://127.0.0.1:{c.port}", TOKEN)
        assert (r.aggregate_parts, r.aggregate_rows, r.failed) == (1, 2, [])


# --- daily: every call ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> tuple[Lake, Truth]:
    return make_fleet(tmp_path_factory.mktemp("daily-fleet"))


def _truth_daily(truth: Truth) -> dict[tuple, tuple[int, np.ndarray]]:
    """(calls, true latencies) per daily key (date, op, variant, device_class, function)."""
    fn = {s.op: s.function for s in SITES}
    out: dict[tuple, tuple[int, list[int]]] = {}
    for k, n in truth.counts().items():
        date, dc, op, variant, _ = k
        key = (date, op, variant, dc, fn[op])
        calls, lat = out.get(key, (0, []))
        out[key] = (calls + n, lat + truth.latencies.get(k, []))
    return {k: (n, np.array(lat, np.int64)) for k, (n, lat) in out.items()}


def _check_daily(lake: Lake, truth: Truth, source: str) -> None:
    rows = query(lake, f"SELECT * FROM {source}").to_pylist()
    want = _truth_daily(truth)
    got = {(r["date"], r["op"], r["variant"], r["device_class"], r["function"]): r for r in rows}
    assert got.keys() == want.keys() and len(rows) == len(got)
    for k, (n, lat) in want.items():
        g = got[k]
        assert g["n"] == n and isinstance(g["n"], int), (k, g["n"], n)
        assert g["sum_latency_ns"] == pytest.approx(float(lat.sum()), rel=1e-12), k
        for q, col in ((0.5, "p50"), (0.95, "p95"), (0.99, "p99")):
            exact = float(np.percentile(lat, 100 * q, method="inverted_cdf"))
            assert abs(g[col] - exact) <= RELATIVE_ERROR * exact, (k, col, g[col], exact)
            assert g[col] == hist_quantile(bin_of(lat), np.ones(len(lat)), q, int(lat.min()), int(lat.max()))


def test_daily_counts_every_call_of_a_sampled_lake_open_and_compacted(fleet: tuple[Lake, Truth],
                                                                      tmp_path: Path) -> None:
    lake, truth = fleet
    raw_rows = sum(pq.ParquetFile(p).metadata.num_rows for p in lake.files())
    assert raw_rows < sum(truth.counts().values()) / 2  # counting raw rows would be far off
    assert query(lake, "SELECT count(*) AS k FROM rollups_daily").column("k")[0].as_py() == 0
    _check_daily(lake, truth, "daily")  # open dates: computed from the parts
    # compaction merges both tables and stores each closed date's roll-up, of every call
    import shutil

    copy = Lake(tmp_path / "lake")
    shutil.copytree(lake.root, copy.root)
    rep = compact(copy, grace_s=0)
    assert sorted(rep.rollups) == sorted({k[0].isoformat() for k in truth.counts()})
    stored = sorted(copy.rollups.glob("date=*/part-0.parquet"))
    assert len(stored) == 2
    assert all(pq.read_schema(p).metadata[b"everypath.schema_version"] == str(ROLLUP_VERSION).encode() for p in stored)
    _check_daily(copy, truth, "rollups_daily")
    _check_daily(copy, truth, "daily")  # now read from the roll-ups
    assert compact(copy, grace_s=0).rollups == []  # current roll-ups are not rewritten


def test_an_older_rollup_is_rewritten(fleet: tuple[Lake, Truth], tmp_path: Path) -> None:
    import shutil

    lake, truth = fleet
    copy = Lake(tmp_path / "lake")
    shutil.copytree(lake.root, copy.root)
    compact(copy, grace_s=0)
    # a version-1 roll-up (no version marker; counts of the raw sample, here halved) left by an older
    # everypath, newer than every part: only its version has it rewritten
    import pyarrow.compute as pc

    for p in copy.rollups.glob("date=*/part-0.parquet"):
        t = pq.read_table(p)
        pq.write_table(t.replace_schema_metadata(None).set_column(4, "n", pc.divide(t.column("n"), 2)), p)
    with pytest.raises(AssertionError):
        _check_daily(copy, truth, "daily")
    assert len(compact(copy, grace_s=0).rollups) == 2
    _check_daily(copy, truth, "daily")

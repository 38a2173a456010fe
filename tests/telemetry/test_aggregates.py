"""Every call counted (issue 16): exact aggregates beside the thinned raw sample, the lake's
`aggregates` table, its views and compaction, and the histogram's stated error."""
from __future__ import annotations

import datetime as dt
import os
import time

import numpy as np
import pyarrow as pa
import pytest

import everypath
from everypath.base.settings import Settings
from everypath.lowering import _runtime as rt
from everypath.telemetry import aggregates
from everypath.telemetry.aggregates import AggregateRows, bin_low, bin_mid, bin_of, hist_quantile
from everypath.telemetry.compact import compact
from everypath.telemetry.flusher import Flusher
from everypath.telemetry.lake import Lake
from everypath.telemetry.shim import SiteCatalog, drain, stop_telemetry
from everypath.telemetry.views import query

from ._data import DEVICE, SITES

F32 = np.ndarray[tuple[int], np.dtype[np.float32]]
TSC_ERROR = 2 * aggregates.RELATIVE_ERROR + 1e-4  # ticks binned, then re-binned to ns


def axpy(a: F32, b: F32) -> F32:
    return a * 2.0 + b  # one fused element-wise call


@pytest.fixture(scope="module")
def kernel():
    fn = everypath.compile(axpy, settings=Settings.from_env({"EVERYPATH_TELEMETRY": "0"}))
    x = np.random.default_rng(0).random(4096).astype(np.float32)
    fn(x, x)
    return fn, x


@pytest.fixture
def hub():
    stop_telemetry()
    rt.telemetry_configure(False)
    rt.telemetry_drain()
    yield rt
    rt.telemetry_configure(False)
    rt.telemetry_drain()


def test_ring_overflow_keeps_exact_counts(kernel, hub) -> None:
    fn, x = kernel
    for budget in (1.0, 0.01):  # every call timed; the default budget (a random share timed)
        hub.telemetry_configure(True, 1.0, 0.0, timing_budget=budget)
        calls = 40_000  # ten rings' worth without a drain: the raw sample overflows
        for _ in range(calls):
            fn(x, x)
        raw = drain(rt, SiteCatalog())[0]
        agg = raw.aggregates
        assert len(raw) <= 4096 and agg.count.tolist() == [calls]  # every call counted, either way
        assert agg.size_bucket[0] == 13  # 4096 elements: [2^12, 2^13)
        assert agg.min_ns[0] <= agg.sum_ns[0] / calls <= agg.max_ns[0]
        lo, hi = agg.hist_offsets[0], agg.hist_offsets[1]
        assert (np.diff(agg.hist_bin[lo:hi]) > 0).all()
        total = int(agg.hist_count[lo:hi].sum())  # each timed call weighted 1/p: an estimate of the count
        if budget == 1.0:
            assert agg.timed.tolist() == [calls] and total == calls
        else:
            assert 0 < agg.timed[0] <= calls and abs(total - calls) <= 0.15 * calls, (agg.timed, total)


def test_thinned_sample_is_unbiased_and_histograms_match_raw_latencies(kernel, hub) -> None:
    fn, x = kernel
    small = x[:256]
    hub.telemetry_configure(True, 1.0, 0.0, timing_budget=1.0)
    for _ in range(1000):  # 1000 records: every call kept (inclusion 1)
        fn(small, small)
    raw = drain(rt, SiteCatalog())[0]
    assert len(raw) == 1000 and (raw.inclusion == 1).all()
    agg = raw.aggregates
    assert agg.count.tolist() == [1000] and agg.size_bucket.tolist() == [9]
    bins = agg.hist_bin[agg.hist_offsets[0]:agg.hist_offsets[1]]
    counts = agg.hist_count[agg.hist_offsets[0]:agg.hist_offsets[1]]
    assert agg.min_ns[0] == raw.latency_ns.min() and agg.max_ns[0] == raw.latency_ns.max()
    for q in (0.01, 0.5, 0.9, 0.99):
        exact = np.quantile(raw.latency_ns, q, method="inverted_cdf")
        got = hist_quantile(bins, counts, q, int(agg.min_ns[0]), int(agg.max_ns[0]))
        assert abs(got - exact) <= TSC_ERROR * exact + 1, (q, got, exact)
    # 20000 calls in one interval: thinned to fit the ring; 1/inclusion weights sum to the count
    for _ in range(20_000):
        fn(x, x)
    d = drain(rt, SiteCatalog())[0]
    w = 1 / d.inclusion.astype(np.float64)
    assert len(d) < 4096 and int(d.aggregates.count.sum()) == 20_000
    sd = np.sqrt(((1 - d.inclusion) * w * w).sum())  # Horvitz-Thompson variance estimate
    assert abs(w.sum() - 20_000) <= 5 * sd + 1


def test_ring_pressure_drains_early_so_a_burst_keeps_its_raw_rows(kernel, hub, tmp_path) -> None:
    fn, x = kernel
    settings = Settings.from_env({"EVERYPATH_LAKE": str(tmp_path), "EVERYPATH_FLUSH_SECONDS": "60"})
    catalog = SiteCatalog()
    hub.telemetry_configure(True, 1.0, 0.0, timing_budget=1.0)
    f = Flusher(lambda: drain(rt, catalog), Lake(tmp_path), settings, DEVICE, install_signals=False,
                pressure=rt.telemetry_pressure)
    try:
        for _ in range(20):  # 40000 calls over ~1 s: 10 rings' worth inside one 60 s interval
            for _ in range(2000):
                fn(x, x)
            time.sleep(0.05)
        f.flush()
    finally:
        f.close()
    n = query(tmp_path, "SELECT count(*) AS rows, sum(1 / inclusion) AS est FROM calls").to_pylist()[0]
    exact = query(tmp_path, "SELECT n FROM op_counts").to_pylist()
    assert exact == [{"n": 40_000}] and catalog.dropped == 0
    assert n["rows"] > 8192  # drained several times before the timer: more than two rings' worth kept
    assert abs(n["est"] - 40_000) < 0.2 * 40_000


def stats(a: F32) -> float:  # 35 call sites: reductions over a and its strided views
    t = float(np.sum(a)) + float(np.max(a)) + float(np.min(a)) + float(np.mean(a)) + float(np.std(a))
    t += float(np.sum(a[::2])) + float(np.max(a[::2])) + float(np.min(a[::2])) + float(np.mean(a[::2]))
    t += float(np.sum(a[1::2])) + float(np.max(a[1::2])) + float(np.min(a[1::2])) + float(np.mean(a[1::2]))
    t += float(np.sum(a[::3])) + float(np.max(a[::3])) + float(np.min(a[::3])) + float(np.mean(a[::3]))
    t += float(np.sum(a[1::3])) + float(np.max(a[1::3])) + float(np.min(a[1::3])) + float(np.mean(a[1::3]))
    t += float(np.sum(a[::4])) + float(np.max(a[::4])) + float(np.min(a[::4])) + float(np.mean(a[::4]))
    t += float(np.var(a)) + float(np.argmax(a)) + float(np.argmin(a)) + float(np.prod(a))
    t += float(np.std(a[::2])) + float(np.var(a[::2])) + float(np.argmax(a[::2])) + float(np.argmin(a[::2]))
    t += float(np.ptp(a)) + float(np.median(a))
    return t


def _counts(fn, sizes: list[int], repeat: int = 1) -> tuple[int, int, int]:
    """(keys, calls counted with a key, calls counted without) of one drain interval"""
    rng = np.random.default_rng(1)
    for n in sizes:
        x = rng.random(n).astype(np.float32)
        for _ in range(repeat):
            fn(x)
    agg = rt.telemetry_drain()["aggregates"]
    return len(agg["count"]), int(agg["count"].sum()), int(agg["overflow"])


def test_a_thread_whose_keys_change_keeps_attributing_every_call(hub) -> None:
    fn = everypath.compile(stats, settings=Settings.from_env({"EVERYPATH_TELEMETRY": "0"}))
    fn(np.ones(12, np.float32))
    hub.telemetry_configure(True, 1.0, 0.0, timing_budget=1.0)
    hub.telemetry_drain()
    sites = 35
    # three intervals of new (site, size bucket) keys, each within one table (256 keys per thread)
    # but ~600 over the thread's life: a full table gives drained, idle slots to the new keys
    seen = 0
    for sizes in ([2**k for k in range(2, 9)], [2**k + 1 for k in range(9, 15)], [3 * 2**k for k in range(15, 19)]):
        keys, counted, unattributed = _counts(fn, sizes, repeat=2)
        assert unattributed == 0 and counted == 2 * sites * len(sizes), (sizes, counted, unattributed)
        seen += keys
    assert seen > 2 * 256
    # more keys than the table holds inside one interval: the excess is counted, not attributed
    keys, counted, unattributed = _counts(fn, [2**k + 3 for k in range(2, 19)])
    assert keys <= 256 < keys + unattributed and counted + unattributed == sites * 17
    keys, counted, unattributed = _counts(fn, [2**k for k in range(2, 9)])  # the next interval: room again
    assert unattributed == 0 and counted == sites * 7


def _synthetic(rng: np.random.Generator, values: np.ndarray, site: int, variant: int, t0: int) -> AggregateRows:
    b, c = np.unique(bin_of(values), return_counts=True)
    return AggregateRows(t0, t0 + 5 * 10**9, np.array([site], np.int32), np.array([variant], np.int16),
                         np.array([13], np.uint8), np.array([len(values)], np.int64), np.array([len(values)], np.int64),
                         np.array([values.sum()], np.int64), np.array([values.min()], np.int64),
                         np.array([values.max()], np.int64), np.array([0, len(b)], np.int64),
                         b.astype(np.int32), c.astype(np.int64))


def test_histogram_bins_and_merged_percentiles_in_sql(tmp_path) -> None:
    rng = np.random.default_rng(7)
    v = np.concatenate([rng.integers(0, 200, 500), rng.lognormal(9, 1.5, 5000).astype(np.int64),
                        np.array([2**41, 63, 64, 127, 128])])
    b = bin_of(v)
    width = bin_low(b + 1) - bin_low(b)
    inside = (bin_low(b) <= np.minimum(v, 2**40 - 1)) & (np.minimum(v, 2**40 - 1) < bin_low(b) + width)
    assert inside.all() and b.max() == aggregates.N_BINS - 1
    rel = np.abs(bin_mid(b) - v) / np.maximum(v, 1)
    assert rel[v < 2**40].max() <= aggregates.RELATIVE_ERROR
    # one key's calls split over intervals and two devices; merged in SQL and in Python
    lake = Lake(tmp_path)
    chunks = np.array_split(v, 7)
    for i, chunk in enumerate(chunks):
        rows = _synthetic(rng, chunk, site=1, variant=i % 2, t0=i * 10**10)
        dev = {**DEVICE, "device_class": "classA" if i < 4 else "classB"}
        aggregates.publish(lake, pa.Table.from_batches([aggregates.to_batch(rows, SITES, dev)]))
    got = query(lake, "SELECT variant, device_class, n, p50, p95, p99 FROM op_latency_exact ORDER BY ALL").to_pylist()
    counts = query(lake, "SELECT variant, device_class, n, sum_ns, min_ns, max_ns FROM op_counts ORDER BY ALL")
    want, want_counts = [], []
    for variant in ("loops", "simd"):
        for dc, idx in (("classA", range(4)), ("classB", range(4, 7))):
            vals = np.concatenate([chunks[i] for i in idx if SITES[1].variants[i % 2] == variant])
            qs = {f"p{int(q * 100)}": hist_quantile(bin_of(vals), np.ones(len(vals)), q, vals.min(), vals.max())
                  for q in (0.5, 0.95, 0.99)}
            for q in (0.5, 0.95, 0.99):  # against NumPy's exact nearest-rank quantile
                exact = float(np.quantile(vals, q, method="inverted_cdf"))
                assert abs(qs[f"p{int(q * 100)}"] - exact) <= aggregates.RELATIVE_ERROR * exact
            want.append({"variant": variant, "device_class": dc, "n": len(vals), **qs})
            want_counts.append({"variant": variant, "device_class": dc, "n": len(vals), "sum_ns": int(vals.sum()),
                                "min_ns": int(vals.min()), "max_ns": int(vals.max())})
    assert got == want
    assert counts.to_pylist() == want_counts


def test_aggregates_of_closed_dates_are_compacted_once(tmp_path) -> None:
    lake = Lake(tmp_path)
    yesterday = dt.datetime.now(dt.timezone.utc).date() - dt.timedelta(days=1)
    rng = np.random.default_rng(3)
    total = 0
    for i in range(5):
        vals = rng.integers(100, 10**6, 50 + i)
        total += len(vals)
        batch = aggregates.to_batch(_synthetic(rng, vals, 0, 0, i * 10**10), SITES, DEVICE)
        for p in aggregates.publish(lake, pa.Table.from_batches([batch]), date=yesterday):
            os.utime(p, (time.time() - 7200, time.time() - 7200))
    before = query(lake, "SELECT n, p50, p99 FROM op_latency_exact").to_pylist()
    report = compact(lake, grace_s=3600)
    assert len(lake.aggregate_files()) == 1 and report.files_in == 5
    assert query(lake, "SELECT sum(count) AS n FROM aggregates").to_pylist() == [{"n": total}]
    assert query(lake, "SELECT n, p50, p99 FROM op_latency_exact").to_pylist() == before
    assert compact(lake, grace_s=0).files_in == 0

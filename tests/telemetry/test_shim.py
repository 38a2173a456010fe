"""The runtime shim in generated code (ep::tele::site): what each recorded operator call
carries, sampling, exploration propensities, concurrent threads and full rings. The hub
is the process's one C++ object (lowering._runtime); each test drains it first."""
from __future__ import annotations

import threading
import time
from collections import Counter

import numpy as np
import pytest

import everypath
from everypath.base.settings import Settings
from everypath.lowering import _runtime as rt
from everypath.telemetry.shim import SiteCatalog, drain, stop_telemetry

V = np.ndarray[tuple[int], np.dtype[np.float64]]
M = np.ndarray[tuple[int, int], np.dtype[np.float64]]
I3 = np.ndarray[tuple[int, int, int], np.dtype[np.int32]]


def kernel(x: V, a: M, c: I3):
    n = 0
    for i in range(3):  # a scalar loop: not an operator call, never recorded
        n += i
    return np.exp(x) * 2.0 + 1.0, a @ a, np.sum(x * x), len(x) + n, c.sum(axis=0), a.T


@pytest.fixture(scope="module")
def compiled():
    # no flusher: these tests read the hub directly (the lake is tested through telemetry/)
    fn = everypath.compile(kernel, settings=Settings.from_env({"EVERYPATH_TELEMETRY": "0"}))
    x, a, c = np.random.rand(1000), np.random.rand(40, 40), np.ones((2, 3, 5), np.int32)
    fn(x, a, c)
    return fn, (x, a, c)


@pytest.fixture
def hub():
    stop_telemetry()  # another test of this process may have started the lake flusher: it would drain too
    rt.telemetry_configure(False)
    rt.telemetry_drain()
    yield rt
    rt.telemetry_configure(False)
    rt.telemetry_drain()


def _drain() -> tuple:
    got = drain(rt, SiteCatalog())
    assert got is not None
    return got


def test_each_operator_call_is_one_record_with_its_site(compiled, hub) -> None:
    fn, args = compiled
    hub.telemetry_configure(True, 1.0, 0.0, timing_budget=1.0)
    t0 = time.time_ns()
    for _ in range(5):
        fn(*args)
    t1 = time.time_ns()
    raw, sites = _drain()
    mine = [i for i, s in enumerate(sites) if s.function.endswith("test_shim.kernel")]
    by_op = {sites[i].op: i for i in mine}
    # exp*2+1 is one fused loop, x*x fuses into the sum; len(), the scalar loop and a.T are not recorded
    assert set(by_op) == {"fused:operator.add", "operator.matmul", "fused:numpy.sum", "numpy.sum"}
    counts = Counter(raw.site.tolist())
    assert all(counts[i] == 5 for i in mine)
    assert len(raw) == 20
    assert (raw.ts_ns >= t0 - 1_000_000).all() and (raw.ts_ns <= t1 + 1_000_000).all()
    assert (raw.latency_ns > 0).all() and (raw.latency_ns < (t1 - t0)).all()
    mm = raw.site == by_op["operator.matmul"]
    assert (raw.n_elements[mm] == 1600).all() and (raw.shape[mm][:, :2] == 40).all() and (raw.ndim[mm] == 2).all()
    red = raw.site == by_op["numpy.sum"]
    assert (raw.shape[red][:, :3] == [2, 3, 5]).all() and (raw.n_elements[red] == 30).all()
    site = sites[by_op["operator.matmul"]]
    assert site.dtype == "float64" and site.call_site.startswith("test_shim.py:") and "loops" in site.variants
    assert [sites[by_op[o]].dtype for o in ("fused:numpy.sum", "numpy.sum")] == ["float64", "int64"]
    # with no exploration the variant is the default policy's and chosen with probability 1
    assert not raw.explore.any() and (raw.propensity == 1.0).all()
    assert {sites[s].variants[v] for s, v in zip(raw.site[mm], raw.variant[mm])} <= set(site.variants)


def test_nothing_is_recorded_when_telemetry_is_off(compiled, hub) -> None:
    fn, args = compiled
    for _ in range(3):
        fn(*args)
    assert drain(rt, SiteCatalog()) is None


def test_sampling_records_about_the_configured_share(compiled, hub) -> None:
    fn, args = compiled
    hub.telemetry_configure(True, 0.25, 0.0, timing_budget=1.0)
    calls = 400
    for _ in range(calls):
        fn(*args)
    raw, _ = _drain()
    expected = 4 * calls * 0.25  # 4 recorded sites per call
    assert abs(len(raw) - expected) < 6 * np.sqrt(expected * 0.75)  # binomial, 6 sigma


def test_exploration_records_true_propensities(compiled, hub) -> None:
    fn, args = compiled
    eps = 0.3
    hub.telemetry_configure(True, 1.0, eps, timing_budget=1.0)
    calls = 900  # 4 records per call stay inside one 4096-record ring: nothing is dropped
    for _ in range(calls):
        fn(*args)
    raw, sites = _drain()
    for s in set(raw.site.tolist()):
        rows = raw.site == s
        k = len(sites[s].variants)
        props = raw.propensity[rows]
        if k == 1:  # one variant: never explores away from it
            assert (props == 1.0).all()
            continue
        # each row's propensity is eps/k, plus 1 - eps for the table's (greedy) choice
        assert np.allclose(np.unique(props), sorted({eps / k, eps / k + 1 - eps}), atol=1e-6)
        share = raw.explore[rows].mean()
        assert abs(share - eps) < 0.1
        # inverse-propensity weights sum to about one per variant per call (unbiased estimates);
        # a weight 1{V=v}/p_v has variance 1/p_v - 1, so the bound is six standard errors
        for v in range(k):
            chosen = raw.variant[rows] == v
            p_v = float(props[chosen][0]) if chosen.any() else eps / k
            w = chosen / props
            assert abs(w.mean() - 1.0) < 6 * np.sqrt((1 / p_v - 1) / rows.sum())


def test_threads_record_into_their_own_rings_without_loss(compiled, hub) -> None:
    fn, args = compiled
    hub.telemetry_configure(True, 1.0, 0.0, timing_budget=1.0)
    per_thread, nthreads = 150, 4

    def work() -> None:
        for _ in range(per_thread):
            fn(*args)

    threads = [threading.Thread(target=work) for _ in range(nthreads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    raw, _ = _drain()
    assert len(raw) == 4 * per_thread * nthreads  # each ring holds 4096: nothing dropped


def test_a_filling_ring_thins_its_sample_and_the_aggregates_count_every_call(compiled, hub) -> None:
    fn, args = compiled
    hub.telemetry_configure(True, 1.0, 0.0, timing_budget=1.0)
    for _ in range(1100):  # 4400 calls into one thread's 4096-record ring
        fn(*args)
    d = rt.telemetry_drain()
    # past half full the ring keeps a call with probability 1/2, then 1/4, ...: no record is dropped
    assert 2048 < len(d["site"]) < 4096 and d["dropped"] == 0
    levels = np.round(-np.log2(d["inclusion"].astype(np.float64)))
    assert set(np.unique(levels)) >= {0.0, 1.0} and (np.diff(levels) >= 0).all()  # one thread: thinning only grows
    agg = d["aggregates"]
    assert sorted(agg["count"].tolist()) == [1100] * 4  # four recorded sites, every call counted


def test_a_selection_table_chooses_by_operator_and_size(compiled, hub) -> None:
    fn, args = compiled
    hub.telemetry_configure(True, 1.0, 0.0, timing_budget=1.0)
    fn(*args)
    _, sites = _drain()
    mm = next(s for s in sites if s.op == "operator.matmul" and s.function.endswith("test_shim.kernel"))
    assert "threads" in mm.variants
    # matmul: threads below 100 elements, loops up to 10000, threads above (1600 here: loops)
    gen = hub.telemetry_set_table("t1", [("operator.matmul", [100, 10_000], ["threads", "loops", "threads"])])
    fn(*args)
    x, a, c = args
    fn(x, np.random.rand(120, 120), c)  # 14400 elements: threads
    raw, sites = _drain()
    rows = [(sites[s].variants[v], n, t) for s, v, n, t in zip(raw.site, raw.variant, raw.n_elements, raw.table_version)
            if sites[s].op == "operator.matmul"]
    assert rows == [("loops", 1600, "t1"), ("threads", 14400, "t1")] and gen >= 1
    # a variant a site lacks is no choice: the default policy decides, and the row says so
    hub.telemetry_set_table("t2", [("operator.matmul", [], ["cuda"])])
    fn(*args)
    raw, sites = _drain()
    assert {t for s, t in zip(raw.site, raw.table_version) if sites[s].op == "operator.matmul"} == {None}
    hub.telemetry_set_table("", [])  # back to the built-in thresholds
    with pytest.raises(ValueError, match="one variant more than bounds"):
        hub.telemetry_set_table("bad", [("operator.matmul", [1, 2], ["loops"])])


def test_exploration_stays_within_the_tables_top_k(compiled, hub) -> None:
    fn, args = compiled
    hub.telemetry_configure(True, 1.0, 0.0, timing_budget=1.0)
    fn(*args)
    _, sites = _drain()
    mm = next(s for s in sites if s.op == "operator.matmul" and s.function.endswith("test_shim.kernel"))
    assert {"loops", "threads", "blas"} <= set(mm.variants)
    eps, calls = 0.5, 500  # 4 records a call: under half a ring (no thinning)
    # greedy blas; exploration may try only blas and loops (threads is predicted poor: never run)
    hub.telemetry_set_table("k2", [("operator.matmul", [], ["blas"], [["blas", "loops"]])])
    hub.telemetry_configure(True, 1.0, eps, timing_budget=1.0)
    for _ in range(calls):
        fn(*args)
    raw, sites = _drain()
    rows = np.array([sites[s].op == "operator.matmul" and sites[s].function.endswith("test_shim.kernel")
                     for s in raw.site])
    names = np.array([sites[s].variants[v] for s, v in zip(raw.site[rows], raw.variant[rows])])
    assert set(names) == {"blas", "loops"} and len(names) == calls
    props = raw.propensity[rows]
    # two candidates: blas with 1 - eps + eps/2, loops with eps/2
    assert np.allclose(props[names == "blas"], 1 - eps / 2) and np.allclose(props[names == "loops"], eps / 2)
    share = (names == "loops").mean()
    assert abs(share - eps / 2) < 6 * np.sqrt(eps / 2 * (1 - eps / 2) / calls)
    # a top-k with one candidate the site has explores over every variant (nothing to learn otherwise)
    hub.telemetry_set_table("k1", [("operator.matmul", [], ["blas"], [["blas", "cuda"]])])
    for _ in range(300):
        fn(*args)
    raw, sites = _drain()
    got = {sites[s].variants[v] for s, v in zip(raw.site, raw.variant)
           if sites[s].op == "operator.matmul" and sites[s].function.endswith("test_shim.kernel")}
    assert got == set(mm.variants)
    hub.telemetry_set_table("", [])
    with pytest.raises(ValueError, match="topk needs one list per variant slot"):
        hub.telemetry_set_table("bad", [("operator.matmul", [10], ["loops", "blas"], [["loops"]])])

"""The dashboard's counts and percentiles on a lake whose raw rows are a thinned sample beside exact
aggregates (tests/telemetry/_fleet.py, which keeps every true latency): every query counts the true
number of calls, and percentiles are within the histogram's stated error of NumPy's on the true
latencies; raw-only producers in the same lake count once, covered raw rows never twice."""
from __future__ import annotations

import datetime as dt
from collections import defaultdict

import duckdb
import numpy as np
import pytest

from everypath.dashboard import queries as q
from everypath.dashboard.queries import Filters, TimeUnit
from everypath.telemetry.aggregates import RELATIVE_ERROR
from everypath.telemetry.lake import Lake
from everypath.telemetry.views import connect
from tests.telemetry._fleet import DATES, DEVICES, SITES, Truth, make_fleet

FUNCTION = {s.op: s.function for s in SITES}


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> tuple[Lake, Truth]:
    return make_fleet(tmp_path_factory.mktemp("dash-fleet"))


@pytest.fixture(scope="module")
def con(fleet: tuple[Lake, Truth]) -> duckdb.DuckDBPyConnection:
    return connect(fleet[0].root, validate=False)


def _sum(truth: Truth, key: tuple[int, ...], keep=lambda k: True) -> dict[tuple, int]:  # type: ignore[no-untyped-def]
    out: dict[tuple, int] = defaultdict(int)
    for k, n in truth.counts().items():
        if keep(k):
            out[tuple(k[i] for i in key)] += n
    return dict(out)


def _lat(truth: Truth, key: tuple[int, ...]) -> dict[tuple, np.ndarray]:
    out: dict[tuple, list[int]] = defaultdict(list)
    for k, v in truth.latencies.items():
        out[tuple(k[i] for i in key)] += v
    return {k: np.array(v) for k, v in out.items()}


def test_totals_and_per_group_counts_are_every_call(con: duckdb.DuckDBPyConnection, fleet: tuple[Lake, Truth]) -> None:
    lake, truth = fleet
    t = q.totals(con, Filters()).iloc[0]
    true_calls = sum(truth.counts().values())
    rows = int(con.execute("SELECT count(*) FROM calls").fetchone()[0])  # type: ignore[index]
    assert rows < true_calls / 2 and int(t["calls"]) == true_calls
    assert (int(t["functions"]), int(t["operators"]), int(t["devices"]), int(t["device_classes"])) == (
        len(SITES), len(SITES), len(DEVICES), len({d.device_class for d in DEVICES}))
    fns = q.functions(con, Filters())
    assert dict(zip(fns["function"], fns["calls"])) == {FUNCTION[op]: n for (op,), n in _sum(truth, (2,)).items()}
    dc = q.device_classes(con, Filters()).set_index("device_class")
    assert dc["calls"].to_dict() == {k: n for (k,), n in _sum(truth, (1,)).items()}
    assert dc["devices"].to_dict() == {"0042": 2, "123456": 2, "a1b2c3": 1}
    assert set(dc.loc["123456", "runtime"].split()) <= {"cpython-extension", "wasm"}
    days = q.calls_over_time(con, Filters(), TimeUnit.DAY)
    assert [p.date() for p in days["period"]] == list(DATES)
    assert list(days["calls"]) == [_sum(truth, (0,))[(d,)] for d in DATES]
    size = q.latency_by_size(con, Filters()).set_index(["op", "variant", "bucket"])
    assert size["calls"].to_dict() == _sum(truth, (2, 3, 4))
    medians = q.bucket_medians(con, Filters()).set_index(["op", "device_class", "bucket", "variant"])
    assert medians["calls"].to_dict() == _sum(truth, (2, 1, 4, 3))
    assert (medians["production_calls"] == medians["calls"]).all()  # the fleet never explores
    ex = q.explore_by_op(con, Filters()).set_index("op")
    assert ex["calls"].to_dict() == {k: n for (k,), n in _sum(truth, (2,)).items()}
    assert (ex["exploring"] == 0).all() and (ex["share"] == 0).all()


def test_filters_apply_to_the_aggregates(con: duckdb.DuckDBPyConnection, fleet: tuple[Lake, Truth]) -> None:
    _, truth = fleet
    start = dt.datetime.combine(DATES[1], dt.time(), dt.timezone.utc)
    f = Filters(start=start, device_classes=("0042", "123456"), ops=("numpy.add", "numpy.sort"))
    want = sum(n for k, n in truth.counts().items()
               if k[0] == DATES[1] and k[1] in f.device_classes and k[2] in f.ops)
    assert int(q.totals(con, f)["calls"].iloc[0]) == want
    assert int(q.functions(con, f)["calls"].sum()) == want
    assert set(q.functions(con, f)["function"]) == {FUNCTION[o] for o in f.ops}
    assert q.options(con, q.Column.DEVICE_CLASS) == sorted({d.device_class for d in DEVICES})


def test_percentiles_are_within_the_stated_error_of_the_true_latencies(
        con: duckdb.DuckDBPyConnection, fleet: tuple[Lake, Truth]) -> None:
    _, truth = fleet
    got = q.latency_table(con, Filters()).set_index(["op", "variant", "device_class"])
    counts = _sum(truth, (2, 3, 1))
    assert got["calls"].to_dict() == counts
    for key, lat in _lat(truth, (2, 3, 1)).items():
        for p, col in ((50, "p50_us"), (95, "p95_us"), (99, "p99_us")):
            exact = float(np.percentile(lat, p, method="inverted_cdf")) / 1000
            assert abs(got.loc[key, col] - exact) <= RELATIVE_ERROR * exact, (key, col)
    boxes = q.latency_boxes(con, Filters()).set_index(["op", "variant"])
    for key, lat in _lat(truth, (2, 3)).items():
        exact = np.percentile(lat, [5, 25, 50, 75, 95], method="inverted_cdf") / 1000
        np.testing.assert_allclose(boxes.loc[key, ["p05_us", "p25_us", "p50_us", "p75_us", "p95_us"]].to_numpy(float),
                                   exact, rtol=RELATIVE_ERROR)
    hist = q.latency_histogram(con, Filters())
    timed = {k: len(v) for k, v in _lat(truth, (2, 3)).items()}
    assert hist.groupby(["op", "variant"])["calls"].sum().to_dict() == timed  # every timed call, once
    sites = q.call_sites(con, Filters(), FUNCTION["numpy.matmul"])
    assert list(sites["calls"]) == [sum(n for k, n in truth.counts().items() if k[2] == "numpy.matmul")]
    assert list(sites["variants"]) == ["loops, simd, threads"]

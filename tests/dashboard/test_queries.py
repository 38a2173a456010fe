"""dashboard.queries and dashboard.selection on a small real lake of raw rows only (a producer
without aggregates: every row counts once), against the same aggregates computed independently
with pandas/numpy on the raw rows (never against the functions). Percentiles are the merged
histograms' (nearest rank, bin midpoint): equal to aggregates.hist_quantile and within its stated
error of NumPy's exact ones; tests/dashboard/test_counts.py covers lakes with aggregates."""
from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from everypath.dashboard import queries as q
from everypath.dashboard import selection
from everypath.dashboard.queries import Column, Filters, MissingColumns, TimeUnit
from everypath.selector.simulate import simulate
from everypath.telemetry.views import connect
from everypath.telemetry.aggregates import RELATIVE_ERROR, bin_mid, bin_of, hist_quantile
from tests.dashboard._data import CFG, write_old_part


def _hq(lat: pd.Series, q_: float) -> float:
    """The nearest-rank quantile as the merged histograms give it (aggregates.hist_quantile)."""
    a = np.asarray(lat, np.int64)
    return hist_quantile(bin_of(a), np.ones(len(a)), q_, int(a.min()), int(a.max()))


@pytest.fixture(scope="module")
def con(lake: Path) -> duckdb.DuckDBPyConnection:
    return connect(lake, validate=False)


def _mask(raw: pd.DataFrame, f: Filters) -> pd.Series:
    m = pd.Series(True, index=raw.index)
    if f.start is not None:
        m &= raw["ts"] >= pd.Timestamp(f.start)
    if f.end is not None:
        m &= raw["ts"] <= pd.Timestamp(f.end)
    for col, values in (("function", f.functions), ("op", f.ops), ("device_class", f.device_classes),
                        ("dtype", f.dtypes)):
        if values:
            m &= raw[col].isin(values)
    return m


def _cases(raw: pd.DataFrame) -> list[Filters]:
    ts = raw["ts"].sort_values()
    start, end = ts.iloc[len(ts) // 4].to_pydatetime(), ts.iloc[len(ts) * 3 // 5].to_pydatetime()
    ops = sorted(raw["op"].unique())
    return [Filters(), Filters(start=start), Filters(end=end), Filters(start=start, end=end),
            Filters(functions=(sorted(raw["function"].unique())[2],)), Filters(ops=tuple(ops[:2])),
            Filters(device_classes=(sorted(raw["device_class"].unique())[1],)), Filters(dtypes=("float64",)),
            Filters(start=start, ops=(ops[3],), dtypes=("float64", "int64")),
            Filters(ops=("numpy.sum' OR '1'='1",))]  # a hostile value is a value, not SQL


def test_totals_follow_every_filter(con: duckdb.DuckDBPyConnection, raw: pd.DataFrame) -> None:
    for f in _cases(raw):
        sub = raw[_mask(raw, f)]
        t = q.totals(con, f).iloc[0]
        assert int(t["calls"]) == len(sub), f
        assert (int(t["functions"]), int(t["operators"]), int(t["devices"]), int(t["device_classes"])) == (
            sub["function"].nunique(), sub["op"].nunique(), sub["device_id"].nunique(), sub["device_class"].nunique()), f
        if len(sub):
            assert t["oldest"] == sub["ts"].min() and t["newest"] == sub["ts"].max(), f
    assert int(q.totals(con, _cases(raw)[-1])["calls"].iloc[0]) == 0


def test_where_clause_carries_values_only_as_parameters() -> None:
    f = Filters(start=dt.datetime(2026, 1, 1, 1, tzinfo=dt.timezone(dt.timedelta(hours=2))), ops=("a'b", "c"),
                dtypes=("float32",))
    sql, params = f.where()
    assert "a'b" not in sql and "float32" not in sql and sql.count("?") == len(params) == 4
    assert params[0] == dt.datetime(2025, 12, 31, 23)  # zoned input becomes naive UTC, as `ts` is stored
    assert Filters().where() == ("", [])


def test_latency_table_matches_numpy_percentiles(con: duckdb.DuckDBPyConnection, raw: pd.DataFrame) -> None:
    f = Filters(dtypes=("float32", "float64"))
    got = q.latency_table(con, f).set_index(["op", "variant", "device_class"])
    sub = raw[_mask(raw, f)]
    groups = sub.groupby(["op", "variant", "device_class"])["latency_ns"]
    assert len(got) == groups.ngroups
    for key, lat in groups:
        row = got.loc[key]
        assert row["calls"] == len(lat)
        for q_, col in ((0.5, "p50_us"), (0.95, "p95_us"), (0.99, "p99_us")):
            exact = float(np.percentile(lat.to_numpy(), 100 * q_, method="inverted_cdf")) / 1000
            assert abs(row[col] - exact) <= RELATIVE_ERROR * exact, (key, col)
            assert row[col] == pytest.approx(_hq(lat, q_) / 1000, rel=1e-12), (key, col)


def test_distributions_and_size_curve(con: duckdb.DuckDBPyConnection, raw: pd.DataFrame) -> None:
    f = Filters(ops=("numpy.sum", "numpy.matmul"))
    sub = raw[_mask(raw, f)]
    boxes = q.latency_boxes(con, f).set_index(["op", "variant"])
    for key, lat in sub.groupby(["op", "variant"])["latency_ns"]:
        np.testing.assert_allclose(boxes.loc[key, ["p05_us", "p25_us", "p50_us", "p75_us", "p95_us"]].to_numpy(float),
                                   [_hq(lat, p / 100) / 1000 for p in (5, 25, 50, 75, 95)], rtol=1e-12)
        np.testing.assert_allclose(boxes.loc[key, ["p05_us", "p25_us", "p50_us", "p75_us", "p95_us"]].to_numpy(float),
                                   np.percentile(lat.to_numpy(), [5, 25, 50, 75, 95], method="inverted_cdf") / 1000,
                                   rtol=RELATIVE_ERROR)
    hist = q.latency_histogram(con, f, bins_per_octave=4)
    # each call in the coarse bin of its fine (64 per octave) bin's midpoint
    b = np.floor(np.log2(np.maximum(bin_mid(bin_of(sub["latency_ns"].to_numpy())), 1)) * 4).astype(int)
    want = sub.assign(b=b).groupby(["op", "variant", "b"]).size()
    got = hist.assign(b=np.rint(np.log2(hist["lo_us"] * 1000) * 4).astype(int)).set_index(["op", "variant", "b"])
    assert got["calls"].sort_index().to_dict() == want.sort_index().to_dict()
    np.testing.assert_allclose(hist["hi_us"] / hist["lo_us"], 2 ** 0.25)
    size = q.latency_by_size(con, f).set_index(["op", "variant", "bucket"])
    bucket = np.floor(np.log2(np.maximum(sub["n_elements"], 1))).astype(int)
    groups = sub.assign(bucket=bucket).groupby(["op", "variant", "bucket"])
    assert len(size) == groups.ngroups
    for key, g in groups:
        assert size.loc[key, "calls"] == len(g)
        assert size.loc[key, "p50_us"] == pytest.approx(_hq(g["latency_ns"], 0.5) / 1000, rel=1e-12)
        assert size.loc[key, "n_elements"] == pytest.approx(2 ** (key[2] + 0.5))
        assert g["n_elements"].between(2 ** key[2], 2 ** (key[2] + 1) - 1).all()


def test_time_series_and_exploration(con: duckdb.DuckDBPyConnection, raw: pd.DataFrame) -> None:
    f = Filters(device_classes=tuple(sorted(raw["device_class"].unique())[:3]))
    sub = raw[_mask(raw, f)]
    hours = sub.groupby(sub["ts"].dt.floor("h"))
    per_hour = q.calls_over_time(con, f, TimeUnit.HOUR)
    assert list(per_hour["period"]) == list(hours.size().index) and list(per_hour["calls"]) == list(hours.size())
    per_day = q.calls_over_time(con, f, TimeUnit.DAY)
    assert list(per_day["calls"]) == list(sub.groupby(sub["ts"].dt.floor("D")).size())
    share = q.explore_over_time(con, f, TimeUnit.HOUR)
    np.testing.assert_allclose(share["share"], hours["explore"].mean().to_numpy())
    by_op = q.explore_by_op(con, f).set_index("op")
    want = sub.groupby("op")["explore"].agg(["size", "sum", "mean"])
    assert by_op["calls"].to_dict() == want["size"].to_dict() and by_op["exploring"].to_dict() == want["sum"].to_dict()
    np.testing.assert_allclose(by_op["share"].to_numpy(), want["mean"].to_numpy())
    assert q.time_unit(sub["ts"].min(), sub["ts"].max()) is TimeUnit.HOUR
    assert q.time_unit(sub["ts"].min(), sub["ts"].min() + pd.Timedelta(days=4)) is TimeUnit.DAY


def test_device_classes_and_options(con: duckdb.DuckDBPyConnection, raw: pd.DataFrame) -> None:
    got = q.device_classes(con, Filters()).set_index("device_class")
    for dc, g in raw.groupby("device_class"):
        assert got.loc[dc, "calls"] == len(g) and got.loc[dc, "devices"] == g["device_id"].nunique()
        for feat in ("arch", "isa_level", "cores", "cpu_model", "runtime"):
            assert got.loc[dc, feat] == g[feat].iloc[0]
    assert q.options(con, Column.DTYPE) == sorted(raw["dtype"].unique())
    assert q.options(con, Column.DEVICE_CLASS) == sorted(raw["device_class"].unique())


def test_call_sites_of_one_function(con: duckdb.DuckDBPyConnection, raw: pd.DataFrame) -> None:
    fn = sorted(raw["function"].unique())[4]
    f = Filters(device_classes=tuple(sorted(raw["device_class"].unique())[:4]))
    got = q.call_sites(con, f, fn)
    sub = raw[_mask(raw, f) & (raw["function"] == fn)]
    want = sub.groupby(["call_site", "op"]).agg(calls=("latency_ns", "size"), p50=("latency_ns", lambda v: _hq(v, 0.5)),
                                                variants=("variant", lambda v: ", ".join(sorted(set(v)))))
    assert len(got) == len(want)
    fns = q.functions(con, f)
    counts = raw[_mask(raw, f)]["function"].value_counts()
    assert dict(zip(fns["function"], fns["calls"])) == counts.to_dict()
    assert list(fns["calls"]) == sorted(fns["calls"], reverse=True)  # busiest first
    lines = [int(s.rsplit(":", 1)[1]) for s in got["call_site"]]
    assert lines == sorted(lines)  # in source order
    for _, row in got.iterrows():
        w = want.loc[(row["call_site"], row["op"])]
        assert (row["calls"], row["variants"]) == (w["calls"], w["variants"])
        assert row["p50_us"] == pytest.approx(w["p50"] / 1000)


def test_chosen_against_oracle(con: duckdb.DuckDBPyConnection, raw: pd.DataFrame, tmp_path: Path) -> None:
    dcs = sorted(raw["device_class"].unique())
    table = {"format": 1, "version": "t-1", "tables": {
        dcs[0]: [{"op": "numpy.sum", "bounds": [1024], "variants": ["loops", "simd"]}],
        "*": [{"op": "numpy.sort", "bounds": [], "variants": ["threads"]}]}}
    path = tmp_path / "selection_table.json"
    path.write_text(json.dumps(table))
    buckets = q.bucket_medians(con, Filters())
    tables, problem = selection.load_tables(path, dcs)
    assert problem is None
    got = selection.chosen_vs_oracle(buckets, tables).set_index(["op", "device_class", "bucket"])
    r = raw.assign(bucket=np.floor(np.log2(np.maximum(raw["n_elements"], 1))).astype(int))
    groups = r.groupby(["op", "device_class", "bucket"])
    assert len(got) == groups.ngroups
    seen = set()
    for (op, dc, b), g in groups:
        med = g.groupby("variant")["latency_ns"].agg(lambda v: _hq(v, 0.5)) / 1000  # the merged-histogram median
        oracle = sorted(med.index, key=lambda v: (med[v], v))[0]
        pick = None
        if dc == dcs[0] and op == "numpy.sum":
            pick = "loops" if 2 ** b < 1024 else "simd"
        elif dc != dcs[0] and op == "numpy.sort":
            pick = "threads"
        by = "selection table"
        if pick not in med.index:
            prod = g[~g["explore"]]["variant"].value_counts()
            pick, by = (sorted(prod.index, key=lambda v: (-prod[v], v))[0], "recorded calls") if len(prod) else ("", "unknown")
        row = got.loc[(op, dc, b)]
        assert (row["oracle"], row["chosen"], row["chosen_by"], row["calls"]) == (oracle, pick, by, len(g)), (op, dc, b)
        if pick:
            assert row["ratio"] == pytest.approx(med[pick] / med[oracle])
        seen.add(by)
    assert seen >= {"selection table", "recorded calls"}
    summary = selection.ratio_summary(selection.chosen_vs_oracle(buckets, tables)).set_index(["op", "device_class"])
    k = got.loc[("numpy.sum", dcs[0])]
    want = (k["calls"] * k["chosen_p50_us"]).sum() / (k["calls"] * k["oracle_p50_us"]).sum()
    assert summary.loc[("numpy.sum", dcs[0]), "ratio"] == pytest.approx(want)
    path.write_text('{"format": 1, "version": "x", "tables": {"*": [{"op": "numpy.sum"}]}}')
    assert "'variants'" in (selection.load_tables(path, dcs)[1] or "")


def test_older_files_without_some_columns(tmp_path: Path) -> None:
    rows = pa.Table.from_batches(simulate(CFG)[:1]).slice(0, 500)
    write_old_part(tmp_path, rows, ("explore", "propensity", "isa_level", "gpu"))
    con = connect(tmp_path, validate=False)
    assert int(q.totals(con, Filters())["calls"].iloc[0]) == 500
    dc = q.device_classes(con, Filters())
    assert dc["isa_level"].isna().all() and dc["cores"].notna().all()
    with pytest.raises(MissingColumns, match="explore"):
        q.explore_by_op(con, Filters())
    with pytest.raises(MissingColumns, match="explore"):
        q.bucket_medians(con, Filters())
    # next to a current part, the old one just has nulls there (union by name)
    from everypath.telemetry.lake import Lake

    Lake(tmp_path).publish(pa.Table.from_batches(simulate(CFG)[1:2]).slice(0, 300))
    con = connect(tmp_path, validate=False)
    assert int(q.explore_by_op(con, Filters())["calls"].sum()) == 800


def test_empty_and_absent_lakes_are_read_without_creating_anything(tmp_path: Path) -> None:
    absent = tmp_path / "nope"
    con = connect(absent, validate=False)
    assert int(q.totals(con, Filters())["calls"].iloc[0]) == 0 and q.latency_table(con, Filters()).empty
    assert q.options(con, Column.OP) == []
    assert not absent.exists()
    assert "does not exist" in (q.lake_state(absent) or "")
    (tmp_path / "empty").mkdir()
    assert "no calls yet" in (q.lake_state(tmp_path / "empty") or "")
    assert list((tmp_path / "empty").iterdir()) == []

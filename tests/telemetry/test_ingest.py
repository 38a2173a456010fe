"""`everypath telemetry ingest` of rows from other producers: another tool's hive lake without
our schema metadata, CSV with bad rows, JSON Lines from a browser, and the collector taking
the same formats. Expected values come from pandas and DuckDB reading the producer's files,
never from the converter under test."""
from __future__ import annotations

import datetime as dt
import gzip
import hashlib
import http.client
import json
import math
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from everypath.cli import main
from everypath.telemetry.collector import CollectorConfig, serve_in_thread
from everypath.telemetry.convert import ConvertError, convert
from everypath.telemetry.ingest import ingest_file
from everypath.telemetry.readers import read_csv, read_jsonl
from everypath.telemetry.lake import Lake
from everypath.telemetry.views import query

CLASS_KEYS = ("arch", "os", "cpu_model", "isa_level", "isa_flags", "cores", "l1d_kib", "l2_kib", "l3_kib", "gpu",
              "runtime")  # docs/telemetry.md: device_class is sha256 over these, first 12 hex chars


def fleet_frame(n: int, seed: int = 0) -> pd.DataFrame:
    """What another fleet tool keeps: the documented columns in pandas' own types."""
    rng = pd.Series(range(n))
    shapes = [[int(1 + (i * 7 + seed) % 50), int(1 + (i * 3) % 9)][: 1 + i % 2] for i in range(n)]
    return pd.DataFrame({
        "ts": pd.Timestamp("2026-03-01 08:00:00") + pd.to_timedelta(rng * 1000 + seed, unit="us"),  # naive
        "function": "fleet.app.kernel", "op": ["numpy.add", "numpy.matmul"] * (n // 2) + ["numpy.add"] * (n % 2),
        "call_site": "kernel.py:12", "variant": ["loops", "simd", "blas"][seed % 3], "dtype": "float32",
        "shape": [json.dumps(s) for s in shapes],  # text, as JSON-minded tools write it
        "n_elements": [int(pd.Series(s).prod()) for s in shapes], "latency_ns": 1000 + rng * 13,
        "threads": 4, "explore": False, "propensity": 1.0,  # int64 and float64 where int16 / float32 are documented
        "device_id": "f" * 64, "arch": "aarch64", "os": "linux", "cpu_model": "Cortex-X4",
        "isa_level": "armv9", "isa_flags": "neon asimd sve2", "cores": 8, "l1d_kib": 64, "l2_kib": 2048,
        "l3_kib": 8192, "gpu": "none", "runtime": "native-executable",
    })


def stored(lake: Path) -> pd.DataFrame:
    return query(Lake(lake), "SELECT * EXCLUDE (date) FROM calls ORDER BY ts").to_pandas()


def test_a_foreign_hive_lake_is_converted_and_stored_once(tmp_path: Path) -> None:
    src = tmp_path / "fleet"
    frames = []
    for i, dc in enumerate(("phones00001", "tablets0002")):
        df = fleet_frame(300 + i, seed=i)
        frames.append(df.assign(device_class=dc))
        d = src / "date=2026-03-01" / f"device_class={dc}"
        d.mkdir(parents=True)
        df["op"] = df["op"].astype("category")  # a dictionary column in the Parquet file
        pq.write_table(pa.Table.from_pandas(df, preserve_index=False), d / "part-0.parquet")  # no everypath metadata
    lake = tmp_path / "lake"
    r = CliRunner().invoke(main, ["telemetry", "ingest", "--lake", str(lake), str(src)])
    assert r.exit_code == 0, r.output
    assert "300 rows: 300 stored" in r.output and "301 rows: 301 stored" in r.output
    assert "ts: a timestamp without time zone read as UTC" in r.output
    want = pd.concat(frames).sort_values("ts").reset_index(drop=True)
    got = stored(lake)
    assert len(got) == 601
    assert (got["ts"] == want["ts"].dt.tz_localize("UTC")).all()
    assert [list(s) for s in got["shape"]] == [json.loads(s) for s in want["shape"]]
    assert got["gpu"].isna().all() and (got["device_class"] == want["device_class"]).all()
    assert (got["threads"] == 4).all() and (got["latency_ns"] == want["latency_ns"]).all()
    assert list(got["op"]) == list(want["op"].astype(str))
    again = CliRunner().invoke(main, ["telemetry", "ingest", "--lake", str(lake), str(src)])
    assert again.exit_code == 0 and "300 rows: 0 stored, 300 already stored" in again.output
    assert len(stored(lake)) == 601
    own = CliRunner().invoke(main, ["telemetry", "ingest", "--lake", str(lake), str(lake)])
    assert own.exit_code == 1 and "holds the lake's own parts" in own.output  # it would store every row twice
    # the same lake dropped into ours is quarantined as foreign; ingest is the way in, stated in the docs
    schema = pq.read_schema(next(src.rglob("*.parquet")))
    assert not (schema.metadata or {}).get(b"everypath.schema")


BAD_CSV_ROWS = {  # line number -> (column, what the report says)
    3: ("threads", '"70000" is not in 0..32767 (int16)'),
    4: ("ts", '"yesterday" is not a time (ISO 8601, or a number since the UNIX epoch) between 2000-01-01 and 2100'),
    5: ("shape", '"[2, -3]" is not a shape like [2, 3]'),
    6: ("propensity", '"1.5" is not a probability in (0, 1]'),
    7: ("function", "is required but missing"),
    8: ("*", "3 fields, the header has"),
    9: ("device_class", '"../etc" is not a valid partition name'),
    10: ("ts", '"12" is not a time'),  # 12 s after 1970: a unit mistake, not a 1970 call
}


def _csv(path: Path, bad: bool) -> pd.DataFrame:
    df = fleet_frame(10).assign(device_class="webclient01")
    df["ts"] = df["ts"].dt.strftime("%Y-%m-%dT%H:%M:%S.%f+00:00")
    text = df.to_csv(index=False).splitlines()
    if bad:
        cols = list(df.columns)

        def edit(line: int, col: str, value: str) -> None:
            cells = text[line - 1].split(",") if '"' not in text[line - 1] else None
            assert cells is None or len(cells) == len(cols)
            row = df.iloc[line - 2].astype(str).tolist()
            row[cols.index(col)] = value
            text[line - 1] = ",".join(f'"{v}"' if "," in v else v for v in row)

        edit(3, "threads", "70000")
        edit(4, "ts", "yesterday")
        edit(5, "shape", "[2, -3]")
        edit(6, "propensity", "1.5")
        edit(7, "function", "")
        text[7] = "a,b,c"
        edit(9, "device_class", "../etc")
        edit(10, "ts", "12")
    path.write_text("\n".join(text) + "\n")
    return df


def test_csv_rows_are_rejected_with_line_column_and_reason_and_nothing_is_lost(tmp_path: Path) -> None:
    lake, f, report = tmp_path / "lake", tmp_path / "calls.csv", tmp_path / "report.jsonl"
    df = _csv(f, bad=True)
    r = CliRunner().invoke(main, ["telemetry", "ingest", "--lake", str(lake), "--report", str(report), str(f)])
    assert r.exit_code == 1 and "8 of 10 rows rejected: nothing stored" in r.output, r.output
    assert not Lake(lake).files()
    rows = [json.loads(x) for x in report.read_text().splitlines()]
    assert [x["row"] for x in rows] == sorted(BAD_CSV_ROWS)
    for x in rows:
        col, problem = BAD_CSV_ROWS[x["row"]]
        assert x["column"] == col and problem in x["problem"], x
        assert f"row {x['row']}: {col}: " in r.output
    # store the good rows; the rejected ones are kept as read, to be fixed and ingested on their own
    r = CliRunner().invoke(main, ["telemetry", "ingest", "--lake", str(lake), "--skip-rejected", str(f)])
    assert r.exit_code == 1 and "10 rows: 2 stored, 0 already stored, 8 rejected" in r.output, r.output
    rejects = f.with_name("calls.csv.rejected.jsonl")
    kept = [json.loads(x) for x in rejects.read_text().splitlines()]
    assert kept[5] == {"_line": "a,b,c"} and kept[0]["threads"] == "70000" and kept[6]["device_class"] == "../etc"
    # the operator's fix: the values they should have had
    rejects.write_text("".join(json.dumps(df.iloc[line - 2].astype(str).to_dict()) + "\n"
                               for line in sorted(BAD_CSV_ROWS)))
    r = CliRunner().invoke(main, ["telemetry", "ingest", "--lake", str(lake), str(rejects)])
    assert r.exit_code == 0 and "8 rows: 8 stored" in r.output, r.output
    got = stored(lake)
    assert sorted(got["latency_ns"]) == sorted(df["latency_ns"])  # every row once
    assert (got["ts"] == pd.to_datetime(df["ts"]).sort_values().reset_index(drop=True)).all()


def test_browser_json_lines_get_the_stated_defaults(tmp_path: Path) -> None:
    """A page in a browser: ts as Date.now() (ms), no device_class, explore, propensity or n_elements."""
    t0 = int(dt.datetime(2026, 5, 4, 12, tzinfo=dt.timezone.utc).timestamp() * 1000)
    dev = {"device_id": "b" * 64, "arch": "wasm32", "os": "wasi", "cpu_model": None, "isa_level": "simd128",
           "isa_flags": "simd128", "cores": 8, "l1d_kib": None, "l2_kib": None, "l3_kib": None, "gpu": None,
           "runtime": "wasm"}
    recs = [{"ts": t0 + i, "function": "page.blur", "op": "cv2.GaussianBlur", "call_site": "blur.py:4",
             "variant": "simd", "dtype": "uint8", "shape": [480, 640, 3][: 1 + i % 3], "latency_ns": 5000 + i,
             "threads": 1, **dev} for i in range(6)]
    f = tmp_path / "page.jsonl.gz"
    f.write_bytes(gzip.compress(("\n".join(json.dumps(r) for r in recs) + "\n\n").encode()))
    lake = tmp_path / "lake"
    r = CliRunner().invoke(main, ["telemetry", "ingest", "--lake", str(lake), str(f)])
    assert r.exit_code == 0 and "6 rows: 6 stored" in r.output, r.output
    got = stored(lake)
    assert list(got["ts"]) == [pd.Timestamp(t0 + i, unit="ms", tz="UTC") for i in range(6)]
    assert list(got["n_elements"]) == [480, 480 * 640, 480 * 640 * 3] * 2
    assert not got["explore"].any() and (got["propensity"] == 1.0).all()
    feats = {k: dev[k] for k in CLASS_KEYS}
    assert set(got["device_class"]) == {hashlib.sha256(json.dumps(feats, sort_keys=True).encode()).hexdigest()[:12]}


def test_timestamps_in_every_form_mean_the_same_instant() -> None:
    want = pd.Timestamp("2026-02-03T04:05:06.789", tz="UTC")
    forms = ["2026-02-03T04:05:06.789Z", "2026-02-03 05:05:06.789+01:00", "2026-02-03T04:05:06.789",
             str(want.value // 10**6), str(want.value // 10**3), str(want.value), "1770091506.789"]
    base = fleet_frame(1).assign(device_class="x" * 12).iloc[0].astype(str).to_dict()
    for form in forms:
        csv_text = ",".join(base) + "\n" + ",".join(form if k == "ts" else v for k, v in base.items()) + "\n"
        rows = read_csv(csv_text.encode())
        c = convert(rows.table, row_numbers=rows.numbers)
        assert not c.rejected, (form, c.rejected)
        assert c.table.column("ts")[0].as_py() == want.to_pydatetime(), form


def test_a_crash_between_device_classes_is_finished_by_the_retry(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    df = pd.concat([fleet_frame(50).assign(device_class="classA00001"),
                    fleet_frame(70, seed=1).assign(device_class="classB00002")])
    f = tmp_path / "two.parquet"
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), f)
    lake = Lake(tmp_path / "lake")
    real, calls = Lake.publish_named, []

    def dies_after_one(self, data, name=None, *, date=None):  # type: ignore[no-untyped-def]
        if calls:
            raise SystemExit("killed")  # the process dies after the first class's part is published
        calls.append(name)
        return real(self, data, name, date=date)

    monkeypatch.setattr(Lake, "publish_named", dies_after_one)
    with pytest.raises(SystemExit):
        ingest_file(f, lake)
    monkeypatch.setattr(Lake, "publish_named", real)
    assert len(stored(lake.root)) == 50
    r = CliRunner().invoke(main, ["telemetry", "ingest", "--lake", str(lake.root), str(f)])
    assert r.exit_code == 0 and "120 rows: 70 stored, 50 already stored" in r.output, r.output
    n = query(lake, "SELECT device_class, count(*) AS n FROM calls GROUP BY 1 ORDER BY 1").to_pylist()
    assert n == [{"device_class": "classA00001", "n": 50}, {"device_class": "classB00002", "n": 70}]


@pytest.fixture
def collector(tmp_path: Path):  # type: ignore[no-untyped-def]
    srv = serve_in_thread(CollectorConfig(Lake(tmp_path / "central"), "tok-123456"))
    yield srv
    srv.shutdown()
    srv.server_close()


def _post(srv, body: bytes, ctype: str, batch_id: str) -> tuple[int, dict]:  # type: ignore[no-untyped-def]
    conn = http.client.HTTPConnection(*srv.server_address[:2], timeout=10)
    conn.request("POST", "/v1/calls", body=body, headers={
        "Authorization": "Bearer tok-123456", "X-Batch-Id": batch_id, "Content-Type": ctype})
    r = conn.getresponse()
    out = r.status, json.loads(r.read())
    conn.close()
    return out


def test_the_collector_takes_csv_and_json_lines_all_or_nothing(collector, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    df = fleet_frame(20).assign(device_class="webclient01")
    df["ts"] = df["ts"].dt.strftime("%Y-%m-%dT%H:%M:%S.%f")
    body = df.to_csv(index=False).encode()
    assert _post(collector, body, "text/csv", "csv-batch-1") == (201, {"rows": 20, "stored": True})
    assert _post(collector, body, "text/csv", "csv-batch-1")[0] == 200
    lines = [json.dumps(r) for r in fleet_frame(5, seed=2).assign(
        device_class="webclient01", ts=lambda d: d["ts"].astype(str)).to_dict("records")]
    lines[3] = lines[3].replace('"threads": 4', '"threads": -1')
    s, reply = _post(collector, ("\n".join(lines) + "\n").encode(), "application/x-ndjson", "jsonl-batch-1")
    assert s == 422 and reply["rejected_rows"] == 1
    assert reply["rejected"] == [{"row": 4, "column": "threads", "problem": "-1 is not in 0..32767 (int16)"}]
    lines[3] = lines[3].replace('"threads": -1', '"threads": 2')
    assert _post(collector, ("\n".join(lines) + "\n").encode(), "application/x-ndjson", "jsonl-batch-1")[0] == 201
    got = query(Lake(tmp_path / "central"), "SELECT count(*) AS n, sum(threads) AS t FROM calls").to_pylist()
    assert got == [{"n": 25, "t": 20 * 4 + 4 * 4 + 2}]


def test_column_conversions_and_rejections_row_by_row() -> None:
    base = fleet_frame(6).assign(device_class="conv0000001")
    t = pa.Table.from_pandas(base, preserve_index=False)

    def conv(name: str, values: pa.Array):  # type: ignore[no-untyped-def]
        c = convert(t.set_column(t.schema.get_field_index(name), name, values))
        return c.table.column(name).to_pylist(), [(r.row, r.problem) for r in c.rejected]

    got, rej = conv("explore", pa.array(["YES", "n", "1", "False", "maybe", " t "]))
    assert got == [True, False, True, False, True] and rej == [(5, '"maybe" is not a boolean (true/false, 1/0, yes/no)')]
    got, rej = conv("gpu", pa.array(["None", "", "N/A", "-", "NVIDIA H200", None]))
    assert got == [None, None, None, None, "NVIDIA H200", None] and rej == []
    dims = [[2, 3, 4, 5, 6], [7] * 6, [1], [], [3, 0], [2**40, 2]]
    got, rej = conv("shape", pa.array(dims, pa.list_(pa.int64())))
    assert got == [d if len(d) <= 4 else [*d[:3], math.prod(d[3:])] for d in dims] and rej == []
    got, rej = conv("threads", pa.array([1, 32767, 32768, -2, 8, 2**40], pa.int64()))
    assert got == [1, 32767, 8] and [r for r, _ in rej] == [3, 4, 6]
    got, rej = conv("propensity", pa.array([0.5, 1.0, 0.0, float("nan"), 1.5, 0.25]))
    assert got == [0.5, 1.0, 0.25] and [r for r, _ in rej] == [3, 4, 5]
    with pytest.raises(ConvertError, match="'ts' has type bool"):
        convert(t.set_column(0, "ts", pa.array([True] * 6)))
    with pytest.raises(ConvertError, match="unknown column 'colour'"):
        convert(t.append_column("colour", pa.array(["red"] * 6)))
    assert convert(t.append_column("colour", pa.array(["red"] * 6)), drop_unknown=True).table.num_rows == 6


def test_every_reader_path_gives_the_same_rows() -> None:
    """CSV and JSON Lines have a fast reader (Arrow) and a line-exact one (Python) for files
    with blank lines, values with newlines or torn records: both must give the same rows."""
    df = fleet_frame(40).assign(device_class="paths000001", cpu_model="Cortex,\nX4")  # a quoted newline
    df["ts"] = df["ts"].dt.strftime("%Y-%m-%dT%H:%M:%S.%f")
    csv_text = df.to_csv(index=False)
    plain = df.assign(cpu_model="Cortex-X4").to_csv(index=False)
    lines = [json.dumps(r) for r in df.to_dict("records")]
    tables = {}
    for name, data, reader in (("csv multiline", csv_text, read_csv), ("csv", plain, read_csv),
                               ("jsonl", "\n".join(lines) + "\n", read_jsonl),
                               ("jsonl blank", "\n\n".join(lines) + "\n", read_jsonl)):
        rows = reader(data.encode())
        c = convert(rows.table, row_numbers=rows.numbers)
        assert not c.rejected, (name, c.rejected[:3])
        tables[name] = c.table.drop_columns(["cpu_model"])
        if name == "jsonl blank":
            assert list(rows.numbers[:3]) == [1, 3, 5]
        if name == "csv multiline":
            assert list(rows.numbers[:3]) == [2, 4, 6]  # each record spans two lines
    first = tables["csv"]
    assert first.num_rows == 40 and all(t.equals(first) for t in tables.values()), \
        [n for n, t in tables.items() if not t.equals(first)]
    assert first.column("shape").to_pylist() == [json.loads(s) for s in df["shape"]]

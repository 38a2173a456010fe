from __future__ import annotations

import datetime as dt
import subprocess
import sys
import textwrap

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from everypath.telemetry.lake import Lake, SchemaError
from everypath.telemetry.schema import SCHEMA_VERSION
from everypath.telemetry.views import query

from ._data import REPO, batch, env


def test_publish_layout_and_file_format(tmp_path):
    lake = Lake(tmp_path)
    paths = lake.publish([batch(3000, device_class="aaaaaaaaaaaa"), batch(2000, 1, ts0=10**18, device_class="bbb")])
    assert len(paths) == 2  # one part per device class
    today = dt.datetime.now(dt.timezone.utc).date().isoformat()
    for p in paths:
        assert p.parent.parent.name == f"date={today}" and p.name.startswith("part-")
        f = pq.ParquetFile(p)
        assert "device_class" not in f.schema_arrow.names and "date" not in f.schema_arrow.names
        assert f.metadata.num_row_groups == 1  # one big row group, not pyarrow's small defaults
        assert f.metadata.row_group(0).column(0).compression == "ZSTD"
        assert f.schema_arrow.metadata[b"everypath.schema_version"] == str(SCHEMA_VERSION).encode()
    assert not list(tmp_path.rglob(".tmp-*"))
    got = query(lake, "SELECT device_class, count(*) AS n FROM calls GROUP BY 1 ORDER BY 1").to_pylist()
    assert got == [{"device_class": "aaaaaaaaaaaa", "n": 3000}, {"device_class": "bbb", "n": 2000}]


def test_named_publish_is_idempotent(tmp_path):
    lake = Lake(tmp_path)
    b = batch(100)
    first = lake.publish_named(b, name="batch-0001")
    assert first.stored and first.paths[0].name == "part-b-batch-0001.parquet"
    again = lake.publish_named(b, name="batch-0001")
    assert not again.stored and again.paths == ()
    assert lake.publish(b, name="batch-0001") == []
    assert query(lake, "SELECT count(*) AS n FROM calls").to_pylist() == [{"n": 100}]
    with pytest.raises(ValueError, match="batch id"):
        lake.publish(b, name="../evil")


def test_schema_is_checked_before_writing(tmp_path):
    lake = Lake(tmp_path)
    b = batch(10)
    with pytest.raises(SchemaError, match="unknown column 'extra'"):
        lake.publish(b.append_column("extra", pa.array(range(10))))
    with pytest.raises(SchemaError, match="missing required column 'latency_ns'"):
        lake.publish(b.drop_columns(["latency_ns"]))
    bad = b.set_column(b.schema.get_field_index("latency_ns"), "latency_ns", pa.array([1.0] * 10))
    with pytest.raises(SchemaError, match="latency_ns"):
        lake.publish(bad)
    nulls = b.set_column(b.schema.get_field_index("op"), "op", pa.array([None] * 10, pa.string()))
    with pytest.raises(SchemaError, match="'op' has 10 nulls"):
        lake.publish(nulls)
    assert lake.files() == []


def test_corrupt_and_foreign_files_are_quarantined_not_fatal(tmp_path):
    lake = Lake(tmp_path)
    good = lake.publish(batch(500))[0]
    corrupt = good.parent / "part-corrupt.parquet"
    corrupt.write_bytes(good.read_bytes()[: good.stat().st_size // 2])  # torn: footer missing
    foreign = good.parent / "part-foreign.parquet"
    pq.write_table(pa.table({"x": [1, 2, 3]}), foreign)
    with pytest.warns(RuntimeWarning) as rec:
        n = query(lake, "SELECT count(*) AS n FROM calls").to_pylist()
    assert n == [{"n": 500}]
    msgs = " ".join(str(w.message) for w in rec)
    assert "part-corrupt.parquet" in msgs and "unreadable footer" in msgs
    assert "part-foreign.parquet" in msgs and "foreign file" in msgs
    q = tmp_path / "quarantine" / "calls" / good.parent.parent.name / good.parent.name
    assert sorted(p.name for p in q.iterdir()) == ["part-corrupt.parquet", "part-foreign.parquet"]
    assert lake.files() == [good]


def test_two_processes_publishing_at_once_lose_nothing(tmp_path):
    code = textwrap.dedent("""
        import sys
        from everypath.telemetry.lake import Lake
        from tests.telemetry._data import batch
        k = int(sys.argv[1])
        lake = Lake(sys.argv[2])
        for i in range(15):
            lake.publish(batch(1000 + i, seed=k * 100 + i, ts0=(k * 100 + i) * 10**9))
    """)
    procs = [subprocess.Popen([sys.executable, "-c", code, str(k), str(tmp_path)], env=env(tmp_path), cwd=REPO)
             for k in (1, 2)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    want = 2 * sum(1000 + i for i in range(15))
    got = query(Lake(tmp_path), "SELECT count(*) AS n, count(DISTINCT ts) AS d FROM calls").to_pylist()[0]
    assert got == {"n": want, "d": want}
    assert len(Lake(tmp_path).files()) == 30

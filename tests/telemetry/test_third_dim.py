"""The calls schema's third_dim (version 2): a matrix product's dimension the recorded shape lacks.
Written where known, null elsewhere; lakes of version-1 files (no such column) still read, as null."""
from __future__ import annotations

import dataclasses

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from everypath.telemetry.lake import Lake
from everypath.telemetry.schema import SCHEMA_VERSION
from everypath.telemetry.views import query

from ._data import DEVICE, SITES, raw


def _with_third(n: int, seed: int = 0) -> tuple[pa.RecordBatch, np.ndarray]:
    from everypath.telemetry.records import to_batch

    r = raw(n, seed)
    third = np.where(np.arange(n) % 3 == 0, 0, np.arange(n) + 7).astype(np.int64)  # 0: not recorded
    return to_batch(dataclasses.replace(r, third_dim=third), SITES, DEVICE), third


def test_third_dim_is_written_and_null_where_not_recorded(tmp_path):
    b, third = _with_third(30)
    col = b.column(b.schema.get_field_index("third_dim"))
    assert col.type == pa.int64()
    assert col.to_pylist() == [None if t == 0 else int(t) for t in third]
    lake = Lake(tmp_path)
    lake.publish([b])
    got = query(lake, "SELECT third_dim FROM calls ORDER BY ts").column("third_dim").to_pylist()
    assert got == [None if t == 0 else int(t) for t in third]
    from everypath.telemetry.records import to_batch

    plain = to_batch(raw(5), SITES, DEVICE)  # a producer that records none (the runtime shim today)
    assert plain.column(plain.schema.get_field_index("third_dim")).null_count == 5


def test_a_version_1_file_without_third_dim_still_reads(tmp_path):
    """A part written before schema 2 (no third_dim column, version 1 metadata) beside a new one."""
    from everypath.selector.retrain import load_rows

    old_lake, both = Lake(tmp_path / "old"), Lake(tmp_path / "both")
    new, third = _with_third(12, seed=1)
    for lake in (old_lake, both):
        [path] = lake.publish([new])
        t = pq.read_table(path)
        assert t.schema.metadata[b"everypath.schema_version"] == str(SCHEMA_VERSION).encode() == b"2"
        v1 = t.drop_columns(["third_dim"]).replace_schema_metadata({**t.schema.metadata, b"everypath.schema_version": b"1"})
        pq.write_table(v1, path)  # the same rows as an old everypath wrote them
        assert lake.problem(path) is None  # not quarantined
    assert query(old_lake, "SELECT count(*) AS n FROM calls").to_pylist() == [{"n": 12}]
    rows = load_rows(old_lake.root, 10_000)  # no file has the column: every row reads it as null
    assert len(rows) == 12 and rows["third_dim"].isna().all()
    both.publish([new], name="new-part")
    rows = load_rows(both.root, 10_000)
    assert len(rows) == 24
    assert int(rows["third_dim"].isna().sum()) == 12 + int((third == 0).sum())
    assert sorted(rows["third_dim"].dropna().astype(int)) == sorted(int(t) for t in third if t > 0)

from __future__ import annotations

import json
import shutil
import subprocess
import textwrap

import numpy as np
import pytest
from click.testing import CliRunner

from everypath.cli import main
from everypath.telemetry.lake import Lake
from everypath.telemetry.aggregates import AggregateRows
from everypath.telemetry.records import RawCalls
from everypath.telemetry.spool import RECORD, RECORD_V1, SpoolError, read, read_spool, write_spool
from everypath.telemetry.views import query

from ._data import REPO, SITES, raw

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")

SITES_JSON = json.dumps({"runtime": "native-executable", "table_version": "t1", "sites": [
    {"function": "app.kernel", "op": "numpy.add", "call_site": "kernel.py:3", "dtype": "float32",
     "variants": ["loops", "simd"]},
    {"function": "app.kernel", "op": "numpy.sum", "call_site": "kernel.py:4", "dtype": "float64",
     "variants": ["loops"]}]})

PROGRAM = textwrap.dedent("""
    #include <cstdlib>
    #include <cstring>
    #include <string>
    #include <vector>
    #include "everypath/telemetry_spool.hpp"
    int main(int argc, char** argv) {
      const int n = std::atoi(argv[2]);
      {
        ep::tele::SpoolWriter w(argv[1]);
        w.add_sites(argv[3]);
        std::vector<ep::tele::SpoolRecord> chunk;
        for (int i = 0; i < n; ++i) {
          ep::tele::SpoolRecord r{};
          r.ts_ns = 1764000000000000000LL + i; r.latency_ns = 1000 + 7 * i; r.site = i % 2;
          r.variant = (i % 2 == 0) ? (i / 2) % 2 : 0; r.ndim = i % 3; r.explore = i % 5 == 0;
          for (int d = 0; d < r.ndim; ++d) r.shape[d] = i + d + 1;
          r.n_elements = i + 1; r.threads = 1 + i % 4; r.propensity = 0.25f; r.inclusion = 0.5f;
          chunk.push_back(r);
          if (chunk.size() == 16 || i == n - 1) {  // one RECS chunk per "drain"
            w.append(chunk.data(), chunk.size());
            chunk.clear();
          }
        }
        // one interval's aggregates: site 0 variant 1 bucket 3 (3 bins), site 1 variant 0 bucket 0 (none)
        ep::tele::SpoolAggHeader h{1764000000000000000LL, 1764000005000000000LL, 2, 3, 4};
        ep::tele::SpoolAggRow rows[2] = {};
        rows[0].site = 0; rows[0].variant = 1; rows[0].size_bucket = 3; rows[0].nbins = 3;
        rows[0].count = 9; rows[0].timed = 6; rows[0].sum_ns = 6000; rows[0].min_ns = 700; rows[0].max_ns = 1500;
        rows[1].site = 1; rows[1].count = 5;
        const int64_t counts[3] = {2, 3, 4};
        const int32_t bins[3] = {100, 200, 300};
        w.append_aggregates(h, rows, counts, bins);
      }
      if (argc > 4) {  // a crash in the middle of a drain: a RECS chunk of 2 records, 1.5 of them written
        std::FILE* f = std::fopen(argv[1], "ab");
        const uint32_t head[2] = {ep::tele::kRecordsTag, 2 * sizeof(ep::tele::SpoolRecord)};
        std::fwrite(head, 1, sizeof head, f);
        ep::tele::SpoolRecord r[2] = {};
        r[0].ts_ns = 1764000000000000000LL; r[0].latency_ns = 1; r[0].propensity = 1; r[0].inclusion = 1;
        std::fwrite(r, 1, sizeof r * 3 / 4, f);
        std::fclose(f);
      }
    }
""")


@pytest.fixture(scope="module")
def writer(tmp_path_factory):
    d = tmp_path_factory.mktemp("spoolc")
    (d / "w.cpp").write_text(PROGRAM)
    subprocess.run(["g++", "-std=c++20", "-O1", "-Wall", "-Werror", f"-I{REPO / 'variants' / 'include'}",
                    str(d / "w.cpp"), "-o", str(d / "w")], check=True)
    return d / "w"


@pytest.mark.parametrize("torn", [False, True])
def test_cpp_writer_round_trip(writer, tmp_path, torn):
    p = tmp_path / "a.spool"
    subprocess.run([str(writer), str(p), "101", SITES_JSON] + (["torn"] if torn else []), check=True)
    s = read(p)
    r, sites, runtime = s.raw, s.sites, s.runtime
    assert runtime == "native-executable" and [s.op for s in sites] == ["numpy.add", "numpy.sum"] and s.version == 2
    assert len(r) == 101 + torn  # the torn chunk's whole record is kept, its half record dropped
    r = RawCalls(**{k: v[:101] if isinstance(v, np.ndarray) else v for k, v in vars(r).items()})
    i = np.arange(101)
    np.testing.assert_array_equal(r.latency_ns, 1000 + 7 * i)
    np.testing.assert_array_equal(r.site, i % 2)
    np.testing.assert_array_equal(r.explore, i % 5 == 0)
    np.testing.assert_array_equal(r.threads, 1 + i % 4)
    np.testing.assert_array_equal(r.shape[:, 0], np.where(i % 3 > 0, i + 1, 0))
    assert r.table_version == "t1" and np.all(r.propensity == np.float32(0.25))
    assert np.all(r.inclusion == np.float32(0.5))
    (a,) = s.aggregates
    assert (a.start_ns, a.end_ns, a.table_version) == (1764000000000000000, 1764000005000000000, "t1")
    assert a.site.tolist() == [0, 1] and a.variant.tolist() == [1, 0] and a.size_bucket.tolist() == [3, 0]
    assert a.count.tolist() == [9, 5] and a.timed.tolist() == [6, 0] and a.sum_ns.tolist() == [6000, 0]
    assert a.min_ns.tolist() == [700, 0] and a.max_ns.tolist() == [1500, 0]
    assert a.hist_offsets.tolist() == [0, 3, 3] and a.hist_bin.tolist() == [100, 200, 300]
    assert a.hist_count.tolist() == [2, 3, 4]


def test_ingest_publishes_once_and_renames(writer, tmp_path):
    lake_dir = tmp_path / "lake"
    spools = []
    for k, torn in ((0, False), (1, True)):
        p = tmp_path / f"s{k}.spool"
        subprocess.run([str(writer), str(p), str(50 + k), SITES_JSON] + (["x"] if torn else []), check=True)
        spools.append(p)
    copy = tmp_path / "copy.spool"
    shutil.copy(spools[0], copy)  # the same content again (e.g. re-sent): stored once
    res = CliRunner().invoke(main, ["telemetry", "ingest", "--lake", str(lake_dir), *map(str, spools), str(copy)])
    assert res.exit_code == 0, res.output
    assert "already ingested" in res.output
    assert all(not p.exists() and p.with_name(p.name + ".ingested").exists() for p in [*spools, copy])
    rows = query(Lake(lake_dir), "SELECT runtime, variant, count(*) AS n FROM calls GROUP BY ALL ORDER BY ALL")
    assert rows.to_pylist() == [{"runtime": "native-executable", "variant": "loops", "n": 77},  # + the torn one
                                {"runtime": "native-executable", "variant": "simd", "n": 25}]
    # each spool's aggregates once (the copy is a duplicate): 2 spools x (9 + 5) calls
    aggs = query(Lake(lake_dir), "SELECT op, variant, sum(count) AS n FROM aggregates GROUP BY ALL ORDER BY ALL")
    assert aggs.to_pylist() == [{"op": "numpy.add", "variant": "simd", "n": 18},
                                {"op": "numpy.sum", "variant": "loops", "n": 10}]


def test_python_writer_and_bad_files(tmp_path):
    p = tmp_path / "p.spool"
    r = raw(33, seed=4)
    write_spool(p, r, SITES, "emulated")
    back, sites, runtime = read_spool(p)
    assert runtime == "emulated" and sites == SITES
    np.testing.assert_array_equal(back.shape, r.shape)
    np.testing.assert_array_equal(back.explore, r.explore)
    assert RECORD.itemsize == 80 and RECORD_V1.itemsize == 72
    (tmp_path / "bad.spool").write_bytes(b"NOTSPOOL" + bytes(40))
    with pytest.raises(SpoolError, match="bad magic"):
        read_spool(tmp_path / "bad.spool")
    (tmp_path / "short.spool").write_bytes(p.read_bytes()[:30])
    with pytest.raises(SpoolError, match="truncated"):
        read_spool(tmp_path / "short.spool")


def test_version_1_files_are_still_read_and_ingested(tmp_path):
    """A spool written by an older runtime (72-byte records, no aggregates): read as it was, inclusion
    unknown (read as 1), ingested with its rows counted as uncovered raw rows."""
    p = tmp_path / "old.spool"
    r = raw(40, seed=2)
    write_spool(p, r, SITES, "native-executable", version=1)
    data = p.read_bytes()
    assert data[8:12] == bytes([1, 0, 72, 0])  # version 1, 72-byte records
    s = read(p)
    assert s.version == 1 and s.aggregates == [] and s.raw.inclusion is None and len(s.raw) == 40
    np.testing.assert_array_equal(s.raw.latency_ns, r.latency_ns)
    lake = Lake(tmp_path / "lake")
    res = CliRunner().invoke(main, ["telemetry", "ingest", "--lake", str(lake.root), str(p)])
    assert res.exit_code == 0, res.output
    assert query(lake, "SELECT count(*) AS n FROM calls").to_pylist() == [{"n": 40}]
    assert query(lake, "SELECT sum(n) AS n FROM op_latency").to_pylist() == [{"n": 40}]
    p.with_name("old.spool.ingested").write_bytes(data[:-10])  # torn: the last whole record is kept
    assert len(read(p.with_name("old.spool.ingested")).raw) == 39
    (tmp_path / "v9.spool").write_bytes(data[:8] + bytes([9, 0, 72, 0]) + data[12:])
    with pytest.raises(SpoolError, match="spool version 9 with 72-byte records; this reader knows version 1"):
        read(tmp_path / "v9.spool")


def test_python_writer_round_trips_aggregates(tmp_path):
    r = raw(12, seed=1)
    r = RawCalls(**{**vars(r), "inclusion": np.full(12, 0.25, np.float32)})
    a = AggregateRows(10, 20, np.array([0, 1], np.int32), np.array([1, 0], np.int16), np.array([4, 0], np.uint8),
                      np.array([30, 2], np.int64), np.array([3, 0], np.int64), np.array([999, 0], np.int64),
                      np.array([100, 0], np.int64), np.array([700, 0], np.int64), np.array([0, 2, 2], np.int64),
                      np.array([100, 130], np.int32), np.array([10, 20], np.int64))
    write_spool(tmp_path / "a.spool", r, SITES, "native-executable", aggregates=[a, a])
    s = read(tmp_path / "a.spool")
    assert s.version == 2 and len(s.aggregates) == 2 and np.all(s.raw.inclusion == np.float32(0.25))
    for got in s.aggregates:
        for k in ("site", "variant", "size_bucket", "count", "timed", "sum_ns", "min_ns", "max_ns", "hist_offsets",
                  "hist_bin", "hist_count"):
            np.testing.assert_array_equal(getattr(got, k), getattr(a, k), err_msg=k)
    # a torn AGGS chunk (the writer killed mid-drain) is dropped whole; the records before it stay
    data = (tmp_path / "a.spool").read_bytes()
    (tmp_path / "t.spool").write_bytes(data[:-5])
    t = read(tmp_path / "t.spool")
    assert len(t.aggregates) == 1 and len(t.raw) == 12
    with pytest.raises(ValueError, match="version 1 has no aggregates"):
        write_spool(tmp_path / "b.spool", r, SITES, "native-executable", aggregates=[a], version=1)

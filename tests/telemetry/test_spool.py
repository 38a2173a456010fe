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
from everypath.telemetry.spool import RECORD, SpoolError, read_spool, write_spool
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
    #include "everypath/telemetry_spool.hpp"
    int main(int argc, char** argv) {
      const int n = std::atoi(argv[2]);
      {
        ep::tele::SpoolWriter w(argv[1]);
        w.add_sites(argv[3]);
        for (int i = 0; i < n; ++i) {
          ep::tele::SpoolRecord r{};
          r.ts_ns = 1764000000000000000LL + i; r.latency_ns = 1000 + 7 * i; r.site = i % 2;
          r.variant = (i % 2 == 0) ? (i / 2) % 2 : 0; r.ndim = i % 3; r.explore = i % 5 == 0;
          for (int d = 0; d < r.ndim; ++d) r.shape[d] = i + d + 1;
          r.n_elements = i + 1; r.threads = 1 + i % 4; r.propensity = 0.25f;
          w.append(r);
        }
      }
      if (argc > 4) {  // a crash in the middle of the last record: half of it reaches the file
        std::FILE* f = std::fopen(argv[1], "ab");
        ep::tele::SpoolRecord r{};
        std::fwrite(&r, 1, sizeof r / 2, f);
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
    r, sites, runtime = read_spool(p)
    assert runtime == "native-executable" and [s.op for s in sites] == ["numpy.add", "numpy.sum"]
    assert len(r) == 101  # the torn half record is dropped
    i = np.arange(101)
    np.testing.assert_array_equal(r.latency_ns, 1000 + 7 * i)
    np.testing.assert_array_equal(r.site, i % 2)
    np.testing.assert_array_equal(r.explore, i % 5 == 0)
    np.testing.assert_array_equal(r.threads, 1 + i % 4)
    np.testing.assert_array_equal(r.shape[:, 0], np.where(i % 3 > 0, i + 1, 0))
    assert r.table_version == "t1" and np.all(r.propensity == np.float32(0.25))


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
    assert rows.to_pylist() == [{"runtime": "native-executable", "variant": "loops", "n": 76},
                                {"runtime": "native-executable", "variant": "simd", "n": 25}]


def test_python_writer_and_bad_files(tmp_path):
    p = tmp_path / "p.spool"
    r = raw(33, seed=4)
    write_spool(p, r, SITES, "emulated")
    back, sites, runtime = read_spool(p)
    assert runtime == "emulated" and sites == SITES
    np.testing.assert_array_equal(back.shape, r.shape)
    np.testing.assert_array_equal(back.explore, r.explore)
    assert RECORD.itemsize == 72
    (tmp_path / "bad.spool").write_bytes(b"NOTSPOOL" + bytes(40))
    with pytest.raises(SpoolError, match="bad magic"):
        read_spool(tmp_path / "bad.spool")
    (tmp_path / "short.spool").write_bytes(p.read_bytes()[:30])
    with pytest.raises(SpoolError, match="truncated"):
        read_spool(tmp_path / "short.spool")

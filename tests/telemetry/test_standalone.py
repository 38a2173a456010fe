"""A standalone program (no Python) records operator calls into a spool file through the
same shim (ep::tele::SpoolHost): every call counted in the spool's aggregates, a share timed
and recorded raw; `everypath telemetry ingest` brings both into the lake."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
from click.testing import CliRunner

import everypath
from everypath.cli import main as cli
from everypath.base.settings import Settings
from everypath.telemetry.views import query
from everypath.variants.paths import build_flags

V = np.ndarray[tuple[int], np.dtype[np.float64]]
M = np.ndarray[tuple[int, int], np.dtype[np.float64]]


def step(x: V, a: M):
    return np.tanh(x) * 0.5 + 1.0, a @ a


MAIN = r'''
#include "unit.cpp"
#include <everypath/telemetry_standalone.hpp>
#include <cstdio>

int main(int argc, char** argv) {
  ep::tele::SpoolHost host;
  if (ep_telemetry_attach(host.hub()) != 2) return 3;
  host.start(argv[1], 1.0, 0.0, 20);
  auto x = ep::empty<double, 1>({1000});
  auto a = ep::empty<double, 2>({16, 16});
  for (int i = 0; i < 1000; ++i) x.data[i] = i * 0.001;
  for (int i = 0; i < 256; ++i) a.data[i] = i * 0.01;
  double check = 0;
  for (int i = 0; i < 250; ++i) {
    auto r = SYMBOL(x, a);
    check += std::get<0>(r).data[3] + std::get<1>(r).data[5];
  }
  host.stop();
  std::printf("%.6f\n", check);
  return 0;
}
'''


def test_a_native_program_spools_and_ingest_fills_the_lake(tmp_path: Path) -> None:
    settings = Settings.from_env({"EVERYPATH_TELEMETRY": "0"})
    src = everypath.compile(step, settings=settings).cpp_source
    symbol = re.search(r"static \S.* (step__\d+)\(", src).group(1)  # type: ignore[union-attr]
    (tmp_path / "unit.cpp").write_text(src)
    (tmp_path / "main.cpp").write_text(MAIN.replace("SYMBOL", symbol))
    cxx, link = build_flags(src)
    flags = [f for f in settings.cxx_flags() if f not in ("-shared", "-fPIC")]
    include = Path(__file__).resolve().parents[2] / "variants" / "include"
    exe = tmp_path / "prog"
    subprocess.run(["g++", *flags, *cxx, f"-I{include}", str(tmp_path / "main.cpp"), "-o", str(exe), "-pthread",
                    *link, *settings.link_flags()], check=True, capture_output=True, text=True)
    spool = tmp_path / "run.spool"
    run = subprocess.run([str(exe), str(spool)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    x, a = np.arange(1000) * 0.001, (np.arange(256) * 0.01).reshape(16, 16)
    want = 250 * (float(np.tanh(x[3]) * 0.5 + 1.0) + float((a @ a).flat[5]))
    assert abs(float(run.stdout) - want) < 1e-6 * want  # the program computed what Python computes

    lake = tmp_path / "lake"
    res = CliRunner().invoke(cli, ["telemetry", "ingest", "--lake", str(lake), str(spool)])
    assert res.exit_code == 0, res.output
    rows = query(lake, "SELECT op, call_site, variant, runtime, n_elements, latency_ns FROM calls").to_pylist()
    assert 0 < len(rows) <= 500  # of two operator calls per step, those timed (a share: the timing budget)
    counted = query(lake, "SELECT op, sum(count)::BIGINT AS n FROM aggregates GROUP BY op ORDER BY op").to_pylist()
    assert counted == [{"op": "fused:operator.add", "n": 250}, {"op": "operator.matmul", "n": 250}]  # every call
    assert query(lake, "SELECT sum(n)::BIGINT AS n FROM op_latency").to_pylist() == [{"n": 500}]
    assert {r["runtime"] for r in rows} == {"native-executable"}
    assert {(r["op"], r["n_elements"]) for r in rows} == {("fused:operator.add", 1000), ("operator.matmul", 256)}
    assert all(r["latency_ns"] > 0 and r["call_site"].startswith("test_standalone.py:") for r in rows)
    # ingesting again stores nothing twice (the spool was renamed; its content hash names the batch)
    assert not spool.exists() and list(tmp_path.glob("run.spool*"))

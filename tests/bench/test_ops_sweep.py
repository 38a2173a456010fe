"""Smoke test of bench/ops_sweep.py: its CSV and Markdown structure, never its timings. Two operators
in one child process each (the default isolation), one small size: an element-wise NumPy function
with simd/threads paths and an operator without a generic call (a row that says why)."""
from __future__ import annotations

import csv
import math
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "ops_sweep.py"


def test_sweep_rows_summary_and_missing_cases(tmp_path: Path) -> None:
    out, md = tmp_path / "sweep.csv", tmp_path / "sweep.md"
    proc = subprocess.run([sys.executable, str(SCRIPT), "--ops", "numpy.sqrt,math.sqrt", "--sizes", "2048",
                           "--dtypes", "int64", "--layouts", "contiguous,transposed", "--threads", "1",
                           "--out", str(out), "--markdown", str(md)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "EVERYPATH_TELEMETRY": "0"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = list(csv.DictReader(out.open()))
    timed = [r for r in rows if r["op"] == "numpy.sqrt"]
    # 2 layouts (one build per path), one row per path (loops at least), every right path timed with a ratio
    assert {(r["dtype"], r["layout"]) for r in timed} == {("int64", "contiguous"), ("int64", "transposed")}
    assert "loops" in {r["path"] for r in timed}
    for r in timed:
        assert r["status"] == "ok", r
        assert float(r["seconds"]) > 0 and float(r["reference_seconds"]) > 0
        assert math.isclose(float(r["ratio"]), float(r["reference_seconds"]) / float(r["seconds"]), rel_tol=1e-9)
    skipped = [r for r in rows if r["op"] == "math.sqrt"]
    assert len(skipped) == 1 and skipped[0]["status"] == "no case" and "scalar" in skipped[0]["reason"], skipped
    text = md.read_text()
    assert "| numpy.elementwise | 1 | 2 |" in text and "`math.sqrt`" in text
    assert "summary at the largest size" in proc.stdout

"""Smoke test of bench/paths_bench.py: the structure of its JSON, never its timings
(benchmarks print ratios measured side by side; tests do not assert speed)."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "paths_bench.py"
PATHS_OF = {"elementwise": {"loops", "simd", "threads"}, "matmul": {"loops", "threads", "blas"}}


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("paths") / "paths.json"
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--families", "elementwise,matmul",
                           "--threads", "1", "--plain", "--json", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600, env=dict(os.environ))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "best path beats the reference on" in proc.stdout
    assert "threads: 1" in proc.stdout
    return json.loads(out.read_text())


def _positive(x: object) -> bool:
    return isinstance(x, (int, float)) and math.isfinite(x) and x > 0


def test_families_and_rows(report: dict) -> None:
    assert [f["name"] for f in report["families"]] == ["elementwise", "matmul"]
    assert report["meta"]["threads"] == 1 and report["meta"]["quick"] is True
    for fam in report["families"]:
        assert fam["reference"] == "NumPy" and not fam["error"] and fam["rows"]
        for row in fam["rows"]:
            assert row["size"] == fam["sizes"][0]
            assert row["reference"]["status"] == "ok" and _positive(row["reference"]["seconds"])
            assert len(row["reference"]["samples_ns"]) >= 5
            paths = {t["path"] for t in row["paths"]}
            assert paths and paths <= PATHS_OF[fam["name"]]
            for t in row["paths"]:
                assert t["status"] in ("ok", "slow", "wrong", "fail", "timeout")
                if t["status"] == "ok":
                    assert _positive(t["seconds"]) and _positive(t["ratio"]) and len(t["samples_ns"]) >= 5
                    assert math.isclose(t["ratio"], row["reference"]["seconds"] / t["seconds"])
                else:
                    assert t["ratio"] is None and t["reason"]
            timed = [t for t in row["paths"] if t["status"] in ("ok", "slow")]
            if timed:
                best = max(timed, key=lambda t: t["ratio"])
                assert row["best"] == best["path"] and row["best_ratio"] == best["ratio"]


def test_summary(report: dict) -> None:
    summ = {s["family"]: s for s in report["summary"]}
    assert set(summ) == {"elementwise", "matmul"}
    for s in summ.values():
        assert s["operators"] >= 2 and s["best_path"] in PATHS_OF[s["family"]]
        assert _positive(s["ratio"]) and s["beats"] == (s["ratio"] > 1 and s["right"] == s["operators"])
    assert report["of"] == 2 and report["beats"] == sum(s["beats"] for s in summ.values())
    assert report["goal"].startswith(f"best path beats the reference on {report['beats']} of 2 families")


def test_check_reports_wrong_results() -> None:
    """A fast wrong path must be caught before timing: values, shape and dtype."""
    sys.path[:0] = [str(ROOT / "bench")]
    try:
        from paths.families import FAMILIES
        from paths.measure import check
    finally:
        del sys.path[0]
    fam = FAMILIES[0]
    x = np.linspace(0.5, 1.5, 11)
    check(x * (1 + 1e-14), x, fam)
    for bad in (x * (1 + 1e-6), x[:-1], x.astype(np.float32), (x, x)):
        with pytest.raises(AssertionError):
            check(bad, x, fam)

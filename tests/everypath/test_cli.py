"""The `everypath` command line, driven in-process with click's runner."""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from everypath.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "kernels.py"


def test_compile_builds_every_function_of_a_module() -> None:
    result = CliRunner().invoke(main, ["compile", str(EXAMPLES), "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert {r["function"] for r in rows} == {"pairwise_distances", "black_scholes", "mandelbrot", "rolling_mean"}
    assert all(r["status"] in ("built", "cached") and Path(r["artifact"]).exists() for r in rows)


def test_compile_reports_errors_with_location_and_fails(tmp_path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import numpy as np\nimport everypath\n\n@everypath.compile\n"
                   "def f(x: np.ndarray[tuple[int], np.dtype[np.float64]]) -> float:\n    return x[0, 1]\n")
    result = CliRunner().invoke(main, ["compile", str(bad)])
    assert result.exit_code == 1
    assert f"{bad}:6:12: error: too many indices" in result.output


def test_trace_and_cpp_show_ir_and_marked_cpp() -> None:
    runner = CliRunner()
    ir = runner.invoke(main, ["trace", f"{EXAMPLES}:rolling_mean"])
    assert ir.exit_code == 0 and "def rolling_mean(x, window):" in ir.output and "call numpy.cumsum" in ir.output
    cpp = runner.invoke(main, ["cpp", f"{EXAMPLES}:rolling_mean"])
    assert cpp.exit_code == 0 and "// kernels.py:" in cpp.output and "EP_EXPORT int ep_call_rolling_mean" in cpp.output


def test_ops_list_json() -> None:
    result = CliRunner().invoke(main, ["ops", "list", "--json"])
    assert result.exit_code == 0
    ops = json.loads(result.output)
    keys = {o["op"] for o in ops}
    assert {"numpy.exp", "numpy.sum", "numpy.matmul", "math.sqrt", "builtins.range"} <= keys
    assert all(v["path"] and isinstance(v["available"], bool) for o in ops for v in o["variants"])


def test_missing_file_is_a_usage_error() -> None:
    result = CliRunner().invoke(main, ["compile", "/nonexistent/mod.py"])
    assert result.exit_code == 2 and "no such file" in result.output

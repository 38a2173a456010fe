"""The package as users install it: a wheel built from this checkout, installed into a fresh venv, adds one
top-level name (`everypath`, beside its dist-info) and compiles and runs a function from there (the C++
headers and the runtime travel as package data)."""
from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow

KERNEL = '''
import numpy as np
import everypath

@everypath.compile
def scaled_sum(x: np.ndarray[tuple[int], np.dtype[np.float64]], k: float) -> float:
    total = 0.0
    for i in range(x.shape[0]):
        total += x[i] * k
    return total
'''


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    build = tmp_path_factory.mktemp("wheel_build")
    env = {**os.environ, "TMPDIR": str(build)}
    p = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out),
                        str(ROOT)], capture_output=True, text=True, env=env, timeout=900)
    assert p.returncode == 0, p.stderr[-3000:]
    (whl,) = out.glob("everypath-*.whl")
    return whl


def test_the_wheel_holds_one_top_level_name(wheel: Path) -> None:
    names = {n.split("/")[0] for n in zipfile.ZipFile(wheel).namelist()}
    assert {n for n in names if not n.endswith(".dist-info")} == {"everypath"}, names
    listing = zipfile.ZipFile(wheel).namelist()
    for must in ("everypath/base/types.py", "everypath/tracer/frontend.py", "everypath/variants/include/everypath/abi.h",
                 "everypath/lowering/runtime/module.cpp", "everypath/dashboard/app.py"):
        assert must in listing, must
    for ext in ("_runtime", "_dispatch"):  # the pybind11 runtime and the vectorcall entry
        assert any(n.startswith(f"everypath/lowering/{ext}.") and n.endswith(".so") for n in listing), ext


def test_installed_into_a_fresh_venv_it_compiles_and_runs(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    py = venv / "bin" / "python"
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               capture_output=True, text=True, check=True).stdout.strip())
    # install = unpack into site-packages (what pip does for a pure-layout wheel), without pip in the new venv
    zipfile.ZipFile(wheel).extractall(site)
    added = {p.name for p in site.iterdir()} - {"__pycache__"}
    assert {n for n in added if not n.endswith(".dist-info")} == {"everypath"}, added
    (tmp_path / "app.py").write_text(KERNEL + "print(scaled_sum(np.arange(4.0), 0.5))\n"
                                     "import everypath.lowering as L; print(L.__file__)\n")
    # the dependencies (numpy, pybind11, ...) come from this environment's site-packages, after the venv's own
    deps = sysconfig.get_path("purelib")
    env = {**os.environ, "PYTHONPATH": deps, "EVERYPATH_CACHE": str(tmp_path / "cache"), "EVERYPATH_TELEMETRY": "0"}
    p = subprocess.run([str(py), str(tmp_path / "app.py")], capture_output=True, text=True, env=env,
                       cwd=tmp_path, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    value, where = p.stdout.split()
    assert float(value) == 3.0
    assert Path(where).resolve().is_relative_to(site.resolve()), where  # the installed copy, not the checkout

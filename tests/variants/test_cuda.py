"""The cuda path: every kernel header compiles with nvcc (when the toolkit is here),
and the check program runs them against a host reference where a GPU exists
(exit 77 = no GPU: compiled, not run). bench/cuda_check.sh is the same check for a
GPU machine."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from everypath.variants.paths import host_path

REPO = Path(__file__).resolve().parents[2]
NVCC = shutil.which("nvcc")

pytestmark = pytest.mark.skipif(NVCC is None, reason="nvcc (CUDA toolkit) not installed")


def test_cuda_kernels_compile_and_agree_where_a_gpu_exists(tmp_path: Path) -> None:
    exe = tmp_path / "check_kernels"
    cmd = [NVCC, "-std=c++17", "--extended-lambda", "-O2", "-arch=sm_80", f"-I{REPO / 'variants' / 'include'}",
           str(REPO / "tests" / "variants" / "cuda" / "check_kernels.cu"), "-o", str(exe)]
    build = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr[-4000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    if run.returncode == 77:
        assert "NO GPU" in run.stdout
        return  # compiled; no GPU on this machine to run them
    assert run.returncode == 0, run.stdout[-4000:]


def test_cuda_path_reports_why_it_is_not_in_host_builds() -> None:
    hp = host_path("cuda")
    assert not hp.available and hp.reason and "nvcc" in hp.reason

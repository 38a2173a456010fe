"""The opencv path runs OpenCV with everypath's thread count (paths/opencv/imgproc.hpp use_thread_count):
EVERYPATH_THREADS, else OMP_NUM_THREADS, set on the first call; neither set leaves OpenCV's default.
One small C++ program calls an opencv-path kernel and prints cv::getNumThreads() after it, run under
each environment; the result image is checked against cv2 so the call is a real one."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from everypath.variants.paths import host_path

cv2 = pytest.importorskip("cv2", reason="the reference is OpenCV's Python module (opencv-python-headless)")
OPENCV = host_path("opencv")
pytestmark = pytest.mark.skipif(not OPENCV.available, reason=OPENCV.reason or "no OpenCV C++ library")
INCLUDE = Path(__file__).resolve().parents[2] / "variants" / "include"

PROGRAM = r"""
#include <cstdio>
#include "everypath/everypath.hpp"
#include "everypath/paths/opencv/imgproc.hpp"
int main() {
  const int before = cv::getNumThreads();
  auto a = ep::empty<uint8_t, 2>({7, 9});
  for (ep::index_t i = 0; i < a.size(); ++i) a.data[i] = static_cast<uint8_t>((i * 37 + 11) % 251);
  auto r = ep::opencv::cv_median_blur(a, 5);
  std::printf("%d %d\n", before, cv::getNumThreads());
  for (ep::index_t i = 0; i < r.size(); ++i) std::printf("%d ", int(r.data[i]));
  std::printf("\n");
}
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("cvthreads")
    (d / "t.cpp").write_text(PROGRAM)
    exe = d / "t"
    subprocess.run(["g++", "-std=c++20", "-O1", f"-I{INCLUDE}", *OPENCV.cxx_flags, str(d / "t.cpp"), "-o", str(exe),
                    *OPENCV.link_flags], check=True, capture_output=True, text=True)
    return exe


def _run(exe: Path, **env: str) -> tuple[int, int, np.ndarray]:
    clean = {k: v for k, v in os.environ.items() if k not in ("EVERYPATH_THREADS", "OMP_NUM_THREADS")}
    out = subprocess.run([str(exe)], env={**clean, **env}, check=True, capture_output=True, text=True).stdout.split("\n")
    before, after = map(int, out[0].split())
    return before, after, np.array(out[1].split(), dtype=np.uint8).reshape(7, 9)


def _want() -> np.ndarray:
    a = ((np.arange(63) * 37 + 11) % 251).astype(np.uint8).reshape(7, 9)
    return cv2.medianBlur(a, 5)


@pytest.mark.parametrize(("env", "threads"), [({"EVERYPATH_THREADS": "1"}, 1), ({"OMP_NUM_THREADS": "1"}, 1),
                                              ({"EVERYPATH_THREADS": "1", "OMP_NUM_THREADS": "3"}, 1),
                                              ({"OMP_NUM_THREADS": "3"}, 3)])
def test_thread_count_follows_the_environment(program: Path, env: dict[str, str], threads: int) -> None:
    _, after, got = _run(program, **env)
    assert after == threads
    np.testing.assert_array_equal(got, _want())


def test_no_setting_leaves_opencvs_default(program: Path) -> None:
    before, after, got = _run(program)
    assert after == before
    _, bad, _ = _run(program, EVERYPATH_THREADS="zero")  # not a positive count: ignored, as the threads path does
    assert bad == before
    np.testing.assert_array_equal(got, _want())

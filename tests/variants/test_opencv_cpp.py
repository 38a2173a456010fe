"""cv2 operators lowered to C++ for both implementation paths (loops: our C++,
opencv: OpenCV's C++ API), compiled with g++ and compared with the cv2 Python
module. One program per family and path; tolerances are per case (_cvkit.Tol)."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

pytest.importorskip("cv2", reason="the reference is OpenCV's Python module (opencv-python-headless)")

from tests.variants import _cvcases_basic, _cvcases_color, _cvcases_filter, _cvcases_geom  # noqa: E402
from tests.variants._cvkit import CvProgram, opencv_flags  # noqa: E402

FAMILIES: dict[str, Callable[[CvProgram], None]] = {
    "basic": _cvcases_basic.build,
    "color": _cvcases_color.build,
    "filter": _cvcases_filter.build,
    "geom": _cvcases_geom.build,
}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_loops(family: str, tmp_path: Path) -> None:
    p = CvProgram(f"cv_{family}_loops", "loops")
    FAMILIES[family](p)
    p.run(tmp_path)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_opencv(family: str, tmp_path: Path) -> None:
    flags, why = opencv_flags()
    if flags is None:
        pytest.skip(f"opencv path not buildable here: {why}")
    p = CvProgram(f"cv_{family}_opencv", "opencv")
    FAMILIES[family](p)
    p.run(tmp_path, flags)

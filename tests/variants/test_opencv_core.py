"""cv2.bitwise_not/and/or/xor, convertScaleAbs, rotate and merge (variants/ops/opencv_core.py) on both paths,
lowered to C++ and compared with cv2 in one program per path (tests/variants/_cvkit.py): every depth,
1 and 3 channels, masks, views, empty images, OpenCV's errors, and the refused deviations."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2", reason="the reference is OpenCV's Python module (opencv-python-headless)")

from tests.variants._cvkit import CvProgram, Tol, image, opencv_flags  # noqa: E402
from tests.variants._harness import Const, View  # noqa: E402

DTYPES = (np.uint8, np.int8, np.uint16, np.int16, np.int32, np.float32, np.float64)
BITWISE = ("cv2.bitwise_and", "cv2.bitwise_or", "cv2.bitwise_xor")
# OpenCV rounds float products with its own vector code (multiply-add order): at most 1 apart
SCALE_ABS = Tol(diff=1, frac=0.02)


def build(p: CvProgram) -> None:
    for dt in DTYPES:
        for shape in ((5, 7), (4, 6, 3), (1, 1)):
            tag = f"{np.dtype(dt).name}_{'x'.join(map(str, shape))}"
            a, b = image(shape, dt, 1), image(shape, dt, 2)
            p.case(f"not_{tag}", "cv2.bitwise_not", a)
            for key in BITWISE:
                p.case(f"{key[4:]}_{tag}", key, a, b)
            for code in (0, 1, 2):
                p.case(f"rotate_{tag}_{code}", "cv2.rotate", a, Const(code))
            p.case(f"scale_abs_{tag}", "cv2.convertScaleAbs", a, tol=SCALE_ABS)
            p.case(f"scale_abs_{tag}_ab", "cv2.convertScaleAbs", a, Const(None), -0.75, 3.5, tol=SCALE_ABS)
    g = image((6, 8), np.uint8, 3)
    g3 = image((6, 8, 3), np.uint8, 4)
    m = (image((6, 8), np.uint8, 5) > 128).astype(np.uint8)
    p.case("and_mask", "cv2.bitwise_and", g, g, mask=m)
    p.case("and_mask_3ch", "cv2.bitwise_and", g3, image((6, 8, 3), np.uint8, 6), mask=m)
    p.case("not_mask_f32", "cv2.bitwise_not", image((6, 8), np.float32, 1), mask=m)
    p.case("xor_mask_view", "cv2.bitwise_xor", g, g[::-1], mask=View(np.ascontiguousarray(np.tile(m, (1, 2))),
                                                                       (slice(None), slice(None, None, 2))))
    p.case("and_mask_size", "cv2.bitwise_and", g, g, mask=np.ones((6, 9), np.uint8))
    p.case("and_size", "cv2.bitwise_and", g, image((6, 9), np.uint8))
    p.case("or_dtype", "cv2.bitwise_or", g, image((6, 8), np.int16))
    p.case("or_scalar", "cv2.bitwise_or", g, 3, deviation="'array op scalar' is not supported")
    p.case("not_mask_f32_mask", "cv2.bitwise_not", g, mask=m.astype(np.float32), deviation="2-d uint8 image")
    base = image((9, 12, 3), np.uint8, 7)
    for code in (0, 1, 2):
        p.case(f"rotate_view_{code}", "cv2.rotate", View(base, (slice(None, None, 2), slice(1, None))), Const(code))
        p.case(f"rotate_transposed_{code}", "cv2.rotate", View(image((7, 5), np.float32, 3), transpose=True),
               Const(code))
    p.case("not_view", "cv2.bitwise_not", View(base, (slice(None, None, -1), slice(None, None, 3))))
    p.case("and_view", "cv2.bitwise_and", View(base, (slice(1, None), slice(None, None, 2))),
           View(base, (slice(None, -1), slice(None, None, 2))))
    p.case("scale_abs_view", "cv2.convertScaleAbs", View(image((8, 10), np.int16, 2), (slice(None), slice(None, None, 3))),
           alpha=2.0, tol=SCALE_ABS)
    p.case("scale_abs_halves", "cv2.convertScaleAbs", np.array([[-2.5, 2.5, 3.5, 300, -0.5, 0.5, -1e9]]))
    p.case("scale_abs_kw", "cv2.convertScaleAbs", image((3, 4), np.int32, 1), beta=-7)
    p.case("rotate_kw", "cv2.rotate", image((3, 4), np.uint8), rotateCode=Const(cv2.ROTATE_180))
    p.case("rotate_bad_code", "cv2.rotate", image((3, 4), np.uint8), Const(3), deviation="rotateCode 3")
    for key in ("cv2.bitwise_not", "cv2.convertScaleAbs"):
        p.case(f"{key[4:]}_empty", key, np.zeros((0, 5), np.uint8))
    p.case("rotate_empty", "cv2.rotate", np.zeros((4, 0, 3), np.float32), Const(0))
    p.case("and_empty", "cv2.bitwise_and", np.zeros((0, 3), np.uint8), np.zeros((0, 3), np.uint8))
    for dt in (np.uint8, np.int16, np.float32, np.float64):
        a, b, c = (image((5, 7), dt, s) for s in (1, 2, 3))
        p.case(f"merge_{np.dtype(dt).name}_3", "cv2.merge", (a, b, c))
        p.case(f"merge_{np.dtype(dt).name}_2", "cv2.merge", (a, b))
        p.case(f"merge_{np.dtype(dt).name}_4", "cv2.merge", (a, b, c, a))
    g2 = image((6, 8), np.uint8, 9)
    p.case("merge_one", "cv2.merge", (g2,))
    p.case("merge_views", "cv2.merge", (View(base[:, :, 0], (slice(None, -1, 2), slice(1, None))),
                                        View(base[:, :, 1], (slice(1, None, 2), slice(None, -1)))))
    p.case("merge_size", "cv2.merge", (g2, image((6, 9), np.uint8)))
    p.case("merge_dtype", "cv2.merge", (g2, image((6, 8), np.float32)))
    p.case("merge_empty_image", "cv2.merge", (np.zeros((0, 3), np.uint8), np.zeros((0, 3), np.uint8)))
    p.case("merge_3d", "cv2.merge", (g2, image((6, 8, 2), np.uint8)), deviation="must be 2-d")


def test_loops(tmp_path: Path) -> None:
    p = CvProgram("cv_core_loops", "loops")
    build(p)
    p.run(tmp_path)


def test_opencv(tmp_path: Path) -> None:
    flags, why = opencv_flags()
    if flags is None:
        pytest.skip(f"opencv path not buildable here: {why}")
    p = CvProgram("cv_core_opencv", "opencv")
    build(p)
    p.run(tmp_path, flags)

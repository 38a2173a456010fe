"""Cases for cv2.cvtColor (opencv_color.py), shared by both paths' programs."""
from __future__ import annotations

import cv2
import numpy as np

from tests.variants._cvkit import CvProgram, Tol, image
from tests.variants._harness import Const, View

# float32 conversions: OpenCV's vector kernels and IPP round the products in another order
F32 = Tol(diff=3e-6)
FORWARD = {"BGR2BGRA": 0, "BGRA2BGR": 1, "BGR2RGBA": 2, "RGBA2BGR": 3, "BGR2RGB": 4, "BGRA2RGBA": 5,
           "BGR2GRAY": 6, "RGB2GRAY": 7, "BGRA2GRAY": 10, "RGBA2GRAY": 11, "BGR2YCrCb": 36, "RGB2YCrCb": 37,
           "BGR2HSV": 40, "RGB2HSV": 41, "BGR2HSV_FULL": 66, "RGB2HSV_FULL": 67}
BACK = {"YCrCb2BGR": 38, "YCrCb2RGB": 39, "HSV2BGR": 54, "HSV2RGB": 55, "HSV2BGR_FULL": 70, "HSV2RGB_FULL": 71}
HSV_CODES = (40, 41, 66, 67, 54, 55, 70, 71)
# OpenCV 5 makes gray with 15-bit coefficients, OpenCV 4 with 14-bit ones: off by <= 2 (uint16)
GRAY4 = Tol(diff=2, frac=0.7)


def _dtypes(code: int) -> tuple[type, ...]:
    return (np.uint8, np.float32) if code in HSV_CODES else (np.uint8, np.uint16, np.float32)


def _float_image(shape: tuple[int, ...], seed: int, hsv: bool) -> np.ndarray:
    """float32 color images live in [0, 1] (HSV: hue in degrees, s and v in [0, 1])."""
    a = image(shape, np.float32, seed) / np.float32(220.0) + np.float32(40 / 220)
    if hsv:
        a[..., 0] *= 360.0
    return np.clip(a, 0, 1 if not hsv else None).astype(np.float32)


def conversions(p: CvProgram) -> None:
    for name, code in {**FORWARD, **BACK}.items():
        back = code in BACK.values()
        for dt in _dtypes(code):
            tol = F32 if dt == np.float32 else Tol()
            for shape, seed in (((5, 7, 3), 1), ((1, 1, 3), 2), ((9, 11, 4), 3), ((6, 13, 3), 4)):
                if back and shape[2] == 4:
                    continue
                if dt == np.float32:
                    a = _float_image(shape, seed, hsv=back and code in HSV_CODES)
                elif back and code in HSV_CODES:  # 8-bit hue is 0..179 (0..255 for _FULL)
                    a = image(shape, dt, seed)
                    if code in (54, 55):
                        a[..., 0] %= 180
                else:
                    a = image(shape, dt, seed, smooth=seed == 4)
                tag = f"{name}_{np.dtype(dt).name}_{'x'.join(map(str, shape))}"
                p.case(f"cvt_{tag}", "cv2.cvtColor", a, Const(code), tol=tol, cv4_tol=GRAY4 if "GRAY" in name else None)
    for dt in (np.uint8, np.uint16, np.float32):
        for shape in ((5, 7), (1, 1)):
            a = image(shape, dt, 5)
            tag = f"{np.dtype(dt).name}_{'x'.join(map(str, shape))}"
            p.case(f"cvt_GRAY2BGR_{tag}", "cv2.cvtColor", a, Const(cv2.COLOR_GRAY2BGR))
            p.case(f"cvt_GRAY2BGRA_{tag}", "cv2.cvtColor", a, Const(cv2.COLOR_GRAY2BGRA))
    # every 8-bit color through HSV and YCrCb and back once
    cube = np.stack(np.meshgrid(np.arange(0, 256, 15), np.arange(0, 256, 17), np.arange(0, 256, 51), indexing="ij"),
                    -1).reshape(-1, 18, 3).astype(np.uint8)
    for code in (40, 41, 66, 36, 6):
        p.case(f"cvt_cube_{code}", "cv2.cvtColor", cube, Const(code), cv4_tol=GRAY4 if code == 6 else None)
    gray_ties = np.array([[[0, 0, 0], [255, 255, 255], [1, 2, 3], [128, 128, 128], [255, 0, 0], [0, 255, 0]]],
                         np.uint8)
    for code in (6, 7, 40, 66, 36):
        p.case(f"cvt_ties_{code}", "cv2.cvtColor", gray_ties, Const(code), cv4_tol=GRAY4 if code < 8 else None)
    base = image((10, 12, 4), np.uint8, 6)
    p.case("cvt_view", "cv2.cvtColor", View(base, (slice(None, None, 2), slice(1, None), slice(0, 3))),
           Const(cv2.COLOR_BGR2GRAY), cv4_tol=GRAY4)
    p.case("cvt_view_rev", "cv2.cvtColor", View(base, (slice(None), slice(None, None, -3), slice(None, None, -1))),
           Const(cv2.COLOR_BGR2HSV))
    p.case("cvt_kw", "cv2.cvtColor", image((3, 4, 3), np.uint8), code=Const(cv2.COLOR_BGR2RGB))
    p.case("cvt_empty", "cv2.cvtColor", np.zeros((0, 4, 3), np.uint8), Const(cv2.COLOR_BGR2GRAY))
    p.case("cvt_2ch", "cv2.cvtColor", image((3, 4, 2), np.uint8), Const(cv2.COLOR_BGR2GRAY),
           message="(-15:Bad number of channels)")
    p.case("cvt_4ch_back", "cv2.cvtColor", image((3, 4, 4), np.uint8), Const(cv2.COLOR_HSV2BGR),
           message="(-15:Bad number of channels)")
    p.case("cvt_gray_2d", "cv2.cvtColor", image((3, 4), np.uint8), Const(cv2.COLOR_BGR2GRAY))
    p.case("cvt_hsv_u16", "cv2.cvtColor", image((3, 4, 3), np.uint16), Const(cv2.COLOR_BGR2HSV))
    p.case("cvt_f64", "cv2.cvtColor", image((3, 4, 3), np.float64), Const(cv2.COLOR_BGR2GRAY))
    p.case("cvt_unknown", "cv2.cvtColor", image((3, 4, 3), np.uint8), Const(cv2.COLOR_BGR2Lab),
           deviation="code 44 is not supported")


def build(p: CvProgram) -> None:
    conversions(p)

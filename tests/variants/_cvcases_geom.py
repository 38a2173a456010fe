"""Cases for the cv2 geometric transforms (opencv_geometry.py), shared by both paths."""
from __future__ import annotations

import cv2
import numpy as np

from tests.variants._cvkit import CvProgram, Tol, image
from tests.variants._harness import Const, View

NONE = Const(None)
FILTER_DTYPES = (np.uint8, np.uint16, np.int16, np.float32, np.float64)
FLOAT = Tol(diff=3e-6)
# cv2 (OpenCV 5 with Intel IPP) resizes float images LINEAR and all images CUBIC with
# IPP, which rounds its weights differently from OpenCV's own code that we follow
IPP_FLOAT = Tol(diff=2e-5)
IPP_INT = Tol(diff=1, frac=0.12)
IPP_U16 = Tol(diff=2, frac=0.5)
SIZES = ((7, 5), (1, 1), (16, 13), (29, 31))


def _resize_tol(dt: object, interp: int) -> Tol:
    kind = np.dtype(dt)  # type: ignore[arg-type]
    if interp == cv2.INTER_LANCZOS4 and kind == np.int16:  # OpenCV's vector loop adds the 8 taps in another order
        return Tol(diff=1, frac=0.02)
    if interp == cv2.INTER_CUBIC or (interp == cv2.INTER_LINEAR and kind != np.uint8):
        return IPP_FLOAT if kind.kind == "f" else (IPP_INT if kind == np.uint8 else IPP_U16)
    return FLOAT if kind.kind == "f" else Tol()


def resizes(p: CvProgram) -> None:
    for dt in FILTER_DTYPES:
        for shape in ((11, 13), (6, 7, 3), (4, 4, 4), (17, 2)):
            a = image(shape, dt, 1, smooth=shape[0] > 5)
            tag = f"{np.dtype(dt).name}_{'x'.join(map(str, shape))}"
            for interp in range(5):
                tol = _resize_tol(dt, interp)
                for size in SIZES:
                    p.case(f"resize_{tag}_{interp}_{size[0]}x{size[1]}", "cv2.resize", a, size,
                           interpolation=Const(interp), tol=tol)
                for fx, fy in ((0.5, 0.5), (1 / 3, 0.25), (1.5, 0.7)):
                    p.case(f"resize_{tag}_{interp}_f{fx:.2f}_{fy:.2f}".replace(".", "p"), "cv2.resize", a, NONE,
                           fx=fx, fy=fy, interpolation=Const(interp), tol=tol)
    for dt in (np.int8, np.int32):
        p.case(f"resize_nn_{np.dtype(dt).name}", "cv2.resize", image((5, 6), dt, 2), (3, 4),
               interpolation=Const(cv2.INTER_NEAREST))
    u8 = image((24, 32, 3), np.uint8, 3, smooth=True)
    p.case("resize_half", "cv2.resize", u8, (16, 12))
    p.case("resize_half_odd", "cv2.resize", image((25, 33), np.uint8, 4), NONE, fx=0.5, fy=0.5)
    p.case("resize_area_3x", "cv2.resize", u8, (10, 8), interpolation=Const(cv2.INTER_AREA))
    p.case("resize_area_frac", "cv2.resize", u8, (13, 11), interpolation=Const(cv2.INTER_AREA))
    p.case("resize_view", "cv2.resize", View(u8, (slice(None, None, 2), slice(1, None))), (20, 9))
    p.case("resize_view_t", "cv2.resize", View(image((9, 7), np.float32, 5), transpose=True), (5, 5), tol=IPP_FLOAT)
    p.case("resize_runtime", "cv2.resize", u8, (int(41), int(37)))
    p.case("resize_same", "cv2.resize", u8, (32, 24))
    p.case("resize_empty", "cv2.resize", np.zeros((0, 4), np.uint8), (3, 3))
    p.case("resize_zero", "cv2.resize", u8, (0, 0))
    p.case("resize_tiny_f", "cv2.resize", u8, NONE, fx=0.01, fy=0.01)
    p.case("resize_bad_interp", "cv2.resize", u8, (3, 3), interpolation=Const(7))
    p.case("resize_int8_linear", "cv2.resize", image((5, 6), np.int8), (3, 4))


# OpenCV 4 (the opencv path's library here) warps through 1/32-pixel fixed-point positions,
# OpenCV 5 (cv2) in float: a linear result may be off by half a 1/32 step in x and in y of
# the largest neighbour difference, 1/32 of the dtype's range (plus the final rounding)
WARP4 = Tol(diff=255 / 32 + 1, frac=1.0)
WARP4_BY_DTYPE = {np.uint8: WARP4, np.uint16: Tol(diff=65535 / 32 + 1, frac=1.0),
                  np.int16: Tol(diff=65535 / 32 + 1, frac=1.0)}
WARP4_FLOAT = Tol(diff=1 / 32 + 1e-3)
PYRUP4 = "OpenCV 4 fills the last row / column of an odd-sized pyrUp result differently from OpenCV 5"
HALF_PIXEL = "OpenCV 4 rounds source positions at exactly .5 up in INTER_NEAREST warps, OpenCV 5 to even"


def warps(p: CvProgram) -> None:
    rot = cv2.getRotationMatrix2D((7.3, 5.1), 23.5, 0.87)
    shift = np.array([[1, 0, 2.5], [0, 1, -1.25]], np.float32)
    shear = np.array([[1.1, 0.3, -2], [-0.2, 0.9, 3]], np.float64)
    for dt in FILTER_DTYPES:
        for shape in ((13, 15), (9, 11, 3), (1, 1), (6, 7, 4), (5, 6, 2)):
            a = image(shape, dt, 6, smooth=True)
            tag = f"{np.dtype(dt).name}_{'x'.join(map(str, shape))}"
            flt = np.dtype(dt).kind == "f"
            tol, tol4 = (FLOAT, WARP4_FLOAT) if flt else (Tol(), WARP4_BY_DTYPE[dt])
            for mname, m in (("rot", rot), ("shift", shift), ("shear", shear)):
                for flags in (cv2.INTER_NEAREST, cv2.INTER_LINEAR):
                    p.case(f"warp_{tag}_{mname}_{flags}", "cv2.warpAffine", a, m, (17, 12), flags=Const(flags),
                           tol=tol, cv4_tol=tol4 if flags else None,
                           loops_only=HALF_PIXEL if mname == "shift" and flags == 0 else None)
            for b in (cv2.BORDER_REPLICATE, cv2.BORDER_REFLECT, cv2.BORDER_REFLECT_101, cv2.BORDER_WRAP):
                p.case(f"warp_{tag}_b{b}", "cv2.warpAffine", a, rot, (16, 14), borderMode=Const(b), tol=tol,
                       cv4_tol=tol4)
    u8 = image((12, 14, 3), np.uint8, 7)
    p.case("warp_value", "cv2.warpAffine", u8, rot, (15, 13), NONE, Const(1), Const(0), (10, 200, 300), cv4_tol=WARP4)
    p.case("warp_value_nn", "cv2.warpAffine", u8, rot, (15, 13), flags=Const(0), borderValue=77)
    p.case("warp_inverse", "cv2.warpAffine", u8, rot, (15, 13), flags=Const(cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP),
           cv4_tol=WARP4)
    p.case("warp_half", "cv2.warpAffine", u8, np.array([[1, 0, 0.5], [0, 1, -0.5]]), (14, 12), flags=Const(0),
           loops_only=HALF_PIXEL)
    p.case("warp_view", "cv2.warpAffine", View(u8, (slice(None, None, 2), slice(1, None))), shift, (9, 9),
           cv4_tol=WARP4)
    p.case("warp_same_size", "cv2.warpAffine", u8, shear, (0, 0), cv4_tol=WARP4)
    p.case("warp_empty", "cv2.warpAffine", np.zeros((0, 4), np.uint8), rot, (3, 3))
    p.case("warp_bad_m", "cv2.warpAffine", u8, np.ones((2, 2)), (3, 3))
    p.case("warp_cubic", "cv2.warpAffine", u8, rot, (3, 3), flags=Const(cv2.INTER_CUBIC), deviation="not supported")


def pyramids(p: CvProgram) -> None:
    for dt in FILTER_DTYPES:
        for shape in ((11, 13), (6, 7, 3), (1, 1), (4, 4, 4), (17, 2), (2, 9)):
            a = image(shape, dt, 8, smooth=True)
            tag = f"{np.dtype(dt).name}_{'x'.join(map(str, shape))}"
            tol = FLOAT if np.dtype(dt).kind == "f" else Tol()
            p.case(f"pyrdown_{tag}", "cv2.pyrDown", a, tol=tol)
            p.case(f"pyrup_{tag}", "cv2.pyrUp", a, tol=tol)
            for b in (cv2.BORDER_REPLICATE, cv2.BORDER_REFLECT, cv2.BORDER_WRAP):
                p.case(f"pyrdown_{tag}_b{b}", "cv2.pyrDown", a, borderType=Const(b), tol=tol)
    u8 = image((11, 13, 3), np.uint8, 9)
    p.case("pyrdown_dstsize", "cv2.pyrDown", u8, NONE, (7, 6))
    p.case("pyrup_dstsize", "cv2.pyrUp", u8, NONE, (27, 21), loops_only=PYRUP4)
    p.case("pyrup_dstsize_less", "cv2.pyrUp", u8, NONE, (25, 21), loops_only=PYRUP4)
    p.case("pyrdown_bad", "cv2.pyrDown", u8, NONE, (3, 3))
    p.case("pyrup_bad", "cv2.pyrUp", u8, NONE, (5, 5))
    p.case("pyrdown_view", "cv2.pyrDown", View(u8, (slice(None, None, -1), slice(1, None, 2))))
    p.case("pyrdown_empty", "cv2.pyrDown", np.zeros((0, 4), np.uint8))
    p.case("pyrdown_const", "cv2.pyrDown", u8, borderType=Const(cv2.BORDER_CONSTANT))
    p.case("pyrup_replicate", "cv2.pyrUp", u8, borderType=Const(cv2.BORDER_REPLICATE))


def build(p: CvProgram) -> None:
    for part in (resizes, warps, pyramids):
        part(p)

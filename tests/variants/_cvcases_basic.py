"""Cases for the cv2 array operators (opencv_basic.py), shared by both paths' programs."""
from __future__ import annotations

import cv2
import numpy as np

from tests.variants._cvkit import CvProgram, Tol, image
from tests.variants._harness import Const, View

DTYPES = (np.uint8, np.int8, np.uint16, np.int16, np.int32, np.float32, np.float64)
ONE_CHANNEL_3D = "1 channel"
NONE = Const(None)  # dst
# float32 results OpenCV computes with another operation order (fused multiply-adds, blocks)
F32 = Tol(diff=2e-6)


def _tag(dt: object) -> str:
    return np.dtype(dt).name  # type: ignore[arg-type]


def flips(p: CvProgram) -> None:
    for dt in DTYPES:
        for shape in ((5, 7), (5, 7, 3), (1, 1), (2, 3, 4)):
            a = image(shape, dt, 1)
            tag = f"{_tag(dt)}_{'x'.join(map(str, shape))}"
            for code in (0, 1, -1, 5):
                p.case(f"flip_{tag}_{code}".replace("-", "m"), "cv2.flip", a, code)
            p.case(f"transpose_{tag}", "cv2.transpose", a)
    base = image((9, 12, 3), np.uint8, 2)
    p.case("flip_view", "cv2.flip", View(base, (slice(None, None, 2), slice(1, None))), 1)
    p.case("flip_view_rev", "cv2.flip", View(base, (slice(None, None, -1), slice(None, None, 3))), -1)
    p.case("flip_transposed", "cv2.flip", View(image((7, 5), np.float32, 3), transpose=True), 0)
    p.case("transpose_view", "cv2.transpose", View(base, (slice(1, None, 2), slice(None, None, -2))))
    p.case("transpose_chan_view", "cv2.transpose", View(base, (slice(None), slice(None), slice(None, None, -1))))
    p.case("flip_kw", "cv2.flip", image((3, 4), np.uint8), flipCode=Const(0))
    p.case("flip_empty", "cv2.flip", np.zeros((0, 5), np.uint8), 1)
    p.case("transpose_empty", "cv2.transpose", np.zeros((4, 0, 3), np.float32))
    p.case("flip_1ch3d", "cv2.flip", image((4, 5, 1), np.uint8), 1, deviation=ONE_CHANNEL_3D)
    p.case("flip_missing", "cv2.flip", image((3, 4), np.uint8))
    p.case("flip_bad_kw", "cv2.flip", image((3, 4), np.uint8), 1, axis=0)
    p.case("flip_float_code", "cv2.flip", image((3, 4), np.uint8), 1.5)
    p.case("flip_dst", "cv2.flip", image((3, 4), np.uint8), 1, image((3, 4), np.uint8),
           deviation="output array")
    # cv2 silently converts int64 images to int32; everypath refuses them at compile time
    p.case("flip_int64", "cv2.flip", np.ones((3, 3), np.int64), 1, deviation="dtype int64")


def borders(p: CvProgram) -> None:
    for dt in (np.uint8, np.float32, np.int16):
        for shape in ((4, 5), (3, 4, 3), (1, 1)):
            a = image(shape, dt, 3)
            tag = f"{_tag(dt)}_{'x'.join(map(str, shape))}"
            for b in (0, 1, 2, 3, 4):
                p.case(f"border_{tag}_{b}", "cv2.copyMakeBorder", a, 1, 2, 3, 0, Const(b))
                p.case(f"border_{tag}_{b}_wide", "cv2.copyMakeBorder", a, 6, 5, 7, 9, Const(b))
    a3 = image((3, 4, 3), np.uint8, 4)
    p.case("border_value_num", "cv2.copyMakeBorder", a3, 1, 1, 1, 1, Const(cv2.BORDER_CONSTANT), value=7)
    p.case("border_value_tuple", "cv2.copyMakeBorder", a3, 1, 1, 2, 2, Const(cv2.BORDER_CONSTANT), value=(7, 300, -4))
    p.case("border_value_pair", "cv2.copyMakeBorder", a3, 2, 0, 0, 1, Const(cv2.BORDER_CONSTANT), NONE, Const((9, 8)))
    p.case("border_value_f32", "cv2.copyMakeBorder", image((3, 3), np.float32), 1, 1, 1, 1, Const(0), value=2.75)
    p.case("border_isolated", "cv2.copyMakeBorder", a3, 1, 1, 1, 1,
           Const(cv2.BORDER_REFLECT_101 | cv2.BORDER_ISOLATED))
    p.case("border_view", "cv2.copyMakeBorder", View(a3, (slice(None, None, -1), slice(1, None, 2))), 2, 1, 1, 2,
           Const(cv2.BORDER_REFLECT))
    p.case("border_negative", "cv2.copyMakeBorder", a3, -1, 0, 0, 0, Const(cv2.BORDER_WRAP))
    p.case("border_empty_const", "cv2.copyMakeBorder", np.zeros((0, 3), np.uint8), 1, 1, 1, 1, Const(0), value=5)
    p.case("border_empty_reflect", "cv2.copyMakeBorder", np.zeros((0, 3), np.uint8), 1, 1, 1, 1, Const(2),
           deviation="only get a BORDER_CONSTANT")
    p.case("border_transparent", "cv2.copyMakeBorder", a3, 1, 1, 1, 1, Const(cv2.BORDER_TRANSPARENT))
    p.case("border_5ch_const", "cv2.copyMakeBorder", image((2, 2, 5), np.uint8), 1, 0, 0, 0, Const(0))
    p.case("border_5ch_value", "cv2.copyMakeBorder", image((2, 2, 5), np.uint8), 1, 0, 0, 0, Const(0), value=3)
    p.case("border_5ch_values", "cv2.copyMakeBorder", image((2, 2, 5), np.uint8), 1, 0, 0, 0, Const(0),
           value=(1, 2, 3, 4))


def thresholds(p: CvProgram) -> None:
    for dt in (np.uint8, np.uint16, np.int16, np.float32, np.float64):
        a = image((6, 7), dt, 5)
        a3 = image((3, 5, 3), dt, 6)
        lo, hi = float(a.min()), float(a.max())
        for kind in range(5):
            for th, mx in (((lo + hi) / 2 + 0.7, 255), (lo - 5, 300.6), (hi + 1, 7.5), (-1e6, 11)):
                p.case(f"thresh_{_tag(dt)}_{kind}_{th:.0f}_{mx}".replace("-", "m").replace(".", "p"),
                       "cv2.threshold", a, th, mx, Const(kind))
            p.case(f"thresh3_{_tag(dt)}_{kind}", "cv2.threshold", a3, (lo + hi) / 3, 100, Const(kind))
        if dt in (np.uint8, np.uint16):
            for kind in range(5):
                p.case(f"otsu_{_tag(dt)}_{kind}", "cv2.threshold", image((17, 19), dt, 7, smooth=True), 0, 200,
                       Const(kind | cv2.THRESH_OTSU))
            p.case(f"otsu_const_{_tag(dt)}", "cv2.threshold", np.full((4, 4), 9, dt), 0, 200,
                   Const(cv2.THRESH_BINARY | cv2.THRESH_OTSU))
    nan = image((4, 5), np.float32, 8)
    nan[1, 2] = np.nan
    nan[3, 0] = np.inf
    for kind in range(5):
        p.case(f"thresh_nan_{kind}", "cv2.threshold", nan, 50.5, 99, Const(kind),
               loops_only="OpenCV 4 thresholds NaN in float32 images like float64 ones; OpenCV 5 does not")
    p.case("thresh_view", "cv2.threshold", View(image((8, 9, 3), np.uint8, 9), (slice(None, None, 2), slice(2, None))),
           120, 255, Const(cv2.THRESH_BINARY_INV))
    p.case("thresh_kw", "cv2.threshold", image((3, 3), np.uint8), thresh=9, maxval=255, type=Const(cv2.THRESH_TOZERO))
    p.case("thresh_empty", "cv2.threshold", np.zeros((0, 4), np.uint8), 9, 255, Const(0))
    p.case("thresh_int8", "cv2.threshold", np.ones((3, 3), np.int8), 0, 1, Const(0))
    p.case("otsu_f32", "cv2.threshold", np.ones((3, 3), np.float32), 0, 1, Const(cv2.THRESH_OTSU))
    p.case("otsu_3ch", "cv2.threshold", np.ones((3, 3, 3), np.uint8), 0, 1, Const(cv2.THRESH_OTSU))


def weighted(p: CvProgram) -> None:
    for dt in DTYPES:
        tol = F32 if dt == np.float32 else Tol()
        for shape in ((6, 7), (5, 9, 3), (1, 1)):
            a, b = image(shape, dt, 10), image(shape, dt, 11)
            tag = f"{_tag(dt)}_{'x'.join(map(str, shape))}"
            p.case(f"addw_{tag}", "cv2.addWeighted", a, 0.3, b, 0.7, 2.5, tol=tol)
            p.case(f"addw_{tag}_neg", "cv2.addWeighted", a, -1.25, b, 0.5, -3, tol=tol)
            p.case(f"addw_{tag}_big", "cv2.addWeighted", a, 1.5, b, 1.5, 10, tol=tol)
    u8 = image((9, 11, 3), np.uint8, 12)
    for alpha in (0.1, 0.25, 0.5, 0.6, 1 / 3):
        p.case(f"addw_u8_{alpha:.3f}", "cv2.addWeighted", u8, alpha, u8[::-1].copy(), 1 - alpha, 0.5)
    p.case("addw_f32out", "cv2.addWeighted", u8, 0.3, u8, 0.6, 1, dtype=Const(cv2.CV_32F))
    p.case("addw_f64out", "cv2.addWeighted", u8, 0.3, u8, 0.6, 1, NONE, Const(cv2.CV_64F))
    p.case("addw_view", "cv2.addWeighted", View(u8, (slice(None, None, 2), slice(1, None, 2))), 0.5,
           View(u8, (slice(1, None, 2), slice(None, -1, 2))), 0.5, 0)
    p.case("addw_size", "cv2.addWeighted", u8, 0.5, u8[1:].copy(), 0.5, 0)
    p.case("addw_types", "cv2.addWeighted", u8, 0.5, u8.astype(np.float32), 0.5, 0)
    p.case("addw_empty", "cv2.addWeighted", np.zeros((0, 3), np.uint8), 0.5, np.zeros((0, 3), np.uint8), 0.5, 0)


def normalizes(p: CvProgram) -> None:
    for dt in DTYPES:
        tol = F32 if dt == np.float32 else Tol()
        for shape in ((6, 7), (4, 5, 3)):
            a = image(shape, dt, 13)
            tag = f"{_tag(dt)}_{'x'.join(map(str, shape))}"
            p.case(f"norm_{tag}_minmax", "cv2.normalize", a, NONE, 0, 255, Const(cv2.NORM_MINMAX), tol=tol)
            p.case(f"norm_{tag}_minmax_rev", "cv2.normalize", a, NONE, 100, -20, Const(cv2.NORM_MINMAX), tol=tol)
            p.case(f"norm_{tag}_l2", "cv2.normalize", a, NONE, tol=tol)
            p.case(f"norm_{tag}_l1", "cv2.normalize", a, NONE, 1000, norm_type=Const(cv2.NORM_L1), tol=tol)
            p.case(f"norm_{tag}_inf", "cv2.normalize", a, NONE, 100, norm_type=Const(cv2.NORM_INF), tol=tol)
            p.case(f"norm_{tag}_f32", "cv2.normalize", a, NONE, 0, 1, Const(cv2.NORM_MINMAX), Const(cv2.CV_32F),
                   tol=F32)
    p.case("norm_const", "cv2.normalize", np.full((3, 4), 7, np.uint8), NONE, 0, 255, Const(cv2.NORM_MINMAX))
    p.case("norm_view", "cv2.normalize", View(image((8, 9), np.float64, 14), (slice(None, None, 3), slice(1, None))),
           NONE, 0, 1, Const(cv2.NORM_MINMAX))
    p.case("norm_badtype", "cv2.normalize", image((3, 3), np.uint8), NONE, 0, 1, Const(7))
    p.case("norm_empty", "cv2.normalize", np.zeros((0, 3), np.float32), NONE)


def integrals(p: CvProgram) -> None:
    for dt, depths in ((np.uint8, (-1, cv2.CV_32F, cv2.CV_64F)), (np.uint16, (-1,)), (np.int16, (-1,)),
                       (np.float32, (-1, cv2.CV_32F)), (np.float64, (-1,))):
        for shape in ((6, 7), (4, 5, 3), (1, 1), (0, 4), (3, 0, 2)):
            a = image(shape, dt, 15)
            for d in depths:
                tag = f"{_tag(dt)}_{'x'.join(map(str, shape))}_{d}".replace("-", "m")
                p.case(f"integral_{tag}", "cv2.integral", a, NONE, Const(d), tol=F32 if d == cv2.CV_32F else Tol())
    p.case("integral_view", "cv2.integral", View(image((9, 8, 2), np.uint8, 16), (slice(None, None, 2), slice(1, -1))))
    p.case("integral_kw", "cv2.integral", image((3, 3), np.uint8), sdepth=Const(cv2.CV_64F))
    p.case("integral_bad", "cv2.integral", image((3, 3), np.uint16), sdepth=Const(cv2.CV_32S))
    p.case("integral_int8", "cv2.integral", np.ones((3, 3), np.int8))


def histograms(p: CvProgram) -> None:
    for shape, seed in (((7, 9), 17), ((1, 1), 18), ((13, 17), 19), ((2, 3), 20)):
        p.case(f"eqh_{shape[0]}x{shape[1]}", "cv2.equalizeHist", image(shape, np.uint8, seed))
        p.case(f"eqh_smooth_{shape[0]}x{shape[1]}", "cv2.equalizeHist", image(shape, np.uint8, seed, smooth=True))
    p.case("eqh_const", "cv2.equalizeHist", np.full((3, 5), 200, np.uint8))
    p.case("eqh_two", "cv2.equalizeHist", np.array([[0, 255], [255, 255]], np.uint8))
    p.case("eqh_view", "cv2.equalizeHist", View(image((9, 9), np.uint8, 21), (slice(None, None, -2), slice(1, None))))
    p.case("eqh_empty", "cv2.equalizeHist", np.zeros((0, 3), np.uint8))
    p.case("eqh_3ch", "cv2.equalizeHist", image((3, 3, 3), np.uint8))
    p.case("eqh_f32", "cv2.equalizeHist", image((3, 3), np.float32))


def kernels(p: CvProgram) -> None:
    for center in ((0.1, 0.7), (20, 15), (3.3, -2.25)):
        for angle in (30, -45.5, 90, 0, 180.0):
            for scale in (1, 0.5, 2.25):
                tag = f"{center[0]}_{center[1]}_{angle}_{scale}".replace("-", "m").replace(".", "p")
                p.case(f"rot_{tag}", "cv2.getRotationMatrix2D", center, angle, scale)
    p.case("rot_const", "cv2.getRotationMatrix2D", Const((5.5, 2)), Const(45), Const(1.0))
    for shape in (0, 1, 2):
        for ksize in ((3, 3), (5, 7), (1, 1), (4, 6), (9, 5), (2, 1), (11, 11), (8, 13)):
            tag = f"{shape}_{ksize[0]}x{ksize[1]}"
            p.case(f"se_{tag}", "cv2.getStructuringElement", Const(shape), ksize)
            p.case(f"se_{tag}_a", "cv2.getStructuringElement", Const(shape), ksize, (0, ksize[1] - 1))
    p.case("se_bad_anchor", "cv2.getStructuringElement", Const(0), (3, 3), (5, 5))
    p.case("se_zero", "cv2.getStructuringElement", Const(0), (0, 3))
    p.case("se_kw", "cv2.getStructuringElement", shape=Const(2), ksize=(5, 5))


def build(p: CvProgram) -> None:
    for part in (flips, borders, thresholds, weighted, normalizes, integrals, histograms, kernels):
        part(p)

"""Cases for the cv2 filters (opencv_filters.py), shared by both paths' programs."""
from __future__ import annotations

import cv2
import numpy as np

from tests.variants._cvkit import CvProgram, Tol, image
from tests.variants._harness import Const, View

NONE = Const(None)
FILTER_DTYPES = (np.uint8, np.uint16, np.int16, np.float32, np.float64)
SHAPES = ((7, 11), (5, 6, 3), (1, 1), (6, 1))
BORDERS = (cv2.BORDER_REFLECT_101, cv2.BORDER_REPLICATE, cv2.BORDER_CONSTANT, cv2.BORDER_REFLECT)
# float images: OpenCV adds the taps in another order (and with fused multiply-adds)
FLOAT = Tol(diff=3e-6)
# integer results computed through float sums: a value within float rounding of .5 may go either way
ROUNDED = Tol(diff=1, frac=0.02)


def _tol(dt: object, out: object = None) -> Tol:
    o = np.dtype(out if out is not None else dt)
    if o.kind == "f":
        return FLOAT
    return ROUNDED if np.dtype(dt).kind == "f" or np.dtype(dt) == np.int16 else Tol()


def _cancel(tol: Tol, a: np.ndarray, ksize: int) -> Tol:
    """Float sums of taps that cancel: an absolute error of float32 rounding times the sum of
    |kernel| (4**(ksize-1) for Sobel kernels) times the largest pixel."""
    if tol is not FLOAT:
        return tol
    return Tol(diff=FLOAT.diff, atol=3e-7 * 4.0 ** (ksize - 1) * float(np.max(np.abs(a), initial=1)))


def _tag(dt: object, shape: tuple[int, ...]) -> str:
    return f"{np.dtype(dt).name}_{'x'.join(map(str, shape))}"  # type: ignore[arg-type]


def gaussians(p: CvProgram) -> None:
    for dt in FILTER_DTYPES:
        for shape in SHAPES:
            a = image(shape, dt, 1, smooth=shape[0] > 5)
            tag = _tag(dt, shape)
            for ks, sx, sy in (((3, 3), 0, 0), ((5, 5), 1.3, 0), ((3, 7), 0.8, 2.1), ((1, 5), 0, 0), ((0, 0), 1.1, 0),
                               ((11, 11), 0, 0)):
                t = f"{tag}_{ks[0]}x{ks[1]}_{sx}_{sy}".replace(".", "p")
                p.case(f"gauss_{t}", "cv2.GaussianBlur", a, ks, sx, sigmaY=sy, tol=_tol(dt))
            for b in BORDERS[1:]:
                p.case(f"gauss_{tag}_b{b}", "cv2.GaussianBlur", a, (5, 3), 0.9, NONE, 0.7, Const(b), tol=_tol(dt))
    u8 = image((12, 15, 3), np.uint8, 2)
    p.case("gauss_view", "cv2.GaussianBlur", View(u8, (slice(None, None, 2), slice(1, None))), (5, 5), 0)
    p.case("gauss_view_t", "cv2.GaussianBlur", View(image((9, 7), np.uint8, 3), transpose=True), (3, 3), 0)
    p.case("gauss_runtime_sigma", "cv2.GaussianBlur", u8, (7, 7), 1.7)
    p.case("gauss_even", "cv2.GaussianBlur", u8, (4, 3), 0)
    p.case("gauss_zero", "cv2.GaussianBlur", u8, (0, 0), 0)
    p.case("gauss_empty", "cv2.GaussianBlur", np.zeros((0, 4), np.uint8), (3, 3), 0)
    p.case("gauss_int8", "cv2.GaussianBlur", np.ones((3, 3), np.int8), (3, 3), 0)


def boxes(p: CvProgram) -> None:
    for dt in FILTER_DTYPES:
        for shape in SHAPES:
            a = image(shape, dt, 4)
            tag = _tag(dt, shape)
            for ks in ((3, 3), (5, 5), (2, 3), (6, 5), (1, 1)):  # (1, 1) is a copy
                t = f"{tag}_{ks[0]}x{ks[1]}"
                p.case(f"blur_{t}", "cv2.blur", a, ks, tol=FLOAT if np.dtype(dt).kind == "f" else Tol())
            p.case(f"box_{tag}_nonorm", "cv2.boxFilter", a, Const(-1), (3, 2), normalize=False,
                   tol=FLOAT if np.dtype(dt).kind == "f" else Tol())
            for b in BORDERS[1:]:
                p.case(f"blur_{tag}_b{b}", "cv2.blur", a, (3, 5), NONE, (0, 4), Const(b),
                       tol=FLOAT if np.dtype(dt).kind == "f" else Tol())
    big = image((19, 23), np.uint8, 5)
    p.case("blur_big_area", "cv2.blur", big, (17, 19))
    p.case("blur_big_area_even", "cv2.blur", big, (18, 20))
    p.case("box_u8_nonorm_sat", "cv2.boxFilter", big, Const(-1), (5, 5), normalize=False)
    p.case("box_ddepth_same", "cv2.boxFilter", big, Const(cv2.CV_8U), (3, 3))
    p.case("blur_view", "cv2.blur", View(image((12, 15, 3), np.uint8, 6), (slice(1, None, 3), slice(None, None, -1))),
           (3, 3))
    p.case("blur_anchor", "cv2.blur", big, (4, 3), anchor=(0, 2))
    p.case("blur_bad_anchor", "cv2.blur", big, (3, 3), anchor=(3, 0))
    p.case("blur_zero", "cv2.blur", big, (0, 3))
    p.case("blur_empty", "cv2.blur", np.zeros((4, 0), np.float32), (3, 3))
    p.case("box_ddepth", "cv2.boxFilter", big, Const(cv2.CV_32F), (3, 3), deviation="only ddepth=-1")


def medians(p: CvProgram) -> None:
    for dt in (np.uint8, np.uint16, np.int16, np.float32):
        for shape in SHAPES:
            a = image(shape, dt, 7)
            for k in (3, 5):
                p.case(f"median_{_tag(dt, shape)}_{k}", "cv2.medianBlur", a, k)
    u8 = image((13, 17, 3), np.uint8, 8)
    for k in (1, 7, 9):
        p.case(f"median_u8_{k}", "cv2.medianBlur", u8, k)
    p.case("median_view", "cv2.medianBlur", View(u8, (slice(None, None, 2), slice(1, None))), 5)
    p.case("median_even", "cv2.medianBlur", u8, 4)
    p.case("median_u16_7", "cv2.medianBlur", image((5, 5), np.uint16), 7)
    p.case("median_empty", "cv2.medianBlur", np.zeros((0, 3), np.uint8), 3)
    p.case("median_f64", "cv2.medianBlur", image((5, 5), np.float64), 3)


def derivatives(p: CvProgram) -> None:
    for dt in FILTER_DTYPES:
        for shape in ((7, 11), (5, 6, 3), (1, 1), (6, 1)):
            a = image(shape, dt, 9, smooth=True)
            tag = _tag(dt, shape)
            outs = (-1, cv2.CV_16S, cv2.CV_32F, cv2.CV_64F) if dt != np.float64 else (-1, cv2.CV_16S, cv2.CV_64F)
            for dd in outs:
                out = np.dtype(dt) if dd == -1 else {3: np.int16, 5: np.float32, 6: np.float64}[dd]
                tol = _tol(dt, out)
                for dx, dy, ks in ((1, 0, 3), (0, 1, 3), (1, 1, 5), (2, 0, 1), (0, 2, 7)):
                    p.case(f"sobel_{tag}_{dd}_{dx}{dy}_{ks}".replace("-", "m"), "cv2.Sobel", a, Const(dd), dx, dy,
                           ksize=ks, tol=_cancel(tol, a, ks))
                p.case(f"scharr_{tag}_{dd}".replace("-", "m"), "cv2.Scharr", a, Const(dd), 0, 1, tol=tol)
            p.case(f"sobel_{tag}_scaled", "cv2.Sobel", a, Const(cv2.CV_32F), 1, 0, NONE, 3, 0.25, 10.0, tol=FLOAT)
            for ks in (1, 3, 5):
                dd = -1 if ks < 5 else cv2.CV_32F
                p.case(f"lap_{tag}_{ks}", "cv2.Laplacian", a, Const(dd), ksize=Const(ks),
                       tol=_tol(dt, dt if dd == -1 else np.float32))
            if dt == np.uint8:
                p.case(f"lap_{tag}_16s", "cv2.Laplacian", a, Const(cv2.CV_16S), ksize=Const(3))
                p.case(f"lap_{tag}_5_16s", "cv2.Laplacian", a, Const(cv2.CV_16S), ksize=Const(5), scale=2, delta=3)
    u8 = image((9, 10, 3), np.uint8, 10)
    for b in BORDERS[1:]:
        p.case(f"sobel_b{b}", "cv2.Sobel", u8, Const(cv2.CV_16S), 1, 1, borderType=Const(b))
    p.case("sobel_view", "cv2.Sobel", View(u8, (slice(None, None, 2), slice(1, None))), Const(cv2.CV_16S), 1, 0)
    p.case("sobel_order0", "cv2.Sobel", u8, Const(-1), 0, 0)
    p.case("sobel_even", "cv2.Sobel", u8, Const(-1), 1, 0, ksize=4)
    p.case("sobel_order_big", "cv2.Sobel", u8, Const(-1), 3, 0, ksize=3)
    p.case("scharr_bad", "cv2.Scharr", u8, Const(-1), 1, 1)
    p.case("sobel_f64_f32", "cv2.Sobel", image((4, 4), np.float64), Const(cv2.CV_32F), 1, 0)
    p.case("lap_f32_f64", "cv2.Laplacian", image((4, 4), np.float32), Const(cv2.CV_64F))
    p.case("sobel_empty", "cv2.Sobel", np.zeros((0, 3), np.uint8), Const(-1), 1, 0)


def filters2d(p: CvProgram) -> None:
    kernels = {"box": np.ones((3, 3), np.float32) / 9, "sharp": np.array([[0, -1, 0], [-1, 5, -1], [0, -1, 0]], np.float32),
               "asym": np.array([[1, 2, 0.5], [0, -1.25, 0], [3, 0, -2]], np.float64),
               "wide": np.arange(10, dtype=np.float32).reshape(2, 5) / 45, "int": np.ones((3, 3), np.int64)}
    for dt in FILTER_DTYPES:
        for shape in ((7, 11), (5, 6, 3), (1, 1)):
            a = image(shape, dt, 11, smooth=True)
            for name, k in kernels.items():
                p.case(f"f2d_{_tag(dt, shape)}_{name}", "cv2.filter2D", a, Const(-1), k, tol=_tol(dt))
    u8 = image((9, 10, 3), np.uint8, 12)
    p.case("f2d_u8_f32out", "cv2.filter2D", u8, Const(cv2.CV_32F), kernels["asym"], tol=FLOAT)
    p.case("f2d_u8_16s", "cv2.filter2D", u8, Const(cv2.CV_16S), kernels["sharp"])
    p.case("f2d_delta_anchor", "cv2.filter2D", u8, Const(-1), kernels["wide"], NONE, (4, 0), 7.5, tol=ROUNDED)
    for b in BORDERS[1:]:
        p.case(f"f2d_b{b}", "cv2.filter2D", u8, Const(-1), kernels["sharp"], borderType=Const(b))
    p.case("f2d_view_kernel", "cv2.filter2D", u8, Const(-1), View(np.arange(16, dtype=np.float32).reshape(4, 4) / 50,
                                                                   (slice(None, None, 2), slice(1, None))), tol=ROUNDED)
    p.case("f2d_bad_depth", "cv2.filter2D", image((4, 4), np.float32), Const(cv2.CV_8U), kernels["box"])
    p.case("f2d_empty", "cv2.filter2D", np.zeros((0, 4), np.uint8), Const(-1), kernels["box"])


def morphology(p: CvProgram) -> None:
    k3 = np.ones((3, 3), np.uint8)
    cross = cv2.getStructuringElement(cv2.MORPH_CROSS, (5, 3))
    ell = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    for dt in FILTER_DTYPES:
        for shape in SHAPES:
            a = image(shape, dt, 13)
            tag = _tag(dt, shape)
            for kname, k in (("rect", k3), ("cross", cross), ("ell", ell)):
                p.case(f"erode_{tag}_{kname}", "cv2.erode", a, k)
                p.case(f"dilate_{tag}_{kname}", "cv2.dilate", a, k)
            for op in range(7) if dt in (np.uint8, np.float32) else (2, 4):
                p.case(f"morph_{tag}_{op}", "cv2.morphologyEx", a, Const(op), cross)
    u8 = image((11, 13, 3), np.uint8, 14)
    for it in (0, 2, 3):
        p.case(f"erode_it{it}", "cv2.erode", u8, k3, iterations=it)
        p.case(f"dilate_cross_it{it}", "cv2.dilate", u8, cross, iterations=it)
        p.case(f"open_it{it}", "cv2.morphologyEx", u8, Const(cv2.MORPH_OPEN), ell, iterations=it)
    p.case("erode_none", "cv2.erode", u8, NONE)
    p.case("dilate_none_it2", "cv2.dilate", u8, NONE, iterations=2)
    p.case("erode_anchor", "cv2.erode", u8, cross, NONE, (0, 1))
    p.case("dilate_f32_kernel", "cv2.dilate", u8, np.array([[0, 1.5], [1, 0]], np.float32))
    p.case("dilate_bool_kernel", "cv2.dilate", u8, np.array([[0, 1], [1, 1]], np.bool_))
    for b in BORDERS:
        p.case(f"erode_b{b}", "cv2.erode", u8, cross, borderType=Const(b))
        p.case(f"dilate_b{b}_v", "cv2.dilate", u8, cross, borderType=Const(b), borderValue=(200, 10, 300))
    p.case("erode_value", "cv2.erode", image((5, 6), np.float32), k3, borderType=Const(0), borderValue=3.5)
    p.case("morph_view", "cv2.morphologyEx", View(u8, (slice(None, None, 2), slice(1, None))),
           Const(cv2.MORPH_GRADIENT), k3)
    p.case("erode_bad_anchor", "cv2.erode", u8, k3, NONE, (3, 3))
    p.case("erode_empty", "cv2.erode", np.zeros((0, 3), np.uint8), k3)
    p.case("morph_empty", "cv2.morphologyEx", np.zeros((0, 3), np.uint8), Const(cv2.MORPH_OPEN), k3)
    p.case("morph_hitmiss", "cv2.morphologyEx", u8[..., 0].copy(), Const(cv2.MORPH_HITMISS), k3,
           deviation="is not supported")


def cannys(p: CvProgram) -> None:
    for shape, seed in (((23, 29), 15), ((17, 19, 3), 16), ((1, 1), 17), ((5, 1), 18), ((12, 13, 2), 19)):
        a = image(shape, np.uint8, seed, smooth=True)
        tag = "x".join(map(str, shape))
        for lo, hi in ((50, 150), (150, 50), (10, 30), (0, 255), (1000, 2000)):
            for ap in (3, 5):
                p.case(f"canny_{tag}_{lo}_{hi}_{ap}", "cv2.Canny", a, lo, hi, apertureSize=ap)
            p.case(f"canny_{tag}_{lo}_{hi}_l2", "cv2.Canny", a, lo, hi, L2gradient=True)
        p.case(f"canny_{tag}_7", "cv2.Canny", a, 200, 2000, apertureSize=7)
        p.case(f"canny_{tag}_7l2", "cv2.Canny", a, 200, 2000, NONE, 7, True)
    noise = image((20, 21), np.uint8, 20)
    p.case("canny_noise", "cv2.Canny", noise, 100, 200)
    p.case("canny_noise_l2", "cv2.Canny", noise, 100.5, 200.7, L2gradient=True)
    p.case("canny_view", "cv2.Canny", View(noise, (slice(None, None, 2), slice(1, None))), 30, 90)
    p.case("canny_bad_aperture", "cv2.Canny", noise, 10, 20, apertureSize=4)
    p.case("canny_empty_rows", "cv2.Canny", np.zeros((0, 5), np.uint8), 10, 20)
    p.case("canny_empty_cols", "cv2.Canny", np.zeros((5, 0), np.uint8), 10, 20)
    p.case("canny_f32", "cv2.Canny", image((5, 5), np.float32), 10, 20)


def build(p: CvProgram) -> None:
    for part in (gaussians, boxes, medians, derivatives, filters2d, morphology, cannys):
        part(p)

"""cv2 filters: GaussianBlur, blur, boxFilter, medianBlur, filter2D, Sobel, Scharr,
Laplacian, erode, dilate, morphologyEx and Canny.

Result dtypes follow OpenCV's ddepth tables (checked when typing, like cv2's own
errors). C++: everypath/ops/imgproc_filter.hpp (+ _box, _deriv), imgproc_morph.hpp
(+ _canny) for the loops path, everypath/paths/opencv/imgproc_filter.hpp for OpenCV.
"""
from __future__ import annotations

from everypath.base.types import ArrayT, DType, NoneT, ScalarT
from everypath.variants.ops.opencv_ops import FILTER, F32, F64, S16, U8, U16, Args, ddepth_dtype, declare_cv
from everypath.variants.ops.opencv_simd import simd_guard, simd_variant
from everypath.variants.ops import opencv_vimage as vi
from everypath.variants.registry import LowerSite, Registry, Site

LINEAR_HPP = "everypath/ops/imgproc_filter.hpp"
MORPH_HPP = "everypath/ops/imgproc_morph.hpp"
SIMD_FILTER_HPP = "everypath/paths/simd/imgproc_filter.hpp"
SIMD_BOX_HPP = "everypath/paths/simd/imgproc_box.hpp"
SIMD_MORPH_HPP = "everypath/paths/simd/imgproc_morph.hpp"
ANY_OUT = (U8, U16, S16, F32, F64)
# filter2D (and Laplacian with ksize 1 or 3): source dtype -> result dtypes OpenCV accepts
FILTER2D = {U8: ANY_OUT, U16: (U16, F32, F64), S16: (S16, F32, F64), F32: (F32,), F64: (F64,)}
SOBEL = {U8: ANY_OUT, U16: ANY_OUT, S16: ANY_OUT, F32: ANY_OUT, F64: (U8, U16, S16, F64)}
MORPH_OPS = {0: "MORPH_ERODE", 1: "MORPH_DILATE", 2: "MORPH_OPEN", 3: "MORPH_CLOSE", 4: "MORPH_GRADIENT",
             5: "MORPH_TOPHAT", 6: "MORPH_BLACKHAT"}


def _result(a: Args, src: ArrayT, table: dict[DType, tuple[DType, ...]]) -> DType:
    d = ddepth_dtype(a, src.dtype)
    if d not in table[src.dtype]:
        raise a.err(f"a {d.np.name} result from a {src.dtype.np.name} image is not supported by OpenCV")
    return d


def _gauss(site: Site | LowerSite) -> tuple[Args, ArrayT, int]:
    a = Args(site, ("src", "ksize", "sigmaX", "dst", "sigmaY", "borderType", "hint"), 3)
    t = a.image("src", FILTER)
    a.pair("ksize", integer=True)
    a.number("sigmaX")
    a.number("sigmaY", 0.0)
    if a.const_int("hint", 0) not in (0, 1):
        raise a.err("only the default (accurate) algorithm hint is supported")
    return a, t, a.border("borderType")


def _gauss_lower(ls: LowerSite) -> str:
    a, _, b = _gauss(ls)
    return (f"{ls.ns}::cv_gaussian_blur({a.expr('src')}, {a.pair('ksize', True)}, {a.number('sigmaX')}, "
            f"{a.number('sigmaY', 0.0)}, {b})")


def _box(site: Site | LowerSite) -> tuple[Args, ArrayT, int, str]:
    blur = site.key == "cv2.blur"
    names = ("src", "ksize", "dst", "anchor", "borderType") if blur else \
        ("src", "ddepth", "ksize", "dst", "anchor", "normalize", "borderType")
    a = Args(site, names, 2 if blur else 3)
    t = a.image("src", FILTER)
    if not blur and ddepth_dtype(a, t.dtype) is not t.dtype:
        raise a.err("only ddepth=-1 (the source dtype) is supported")
    a.pair("ksize", integer=True)
    a.pair("anchor", integer=True, default=(-1, -1))
    norm = "true"
    if not blur and a.given("normalize"):
        nt = a.type("normalize")
        if not isinstance(nt, ScalarT) or nt.dtype.is_complex:
            raise a.err("argument 'normalize' must be a bool")
        norm = f"bool({a.expr('normalize')})" if isinstance(site, LowerSite) else ""
    return a, t, a.border("borderType"), norm


def _box_lower(ls: LowerSite) -> str:
    a, _, b, norm = _box(ls)
    return (f"{ls.ns}::cv_box_filter({a.expr('src')}, {a.pair('ksize', True)}, "
            f"{a.pair('anchor', True, (-1, -1))}, {norm}, {b})")


def _median(site: Site | LowerSite) -> tuple[Args, ArrayT]:
    a = Args(site, ("src", "ksize", "dst"), 2)
    t = a.image("src", (U8, U16, S16, F32))
    a.integer("ksize")
    return a, t


def _f2d(site: Site | LowerSite) -> tuple[Args, ArrayT, DType, int]:
    a = Args(site, ("src", "ddepth", "kernel", "dst", "anchor", "delta", "borderType"), 3)
    t = a.image("src", FILTER)
    k = a.type("kernel")
    if not isinstance(k, ArrayT) or k.ndim != 2 or k.dtype.is_complex or k.dtype is DType.BOOL:
        raise a.err(f"argument 'kernel' must be a 2-d real array, got {k}")
    a.pair("anchor", integer=True, default=(-1, -1))
    a.number("delta", 0.0)
    return a, t, _result(a, t, FILTER2D), a.border("borderType")


def _f2d_lower(ls: LowerSite) -> str:
    a, _, d, b = _f2d(ls)
    return (f"{ls.ns}::cv_filter2d<{d.cpp}>({a.expr('src')}, {a.expr('kernel')}, {a.pair('anchor', True, (-1, -1))}, "
            f"{a.number('delta', 0.0)}, {b})")


def _deriv(site: Site | LowerSite) -> tuple[Args, ArrayT, DType, int]:
    key = site.key
    names = {"cv2.Sobel": ("src", "ddepth", "dx", "dy", "dst", "ksize", "scale", "delta", "borderType"),
             "cv2.Scharr": ("src", "ddepth", "dx", "dy", "dst", "scale", "delta", "borderType"),
             "cv2.Laplacian": ("src", "ddepth", "dst", "ksize", "scale", "delta", "borderType")}[key]
    a = Args(site, names, 2 if key == "cv2.Laplacian" else 4)
    t = a.image("src", FILTER)
    for n in ("dx", "dy") if key != "cv2.Laplacian" else ():
        a.integer(n)
    if key != "cv2.Scharr":
        a.integer("ksize", 1 if key == "cv2.Laplacian" else 3)
    a.number("scale", 1.0)
    a.number("delta", 0.0)
    table = SOBEL
    if key == "cv2.Laplacian":
        ks = a.const_value("ksize", 1)  # ... when only known at run time: the stricter table
        table = FILTER2D if ks in (1, 3, ...) else {s: ANY_OUT for s in FILTER}
    return a, t, _result(a, t, table), a.border("borderType")


def _deriv_lower(ls: LowerSite) -> str:
    a, _, d, b = _deriv(ls)
    tail = f"{a.number('scale', 1.0)}, {a.number('delta', 0.0)}, {b}"
    src = a.expr("src")
    if ls.key == "cv2.Sobel":
        return (f"{ls.ns}::cv_sobel<{d.cpp}>({src}, {a.integer('dx')}, {a.integer('dy')}, {a.integer('ksize', 3)}, "
                f"{tail})")
    if ls.key == "cv2.Scharr":
        return f"{ls.ns}::cv_scharr<{d.cpp}>({src}, {a.integer('dx')}, {a.integer('dy')}, {tail})"
    return f"{ls.ns}::cv_laplacian<{d.cpp}>({src}, {a.integer('ksize', 1)}, {tail})"


def _morph(site: Site | LowerSite) -> tuple[Args, ArrayT, int]:
    ex = site.key == "cv2.morphologyEx"
    names = ("src", "op", "kernel", "dst", "anchor", "iterations", "borderType", "borderValue") if ex else \
        ("src", "kernel", "dst", "anchor", "iterations", "borderType", "borderValue")
    a = Args(site, names, 3 if ex else 2)
    t = a.image("src", FILTER)
    op = a.const_int("op") if ex else (0 if site.key == "cv2.erode" else 1)
    if op not in MORPH_OPS:
        raise a.err(f"morphology operation {op} is not supported ({', '.join('cv2.' + v for v in MORPH_OPS.values())})")
    k = a.type("kernel")
    if not isinstance(k, NoneT) and not (isinstance(k, ArrayT) and k.ndim == 2 and k.dtype is U8):
        raise a.err(f"argument 'kernel' must be a 2-d uint8 array or None, got {k} "
                    "(_kernel.type() == CV_8U)")
    a.pair("anchor", integer=True, default=(-1, -1))
    a.integer("iterations", 1)
    a.scalar("borderValue")
    return a, t, op


def _morph_lower(ls: LowerSite) -> str:
    a, _, op = _morph(ls)
    kernel = "ep::None{}" if isinstance(a.type("kernel"), NoneT) else a.expr("kernel")
    default = "false" if a.given("borderValue") else "true"
    return (f"{ls.ns}::cv_morphology({a.expr('src')}, {op}, {kernel}, {a.pair('anchor', True, (-1, -1))}, "
            f"{a.integer('iterations', 1)}, {a.border('borderType', 0)}, {a.scalar('borderValue')}, {default})")


def _canny(site: Site | LowerSite) -> tuple[Args, ArrayT]:
    a = Args(site, ("image", "threshold1", "threshold2", "edges", "apertureSize", "L2gradient"), 3)
    t = a.image("image", (U8,))
    a.number("threshold1")
    a.number("threshold2")
    a.integer("apertureSize", 3)
    if a.given("L2gradient"):
        lt = a.type("L2gradient")
        if not isinstance(lt, ScalarT) or lt.dtype.is_complex:
            raise a.err("argument 'L2gradient' must be a bool")
    return a, t


def _canny_lower(ls: LowerSite) -> str:
    a, _ = _canny(ls)
    l2 = f"bool({a.expr('L2gradient')})" if a.given("L2gradient") else "false"
    return (f"{ls.ns}::cv_canny({a.expr('image')}, {a.number('threshold1')}, {a.number('threshold2')}, "
            f"{a.integer('apertureSize', 3)}, {l2})")


def declare(reg: Registry) -> None:
    declare_cv(reg, "GaussianBlur", lambda s: _gauss(s)[1], simd_guard(_gauss_lower), LINEAR_HPP,
               extra=(simd_variant("GaussianBlur", SIMD_FILTER_HPP),))
    declare_cv(reg, "blur", lambda s: _box(s)[1], simd_guard(_box_lower), LINEAR_HPP,
               extra=(simd_variant("blur", SIMD_BOX_HPP),))
    declare_cv(reg, "boxFilter", lambda s: _box(s)[1], simd_guard(_box_lower), LINEAR_HPP,
               extra=(simd_variant("blur", SIMD_BOX_HPP),))
    declare_cv(reg, "filter2D", lambda s: ArrayT(_f2d(s)[2], _f2d(s)[1].ndim), _f2d_lower, LINEAR_HPP)
    for name in ("Sobel", "Scharr", "Laplacian"):
        simd = (simd_variant(name, SIMD_FILTER_HPP),) if name == "Sobel" else ()
        declare_cv(reg, name, lambda s: ArrayT(_deriv(s)[2], _deriv(s)[1].ndim),
                   simd_guard(_deriv_lower, dst=(U8, S16, F32)) if simd else _deriv_lower, LINEAR_HPP, extra=simd)
    declare_cv(reg, "medianBlur", lambda s: _median(s)[1],
               lambda ls: f"{ls.ns}::cv_median_blur({_median(ls)[0].expr('src')}, {_median(ls)[0].integer('ksize')})",
               MORPH_HPP)
    for name in ("erode", "dilate", "morphologyEx"):
        simd = (simd_variant("erode", SIMD_MORPH_HPP),) if name != "morphologyEx" else ()
        declare_cv(reg, name, lambda s: _morph(s)[1], simd_guard(_morph_lower) if simd else _morph_lower, MORPH_HPP,
                   extra=simd)
    declare_cv(reg, "Canny", lambda s: (_canny(s), ArrayT(U8, 2))[1], _canny_lower, MORPH_HPP)

    vi.add_vimage(reg, {
        "GaussianBlur": lambda ls: vi.conv(*_gauss(ls)[1:3]),
        "blur": lambda ls: vi.conv(*_box(ls)[1:3]),
        "boxFilter": lambda ls: vi.conv(*_box(ls)[1:3]),
        "filter2D": lambda ls: vi.conv(_f2d(ls)[1], _f2d(ls)[3], (F32,)),  # float32 in, float32 out (typing)
        "erode": lambda ls: vi.morph(_morph(ls)[1], _morph(ls)[0].border("borderType", 0),
                                     _morph(ls)[0].given("borderValue")),
        "dilate": lambda ls: vi.morph(_morph(ls)[1], _morph(ls)[0].border("borderType", 0),
                                      _morph(ls)[0].given("borderValue")),
    })


__all__ = ["declare"]

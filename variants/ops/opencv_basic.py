"""cv2 array operators: flip, transpose, copyMakeBorder, threshold, addWeighted,
normalize, integral, equalizeHist, getRotationMatrix2D, getStructuringElement.

Helpers and conventions: variants/ops/opencv_ops.py. C++: ep::cv_* in
everypath/ops/imgproc.hpp (+ imgproc_misc.hpp) and ep::opencv::cv_* in
everypath/paths/opencv/imgproc.hpp.
"""
from __future__ import annotations

from everypath.base.types import ArrayT, DType, ScalarT, TupleT, Type
from everypath.variants.ops.opencv_ops import (
    DEPTH_DTYPE, F32, F64, S16, S32, U8, U16, Args, ddepth_dtype, declare_cv,
)
from everypath.variants.ops import opencv_vimage as vi
from everypath.variants.ops.opencv_simd import simd_guard, simd_variant
from everypath.variants.registry import LowerSite, Registry, Site

THRESH_DTYPES = (U8, U16, S16, F32, F64)
NORM_TYPES = {1: "NORM_INF", 2: "NORM_L1", 4: "NORM_L2", 32: "NORM_MINMAX"}
# integral: source dtype -> allowed sum dtypes (the first is the default)
INTEGRAL = {U8: (S32, F32, F64), U16: (F64,), S16: (F64,), F32: (F64, F32), F64: (F64,)}


def _flip(site: Site | LowerSite) -> tuple[Args, ArrayT]:
    a = Args(site, ("src", "flipCode", "dst"), 2)
    a.integer("flipCode")
    return a, a.image("src")


def _transpose(site: Site | LowerSite) -> tuple[Args, ArrayT]:
    a = Args(site, ("src", "dst"), 1)
    return a, a.image("src")


def _border(site: Site | LowerSite) -> tuple[Args, ArrayT, int]:
    a = Args(site, ("src", "top", "bottom", "left", "right", "borderType", "dst", "value"), 6)
    for n in ("top", "bottom", "left", "right"):
        a.integer(n)
    a.scalar("value")
    return a, a.image("src"), a.border("borderType")


def _border_lower(ls: LowerSite) -> str:
    a, _, b = _border(ls)
    sides = ", ".join(a.integer(n) for n in ("top", "bottom", "left", "right"))
    return f"{ls.ns}::cv_copy_make_border({a.expr('src')}, {sides}, {b}, {a.scalar('value')})"


def _threshold(site: Site | LowerSite) -> tuple[Args, ArrayT, int]:
    a = Args(site, ("src", "thresh", "maxval", "type", "dst"), 4)
    t = a.image("src", THRESH_DTYPES)
    a.number("thresh")
    a.number("maxval")
    kind = a.const_int("type")
    if kind & 7 > 4 or kind & ~(7 | 8):
        raise a.err(f"threshold type {kind} is not supported (THRESH_BINARY, BINARY_INV, TRUNC, TOZERO, TOZERO_INV, "
                    "optionally + THRESH_OTSU)")
    if kind & 8 and (t.ndim != 2 or t.dtype not in (U8, U16)):
        raise a.err("THRESH_OTSU needs a 2-d uint8 or uint16 image (src_type == CV_8UC1 || src_type == CV_16UC1)")
    return a, t, kind


def _threshold_infer(site: Site) -> Type:
    _, t, _ = _threshold(site)
    return TupleT((ScalarT(DType.FLOAT64, weak=True), t))


def _threshold_lower(ls: LowerSite) -> str:
    a, _, kind = _threshold(ls)
    return f"{ls.ns}::cv_threshold({a.expr('src')}, {a.number('thresh')}, {a.number('maxval')}, {kind})"


def _weighted(site: Site | LowerSite) -> tuple[Args, ArrayT, DType]:
    a = Args(site, ("src1", "alpha", "src2", "beta", "gamma", "dst", "dtype"), 5)
    t1, t2 = a.image("src1"), a.image("src2")
    for n in ("alpha", "beta", "gamma"):
        a.number(n)
    if t1.dtype is not t2.dtype:
        if a.const_int("dtype", -1) < 0:
            raise a.err("When the input arrays in add/subtract/multiply/divide functions have different types, the "
                        "output array type must be explicitly specified")
        raise a.err("inputs of different dtypes are not supported")
    if t1.ndim != t2.ndim:
        raise a.err("The operation is neither 'array op array' (where arrays have the same size and the same number "
                    "of channels), nor 'array op scalar', nor 'scalar op array'")
    return a, t1, ddepth_dtype(a, t1.dtype, "dtype")


def _weighted_lower(ls: LowerSite) -> str:
    a, _, d = _weighted(ls)
    nums = [a.number(n) for n in ("alpha", "beta", "gamma")]
    return (f"{ls.ns}::cv_add_weighted<{d.cpp}>({a.expr('src1')}, {nums[0]}, {a.expr('src2')}, {nums[1]}, "
            f"{nums[2]})")


def _normalize(site: Site | LowerSite) -> tuple[Args, ArrayT, DType, int]:
    a = Args(site, ("src", "dst", "alpha", "beta", "norm_type", "dtype", "mask"), 2)
    t = a.image("src")
    if a.given("mask"):
        raise a.err("a mask is not supported")
    a.number("alpha", 1.0)
    a.number("beta", 0.0)
    nt = a.const_int("norm_type", 4)
    if nt not in NORM_TYPES:
        raise a.err("Unknown/unsupported norm type")
    return a, t, ddepth_dtype(a, t.dtype, "dtype"), nt


def _normalize_lower(ls: LowerSite) -> str:
    a, _, d, nt = _normalize(ls)
    return (f"{ls.ns}::cv_normalize<{d.cpp}>({a.expr('src')}, {a.number('alpha', 1.0)}, {a.number('beta', 0.0)}, "
            f"{nt})")


def _integral(site: Site | LowerSite) -> tuple[Args, ArrayT, DType]:
    a = Args(site, ("src", "sum", "sdepth"), 1)
    t = a.image("src", tuple(INTEGRAL))
    sd = a.const_int("sdepth", -1)
    d = INTEGRAL[t.dtype][0] if sd < 0 else DEPTH_DTYPE.get(sd)
    if d not in INTEGRAL[t.dtype]:
        raise a.err(f"sdepth {sd} is not supported for {t.dtype.np.name} images")
    return a, t, d


def _hist(site: Site | LowerSite) -> tuple[Args, ArrayT]:
    a = Args(site, ("src", "dst"), 1)
    t = a.image("src", (U8,))
    if t.ndim != 2:
        raise a.err("equalizeHist takes 1-channel (2-d) uint8 images (_src.type() == CV_8UC1)")
    return a, t


def _rotation(site: Site | LowerSite) -> Args:
    a = Args(site, ("center", "angle", "scale"), 3)
    a.pair("center", integer=False)
    a.number("angle")
    a.number("scale")
    return a


def _rotation_lower(ls: LowerSite) -> str:
    a = _rotation(ls)
    return f"{ls.ns}::cv_rotation_matrix({a.pair('center', False)}, {a.number('angle')}, {a.number('scale')})"


def _element(site: Site | LowerSite) -> tuple[Args, int]:
    a = Args(site, ("shape", "ksize", "anchor"), 2)
    shape = a.const_int("shape")
    if shape not in (0, 1, 2):
        raise a.err(f"shape {shape} is not supported (cv2.MORPH_RECT, MORPH_CROSS or MORPH_ELLIPSE)")
    a.pair("ksize", integer=True)
    a.pair("anchor", integer=True, default=(-1, -1))
    return a, shape


def _element_lower(ls: LowerSite) -> str:
    a, shape = _element(ls)
    return (f"{ls.ns}::cv_structuring_element({shape}, {a.pair('ksize', True)}, "
            f"{a.pair('anchor', True, (-1, -1))})")


def declare(reg: Registry) -> None:
    same = lambda parse: (lambda site: parse(site)[1])  # noqa: E731 - the result is the source image's type
    declare_cv(reg, "flip", same(_flip),
               lambda ls: f"{ls.ns}::cv_flip({_flip(ls)[0].expr('src')}, {_flip(ls)[0].integer('flipCode')})")
    declare_cv(reg, "transpose", same(_transpose), lambda ls: f"{ls.ns}::cv_transpose({_transpose(ls)[0].expr('src')})")
    declare_cv(reg, "copyMakeBorder", same(_border), _border_lower)
    # float32: the loops path's map is vectorised by g++ already (measured: simd no faster)
    declare_cv(reg, "threshold", _threshold_infer, simd_guard(_threshold_lower, src=(U8,)),
               extra=(simd_variant("threshold", "everypath/paths/simd/imgproc.hpp"),))
    declare_cv(reg, "addWeighted", lambda s: ArrayT(_weighted(s)[2], _weighted(s)[1].ndim), _weighted_lower)
    declare_cv(reg, "normalize", lambda s: ArrayT(_normalize(s)[2], _normalize(s)[1].ndim), _normalize_lower)
    declare_cv(reg, "integral", lambda s: ArrayT(_integral(s)[2], _integral(s)[1].ndim),
               lambda ls: f"{ls.ns}::cv_integral<{_integral(ls)[2].cpp}>({_integral(ls)[0].expr('src')})")
    declare_cv(reg, "equalizeHist", same(_hist), lambda ls: f"{ls.ns}::cv_equalize_hist({_hist(ls)[0].expr('src')})")
    declare_cv(reg, "getRotationMatrix2D", lambda s: (_rotation(s), ArrayT(F64, 2))[1], _rotation_lower)
    declare_cv(reg, "getStructuringElement", lambda s: (_element(s), ArrayT(U8, 2))[1], _element_lower)

    vi.add_vimage(reg, {"threshold": lambda ls: vi.threshold(*_threshold(ls)[1:3])})


__all__ = ["declare"]

"""The simd path (xsimd, ``ep::simd::cv_*`` in variants/include/everypath/paths/simd/imgproc*.hpp)
of the hot cv2 image operators: its variant and the guard that declines a call site the
path has no kernel for (then the loops path serves it; never a different answer).

Not a family (no ``declare``): opencv_filters.py, opencv_basic.py, opencv_color.py and
opencv_geometry.py add these variants to their declarations.
"""
from __future__ import annotations

from typing import Callable

from everypath.base.types import ArrayT, DType, TupleT, Type
from everypath.variants.registry import LowerSite, PathNotApplicable, Variant

# measured with `everypath ops bench` (variants/opbench.py, 100 to 260000 pixels): the filters
# beat loops 2-4x from 1000 pixels on, threshold from about 1000, cvtColor (gray) from a few thousand
SIMD_MIN_WORK = {"GaussianBlur": 1 << 8, "Sobel": 1 << 8, "blur": 1 << 8, "erode": 1 << 8, "threshold": 1 << 10,
                 "cvtColor": 1 << 12}
U8_F32 = (DType.UINT8, DType.FLOAT32)


def simd_variant(name: str, header: str) -> Variant:
    return Variant("simd", header, cost_hint=f"xsimd rows, the loops path's arithmetic (cv::{name})",
                   min_work=SIMD_MIN_WORK.get(name, 1 << 10))


def _dtype(t: Type | None) -> DType | None:
    if isinstance(t, TupleT):  # threshold: (retval, image)
        t = t.items[-1]
    return t.dtype if isinstance(t, ArrayT) else None


def simd_guard(lower: Callable[[LowerSite], str], src: tuple[DType, ...] = U8_F32,
               dst: tuple[DType, ...] | None = None,
               ok: Callable[[LowerSite], bool] = lambda ls: True) -> Callable[[LowerSite], str]:
    """lower, declining the simd path unless the image (the first argument) has a dtype in
    src, the result one in dst (default: src) and ok(ls) holds."""

    def wrapped(ls: LowerSite) -> str:
        if ls.path == "simd":
            image = ls.type(0) if ls.type(0) is not None else ls.kw_types.get("src")
            if _dtype(image) not in src or _dtype(ls.result) not in (dst or src) or not ok(ls):
                raise PathNotApplicable(f"no simd kernel for this {ls.key} call")
        return lower(ls)

    return wrapped


__all__ = ["SIMD_MIN_WORK", "U8_F32", "simd_guard", "simd_variant"]

"""The vimage path of the cv2 operators (Apple's vImage, in Accelerate.framework).

C++: ep::vimage::cv_* in variants/include/everypath/paths/vimage/imgproc*.hpp, the
loops signatures, compiled only for Apple targets. Each family module declares the
variant (``vimage_variant``) and wraps its lowering in ``vimage_guard`` with a check
that declines (PathNotApplicable) what vImage has no matching call for: dtypes other
than uint8 / float32, 3-d images where vImage works on one plane, and border types
without a vImage edge mode (only BORDER_CONSTANT with 0 = kvImageBackgroundColorFill
and BORDER_REPLICATE = kvImageEdgeExtend exist for convolutions; cv2's default
BORDER_REFLECT_101 is declined). cv2.resize and cv2.warpAffine get no vimage variant:
vImageScale_* / vImageAffineWarp_* resample with Lanczos kernels, which is none of
OpenCV's interpolations. Run-time conditions (kernel sizes, anchors, overflow of
vImage's int16 taps) fall back to the loops code inside the header.
"""
from __future__ import annotations

import dataclasses
from typing import Callable

from everypath.base.types import ArrayT, DType
from everypath.variants.ops.opencv_ops import F32, U8
from everypath.variants.registry import LowerSite, PathNotApplicable, Registry, Requirements, Variant

VIMAGE_HPP = "everypath/paths/vimage/imgproc.hpp"
# vImage is vectorised and tiled across cores; below a few thousand pixels the call and
# the plane split cost more than the loops (no Mac here to measure: a conservative guess)
VIMAGE_MIN_WORK = 1 << 12
PLANAR = (U8, F32)
CONV_BORDERS = {0: "BORDER_CONSTANT", 1: "BORDER_REPLICATE"}
GRAY_CODES = (6, 7, 10, 11)  # COLOR_BGR2GRAY, RGB2GRAY, BGRA2GRAY, RGBA2GRAY


def vimage_variant(what: str) -> Variant:
    return Variant("vimage", VIMAGE_HPP, Requirements(os=("darwin",), libraries=("Accelerate",)),
                   cost_hint=f"Apple vImage {what}", min_work=VIMAGE_MIN_WORK)


def vimage_guard(lower: Callable[[LowerSite], str], check: Callable[[LowerSite], str | None]) -> Callable[[LowerSite], str]:
    """lower, declining the vimage path where check names a reason."""

    def guarded(ls: LowerSite) -> str:
        if ls.path == "vimage":
            why = check(ls)
            if why is not None:
                raise PathNotApplicable(f"vimage: {why}")
        return lower(ls)

    return guarded


def add_vimage(reg: Registry, checks: dict[str, Callable[[LowerSite], str | None]]) -> None:
    """Give already declared cv2.<name> operators a vimage variant whose lowering declines where check
    names a reason. Applied after a family's declarations so the vimage variant stays one appended
    step, apart from each operator's own declaration."""
    for name, check in checks.items():
        op = reg.ops[f"cv2.{name}"]
        assert op.lower is not None and not op.aliases
        reg.ops[op.key] = dataclasses.replace(op, lower=vimage_guard(op.lower, check),
                                              variants=(*op.variants, vimage_variant(f"for cv2.{name}")))


def planar(t: ArrayT, dtypes: tuple[DType, ...] = PLANAR) -> str | None:
    if t.dtype not in dtypes:
        return f"no vImage call for {t.dtype.np.name} images"
    if t.ndim != 2:
        return "vImage filters work on one plane (a 2-d image)"
    return None


def conv(t: ArrayT, border: int, dtypes: tuple[DType, ...] = PLANAR) -> str | None:
    """A convolution: a planar image and a border type vImage has an edge mode for."""
    if border not in CONV_BORDERS:
        return f"border type {border} has no vImage edge mode (only {', '.join(CONV_BORDERS.values())})"
    return planar(t, dtypes)


def morph(t: ArrayT, border: int, value_given: bool) -> str | None:
    """erode / dilate: a centred rectangular min / max ignores the border, except WRAP and a chosen value."""
    if border == 3 or (border == 0 and value_given):
        return "vImageMin/Max have no wrapped or user-valued border"
    return planar(t)


def threshold(t: ArrayT, kind: int) -> str | None:
    if t.dtype is not U8 or kind & 8:
        return "vImageTableLookUp_Planar8 serves uint8 images without THRESH_OTSU"
    return None


def gray(t: ArrayT, code: int) -> str | None:
    if code not in GRAY_CODES:
        return "only the to-gray conversions map to vImageMatrixMultiply"
    if t.dtype not in PLANAR:
        return f"no vImage conversion for {t.dtype.np.name} images"
    return None


__all__ = ["CONV_BORDERS", "GRAY_CODES", "VIMAGE_HPP", "VIMAGE_MIN_WORK", "add_vimage", "conv", "gray", "morph", "planar",
           "threshold", "vimage_guard", "vimage_variant"]

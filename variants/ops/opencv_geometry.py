"""cv2 geometric transforms: resize, warpAffine, pyrDown and pyrUp.

The result's size is a run-time value (dsize, fx / fy, or the source's); flags and
border types are compile-time constants. C++: everypath/ops/imgproc_resize.hpp and
imgproc_geom.hpp (loops), everypath/paths/opencv/imgproc_geom.hpp (OpenCV).
"""
from __future__ import annotations

from everypath.base.types import ArrayT
from everypath.variants.ops.opencv_ops import ALL, FILTER, F32, F64, Args, declare_cv
from everypath.variants.registry import LowerSite, Registry, Site

GEOM_HPP = "everypath/ops/imgproc_geom.hpp"
INTERP = {0: "INTER_NEAREST", 1: "INTER_LINEAR", 2: "INTER_CUBIC", 3: "INTER_AREA", 4: "INTER_LANCZOS4"}


def _size(a: Args, name: str) -> str:
    """A (width, height) argument that may be None (then computed by OpenCV's rule)."""
    if not a.given(name):
        return "ep::cvk::Size2{0, 0}"
    return a.pair(name, integer=True)


def _resize(site: Site | LowerSite) -> tuple[Args, ArrayT, int]:
    a = Args(site, ("src", "dsize", "dst", "fx", "fy", "interpolation"), 2)
    interp = a.const_int("interpolation", 1)
    if interp not in INTERP:
        raise a.err(f"interpolation {interp} is not supported ({', '.join('cv2.' + v for v in INTERP.values())})")
    t = a.image("src", ALL if interp == 0 else FILTER)
    _size(a, "dsize")
    a.number("fx", 0.0)
    a.number("fy", 0.0)
    return a, t, interp


def _resize_lower(ls: LowerSite) -> str:
    a, _, interp = _resize(ls)
    return (f"{ls.ns}::cv_resize({a.expr('src')}, {_size(a, 'dsize')}, {a.number('fx', 0.0)}, "
            f"{a.number('fy', 0.0)}, {interp})")


def _warp(site: Site | LowerSite) -> tuple[Args, ArrayT, int, int]:
    a = Args(site, ("src", "M", "dsize", "dst", "flags", "borderMode", "borderValue", "hint"), 3)
    t = a.image("src", FILTER)
    m = a.type("M")
    if not isinstance(m, ArrayT) or m.ndim != 2 or m.dtype not in (F32, F64):
        raise a.err(f"argument 'M' must be a 2x3 float32 or float64 array, got {m}")
    flags = a.const_int("flags", 1)
    if flags & 7 not in (0, 1) or flags & ~(7 | 16):
        raise a.err("flags other than cv2.INTER_NEAREST / INTER_LINEAR (+ cv2.WARP_INVERSE_MAP) are not supported")
    _size(a, "dsize")
    a.scalar("borderValue")
    if a.const_int("hint", 0) not in (0, 1):
        raise a.err("only the default (accurate) algorithm hint is supported")
    return a, t, flags, a.border("borderMode", 0)


def _warp_lower(ls: LowerSite) -> str:
    a, _, flags, b = _warp(ls)
    return (f"{ls.ns}::cv_warp_affine({a.expr('src')}, {a.expr('M')}, {_size(a, 'dsize')}, {flags}, {b}, "
            f"{a.scalar('borderValue')})")


def _pyr(site: Site | LowerSite) -> tuple[Args, ArrayT, int]:
    a = Args(site, ("src", "dst", "dstsize", "borderType"), 1)
    t = a.image("src", FILTER)
    _size(a, "dstsize")
    up = site.key == "cv2.pyrUp"
    b = a.border("borderType", 4, allowed=(4,) if up else (1, 2, 3, 4))
    return a, t, b


def _pyr_lower(ls: LowerSite) -> str:
    a, _, b = _pyr(ls)
    fn = "cv_pyr_up" if ls.key == "cv2.pyrUp" else "cv_pyr_down"
    return f"{ls.ns}::{fn}({a.expr('src')}, {_size(a, 'dstsize')}, {b})"


def declare(reg: Registry) -> None:
    declare_cv(reg, "resize", lambda s: _resize(s)[1], _resize_lower, GEOM_HPP)
    declare_cv(reg, "warpAffine", lambda s: _warp(s)[1], _warp_lower, GEOM_HPP)
    declare_cv(reg, "pyrDown", lambda s: _pyr(s)[1], _pyr_lower, GEOM_HPP)
    declare_cv(reg, "pyrUp", lambda s: _pyr(s)[1], _pyr_lower, GEOM_HPP)


__all__ = ["declare"]

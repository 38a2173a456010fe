"""cv2.cvtColor: channel swaps and alpha, gray, HSV and YCrCb in both directions.

The code must be a compile-time constant (cv2.COLOR_BGR2GRAY folds to 6); it picks
the result's rank (2-d for gray results) and the dtypes OpenCV accepts. C++:
ep::cv_cvt_color<Code, Rank> in everypath/ops/imgproc_color.hpp and
ep::opencv::cv_cvt_color in everypath/paths/opencv/imgproc.hpp.
"""
from __future__ import annotations

from everypath.base.types import ArrayT, DType, Type
from everypath.variants.ops.opencv_ops import F32, U8, U16, Args, declare_cv
from everypath.variants.ops import opencv_vimage as vi
from everypath.variants.ops.opencv_simd import simd_guard, simd_variant
from everypath.variants.registry import LowerSite, Registry, Site

HEADER = "everypath/ops/imgproc_color.hpp"
# the codes the simd path converts (the others: loops); uint8 only: for float32 images the
# loops path is as fast (measured with `everypath ops bench cv2.cvtColor --dtype float32`)
SIMD_KINDS = ("swap", "gray", "from_gray")
RGB = (U8, U16, F32)
HSV = (U8, F32)
# code -> (what, dtypes); what: "swap" (3/4 channels in), "gray" (to gray), "from_gray", "to" (3/4 in), "from" (3 in)
CODES: dict[int, tuple[str, tuple[DType, ...]]] = {
    0: ("swap", RGB), 1: ("swap", RGB), 2: ("swap", RGB), 3: ("swap", RGB), 4: ("swap", RGB), 5: ("swap", RGB),
    6: ("gray", RGB), 7: ("gray", RGB), 10: ("gray", RGB), 11: ("gray", RGB),
    8: ("from_gray", RGB), 9: ("from_gray", RGB),
    36: ("to", RGB), 37: ("to", RGB), 38: ("from", RGB), 39: ("from", RGB),
    40: ("to", HSV), 41: ("to", HSV), 66: ("to", HSV), 67: ("to", HSV),
    54: ("from", HSV), 55: ("from", HSV), 70: ("from", HSV), 71: ("from", HSV),
}


def _parse(site: Site | LowerSite) -> tuple[Args, int, ArrayT, int]:
    a = Args(site, ("src", "code", "dst", "dstCn", "hint"), 2)
    code = a.const_int("code")
    if code not in CODES:
        raise a.err(f"color conversion code {code} is not supported (BGR/RGB/BGRA/RGBA swaps, GRAY, HSV, "
                    "HSV_FULL and YCrCb conversions are)")
    what, dtypes = CODES[code]
    t = a.image("src", dtypes)
    if what == "from_gray" and t.ndim != 2:
        raise a.err("this conversion takes a 1-channel (2-d) image")
    if what != "from_gray" and t.ndim != 3:
        raise a.err("(-15:Bad number of channels) this conversion takes a (rows, cols, channels) color image, "
                    "not a 2-d one")
    if a.const_int("dstCn", 0) != 0:
        raise a.err("dstCn is not supported; pick the code with the channels you want (e.g. COLOR_BGR2BGRA)")
    if a.given("hint"):
        a.const_int("hint")
    return a, code, t, 2 if what == "gray" else 3


def _infer(site: Site) -> Type:
    _, _, t, nd = _parse(site)
    return ArrayT(t.dtype, nd)


def _lower(ls: LowerSite) -> str:
    a, code, _, nd = _parse(ls)
    return f"{ls.ns}::cv_cvt_color<{code}, {nd}>({a.expr('src')})"


def declare(reg: Registry) -> None:
    declare_cv(reg, "cvtColor", _infer, simd_guard(_lower, src=(U8,), ok=lambda ls: CODES[_parse(ls)[1]][0] in SIMD_KINDS),
               HEADER, extra=(simd_variant("cvtColor", "everypath/paths/simd/imgproc.hpp"),))
    vi.add_vimage(reg, {"cvtColor": lambda ls: vi.gray(_parse(ls)[2], _parse(ls)[1])})


__all__ = ["CODES", "declare"]

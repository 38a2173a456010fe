"""cv2 per-pixel core operators: bitwise_not/and/or/xor (with an optional mask), convertScaleAbs,
rotate and merge, on both cv2 paths (loops: ep::cv_* in everypath/ops/imgproc_arith.hpp; opencv:
everypath/paths/opencv/imgproc_arith.hpp).

Deviations from cv2, each refused when compiling rather than answered differently: a number or tuple
as a bitwise operand (cv2's 'array op scalar' works on a cv::Scalar's bytes), a mask that is not a 2-d
uint8 image, a merge of a list (its length is not known when compiling) or of multi-channel images,
and a rotateCode other than cv2.ROTATE_90_CLOCKWISE / ROTATE_180 /
ROTATE_90_COUNTERCLOCKWISE (cv2 5.0 returns an uninitialised image for those).
"""
from __future__ import annotations

from everypath.base.types import ArrayT, DType, TupleT, Type
from everypath.variants.ops.opencv_ops import ALL, U8, Args, declare_cv
from everypath.variants.registry import LowerSite, Registry, Site

HPP = "everypath/ops/imgproc_arith.hpp"
_BINARY = {"bitwise_and": 0, "bitwise_or": 1, "bitwise_xor": 2}
_MISMATCH = ("(-209:Sizes of input arguments do not match) The operation is neither 'array op array' (where "
             "arrays have the same size and type), nor 'array op scalar', nor 'scalar op array' in function "
             "'binary_op'")


def _mask(a: Args) -> None:
    if a.given("mask"):
        t = a.type("mask")
        if not (isinstance(t, ArrayT) and t.ndim == 2 and t.dtype is DType.UINT8):
            raise a.err(f"argument 'mask' must be a 2-d uint8 image here, got {t}")


def _bitwise(site: Site | LowerSite) -> tuple[Args, ArrayT]:
    name = site.key.split(".", 1)[1]
    if name == "bitwise_not":
        a = Args(site, ("src", "dst", "mask"), 1)
        t = a.image("src")
    else:
        a = Args(site, ("src1", "src2", "dst", "mask"), 2)
        t = a.image("src1")
        u = a.type("src2")
        if not isinstance(u, ArrayT):
            raise a.err(f"argument 'src2' must be an image (an array), got {u}: 'array op scalar' is not supported")
        if u.dtype is not t.dtype or u.ndim != t.ndim:
            raise a.err(_MISMATCH)
    _mask(a)
    return a, t


def _bitwise_lower(ls: LowerSite) -> str:
    a, _ = _bitwise(ls)
    name = ls.key.split(".", 1)[1]
    mask = f", ep::cvk::addr({a.expr('mask')})" if a.given("mask") else ""
    if name == "bitwise_not":
        return f"{ls.ns}::cv_bitwise_not({a.expr('src')}{mask})"
    return f"{ls.ns}::cv_bitwise<{_BINARY[name]}>({a.expr('src1')}, {a.expr('src2')}{mask})"


def _scale_abs(site: Site | LowerSite) -> tuple[Args, ArrayT]:
    a = Args(site, ("src", "dst", "alpha", "beta"), 1)
    t = a.image("src")
    a.number("alpha", 1.0)
    a.number("beta", 0.0)
    return a, t


def _scale_abs_lower(ls: LowerSite) -> str:
    a, _ = _scale_abs(ls)
    return f"{ls.ns}::cv_convert_scale_abs({a.expr('src')}, {a.number('alpha', 1.0)}, {a.number('beta', 0.0)})"


def _rotate(site: Site | LowerSite) -> tuple[Args, ArrayT, int]:
    a = Args(site, ("src", "rotateCode", "dst"), 2)
    t = a.image("src")
    code = a.const_int("rotateCode")
    if code not in (0, 1, 2):
        raise a.err(f"rotateCode {code} is not supported (cv2.ROTATE_90_CLOCKWISE, ROTATE_180 or "
                    "ROTATE_90_COUNTERCLOCKWISE)")
    return a, t, code


def _merge(site: Site | LowerSite) -> tuple[Args, ArrayT]:
    a = Args(site, ("mv", "dst"), 1)
    t = a.type("mv")
    items = t.items if isinstance(t, TupleT) else None
    if items is None:
        raise a.err(f"argument 'mv' must be a tuple of images (a list's length is not known when compiling), got {t}")
    if not items:
        raise a.err("(-215:Assertion failed) mv && n > 0 in function 'merge'")
    first = items[0]
    for i in items:
        if not (isinstance(i, ArrayT) and i.ndim == 2 and i.dtype in ALL):
            raise a.err(f"every image must be 2-d (one channel) here, got {i}")
        if i.dtype is not first.dtype:  # type: ignore[union-attr]
            raise a.err("(-215:Assertion failed) mv[i].size == mv[0].size && mv[i].depth() == depth in function "
                        "'merge'")
    return a, ArrayT(first.dtype, 2 if len(items) == 1 else 3)  # type: ignore[union-attr]


def _same(parse):  # the result has the source image's type
    def infer(site: Site) -> Type:
        return parse(site)[1]

    return infer


def declare(reg: Registry) -> None:
    for name in ("bitwise_not", *_BINARY):
        declare_cv(reg, name, _same(_bitwise), _bitwise_lower, HPP)
    declare_cv(reg, "convertScaleAbs", lambda s: ArrayT(U8, _scale_abs(s)[1].ndim), _scale_abs_lower, HPP)
    declare_cv(reg, "merge", _same(_merge),
               lambda ls: f"{ls.ns}::cv_merge<{_merge(ls)[1].dtype.cpp}>({_merge(ls)[0].expr('mv')})", HPP)
    declare_cv(reg, "rotate", _same(_rotate),
               lambda ls: f"{ls.ns}::cv_rotate({_rotate(ls)[0].expr('src')}, {_rotate(ls)[2]})", HPP)


__all__ = ["declare"]

"""cv2 (OpenCV) image processing, shared helpers and the simple operators: cv2.flip,
transpose, copyMakeBorder, threshold, addWeighted, normalize, integral,
equalizeHist, getRotationMatrix2D and getStructuringElement.

Every cv2 operator has two implementation paths with one signature: ``loops``
(our C++, ``ep::cv_*`` in variants/include/everypath/ops/imgproc*.hpp) and
``opencv`` (OpenCV's C++ API, ``ep::opencv::cv_*`` in
variants/include/everypath/paths/opencv/imgproc.hpp). One lowering serves both
through ``ls.ns``. The reference is the cv2 Python function, imported lazily so
everypath works without OpenCV. Images are 2-d (one channel) or 3-d
(rows, cols, channels) arrays; flags and codes must be compile-time constants
(``cv2.INTER_LINEAR`` folds to an int), sizes and numbers may be run-time values.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from everypath.base.types import ArrayT, DType, NoneT, ScalarT, TupleT, Type
from everypath.variants.registry import Family, LowerSite, Operator, Registry, Requirements, Site, TypingError, Variant

CORE_HPP = "everypath/ops/imgproc.hpp"
OPENCV_HPP = "everypath/paths/opencv/imgproc.hpp"

U8, S8, U16, S16, S32, F32, F64 = (DType.UINT8, DType.INT8, DType.UINT16, DType.INT16, DType.INT32,
                                   DType.FLOAT32, DType.FLOAT64)
CV_DEPTH = {U8: 0, S8: 1, U16: 2, S16: 3, S32: 4, F32: 5, F64: 6}
DEPTH_DTYPE = {v: k for k, v in CV_DEPTH.items()}
ALL = (U8, S8, U16, S16, S32, F32, F64)
FILTER = (U8, U16, S16, F32, F64)  # what most cv2 5 filters and resize accept
BORDERS = {0: "BORDER_CONSTANT", 1: "BORDER_REPLICATE", 2: "BORDER_REFLECT", 3: "BORDER_WRAP",
           4: "BORDER_REFLECT_101"}


def cv2_reference(name: str) -> Callable[..., Any]:
    """cv2.<name>, imported on first call (the registry must load without OpenCV)."""

    def call(*args: Any, **kwargs: Any) -> Any:
        import cv2  # type: ignore[import-not-found]

        return getattr(cv2, name)(*args, **kwargs)

    call.__name__ = name
    call.__qualname__ = f"cv2.{name}"
    return call


# Before telemetry decides: OpenCV (vectorised, threaded) for images of this many elements on,
# our loops below it, where the call costs more than the work and where the loops follow
# the cv2 reference (OpenCV 5) even when the installed C++ library is OpenCV 4
OPENCV_MIN_WORK = 1 << 16


def variants(loops_header: str, what: str) -> tuple[Variant, ...]:
    return (Variant("loops", loops_header, cost_hint="portable C++ loops, OpenCV's arithmetic"),
            Variant("opencv", OPENCV_HPP, Requirements(libraries=("opencv",)), cost_hint=f"OpenCV C++ {what}",
                    min_work=OPENCV_MIN_WORK))


def declare_cv(reg: Registry, name: str, infer: Callable[[Site], Type], lower: Callable[[LowerSite], str],
               header: str = CORE_HPP, extra: tuple[Variant, ...] = ()) -> None:
    # the last eligible variant runs: simd goes before opencv, which stays ahead on large images (measured)
    loops, *rest = variants(header, f"cv::{name}")
    simd = tuple(v for v in extra if v.path == "simd")
    reg.add(Operator(f"cv2.{name}", Family.IMGPROC, cv2_reference(name), infer, lower,
                     variants=(loops, *simd, *rest, *(v for v in extra if v.path != "simd"))))


class Args:
    """A cv2 call's arguments bound to OpenCV's parameter names (positional, then keywords)."""

    def __init__(self, site: Site | LowerSite, names: tuple[str, ...], required: int) -> None:
        self.site = site
        self.fname = site.key.split(".", 1)[1]
        self.where: dict[str, int | str] = {}
        nargs = len(site.node.args)
        if nargs > len(names):
            raise self.err(f"takes at most {len(names)} arguments ({nargs} given)")
        for i in range(nargs):
            self.where[names[i]] = i
        for k in site.node.kwargs:
            if k not in names:
                raise self.err(f"'{k}' is an invalid keyword argument")
            if k in self.where:
                raise self.err(f"argument given by name ('{k}') and position ({names.index(k) + 1})")
            self.where[k] = k
        for i, n in enumerate(names[:required]):
            if n not in self.where:
                raise self.err(f"missing required argument '{n}' (pos {i + 1})")
        for n in ("dst", "edges", "sum"):
            if n in names and self.given(n):
                raise self.err(f"an output array '{n}' is not supported; use the result")

    def given(self, name: str) -> bool:
        """Present and not the constant None."""
        return name in self.where and not isinstance(self.type(name), NoneT)

    def type(self, name: str) -> Type | None:
        return self.site.type(self.where[name]) if name in self.where else None

    def expr(self, name: str) -> str:
        assert isinstance(self.site, LowerSite)
        return self.site.arg(self.where[name])  # type: ignore[return-value]

    def err(self, msg: str) -> TypingError:
        return TypingError(f"cv2.{self.fname}(): {msg}")

    # ---- kinds of argument ------------------------------------------------------------------

    def image(self, name: str, dtypes: tuple[DType, ...] = ALL) -> ArrayT:
        t = self.type(name)
        if not isinstance(t, ArrayT) or t.ndim not in (2, 3):
            raise self.err(f"argument '{name}' must be an image: a 2-d or 3-d (rows, cols, channels) array, got {t}")
        if t.dtype not in dtypes:
            ok = ", ".join(d.np.name for d in dtypes)
            raise self.err(f"images of dtype {t.dtype.np.name} are not supported by OpenCV here (it takes {ok})")
        return t

    def const_int(self, name: str, default: int | None = None) -> int:
        if not self.given(name):
            if default is None:
                raise self.err(f"missing argument '{name}'")
            return default
        from everypath.tracer.ir import Opcode

        w = self.where[name]
        node = self.site.node.args[w] if isinstance(w, int) else self.site.node.kwargs[w]
        if node.op is not Opcode.CONST:
            raise self.err(f"argument '{name}' must be a compile-time constant (a cv2 flag such as cv2.{_hint(name)})")
        v = node.target
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
            raise self.err(f"argument '{name}' must be an integer, got {v!r}")
        return int(v)

    def const_value(self, name: str, default: Any) -> Any:
        from everypath.tracer.ir import Opcode

        if name not in self.where:
            return default
        w = self.where[name]
        node = self.site.node.args[w] if isinstance(w, int) else self.site.node.kwargs[w]
        return node.target if node.op is Opcode.CONST else ...

    def number(self, name: str, default: float | None = None) -> str:
        """A run-time number as a C++ double expression."""
        if not self.given(name):
            if default is None:
                raise self.err(f"missing argument '{name}'")
            return _double(default)
        t = self.type(name)
        if not isinstance(t, ScalarT) or t.dtype.is_complex:
            raise self.err(f"argument '{name}' must be a number, got {t}")
        return f"double({self.expr(name)})" if isinstance(self.site, LowerSite) else ""

    def integer(self, name: str, default: int | None = None) -> str:
        """A run-time integer as a C++ int64_t expression (cv2 refuses floats here)."""
        if not self.given(name):
            if default is None:
                raise self.err(f"missing argument '{name}'")
            return f"int64_t({default})"
        t = self.type(name)
        if not isinstance(t, ScalarT) or not (t.dtype.is_integer or t.dtype is DType.BOOL):
            raise self.err(f"argument '{name}' is required to be an integer, got {t}")
        return f"int64_t({self.expr(name)})" if isinstance(self.site, LowerSite) else ""

    def pair(self, name: str, integer: bool, default: tuple[Any, Any] | None = None) -> str:
        """A (width, height) or (x, y) tuple: ep::cvk::size2 / point2 of it."""
        helper = "ep::cvk::size2" if integer else "ep::cvk::point2"
        if not self.given(name):
            if default is None:
                raise self.err(f"missing argument '{name}'")
            return f"{helper}(std::make_tuple({_double(default[0])}, {_double(default[1])}))"
        t = self.type(name)
        ok = isinstance(t, TupleT) and len(t.items) == 2 and all(
            isinstance(i, ScalarT) and (i.dtype.is_integer or i.dtype is DType.BOOL or (not integer and i.dtype.is_float))
            for i in t.items)
        if not ok:
            kind = "integers" if integer else "numbers"
            raise self.err(f"argument '{name}' must be a tuple of 2 {kind}, got {t}")
        return f"{helper}({self.expr(name)})" if isinstance(self.site, LowerSite) else ""

    def scalar(self, name: str) -> str:
        """A cv::Scalar: a number or a tuple of up to 4 numbers (0 when absent)."""
        if not self.given(name):
            return "std::array<double, 4>{0, 0, 0, 0}"
        t = self.type(name)
        items = t.items if isinstance(t, TupleT) else (t,)
        if len(items) > 4 or not all(isinstance(i, ScalarT) and not i.dtype.is_complex for i in items):
            raise self.err(f"argument '{name}' must be a number or a tuple of up to 4 numbers, got {t}")
        return f"ep::cvk::scalar4({self.expr(name)})" if isinstance(self.site, LowerSite) else ""

    def border(self, name: str, default: int = 4, allowed: tuple[int, ...] = (0, 1, 2, 3, 4)) -> int:
        b = self.const_int(name, default)
        if b & ~16 not in allowed:
            raise self.err(f"border type {b} is not supported here (use one of "
                           f"{', '.join('cv2.' + BORDERS[a] for a in allowed)})")
        return b & ~16  # BORDER_ISOLATED changes nothing for whole arrays


def _hint(name: str) -> str:
    return {"interpolation": "INTER_LINEAR", "code": "COLOR_BGR2GRAY", "type": "THRESH_BINARY",
            "borderType": "BORDER_REFLECT_101", "ddepth": "CV_32F"}.get(name, "...")


def _double(v: float) -> str:
    x = float(v)
    if math.isinf(x):
        return f"{'-' if x < 0 else ''}std::numeric_limits<double>::infinity()"
    return f"double({x!r})"


def ddepth_dtype(args: Args, src: DType, name: str = "ddepth", default: int = -1) -> DType:
    d = args.const_int(name, default)
    if d < 0:
        return src
    if d not in DEPTH_DTYPE:
        raise args.err(f"unsupported depth {d} (use cv2.CV_8U, CV_16U, CV_16S, CV_32F or CV_64F)")
    return DEPTH_DTYPE[d]


__all__ = ["Args", "ALL", "FILTER", "CORE_HPP", "OPENCV_HPP", "CV_DEPTH", "DEPTH_DTYPE", "U8", "S8", "U16", "S16",
           "S32", "F32", "F64", "cv2_reference", "declare_cv", "ddepth_dtype", "variants"]

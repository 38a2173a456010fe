"""numpy.fft: fft/ifft, rfft/irfft, the 2-d and n-d forms (fft2, ifft2, rfft2,
irfft2, fftn, ifftn, rfftn, irfftn), fftfreq, rfftfreq, fftshift, ifftshift.

Typing probes NumPy on stand-in arrays of the operand's dtype and rank, so
result dtypes (complex64 for float32/complex64 input, as NumPy 2) and errors
(bad norm, bad axis, rfft of complex input) are NumPy's own. ``axis``,
``axes``, ``s`` and ``norm`` must be compile-time constants; ``n`` may be a
run-time integer. The n-d transforms are lowered to nested 1-d transforms in
NumPy's order (_raw_fftnd / rfftn / irfftn). C++: ops/fft.hpp (loops, in
double) and, for the transforms, paths/fftw/fft.hpp (FFTW, float32 in single
precision as NumPy 2).
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from everypath.base.types import ArrayT, DType, NoneT, ScalarT, Type
from everypath.variants.ops.reductions import Bound, array_expr, array_operand
from everypath.variants.probe import call_probe
from everypath.variants.registry import (Family, LowerSite, Operator, PathNotApplicable, Registry, Requirements, Site,
                                         TypingError, Variant)

HEADER = Variant("loops", "everypath/ops/fft.hpp")
# FFTW from this many elements of the operand on. Measured with `everypath ops bench numpy.fft.fft
# --sizes 8,...,1048576` (and numpy.fft.rfft; 2-core x86-64, FFTW 3.3.10): the paths tie at 8-32
# points; from 64 on FFTW is 1.8-3x faster up to 1024 (prime 1009: 1.8x) and 2.5-14x above
FFTW_MIN_WORK = 1 << 6
FFTW = Variant("fftw", "everypath/paths/fftw/fft.hpp", Requirements(libraries=("fftw",)),
               cost_hint="FFTW 3 guru64 plans (FFTW_ESTIMATE, cached), fftwf for complex64", min_work=FFTW_MIN_WORK)
TRANSFORM_VARIANTS = (HEADER, FFTW)
_DEFAULT, _INPUT = "ep::fftk::kDefault", "ep::fftk::kInputLength"  # n=None; irfftn's s[-1] == -1
_NORM = {None: 0, "backward": 0, "ortho": 1, "forward": 2}
_ONE = ("a", "n", "axis", "norm", "out")
_ND = ("a", "s", "axes", "norm", "out")


def _sample(t: ArrayT) -> np.ndarray:
    return np.ones((2,) * t.ndim, t.dtype.np)


class FFTCall:
    """A numpy.fft call: operand, constants, and the stand-ins NumPy is probed with."""

    def __init__(self, site: Site | LowerSite, names: tuple[str, ...]) -> None:
        self.fname = site.key.replace("numpy.", "np.")
        self.b = Bound(site, names, self.fname)
        self.b.reject_non_none("out")
        if not self.b.has("a"):
            raise TypingError(f"{self.fname}() missing required argument 'a'")
        self.a = array_operand(self.b.type("a"))
        for n in names[1:]:
            if self.b.has(n) and not self.b.is_const(n) and not (n == "n" and self._int_arg(n)):
                raise TypingError(f"{self.fname}(): argument '{n}' must be a compile-time constant")

    def _int_arg(self, n: str) -> bool:
        t = self.b.type(n)
        return isinstance(t, ScalarT) and (t.dtype.is_integer or t.dtype.is_bool)

    def probe(self, ref: Callable[..., Any]) -> Type:
        kw = {}
        for n in ("n", "axis", "norm", "s", "axes"):
            if self.b.has(n):
                kw[n] = self.b.const(n) if self.b.is_const(n) else 2
        sample = _sample(self.a)
        return call_probe(lambda: ref(sample, **kw))

    def expr(self) -> str:
        return array_expr(self.b.type("a"), self.b.expr("a"))  # type: ignore[arg-type]

    def norm(self) -> int:
        return _NORM[self.b.const("norm", None)]

    def fn(self, ls: LowerSite, kind: str) -> str:
        """The C++ transform `kind` (c2c, r2c, c2r) on ls.path: the same signature on loops and fftw."""
        if ls.path not in ("loops", "fftw"):
            raise PathNotApplicable(f"numpy.fft has no {ls.path} path")
        return f"{ls.ns}::fft_{kind}"

    def n_expr(self) -> str:
        if not self.b.has("n") or isinstance(self.b.type("n"), NoneT):
            return _DEFAULT
        return f"int64_t({self.b.expr('n')})"


def _one_d(kind: str) -> tuple[Callable[[Site], Type], Callable[[LowerSite], str]]:
    """fft / ifft / rfft / irfft along one axis."""

    def infer(site: Site) -> Type:
        c = FFTCall(site, _ONE)
        t = c.probe(getattr(np.fft, kind))
        if c.a.ndim == 0:
            raise TypingError("tuple index out of range")
        return t

    def lower(ls: LowerSite) -> str:
        c = FFTCall(ls, _ONE)
        axis = c.b.const("axis", -1) % c.a.ndim
        out = ls.result.dtype.cpp  # type: ignore[union-attr]
        if kind in ("fft", "ifft"):
            inv = str(kind == "ifft").lower()
            return f"{c.fn(ls, 'c2c')}<{out}>({c.expr()}, {c.n_expr()}, {axis}, {inv}, {c.norm()})"
        if kind == "rfft":
            return f"{c.fn(ls, 'r2c')}<{out}>({c.expr()}, {c.n_expr()}, {axis}, {c.norm()})"
        return f"{c.fn(ls, 'c2r')}<{out}>({c.expr()}, {c.n_expr()}, {axis}, {c.norm()})"

    return infer, lower


def _cook(c: FFTCall, default_axes: tuple[int, ...] | None, invreal: bool) -> tuple[list[str], list[int]]:
    """NumPy's _cook_nd_args on ranks: (C++ n per transformed axis, axes)."""
    nd = c.a.ndim
    s = c.b.const("s", None)
    axes = c.b.const("axes", default_axes) if c.b.has("axes") else default_axes
    if axes is None:
        axes = tuple(range(-len(s), 0)) if s is not None else tuple(range(nd))
    axes = [int(x) % nd if nd else int(x) for x in axes]
    if not axes:
        raise TypingError(f"{c.fname}() over no axes is not supported")
    if s is None:
        ns = [_DEFAULT] * len(axes)  # each 1-d transform's default
    else:
        # an explicit -1 keeps the input's length (for irfft too, not 2 * (m - 1))
        ns = [(_INPUT if invreal and i == len(s) - 1 else _DEFAULT) if int(v) == -1 else f"int64_t({int(v)})"
              for i, v in enumerate(s)]
    return ns, axes


def _n_d(kind: str, default_axes: tuple[int, ...] | None) -> tuple[Callable[[Site], Type], Callable[[LowerSite], str]]:
    ref = getattr(np.fft, kind)
    inv = kind.startswith("i")
    real = "rfft" in kind

    def infer(site: Site) -> Type:
        c = FFTCall(site, _ND)
        t = c.probe(ref)
        _cook(c, default_axes, real and inv)
        return t

    def lower(ls: LowerSite) -> str:
        c = FFTCall(ls, _ND)
        ns, axes = _cook(c, default_axes, real and inv)
        R = ls.result.dtype  # type: ignore[union-attr]
        C = (DType.COMPLEX64 if R in (DType.FLOAT32, DType.COMPLEX64) else DType.COMPLEX128).cpp
        e, norm = c.expr(), c.norm()

        c2c_fn = c.fn(ls, "c2c")

        def c2c(x: str, i: int) -> str:
            return f"{c2c_fn}<{C}>({x}, {ns[i]}, {axes[i]}, {str(inv).lower()}, {norm})"

        if not real:
            for i in reversed(range(len(axes))):
                e = c2c(e, i)
            return e
        last = len(axes) - 1
        if not inv:
            e = f"{c.fn(ls, 'r2c')}<{C}>({e}, {ns[last]}, {axes[last]}, {norm})"
            for i in range(last - 1, -1, -1):
                e = c2c(e, i)
            return e
        for i in range(last):
            e = c2c(e, i)
        return f"{c.fn(ls, 'c2r')}<{R.cpp}>({e}, {ns[last]}, {axes[last]}, {norm})"

    return infer, lower


_FREQ = ("n", "d", "device")


def _freq(kind: str) -> tuple[Callable[[Site], Type], Callable[[LowerSite], str]]:
    ref = getattr(np.fft, kind)

    def parts(site: Site | LowerSite) -> tuple[Bound, Any]:
        b = Bound(site, _FREQ, f"np.fft.{kind}")
        b.reject_non_none("device")
        nt, dt = b.type("n"), b.type("d")
        if not isinstance(nt, ScalarT):
            raise TypingError("n should be an integer")
        if dt is not None and not (isinstance(dt, ScalarT) and not dt.dtype.is_complex):
            raise TypingError(f"np.fft.{kind}(): d must be a real number")
        return b, (nt, dt)

    def infer(site: Site) -> Type:
        b, (nt, dt) = parts(site)
        n = b.const("n") if b.is_const("n") else (4 if nt.dtype.is_integer or nt.dtype.is_bool else 4.0)
        if nt.dtype.is_bool:
            n = bool(n)
        elif not nt.weak and not b.is_const("n"):
            n = nt.dtype.np.type(n)
        d = 1.0 if dt is None else (b.const("d") if b.is_const("d") else (
            {DType.INT64: 1, DType.FLOAT64: 1.0, DType.BOOL: True}[dt.dtype] if dt.weak else dt.dtype.np.type(1)))
        return call_probe(lambda: ref(n, d))

    def lower(ls: LowerSite) -> str:
        b, (nt, dt) = parts(ls)
        d = "1.0" if dt is None else b.expr("d")
        weak = dt is None or dt.weak
        V = "float" if dt is not None and dt.dtype is DType.FLOAT32 else "double"
        half = "true" if kind == "rfftfreq" else "false"
        return f"ep::fft_freq<{V}>(int64_t({b.expr('n')}), {d}, {str(weak).lower()}, {half})"

    return infer, lower


_SHIFT = ("x", "axes")


def _shift(kind: str) -> tuple[Callable[[Site], Type], Callable[[LowerSite], str]]:
    ref = getattr(np.fft, kind)

    def times(site: Site | LowerSite) -> tuple[Bound, ArrayT, list[int]]:
        b = Bound(site, _SHIFT, f"np.fft.{kind}")
        x = array_operand(b.type("x"), "x")
        axes = b.const("axes", None)
        if axes is None:
            axes = tuple(range(x.ndim))
        elif isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
            axes = (axes,)
        cnt = [0] * x.ndim
        for ax in axes:
            cnt[int(ax) % x.ndim] += 1
        return b, x, cnt

    def infer(site: Site) -> Type:
        b = Bound(site, _SHIFT, f"np.fft.{kind}")
        x = array_operand(b.type("x"), "x")
        axes = b.const("axes", None)
        t = call_probe(lambda: ref(np.ones((2,) * x.ndim, x.dtype.np), axes))
        times(site)
        return t

    def lower(ls: LowerSite) -> str:
        b, x, cnt = times(ls)
        e = array_expr(b.type("x"), b.expr("x"))  # type: ignore[arg-type]
        arr = f"std::array<int, {x.ndim}>{{{', '.join(map(str, cnt))}}}"
        return f"ep::fft_shift({e}, {arr}, {str(kind == 'ifftshift').lower()})"

    return infer, lower


def declare(reg: Registry) -> None:
    L = Family.LINALG
    for k in ("fft", "ifft", "rfft", "irfft"):
        reg.add(Operator(f"numpy.fft.{k}", L, getattr(np.fft, k), *_one_d(k), variants=TRANSFORM_VARIANTS))
    for k in ("fft2", "ifft2", "rfft2", "irfft2"):
        reg.add(Operator(f"numpy.fft.{k}", L, getattr(np.fft, k), *_n_d(k, (-2, -1)), variants=TRANSFORM_VARIANTS))
    for k in ("fftn", "ifftn", "rfftn", "irfftn"):
        reg.add(Operator(f"numpy.fft.{k}", L, getattr(np.fft, k), *_n_d(k, None), variants=TRANSFORM_VARIANTS))
    for k in ("fftfreq", "rfftfreq"):
        reg.add(Operator(f"numpy.fft.{k}", L, getattr(np.fft, k), *_freq(k), variants=(HEADER,)))
    for k in ("fftshift", "ifftshift"):
        reg.add(Operator(f"numpy.fft.{k}", L, getattr(np.fft, k), *_shift(k), variants=(HEADER,)))


__all__ = ["declare"]

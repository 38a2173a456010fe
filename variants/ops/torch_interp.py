"""F.interpolate (torch.nn.functional.interpolate) on CPU tensors: mode='nearest' on 3-d (N, C, W) and
4-d (N, C, H, W) input, mode='bilinear' on 4-d floating input, align_corners True or False, by ``size``
(an int or a tuple) or ``scale_factor`` (a number or a tuple); sizes and factors may be run-time values.

``mode``, ``align_corners``, ``recompute_scale_factor`` (None or False) and ``antialias`` (False) are
compile-time constants; the rest of torch's checks come from replaying the call on torch (_torch.replay)
or, for sizes known only at run time, from ep::tch::interpolate (everypath/ops/torch_interp.hpp), in
torch's words. Refused: other modes, recompute_scale_factor=True, antialias=True, bilinear on integer
tensors (torch's uint8 kernel rounds its own way).
"""
from __future__ import annotations

from everypath.base.types import ArrayT, NoneT, ScalarT, TupleT, Type
from everypath.variants.ops._torch import Ref, bind, cpp_bool, need_tensor, replay
from everypath.variants.registry import Family, LowerSite, Operator, Registry, Site, TypingError, Variant

KEY = "torch.nn.functional.interpolate"
INTERP = Variant("loops", "everypath/ops/torch_interp.hpp", cost_hint="ATen's index arithmetic, one plane at a time")
_NAMES = ("input", "size", "scale_factor", "mode", "align_corners", "recompute_scale_factor", "antialias")


def _given(b, name: str) -> bool:
    return b.has(name) and not isinstance(b.type(name), NoneT)


def _parts(site: Site | LowerSite) -> tuple[object, ArrayT, str, bool]:
    b = bind(site, _NAMES, "interpolate")
    x = need_tensor(b.type("input"), "interpolate")
    for name in ("mode", "align_corners", "recompute_scale_factor", "antialias"):
        if b.has(name) and not b.is_const(name):
            raise TypingError(f"interpolate(): argument '{name}' must be a compile-time constant")
    mode = b.const("mode", "nearest")
    if mode not in ("nearest", "bilinear"):
        raise TypingError(f"interpolate(): mode={mode!r} is not supported (only 'nearest' and 'bilinear')")
    if b.const("recompute_scale_factor", None):
        raise TypingError("interpolate(): recompute_scale_factor=True is not supported")
    if b.const("antialias", False):
        raise TypingError("interpolate(): antialias=True is not supported")
    if mode == "bilinear" and x.ndim == 4 and not x.dtype.is_float:
        raise TypingError(f"interpolate(): mode='bilinear' on {x.dtype} tensors is not supported (floating only)")
    for name, kind in (("size", "int"), ("scale_factor", "number")):
        t = b.type(name)
        if t is None or isinstance(t, NoneT):
            continue
        items = t.items if isinstance(t, TupleT) else (t,)
        if not all(isinstance(i, ScalarT) and (i.dtype.is_integer or (kind == "number" and i.dtype.is_float))
                   for i in items):
            raise TypingError(f"interpolate(): argument '{name}' must be an {kind} or a tuple of them, got {t}")
    return b, x, mode, bool(b.const("align_corners", False))


def interpolate_infer(site: Site) -> Type:
    b, x, _, _ = _parts(site)
    # spatial sizes large enough that a constant scale_factor < 1 still gives sizes > 0 (the real
    # sizes are checked at run time)
    return replay(b, Ref(KEY), shapes={"input": (1, 1) + (64,) * max(x.ndim - 2, 0)})


def _spatial(b, name: str, k: int, cpp: str, default: str) -> str:
    """std::array<cpp, k> of an int/number or a tuple argument (default when absent)."""
    if not _given(b, name):
        return f"std::array<{cpp}, {k}>{{{', '.join([default] * k)}}}"
    if isinstance(b.type(name), TupleT):
        helper = "sizes_of" if cpp == "ep::index_t" else "doubles_of"
        return f"ep::tch::{helper}<{k}>({b.expr(name)})"
    v = f"static_cast<{cpp}>({b.expr(name)})"
    return f"std::array<{cpp}, {k}>{{{', '.join([v] * k)}}}"


def interpolate_lower(ls: LowerSite) -> str:
    b, x, mode, align = _parts(ls)
    k = x.ndim - 2
    size = _spatial(b, "size", k, "ep::index_t", "-1")
    scale = _spatial(b, "scale_factor", k, "double", "-1.0")
    return (f"ep::tch::interpolate<{cpp_bool(mode == 'bilinear')}, {cpp_bool(align)}>"
            f"({b.expr('input')}, {size}, {scale})")


def declare(reg: Registry) -> None:
    reg.add(Operator(KEY, Family.SHAPE, Ref(KEY), interpolate_infer, interpolate_lower, (INTERP,)))


__all__ = ["declare"]

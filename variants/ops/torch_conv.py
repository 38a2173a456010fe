"""F.conv2d (torch.conv2d), F.max_pool2d and F.avg_pool2d on NCHW (or unbatched CHW) tensors.

Geometry (stride, padding, dilation, kernel_size, groups, ceil_mode, ...) must be compile-time
constants: they are checked by replaying the call on torch with small tensors shaped to fit them, so
torch's own messages report bad values; sizes are checked at run time
(variants/include/everypath/ops/torch_conv.hpp). ``padding='same'`` is resolved from the weight's
kernel size at run time; ``return_indices=True`` is not supported.
"""
from __future__ import annotations

from typing import Any

from everypath.base.types import ArrayT, DType, NoneT, Type
from everypath.variants.ops._torch import NN, Ref, bind, const_of, need_tensor, replay
from everypath.variants.ops.linalg import PRODUCT_VARIANTS
from everypath.variants.registry import (
    Family, LowerSite, Operator, PathNotApplicable, Registry, Site, TypingError, Variant,
)

_CONV = ("input", "weight", "bias", "stride", "padding", "dilation", "groups")
_MAX = ("input", "kernel_size", "stride", "padding", "dilation", "ceil_mode", "return_indices")
_AVG = ("input", "kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override")
_NAMES = {"torch.conv2d": _CONV, "torch.nn.functional.max_pool2d": _MAX, "torch.nn.functional.avg_pool2d": _AVG}


def pair(b: Any, name: str, default: Any) -> Any:
    """A constant int or pair of ints (or padding's 'same'/'valid'), as given."""
    if not b.has(name):
        return default
    v = const_of(b.site, b.where[name])
    if v is ...:
        raise TypingError(f"{b.site.key.split('.')[-1]}(): argument '{name}' must be a compile-time constant")
    return v


def two(v: Any) -> tuple[int, int]:
    if isinstance(v, (tuple, list)):
        return (int(v[0]), int(v[-1])) if len(v) in (1, 2) else (0, 0)  # torch rejected other lengths already
    return int(v), int(v)


def _probe_shapes(x: ArrayT, spatial: tuple[int, int], channels: int = 1) -> tuple[int, ...]:
    return (1, channels, *spatial) if x.ndim == 4 else (channels, *spatial)


def conv_infer(site: Site) -> Type:
    b = bind(site, _CONV, "conv2d")
    x = need_tensor(b.type("input"), "conv2d")
    w = need_tensor(b.type("weight"), "conv2d", "weight")
    groups = pair(b, "groups", 1)
    for name in ("stride", "padding", "dilation"):
        pair(b, name, None)
    shapes: dict[str, tuple[int, ...]] = {}
    if isinstance(groups, int) and groups > 0 and x.ndim in (3, 4) and w.ndim == 4:
        shapes = {"input": _probe_shapes(x, (1, 1), groups), "weight": (groups, 1, 1, 1), "bias": (groups,)}
    return replay(b, Ref("torch.conv2d"), shapes)


def _geo(stride: Any, padding: Any, dilation: Any) -> str:
    (sh, sw), (dh, dw) = two(stride), two(dilation)
    same = padding == "same"
    ph, pw = (0, 0) if isinstance(padding, str) else two(padding)
    return f"ep::tch::Geo{{{sh}, {sw}, {ph}, {ph}, {pw}, {pw}, {dh}, {dw}, {'true' if same else 'false'}}}"


# conv2d's paths: loops (the direct sum in double), simd (the blocked direct kernel of paths/simd/torch_conv.hpp:
# tiles of 8 output channels x 3 vectors of columns in registers, float accumulation), threads (that kernel's
# (image, channel block, row chunk) items across the pool), blas (im2col + one OpenBLAS GEMM per image and group).
# Default thresholds before telemetry (elements of the largest operand), from bench/torch_nn_bench.py: the last
# variant whose threshold a call reaches runs, so blas is listed before simd, which beat it at every size measured
# (16 and 64 channels, one channel, 1.4-3x); telemetry may still pick blas where it wins.
_BLAS = next(v for v in PRODUCT_VARIANTS if v.path == "blas")
CONV = (NN,
        Variant("blas", "everypath/paths/blas/torch_nn.hpp", _BLAS.requires, cost_hint="im2col + OpenBLAS GEMM",
                min_work=1 << 12),
        Variant("simd", "everypath/paths/simd/torch_nn.hpp", cost_hint="blocked direct kernel, 8 channels x 3 vectors",
                min_work=1 << 6),
        Variant("threads", "everypath/paths/threads/torch_nn.hpp", cost_hint="blocked direct kernel, channel blocks and rows across cores",
                min_work=1 << 20))


def conv_tag(ls: LowerSite) -> str:
    if ls.path == "loops":
        return ""
    r = ls.result
    if not (isinstance(r, ArrayT) and r.dtype in (DType.FLOAT32, DType.FLOAT64)):
        raise PathNotApplicable(f"conv2d on {ls.path} is float32/float64 only")
    if ls.path not in ("simd", "threads", "blas"):
        raise PathNotApplicable(f"conv2d has no {ls.path} path")
    return f", ep::path::{ls.path}"


def conv_lower(ls: LowerSite) -> str:
    b = bind(ls, _CONV, "conv2d")
    R = ls.result.dtype.cpp  # type: ignore[union-attr]
    bias = b.expr("bias") if b.has("bias") and not isinstance(b.type("bias"), NoneT) else "ep::None{}"
    geo = _geo(pair(b, "stride", 1), pair(b, "padding", 0), pair(b, "dilation", 1))
    return f"ep::tch::conv2d<{R}{conv_tag(ls)}>({b.expr('input')}, {b.expr('weight')}, {bias}, {geo}, {pair(b, 'groups', 1)})"


def _pool(site: Site | LowerSite) -> tuple[Any, dict[str, Any]]:
    key = site.key
    b = bind(site, _NAMES[key], key.split(".")[-1])
    need_tensor(b.type("input"), key.split(".")[-1])
    kernel = pair(b, "kernel_size", None)
    if kernel is None:
        raise TypingError(f"{key.split('.')[-1]}() missing required argument 'kernel_size'")
    stride = pair(b, "stride", None)
    g = {"kernel": kernel, "stride": kernel if stride in (None, (), []) else stride,
         "padding": pair(b, "padding", 0), "dilation": pair(b, "dilation", 1), "ceil": pair(b, "ceil_mode", False)}
    if pair(b, "return_indices", False):
        raise TypingError("max_pool2d(): return_indices=True is not supported")
    g["count_pad"] = pair(b, "count_include_pad", True)
    g["divisor"] = pair(b, "divisor_override", None)
    return b, g


def pool_infer(site: Site) -> Type:
    b, g = _pool(site)
    x = b.type("input")
    assert isinstance(x, ArrayT)
    shapes: dict[str, tuple[int, ...]] = {}
    try:
        (kh, kw), (dh, dw) = two(g["kernel"]), two(g["dilation"])
        if x.ndim in (3, 4) and min(kh, kw, dh, dw) > 0:  # room for one window
            shapes = {"input": _probe_shapes(x, (dh * (kh - 1) + 1, dw * (kw - 1) + 1))}
    except (TypeError, ValueError):
        pass  # torch explains bad values itself
    return replay(b, Ref(site.key), shapes)


def pool_lower(ls: LowerSite) -> str:
    b, g = _pool(ls)
    R = ls.result.dtype.cpp  # type: ignore[union-attr]
    kh, kw = two(g["kernel"])
    geo = _geo(g["stride"], g["padding"], g["dilation"])
    ceil = "true" if g["ceil"] else "false"
    if ls.key.endswith("max_pool2d"):
        return f"ep::tch::max_pool2d<{R}>({b.expr('input')}, {kh}, {kw}, {geo}, {ceil})"
    div = -1 if g["divisor"] is None else int(g["divisor"])
    cp = "true" if g["count_pad"] else "false"
    return f"ep::tch::avg_pool2d<{R}>({b.expr('input')}, {kh}, {kw}, {geo}, {ceil}, {cp}, {div})"


def declare(reg: Registry) -> None:
    F = "torch.nn.functional"
    reg.add(Operator("torch.conv2d", Family.LINALG, Ref("torch.conv2d"), conv_infer, conv_lower, CONV))
    reg.add(Operator(f"{F}.max_pool2d", Family.REDUCTION, Ref(f"{F}.max_pool2d"), pool_infer, pool_lower, (NN,)))
    reg.add(Operator(f"{F}.avg_pool2d", Family.REDUCTION, Ref(f"{F}.avg_pool2d"), pool_infer, pool_lower, (NN,)))


__all__ = ["declare"]

"""Tensor factories: torch.zeros/ones/empty/full/arange and zeros_like/ones_like/empty_like/full_like.

dtypes are torch's defaults (float32 for floats, int64 for ints, the fill value's kind for full), found
by calling the factory on small sizes; ``dtype=`` must be a torch dtype constant. Sizes may be run-time
ints; a negative one raises torch's RuntimeError at run time, as do arange's inconsistent bounds.
Only the CPU is a device: ``device=`` may be None or "cpu", ``requires_grad=`` False.
"""
from __future__ import annotations

from everypath.base.types import ArrayT, ScalarT, Type
from everypath.variants.ops._torch import OPS, Ref, bind, const_of, need_tensor, probe_call, sample, torch
from everypath.variants.ops.torch_shape import size_expr, size_rank
from everypath.variants.registry import Family, LowerSite, Operator, Registry, Site, TypingError

C = Family.CREATION
_FILL = {"zeros": "0", "ones": "1"}
_OPTIONS = ("dtype", "device", "requires_grad", "layout", "pin_memory")


def _options(site: Site | LowerSite, fname: str, extra: tuple[str, ...] = ()) -> dict[str, object]:
    """The keyword options, as constants; only those that keep a plain CPU tensor."""
    out: dict[str, object] = {}
    for k in site.node.kwargs:
        if k in extra:
            continue
        if k not in _OPTIONS:
            raise TypingError(f"{fname}() got an unexpected keyword argument '{k}'")
        v = const_of(site, k)
        if v is ...:
            raise TypingError(f"{fname}(): argument '{k}' must be a compile-time constant")
        if k == "device" and v not in (None, "cpu"):
            raise TypingError(f"{fname}(): device={v!r}: compiled code makes CPU tensors only")
        if k == "requires_grad" and v:
            raise TypingError(f"{fname}(): requires_grad=True: autograd cannot follow compiled code")
        if k in ("layout", "pin_memory") and v not in (None, False):
            raise TypingError(f"{fname}(): {k}={v!r} is not supported")
        out[k] = v
    return out


def sized_infer(site: Site) -> Type:
    """torch.zeros/ones/empty(*size) and torch.full(size, fill_value)."""
    name = site.key.split(".")[-1]
    opts = _options(site, name, ("fill_value",) if name == "full" else ())
    nsize = len(site.node.args) - (1 if name == "full" and "fill_value" not in site.node.kwargs else 0)
    if name == "full" and nsize != 1:
        raise TypingError("full(): argument 'size' must be a tuple of ints")
    rank = size_rank(site.args[:nsize], site.node.args[:nsize], name)
    args: list[object] = [(1,) * rank]
    if name == "full":
        where: int | str = 1 if "fill_value" not in site.node.kwargs else "fill_value"
        t = site.type(where)
        if not isinstance(t, ScalarT):
            raise TypingError(f"full(): fill_value must be a number, got {t}")
        args.append(sample(t, const_of(site, where)))
    return probe_call(Ref(site.key), *args, **opts)


def sized_lower(ls: LowerSite) -> str:
    name = ls.key.split(".")[-1]
    r = ls.result
    assert isinstance(r, ArrayT)
    R = r.dtype.cpp
    if name == "full":
        fill = ls.args[1] if len(ls.args) > 1 else ls.kwargs["fill_value"]
        shape = size_expr(ls.args[:1], ls.arg_types[:1], r.ndim)
        return f"ep::tch::full<{R}, {r.ndim}>({shape}, static_cast<{R}>({fill}), \"full\")"
    shape = size_expr(ls.args, ls.arg_types, r.ndim)
    if name == "empty":
        return f"ep::tch::empty<{R}, {r.ndim}>({shape})"
    return f"ep::tch::full<{R}, {r.ndim}>({shape}, static_cast<{R}>({_FILL[name]}), \"{name}\")"


def like_infer(site: Site) -> Type:
    name = site.key.split(".")[-1]
    b = bind(site, ("input", "fill_value", *_OPTIONS) if name == "full_like" else ("input", *_OPTIONS), name)
    x = need_tensor(b.type("input"), name)
    opts = _options(site, name, ("fill_value",))
    args: list[object] = [sample(x)]
    if name == "full_like":
        t = b.type("fill_value")
        if not isinstance(t, ScalarT):
            raise TypingError(f"full_like(): fill_value must be a number, got {t}")
        args.append(sample(t, const_of(site, b.where["fill_value"])))
    return probe_call(Ref(site.key), *args, **opts)


def like_lower(ls: LowerSite) -> str:
    name = ls.key.split(".")[-1].removesuffix("_like")
    r = ls.result
    assert isinstance(r, ArrayT)
    R, shape = r.dtype.cpp, f"({ls.args[0]}).shape"
    if name == "empty":
        return f"ep::tch::empty<{R}, {r.ndim}>({shape})"
    fill = ls.args[1] if len(ls.args) > 1 else ls.kwargs.get("fill_value", _FILL.get(name, "0"))
    return f"ep::tch::full<{R}, {r.ndim}>({shape}, static_cast<{R}>({fill}), \"{name}\")"


_ARANGE = ("start", "end", "step")


def _arange_args(site: Site | LowerSite) -> dict[str, int | str]:
    """Where start, end and step are (arange(end) has only an end)."""
    n = len(site.node.args)
    if n > 3:
        raise TypingError(f"arange() takes at most 3 positional arguments ({n} given)")
    names = ("end",) if n == 1 else _ARANGE[:n]
    where: dict[str, int | str] = {nm: i for i, nm in enumerate(names)}
    for k in site.node.kwargs:
        if k in _ARANGE:
            if k in where:
                raise TypingError(f"arange() got multiple values for argument '{k}'")
            where[k] = k
    if "end" not in where:
        raise TypingError("arange() missing required argument 'end'")
    return where


def arange_infer(site: Site) -> Type:
    where = _arange_args(site)
    opts = _options(site, "arange", _ARANGE)
    safe = {"start": 0, "end": 1, "step": 1}  # values of the arguments' kinds that always make a range
    kw: dict[str, object] = {}
    for name, w in where.items():
        t = site.type(w)
        if not isinstance(t, ScalarT) or t.dtype.is_complex:
            raise TypingError(f"arange(): argument '{name}' must be a real number, got {t}")
        kw[name] = float(safe[name]) if t.dtype.is_float else safe[name]
    return probe_call(torch().arange, **kw, **opts)


def arange_lower(ls: LowerSite) -> str:
    where = _arange_args(ls)
    R = ls.result.dtype.cpp  # type: ignore[union-attr]
    val = {k: ls.arg(w) for k, w in where.items()}
    return (f"ep::tch::arange<{R}>({val.get('start', 'int64_t(0)')}, {val['end']}, "
            f"{val.get('step', 'int64_t(1)')})")


def declare(reg: Registry) -> None:
    for name in ("zeros", "ones", "empty", "full"):
        reg.add(Operator(f"torch.{name}", C, Ref(f"torch.{name}"), sized_infer, sized_lower, (OPS,)))
    for name in ("zeros_like", "ones_like", "empty_like", "full_like"):
        reg.add(Operator(f"torch.{name}", C, Ref(f"torch.{name}"), like_infer, like_lower, (OPS,)))
    reg.add(Operator("torch.arange", C, Ref("torch.arange"), arange_infer, arange_lower, (OPS,)))


__all__ = ["declare"]

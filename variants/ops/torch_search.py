"""torch sorting and searching: torch.argmax/argmin, torch.cumsum, torch.sort/argsort, torch.topk (and
their tensor methods).

Result dtypes and argument errors come from torch itself (the call replayed on small tensors, _torch.replay);
dims, ``keepdim``, ``descending``, ``stable``, ``largest`` and ``sorted`` must be compile-time constants
(they fix the result's rank or the kernel), ``k`` may be computed at run time. ``sort``/``topk`` give a
plain tuple ``(values, indices)``: unpack it (``v, i = torch.sort(x)``), ``.values`` is not available.
Ties keep their input order, torch's ``stable=True`` order; torch leaves it unspecified otherwise, and
every order we give is one torch allows (see variants/include/everypath/ops/torch_search.hpp).
"""
from __future__ import annotations

from typing import Any

from everypath.base.types import ArrayT, Type
from everypath.variants.ops._torch import Ref, bind, const_dim, cpp_bool, need_tensor, replay
from everypath.variants.registry import Family, LowerSite, Operator, Registry, Site, TypingError, Variant

SEARCH = Variant("loops", "everypath/ops/torch_search.hpp", cost_hint="torch order, stable, one row at a time")

_NAMES: dict[str, tuple[str, ...]] = {
    "argmax": ("input", "dim", "keepdim"), "argmin": ("input", "dim", "keepdim"),
    "cumsum": ("input", "dim", "dtype"),
    "sort": ("input", "dim", "descending", "stable"), "argsort": ("input", "dim", "descending", "stable"),
    "topk": ("input", "k", "dim", "largest", "sorted"),
}
_FLAGS = ("keepdim", "descending", "stable", "largest", "sorted")


def _name(key: str) -> str:
    return key.split(".")[-1]


def _bound(site: Site | LowerSite) -> tuple[Any, ArrayT]:
    name = _name(site.key)
    b = bind(site, _NAMES[name], name)
    x = need_tensor(b.type("input"), name)
    for flag in _FLAGS:
        if b.has(flag) and not b.is_const(flag):
            raise TypingError(f"{name}(): argument '{flag}' must be a compile-time constant (True or False)")
    if b.has("dim") and not b.is_const("dim"):
        raise TypingError(f"{name}(): argument 'dim' must be a compile-time constant")
    return b, x


def _dim(b: Any, x: ArrayT, name: str) -> int:
    """The dim as the kernel takes it: normalised, -1 for argmax/argmin's dim=None."""
    default = {"argmax": None, "argmin": None, "cumsum": ...}.get(name, -1)
    if default is ... and not b.has("dim"):
        raise TypingError("cumsum() missing 1 required positional arguments: \"dim\"")
    d = const_dim(b, "dim", x.ndim, default)
    if isinstance(d, tuple):
        raise TypingError(f"{name}(): argument 'dim' must be int, not tuple")
    if d is None:
        return -1
    return d % max(x.ndim, 1) if x.ndim else 0


def search_infer(site: Site) -> Type:
    b, x = _bound(site)
    name = _name(site.key)
    _dim(b, x, name)
    values = {"k": 1} if name == "topk" else {}  # the samples are 1 long along dim
    if name == "topk" and b.is_const("k") and b.const("k") not in (0, 1):
        k = b.const("k")
        if not isinstance(k, int) or isinstance(k, bool):
            raise TypingError(f"topk(): argument 'k' must be int, not {type(k).__name__}")
        values = {"k": 1 if k > 1 else k}
    return replay(b, Ref(f"torch.{name}"), values=values)


def search_lower(ls: LowerSite) -> str:
    b, x = _bound(ls)
    name = _name(ls.key)
    d = _dim(b, x, name)
    inp = b.expr("input")
    if name in ("argmax", "argmin"):
        r = ls.result
        assert isinstance(r, ArrayT)
        keep = cpp_bool(bool(b.const("keepdim", False)))
        return f"ep::tch::argext<{cpp_bool(name == 'argmax')}, {d}, {keep}, {r.ndim}>({inp})"
    if name == "cumsum":
        R = ls.result.dtype.cpp  # type: ignore[union-attr]
        return f"ep::tch::cumsum<{R}, {d}>({inp})"
    if name == "topk":
        return f"ep::tch::topk<{d}, {cpp_bool(bool(b.const('largest', True)))}>({inp}, {b.expr('k')})"
    return f"ep::tch::{name}<{d}, {cpp_bool(bool(b.const('descending', False)))}>({inp})"


def declare(reg: Registry) -> None:
    for name in _NAMES:
        family = Family.SCAN if name == "cumsum" else (Family.REDUCTION if name.startswith("arg") and
                                                       name != "argsort" else Family.SORTING)
        reg.add(Operator(f"torch.{name}", family, Ref(f"torch.{name}"), search_infer, search_lower, (SEARCH,),
                         aliases=(f"tensor.{name}",)))


__all__ = ["declare"]

"""Layout and copy conversions: np.ascontiguousarray, np.asanyarray, np.require, np.copyto.

ascontiguousarray and require(requirements='C') return the input itself (a
view sharing its memory) when it is already C-contiguous with the wanted
dtype, else a contiguous copy, as NumPy does; lists, tuples and scalars
convert like np.asarray. copyto broadcasts src into dst with NumPy's casting
check (casting='same_kind' by default, decided at compile time from the
dtypes, with NumPy's own TypeError text) and an optional where= mask.
C++ kernels: variants/include/everypath/ops/convert.hpp.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from everypath.base.types import ArrayT, DType, ListT, NoneT, ScalarT, TupleT, Type
from everypath.tracer.ir import Opcode
from everypath.variants.ops.creation import _array_infer, _array_lower
from everypath.variants.ops.reductions import Bound, dtype_arg, probe, sample_value
from everypath.variants.registry import Family, LowerSite, Operator, Registry, Site, TypingError, Variant

CONVERT = (Variant("loops", "everypath/ops/convert.hpp"),)

_CONTIG = ("a", "dtype", "like")
_REQUIRE = ("a", "dtype", "requirements", "like")
_COPYTO = ("dst", "src", "casting", "where")
# NumPy's spellings of each requirement flag (np.require's own table)
_FLAGS = {"C": "C", "C_CONTIGUOUS": "C", "CONTIGUOUS": "C", "F": "F", "F_CONTIGUOUS": "F", "FORTRAN": "F",
          "A": "A", "ALIGNED": "A", "W": "W", "WRITEABLE": "W", "O": "O", "OWNDATA": "O", "E": "E", "ENSUREARRAY": "E"}


def _as_array(site: Site | LowerSite, fname: str) -> ArrayT:
    """The array np.asarray(a, dtype) would give (the typing of non-array inputs is creation's)."""
    b = Bound(site, _REQUIRE if fname == "require" else _CONTIG, f"np.{fname}")
    b.reject_non_none("like")
    if not b.has("a"):
        raise TypingError(f"np.{fname}() missing required argument 'a'")
    t = b.type("a")
    dt = dtype_arg(b.type("dtype"))
    if isinstance(t, ArrayT):
        return ArrayT(dt or t.dtype, t.ndim)
    if isinstance(t, (ScalarT, ListT, TupleT)):
        return _delegate_infer(site)
    raise TypingError(f"np.{fname}() of {t} is not supported")


def _delegate_infer(site: Site | LowerSite) -> ArrayT:
    sub = _asarray_site(site)
    return _array_infer("asarray")(sub)  # type: ignore[arg-type, return-value]


def _asarray_site(site: Site | LowerSite) -> Any:
    """The same call seen as np.asarray(a, dtype) (only the first two arguments travel)."""
    import copy

    sub = copy.copy(site)
    node = copy.copy(site.node)
    object.__setattr__(node, "_kwargs", {k: v for k, v in site.node.kwargs.items() if k == "dtype"})
    object.__setattr__(node, "_args", site.node.args[:2])
    sub.node = node
    if isinstance(site, LowerSite):
        sub.args, sub.arg_types = site.args[:2], site.arg_types[:2]
        sub.kwargs = {k: v for k, v in site.kwargs.items() if k == "dtype"}
        sub.kw_types = {k: v for k, v in site.kw_types.items() if k == "dtype"}
        sub.key = "numpy.asarray"
    else:
        sub.args = site.args[:2]
        sub.kwargs = {k: v for k, v in site.kwargs.items() if k == "dtype"}
    return sub


def _converted(ls: LowerSite, res: ArrayT) -> tuple[str, bool]:
    """(C++ of the converted array, whether it is surely a new contiguous array)."""
    b = Bound(ls, _REQUIRE if ls.key == "numpy.require" else _CONTIG)
    t = b.type("a")
    x = b.expr("a")
    if isinstance(t, ArrayT):
        if t.dtype != res.dtype:
            return f"ep::as_dtype<{res.dtype.cpp}>({x})", True
        return x, False
    return _array_lower("asarray")(_asarray_site(ls)), True


# ---- ascontiguousarray -------------------------------------------------------------------------


def _contig_infer(site: Site) -> Type:
    res = _as_array(site, "ascontiguousarray")
    return ArrayT(res.dtype, max(res.ndim, 1))  # NumPy: "ndim >= 1"


def _contig_lower(ls: LowerSite) -> str:
    res = _as_array(ls, "ascontiguousarray")
    x, fresh = _converted(ls, res)
    return x if fresh and res.ndim >= 1 else f"ep::ascontiguous({x})"  # 0-d inputs become 1-d


# ---- require -----------------------------------------------------------------------------------


def _requirements(site: Site | LowerSite, b: Bound) -> set[str]:
    if not b.has("requirements"):
        return set()
    w = b.where["requirements"]
    node = site.node.args[w] if isinstance(w, int) else site.node.kwargs[w]
    if node.op is Opcode.CALL and node.target in ("ep.list", "ep.tuple") and all(
            a.op is Opcode.CONST for a in node.args):
        raw: Any = [a.target for a in node.args]  # requirements=['C', 'W'] (a list display)
    elif node.op is Opcode.CONST:
        raw = node.target
    else:
        raise TypingError("np.require(): argument 'requirements' must be a compile-time constant")
    if raw is None:
        return set()
    items = [raw] if isinstance(raw, str) else list(raw)
    out: set[str] = set()
    for r in items:
        if not isinstance(r, str) or r.upper() not in _FLAGS:
            raise TypingError(f"{r!r}")  # NumPy: KeyError of the unknown flag
        out.add(_FLAGS[r.upper()])
    if {"C", "F"} <= out:
        raise TypingError('Cannot specify both "C" and "F" order')
    return out


def _require_parts(site: Site | LowerSite) -> tuple[ArrayT, set[str]]:
    res = _as_array(site, "require")
    b = Bound(site, _REQUIRE, "np.require")
    flags = _requirements(site, b)
    if "F" in flags and res.ndim >= 2:
        raise TypingError("np.require(requirements='F') is not supported: compiled arrays are C-ordered")
    return res, flags


def _require_infer(site: Site) -> Type:
    return _require_parts(site)[0]


def _require_lower(ls: LowerSite) -> str:
    res, flags = _require_parts(ls)
    x, fresh = _converted(ls, res)
    if fresh:
        return x
    if "O" in flags:
        return f"ep::copy({x})"
    if flags & {"C", "F"}:  # F on rank <= 1 is C
        return f"ep::require_contiguous({x})"
    return x  # A, W, E: compiled arrays are aligned, writeable ndarrays already


# ---- copyto ------------------------------------------------------------------------------------


def _sample(t: Type | None) -> Any:
    if isinstance(t, ListT) and isinstance(t.elem, ScalarT):
        return [sample_value(t.elem)]
    if isinstance(t, TupleT) and all(isinstance(i, ScalarT) for i in t.items):
        return [sample_value(i) for i in t.items]
    if isinstance(t, (ArrayT, ScalarT)):
        return sample_value(t)
    raise TypingError(f"np.copyto(): src of type {t} is not supported")


def _copyto_parts(site: Site | LowerSite) -> tuple[Bound, ArrayT, bool | None]:
    b = Bound(site, _COPYTO, "np.copyto")
    for i, name in enumerate(("dst", "src")):
        if not b.has(name):
            raise TypingError(f"copyto() missing required argument '{name}' (pos {i + 1})")
    dst = b.type("dst")
    if not isinstance(dst, ArrayT):
        raise TypingError(f"copyto() argument 1 must be numpy.ndarray, not {dst}")
    casting = b.const("casting", "same_kind")
    where_t = b.type("where")
    where_const: bool | None = True
    if b.has("where"):
        where_const = b.const("where") if b.is_const("where") else None
        if where_const is not None and not isinstance(where_const, (bool, np.bool_)):
            raise TypingError("np.copyto(): where= must be a boolean array or True/False")
    where = sample_value(where_t) if where_t is not None and not isinstance(where_t, NoneT) else True
    # NumPy decides the cast from the dtypes alone: its TypeError (or ValueError for a bad
    # casting name) is raised here at compile time with NumPy's own message
    src = _sample(b.type("src"))
    if np.iscomplexobj(src) and not dst.dtype.is_complex and casting == "unsafe":
        raise TypingError("np.copyto(): complex values into a real array (casting='unsafe') is not supported")
    probe(lambda: np.copyto(np.ones((1,) * dst.ndim, dst.dtype.np), src, casting=casting, where=where))
    return b, dst, where_const


def _copyto_infer(site: Site) -> Type:
    _copyto_parts(site)
    return NoneT()


def _src_expr(ls: LowerSite, b: Bound, dst: ArrayT) -> str:
    t = b.type("src")
    x = b.expr("src")
    if isinstance(t, (ArrayT, ScalarT)):
        return x
    if isinstance(t, ListT):
        return f"ep::array_from_list<{DType.of(np.asarray(_sample(t)).dtype).cpp}>({x})"
    assert isinstance(t, TupleT)
    kind = DType.of(np.asarray(_sample(t)).dtype).cpp
    return f"ep::array_from_tuple<{kind}, 1, false>({x}, std::array<ep::index_t, 1>{{{len(t.items)}}})"


def _copyto_lower(ls: LowerSite) -> str:
    b, dst, where_const = _copyto_parts(ls)
    src = _src_expr(ls, b, dst)
    if where_const is False:
        return "ep::None{}"
    if where_const is True:
        return f"ep::copyto({b.expr('dst')}, {src})"
    return f"ep::copyto_where({b.expr('dst')}, {src}, {b.expr('where')})"


def declare(reg: Registry) -> None:
    reg.add(Operator("numpy.ascontiguousarray", Family.CREATION, np.ascontiguousarray, _contig_infer, _contig_lower,
                     variants=CONVERT))
    reg.add(Operator("numpy.asanyarray", Family.CREATION, np.asanyarray, _array_infer("asarray"),
                     _array_lower("asarray")))
    reg.add(Operator("numpy.require", Family.CREATION, np.require, _require_infer, _require_lower, variants=CONVERT))
    reg.add(Operator("numpy.copyto", Family.CREATION, np.copyto, _copyto_infer, _copyto_lower, variants=CONVERT))


__all__ = ["declare"]

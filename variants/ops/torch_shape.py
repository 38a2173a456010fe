"""Tensor views, joins and conversions: view/reshape/flatten/squeeze/unsqueeze/t/transpose/permute,
torch.cat/stack, contiguous/clone/detach/to/float..., numpy(), item(), size()/dim()/numel(),
torch.from_numpy.

Ranks must be known when compiling, so sizes count statically (``x.view(n, -1)`` is 2-d whatever n
is) and dims are compile-time constants; sizes themselves may be run-time values, and mistakes in
them raise torch's RuntimeError at run time (ep::tch::view, cat, stack in torch_tensor.hpp).
``squeeze`` needs its dims (``x.squeeze()`` would have a rank that depends on the sizes) and raises
when a squeezed dim is not 1 (torch keeps it): see docs/semantics.md, "PyTorch".
"""
from __future__ import annotations

from typing import Any

from everypath.base.types import BOOL, COMPLEX, FLOAT, INT, ArrayT, DType, DTypeT, ListT, ScalarT, TupleT, Type
from everypath.tracer.ir import Node, Opcode
from everypath.variants.ops._torch import (
    OPS, Ref, bind, const_dim, need_tensor, replay, tensor_t,
)
from everypath.variants.ops.reductions import mask_of
from everypath.variants.registry import Family, LowerSite, Operator, Registry, Site, TypingError

S = Family.SHAPE


def size_rank(types: list[Type], nodes: tuple[Node, ...], fname: str) -> int:
    """How many sizes a call gives: several ints, or one tuple/list of ints (its length must be known)."""
    if len(types) == 1 and isinstance(types[0], (TupleT, ListT)):
        if isinstance(types[0], TupleT):
            items: tuple[Type | None, ...] = types[0].items
        elif nodes[0].op is Opcode.CALL and nodes[0].target == "ep.list":  # a list display: its length is known
            items = (types[0].elem,) * len(nodes[0].args)
        else:
            raise TypingError(f"{fname}(): a list of sizes needs its length when compiling; pass a tuple")
        if not all(isinstance(t, ScalarT) and (t.dtype.is_integer or t.dtype.is_bool) for t in items):
            raise TypingError(f"{fname}(): sizes must be a tuple of ints, got {types[0]}")
        return len(items)
    for t in types:
        if not (isinstance(t, ScalarT) and t.dtype.is_integer):
            raise TypingError(f"{fname}(): sizes must be ints, got {t}")
    return len(types)


def size_expr(exprs: list[str], types: list[Type], rank: int) -> str:
    """C++ std::array<index_t, rank> of the sizes given as these arguments."""
    if len(exprs) == 1 and isinstance(types[0], (TupleT, ListT)):
        return f"ep::to_shape<{rank}>({exprs[0]})"
    items = ", ".join(f"static_cast<ep::index_t>({e})" for e in exprs)
    return f"std::array<ep::index_t, {rank}>{{{items}}}"


# ---- view / reshape / flatten / squeeze / unsqueeze ---------------------------------------------
def view_infer(site: Site) -> Type:
    x = need_tensor(site.args[0], "view")
    if site.node.kwargs:
        raise TypingError(f"{site.key.split('.')[-1]}(): pass the sizes positionally")
    if len(site.args) == 2 and isinstance(site.args[1], DTypeT):
        raise TypingError("view(dtype) (reinterpreting the bytes) is not supported")
    return tensor_t(x.dtype, size_rank(site.args[1:], site.node.args[1:], site.key.split(".")[-1]))


def view_lower(copy: bool):
    def lower(ls: LowerSite) -> str:
        m = ls.result.ndim  # type: ignore[union-attr]
        shape = size_expr(ls.args[1:], ls.arg_types[1:], m)
        return f"ep::tch::view<{m}, {'true' if copy else 'false'}>({ls.args[0]}, {shape})"

    return lower


def reshape_fn_infer(site: Site) -> Type:  # torch.reshape(input, shape)
    b = bind(site, ("input", "shape"), "torch.reshape")
    x = need_tensor(b.type("input"), "reshape")
    if not isinstance(b.type("shape"), (TupleT, ListT)):
        raise TypingError("reshape(): argument 'shape' must be tuple of ints")
    return tensor_t(x.dtype, size_rank([b.type("shape")], (site.node.args[1] if len(site.node.args) > 1
                                                           else site.node.kwargs["shape"],), "reshape"))


def _flatten_dims(site: Site | LowerSite) -> tuple[ArrayT, int, int]:
    b = bind(site, ("input", "start_dim", "end_dim"), "flatten")
    x = need_tensor(b.type("input"), "flatten")
    s, e = const_dim(b, "start_dim", x.ndim, 0), const_dim(b, "end_dim", x.ndim, max(x.ndim - 1, 0))
    if s > e:
        raise TypingError("flatten() has invalid args: start_dim cannot come after end_dim")
    return x, s, e


def flatten_infer(site: Site) -> Type:
    x, s, e = _flatten_dims(site)
    return tensor_t(x.dtype, 1 if x.ndim == 0 else x.ndim - (e - s))


def flatten_lower(ls: LowerSite) -> str:
    x, s, e = _flatten_dims(ls)
    return f"ep::tch::flatten<{ls.result.ndim}, {s}, {e}>({ls.args[0]})"  # type: ignore[union-attr]


def _squeeze_mask(site: Site | LowerSite) -> tuple[ArrayT, int]:
    b = bind(site, ("input", "dim"), "squeeze")
    x = need_tensor(b.type("input"), "squeeze")
    if not b.has("dim") or b.const("dim") is None:
        raise TypingError("squeeze() without dim: the result's rank would depend on the sizes; pass the dims to squeeze")
    dims = const_dim(b, "dim", x.ndim)
    dims = dims if isinstance(dims, tuple) else (dims,)
    return x, 0 if x.ndim == 0 else mask_of(tuple(set(dims)))


def squeeze_infer(site: Site) -> Type:
    x, mask = _squeeze_mask(site)
    return tensor_t(x.dtype, x.ndim - bin(mask).count("1"))


def squeeze_lower(ls: LowerSite) -> str:
    x, mask = _squeeze_mask(ls)
    return f"ep::tch::squeeze<{ls.result.ndim}, {mask}u>({ls.args[0]})" if mask else ls.args[0]  # type: ignore[union-attr]


def _unsqueeze_dim(site: Site | LowerSite) -> tuple[ArrayT, int]:
    b = bind(site, ("input", "dim"), "unsqueeze")
    x = need_tensor(b.type("input"), "unsqueeze")
    return x, const_dim(b, "dim", x.ndim + 1)


def unsqueeze_infer(site: Site) -> Type:
    x, _ = _unsqueeze_dim(site)
    return tensor_t(x.dtype, x.ndim + 1)


def unsqueeze_lower(ls: LowerSite) -> str:
    x, d = _unsqueeze_dim(ls)
    return f"ep::expand_dims<{x.ndim + 1}, {1 << d}u>({ls.args[0]})"


# ---- t / transpose / permute --------------------------------------------------------------------
def _perm_names(site: Site | LowerSite) -> tuple[str, ...]:
    name = site.key.split(".")[-1]
    if name == "permute" and site.node.kwargs:
        raise TypingError("permute(): pass the dims positionally")
    if name == "permute":
        return ("input",) + tuple(f"d{i}" for i in range(len(site.node.args) - 1))
    return ("input", "dim0", "dim1") if name == "transpose" else ("input",)


def _perm(site: Site | LowerSite) -> tuple[int, ...]:
    """The permutation a t/transpose/permute call makes (perm_infer validated it on torch first)."""
    name = site.key.split(".")[-1]
    b = bind(site, _perm_names(site), name)
    n = need_tensor(b.type("input"), name).ndim
    if name == "t":
        return (1, 0) if n == 2 else tuple(range(n))
    if name == "transpose":
        p = list(range(n))
        if n:
            d0, d1 = const_dim(b, "dim0", n), const_dim(b, "dim1", n)
            p[d0], p[d1] = p[d1], p[d0]
        return tuple(p)
    given = [b.const(f"d{i}") for i in range(len(site.node.args) - 1)]
    dims = given[0] if len(given) == 1 and isinstance(given[0], (tuple, list)) else given
    if any(isinstance(d, bool) or not isinstance(d, int) for d in dims):
        raise TypingError("permute(): dims must be int constants")
    return tuple(d % max(n, 1) for d in dims)


def perm_infer(site: Site) -> Type:
    name = site.key.split(".")[-1]
    ref = Ref(f"torch.Tensor.{name}") if site.key.startswith("tensor.") else Ref(site.key)
    t = replay(bind(site, _perm_names(site), name), ref)  # torch's own checks (dims, t() of a 3-d tensor)
    _perm(site)
    return t


def perm_lower(ls: LowerSite) -> str:
    p = _perm(ls)
    if p == tuple(range(len(p))):
        return ls.args[0]
    return f"ep::transpose_axes<{', '.join(map(str, p))}>({ls.args[0]})"


# ---- cat / stack --------------------------------------------------------------------------------
def _join(site: Site | LowerSite) -> tuple[Any, ArrayT, int]:
    name = site.key.split(".")[-1]
    b = bind(site, ("tensors", "dim"), f"torch.{name}")
    seq = b.type("tensors")
    elem = seq.elem if isinstance(seq, ListT) else (seq.items[0] if isinstance(seq, TupleT) and seq.items else None)
    if not isinstance(elem, ArrayT) or not elem.torch:
        raise TypingError(f"{name}(): argument 'tensors' must be a tuple or list of Tensors, got {seq}")
    n = elem.ndim + (1 if name == "stack" else 0)
    return b, elem, const_dim(b, "dim", n, 0)


def join_infer(site: Site) -> Type:
    b, elem, _ = _join(site)
    return replay(b, Ref(site.key))


def join_lower(ls: LowerSite) -> str:
    b, elem, dim = _join(ls)
    R = ls.result.dtype.cpp  # type: ignore[union-attr]
    if ls.key == "torch.stack":
        return f"ep::tch::stack<{R}, {elem.ndim}, {dim}>({b.expr('tensors')})"
    return f"ep::tch::cat<{R}, {elem.ndim}>({b.expr('tensors')}, {dim})"


# ---- conversions and queries --------------------------------------------------------------------
_TO = {"float": DType.FLOAT32, "double": DType.FLOAT64, "half": DType.FLOAT16, "int": DType.INT32, "long": DType.INT64,
       "short": DType.INT16, "char": DType.INT8, "byte": DType.UINT8, "bool": DType.BOOL}


def method_infer(site: Site) -> Type:
    name = site.key.split(".")[-1]
    x = need_tensor(site.args[0], name)
    nargs = len(site.args) - 1
    if name in _TO or name in ("contiguous", "clone", "detach", "numpy", "item", "dim", "ndimension", "numel"):
        if nargs or site.node.kwargs:
            raise TypingError(f"{name}(): arguments are not supported")
        if name in _TO:
            return tensor_t(_TO[name], x.ndim)  # type: ignore[arg-type]
        if name == "numpy":
            return ArrayT(x.dtype, x.ndim)
        if name == "item":
            return {"b": BOOL, "i": INT, "u": INT, "f": FLOAT, "c": COMPLEX}[x.dtype.kind]
        if name in ("dim", "ndimension", "numel"):
            return INT
        return x
    if name == "to":
        b = bind(site, ("self", "dtype"), "to")
        dt = b.type("dtype")
        if not isinstance(dt, DTypeT) or set(site.node.kwargs) - {"dtype"}:
            raise TypingError("to(): only a dtype (x.to(torch.float64)) is supported; tensors stay on the CPU")
        return tensor_t(dt.dtype, x.ndim)
    if name == "size":
        b = bind(site, ("self", "dim"), "size")
        if not b.has("dim"):
            return TupleT((INT,) * x.ndim)
        const_dim(b, "dim", x.ndim)
        return INT
    raise TypingError(f"tensor method .{name}() is not supported yet")


def method_lower(ls: LowerSite) -> str:
    name = ls.key.split(".")[-1]
    x, e = ls.arg_types[0], ls.args[0]
    assert isinstance(x, ArrayT)
    r = ls.result
    if name in _TO or name == "to":
        return f"ep::tch::to<{r.dtype.cpp}>({e})"  # type: ignore[union-attr]
    if name == "contiguous":
        return f"ep::tch::contiguous({e})"
    if name == "clone":
        return f"ep::copy({e})"
    if name == "item":
        return f"ep::tch::item<{r.dtype.cpp}>({e})"  # type: ignore[union-attr]
    if name in ("dim", "ndimension"):
        return f"int64_t{{{x.ndim}}}"
    if name == "numel":
        return f"static_cast<int64_t>(({e}).size())"
    if name == "size":
        if isinstance(r, TupleT):
            return f"ep::shape_tuple({e})"
        d = const_dim(bind(ls, ("self", "dim"), "size"), "dim", x.ndim)
        return f"static_cast<int64_t>(({e}).shape[{d}])"
    return e  # detach(), numpy(): the same memory


def from_numpy_infer(site: Site) -> Type:
    (a,) = site.args
    if not isinstance(a, ArrayT) or a.torch:
        raise TypingError(f"from_numpy(): expected np.ndarray (got {a})")
    return tensor_t(a.dtype, a.ndim)


def declare(reg: Registry) -> None:
    add = reg.add
    add(Operator("tensor.view", S, Ref("torch.Tensor.view"), view_infer, view_lower(False), (OPS,)))
    add(Operator("tensor.reshape", S, Ref("torch.Tensor.reshape"), view_infer, view_lower(True), (OPS,)))
    add(Operator("torch.reshape", S, Ref("torch.reshape"), reshape_fn_infer, view_lower(True), (OPS,)))
    add(Operator("torch.flatten", S, Ref("torch.flatten"), flatten_infer, flatten_lower, (OPS,),
                 aliases=("tensor.flatten",)))
    add(Operator("torch.squeeze", S, Ref("torch.squeeze"), squeeze_infer, squeeze_lower, (OPS,),
                 aliases=("tensor.squeeze",)))
    add(Operator("torch.unsqueeze", S, Ref("torch.unsqueeze"), unsqueeze_infer, unsqueeze_lower, (OPS,),
                 aliases=("tensor.unsqueeze",)))
    add(Operator("torch.t", S, Ref("torch.t"), perm_infer, perm_lower, (OPS,), aliases=("tensor.t",)))
    add(Operator("torch.transpose", S, Ref("torch.transpose"), perm_infer, perm_lower, (OPS,),
                 aliases=("tensor.transpose",)))
    add(Operator("torch.permute", S, Ref("torch.permute"), perm_infer, perm_lower, (OPS,),
                 aliases=("tensor.permute",)))
    add(Operator("torch.cat", S, Ref("torch.cat"), join_infer, join_lower, (OPS,),
                 aliases=("torch.concat", "torch.concatenate")))
    add(Operator("torch.stack", S, Ref("torch.stack"), join_infer, join_lower, (OPS,)))
    for name in (*_TO, "to", "contiguous", "clone", "detach", "numpy", "item", "dim", "ndimension", "numel", "size"):
        add(Operator(f"tensor.{name}", S, Ref(f"torch.Tensor.{name}"), method_infer, method_lower, (OPS,)))
    add(Operator("torch.from_numpy", S, Ref("torch.from_numpy"), from_numpy_infer, lambda ls: ls.args[0], (OPS,)))


__all__ = ["declare", "size_rank", "size_expr"]

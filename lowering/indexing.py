"""NumPy indexing rules at the type level: basic (views), boolean masks and integer arrays (copies).

Shared by type inference and C++ emission so both agree on what an index means.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

from everypath.base.types import ArrayT, EllipsisT, ListT, NoneT, ScalarT, SliceT, StrT, TupleT, Type
from everypath.tracer.ir import Node, Opcode
from everypath.variants.registry import TypingError


class IndexKind(enum.Enum):
    INT = "int"
    SLICE = "slice"
    NEWAXIS = "newaxis"
    ELLIPSIS = "ellipsis"  # `...`: the axes the other items leave, whole (a view, never an element)
    MASK = "mask"  # boolean array
    FANCY = "fancy"  # integer array


@dataclass(frozen=True)
class IndexItem:
    kind: IndexKind
    ndim: int = 0


_VALID = ("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays "
          "are valid indices")


def classify(idx: Type) -> list[IndexItem]:
    items = idx.items if isinstance(idx, TupleT) else (idx,)
    out: list[IndexItem] = []
    for t in items:
        if isinstance(t, ScalarT) and (t.dtype.is_integer or (t.dtype.is_bool and False)):
            out.append(IndexItem(IndexKind.INT))
        elif isinstance(t, SliceT):
            out.append(IndexItem(IndexKind.SLICE))
        elif isinstance(t, NoneT):
            out.append(IndexItem(IndexKind.NEWAXIS))
        elif isinstance(t, EllipsisT):
            out.append(IndexItem(IndexKind.ELLIPSIS))
        elif isinstance(t, ArrayT) and t.dtype.is_bool:
            out.append(IndexItem(IndexKind.MASK, t.ndim))
        elif isinstance(t, ArrayT) and t.dtype.is_integer:
            out.append(IndexItem(IndexKind.FANCY, t.ndim))
        else:
            raise TypingError(f"{_VALID}; got {t}")
    return out


@dataclass(frozen=True)
class IndexPlan:
    """What an array index does: a basic view, a mask selection or an integer-array gather."""

    kind: str  # "element", "view", "mask", "fancy"
    items: tuple[IndexItem, ...]
    result: Type
    fancy_pos: int = -1


def plan_array_index(base: ArrayT, idx: Type) -> IndexPlan:
    items = classify(idx)
    n_int = sum(i.kind is IndexKind.INT for i in items)
    n_slice = sum(i.kind is IndexKind.SLICE for i in items)
    n_new = sum(i.kind is IndexKind.NEWAXIS for i in items)
    adv = [k for k, i in enumerate(items) if i.kind in (IndexKind.MASK, IndexKind.FANCY)]
    n_ellipsis = sum(i.kind is IndexKind.ELLIPSIS for i in items)
    if n_ellipsis > 1:
        raise TypingError("an index can only have a single ellipsis ('...')")  # NumPy's IndexError
    if n_ellipsis and adv:
        raise TypingError("an ellipsis ('...') combined with an index array or mask is not supported yet; "
                          "write the slices (`:`) it stands for")
    if not adv:
        if n_int + n_slice > base.ndim:
            raise TypingError(f"too many indices for array: array is {base.ndim}-dimensional, "
                              f"but {n_int + n_slice} were indexed")
        rank = base.ndim - n_int + n_new
        if rank == 0 and n_new == 0 and n_int == base.ndim and not n_ellipsis:  # a[..., 0] of 1-d: a 0-d array
            return IndexPlan("element", tuple(items), ScalarT(base.dtype))
        return IndexPlan("view", tuple(items), ArrayT(base.dtype, rank))
    n_fancy = sum(i.kind is IndexKind.FANCY for i in items)
    if n_fancy and (n_fancy > 1 or n_int) and all(i.kind in (IndexKind.INT, IndexKind.FANCY) for i in items):
        # integer arrays (and integers) on the leading axes, broadcast together
        if len(items) > base.ndim:
            raise TypingError(f"too many indices for array: array is {base.ndim}-dimensional, "
                              f"but {len(items)} were indexed")
        k = max(i.ndim for i in items)
        return IndexPlan("gather", tuple(items), ArrayT(base.dtype, k + base.ndim - len(items)))
    if len(adv) > 1:
        raise TypingError("indexing with several index arrays mixed with slices or masks is not supported yet")
    pos = adv[0]
    item = items[pos]
    if item.kind is IndexKind.MASK:
        if len(items) != 1:
            raise TypingError("a boolean mask must be the only index (combining it with other indices is not supported yet)")
        if item.ndim > base.ndim:
            raise TypingError(f"too many indices for array: array is {base.ndim}-dimensional, but {item.ndim} were indexed")
        return IndexPlan("mask", tuple(items), ArrayT(base.dtype, base.ndim - item.ndim + 1), pos)
    if n_int or n_new:
        raise TypingError("combining an index array with integers or np.newaxis is not supported yet; use slices")
    if len(items) > base.ndim:
        raise TypingError(f"too many indices for array: array is {base.ndim}-dimensional, but {len(items)} were indexed")
    return IndexPlan("fancy", tuple(items), ArrayT(base.dtype, base.ndim - 1 + item.ndim), pos)


def _const_int(node: Node) -> int | None:
    if node.op is Opcode.CONST and isinstance(node.target, int):
        return node.target
    return None


def index_type(base: Type, idx: Type, idx_node: Node, unpack: int | None = None) -> Type:
    if isinstance(base, ArrayT):
        if unpack is not None:
            if base.ndim == 0:
                raise TypingError("cannot unpack a 0-d array")
        return plan_array_index(base, idx).result
    if isinstance(base, TupleT):
        if unpack is not None and unpack != len(base.items):
            raise TypingError(f"cannot unpack a tuple of {len(base.items)} items into {unpack} names")
        k = _const_int(idx_node)
        if k is not None:
            if not -len(base.items) <= k < len(base.items):
                raise TypingError("tuple index out of range")
            return base.items[k]
        if isinstance(idx, ScalarT) and idx.dtype.is_integer and len(set(base.items)) == 1:
            return base.items[0]
        raise TypingError(f"indexing {base} needs a constant integer index")
    if isinstance(base, ListT):
        if base.elem is None:
            return None  # type: ignore[return-value]  # not known yet (appended later)
        if isinstance(idx, ScalarT) and idx.dtype.is_integer:
            return base.elem
        if isinstance(idx, SliceT):
            return base
        raise TypingError(f"list indices must be integers or slices, not {idx}")
    if isinstance(base, StrT):
        if unpack is not None:
            raise TypingError("unpacking a str is not supported; index it")
        if isinstance(idx, ScalarT) and (idx.dtype.is_integer or idx.dtype.is_bool):
            return base
        if isinstance(idx, SliceT):
            return base
        raise TypingError(f"string indices must be integers, not '{idx}'")
    if isinstance(base, ScalarT):
        raise TypingError(f"'{base}' object is not subscriptable")
    raise TypingError(f"'{base}' object is not subscriptable")


def check_setitem(base: Type, idx: Type, value: Type, idx_node: Node) -> None:
    if isinstance(base, TupleT):
        raise TypingError("'tuple' object does not support item assignment")
    if isinstance(base, ListT):
        if not (isinstance(idx, ScalarT) and idx.dtype.is_integer):
            raise TypingError("list item assignment needs an integer index")
        return
    if not isinstance(base, ArrayT):
        raise TypingError(f"'{base}' object does not support item assignment")
    plan = plan_array_index(base, idx)
    if isinstance(value, (TupleT, ListT)):  # a[i] = (x, y): NumPy makes an array of it (lowering/seq_assign.py)
        from everypath.lowering.seq_assign import sequence_as_array

        if plan.kind == "element":
            raise TypingError("setting an array element with a sequence.")
        value = sequence_as_array(value)
    if not isinstance(value, (ScalarT, ArrayT)):
        raise TypingError(f"cannot assign {value} into an array")
    if value.dtype.is_complex and not base.dtype.is_complex:
        raise TypingError(f"cannot assign complex values into a {base.dtype} array")
    if isinstance(value, ArrayT):
        target_rank = plan.result.ndim if isinstance(plan.result, ArrayT) else 0  # gather: its result rank
        if plan.kind == "mask":
            target_rank = 1
        if value.ndim > target_rank:
            raise TypingError(f"could not broadcast a {value.ndim}-d array into the {target_rank}-d selection")

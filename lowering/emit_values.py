"""C++ expressions for value nodes: constants, calls through the registry, fused
element-wise trees, indexing and attributes."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from everypath.lowering import classes, key_calls, pil_images, pyint_checks, records
from everypath.lowering import int_pow, type_tests, union_dispatch, unions
from everypath.tracer.classinfo import is_isinstance
from everypath.base.cpp import EmitError, cast, ctype, literal
from everypath.lowering.indexing import IndexKind, plan_array_index
from everypath.base.types import ArrayT, DictT, DType, DTypeT, ListT, ScalarT, StrT, TupleT, Type, UnionT
from everypath.tracer.ir import FunctionRef, Node, Opcode
from everypath.variants.ops.elementwise import loop_dtypes
from everypath.variants.registry import LowerSite, lookup_operator

if TYPE_CHECKING:
    from everypath.lowering.emit import FunctionEmitter

ITERATOR_KEYS = frozenset({"builtins.enumerate", "builtins.zip", "builtins.reversed", "numpy.ndindex"})
_CMP = frozenset({"eq", "ne", "lt", "le", "gt", "ge"})


def is_elementwise(fe: "FunctionEmitter", n: Node) -> bool:
    if n.op is not Opcode.CALL or not isinstance(n.target, str):
        return False
    key = fe.spec.op_keys.get(n)
    return key is not None and (lookup_operator(key).elementwise is not None or is_cast(fe, n))


CAST_KEYS = frozenset({"ndarray.astype"})


def is_cast(fe: "FunctionEmitter", n: Node) -> bool:
    """x.astype(dtype) of an array: a per-element conversion, so a fused loop can do it
    instead of materialising the converted array (copy=/order= keep the library call)."""
    return (fe.spec.op_keys.get(n) in CAST_KEYS and len(n.args) <= 2 and not set(n.kwargs) - {"dtype", "casting"}
            and isinstance(fe.ty(n.args[0]), ArrayT) and isinstance(fe.ty(n), ArrayT))


def element_operands(fe: "FunctionEmitter", n: Node) -> list[Node]:
    """The element operands of an element-wise node (a cast's dtype is not one)."""
    return list(n.args[:1]) if is_cast(fe, n) else list(n.args)


def is_inplace_array(fe: "FunctionEmitter", n: Node) -> bool:
    key = fe.spec.op_keys.get(n, "")
    return key.startswith("operator.i") and key != "operator.invert" and isinstance(fe.ty(n.args[0]), ArrayT)


FUSED_REDUCTIONS = frozenset({"numpy.sum", "ndarray.sum"})


def is_fusable_reduction(fe: "FunctionEmitter", u: Node, operand: Node) -> bool:
    """A full sum of an element-wise expression: evaluated without materialising the expression."""
    return (u.op is Opcode.CALL and fe.spec.op_keys.get(u) in FUSED_REDUCTIONS and len(u.args) == 1
            and not u.kwargs and u.args[0] is operand and isinstance(fe.spec.types.get(u), ScalarT))


def elem_type(t: Type) -> ScalarT:
    if isinstance(t, ArrayT):
        return ScalarT(t.dtype)
    assert isinstance(t, ScalarT), t
    return t


def scalar_op(fe: "FunctionEmitter", n: Node, operands: list[tuple[str, ScalarT]]) -> str:
    """The scalar C++ expression of one element-wise op applied to element operands."""
    if is_cast(fe, n):
        ((e, _),) = operands
        return f"ep::elem_cast<{elem_type(fe.ty(n)).dtype.cpp}>({e})"
    key = fe.spec.op_keys[n]
    op = lookup_operator(key)
    uf = op.elementwise
    fe.used_headers.update(v.header for v in op.variants if v.path == "loops")
    types = [t for _, t in operands]
    result = elem_type(fe.ty(n))
    if uf.ufunc is None or uf.cpp in ("where", "clip"):  # custom element-wise ops: everything in the result dtype
        if uf.cpp == "where":
            (c, ct), (a, at), (b, bt) = operands
            return f"({cast(c, ct, DType.BOOL)} ? {cast(a, at, result.dtype)} : {cast(b, bt, result.dtype)})"
        args = ", ".join(cast(e, t, result.dtype) for e, t in operands)
        return f"ep::sc::{uf.cpp}<{result.dtype.cpp}>({args})"
    if all(t.weak for t in types):  # Python ints: OverflowError where the result may leave int64
        checked = pyint_checks.checked_op(fe, n, key, operands, result)
        if checked is not None:
            return checked
    if key.startswith("operator.") and all(t.weak for t in types):
        base = key.split(".")[1]
        name = base[1:] if base.startswith("i") and base not in ("invert", "is_", "is_not") else base
        if name in ("not_",):
            return f"ep::py::not_({operands[0][0]})"
        common = types[0].dtype
        for t in types[1:]:
            from everypath.base.types import join

            j = join(ScalarT(common, True), t)
            assert isinstance(j, ScalarT)
            common = j.dtype
        loop = common if name.rstrip("_") in _CMP or name == "truediv" else result.dtype
        if name == "pow" and result.dtype is DType.FLOAT64:
            loop = DType.FLOAT64
        args = ", ".join(cast(e, t, loop) for e, t in operands)
        if uf.py:
            return f"ep::py::{uf.py}<{loop.cpp}>({args})"
        return cast(f"ep::sc::{uf.cpp}<{loop.cpp}>({args})", ScalarT(loop), result.dtype)
    dts = loop_dtypes(uf.ufunc, list(types))
    ins, out = dts[:-1], dts[-1]
    if uf.cpp in _CMP and _needs_exact_compare(n, types, ins):
        ins = (DType.INT64,) * len(ins)  # NumPy 2 compares a Python int by value: `uint8 > 300` is all False
    fast = _fast_power(fe, n, key, operands, ins, out)
    if fast is not None:
        return fast
    args = ", ".join(cast(e, t, d) for (e, t), d in zip(operands, ins))
    expr = f"ep::sc::{uf.cpp}<{ins[0].cpp}>({args})"
    if out is not ins[0] and out is not DType.BOOL:
        expr = f"ep::to<{out.cpp}>({expr})"  # the C++ result type may differ from the loop input (abs of complex)
    if out is not result.dtype:
        expr = cast(expr, ScalarT(out), result.dtype)
    return expr


def _needs_exact_compare(n: Node, types: list[ScalarT], ins: tuple[DType, ...]) -> bool:
    """A Python int compared with a narrower integer: widened to int64 unless it is a constant in range."""
    if not ins[0].is_integer or ins[0] in (DType.INT64, DType.UINT64) or len(n.args) != len(types):
        return False
    info = np.iinfo(ins[0].np)
    for a, t in zip(n.args, types):
        if t.weak and t.dtype is DType.INT64:
            if not (a.op is Opcode.CONST and isinstance(a.target, int) and info.min <= a.target <= info.max):
                return True
    return False


def pyint_operand_checks(fe: "FunctionEmitter", n: Node) -> list[tuple[Node, DType]]:
    """The Python int operands of an element-wise NumPy op that NumPy 2 range-checks against the integer
    loop dtype (comparisons compare by value instead; where/clip and torch never check)."""
    key = fe.spec.op_keys.get(n)
    uf = lookup_operator(key).elementwise if key is not None else None
    if uf is None or uf.ufunc is None or uf.cpp in ("where", "clip") or uf.cpp in _CMP or is_cast(fe, n):
        return []
    types = [fe.spec.types.get(a) for a in n.args]
    if len(types) != uf.nin or not all(isinstance(t, (ScalarT, ArrayT)) for t in types):
        return []
    if all(isinstance(t, ScalarT) and t.weak for t in types) or any(isinstance(t, ArrayT) and t.torch for t in types):
        return []
    ins = loop_dtypes(uf.ufunc, [ScalarT(t.dtype, isinstance(t, ScalarT) and t.weak) for t in types])[:-1]
    out: list[tuple[Node, DType]] = []
    for a, t, d in zip(n.args, types, ins):
        if isinstance(t, ScalarT) and t.weak and t.dtype is DType.INT64 and d.is_integer and d is not DType.INT64:
            if needs_int_check(a, d):
                out.append((a, d))
    return out


def needs_int_check(value: Node, d: DType) -> bool:
    """A Python int meeting integer dtype d needs its run-time range check unless it is a constant that fits."""
    info = np.iinfo(d.np)
    return not (value.op is Opcode.CONST and isinstance(value.target, int) and info.min <= value.target <= info.max)


_FAST_POWERS = {2: "square", 0.5: "sqrt", -1: "reciprocal", 1: "positive"}


def fast_power_name(fe: "FunctionEmitter", n: Node, key: str) -> str | None:
    """The ep::sc function an array ** constant becomes (square, sqrt, ...), before dtype checks."""
    if key not in ("operator.pow", "operator.ipow", "numpy.power") or not isinstance(fe.ty(n.args[0]), ArrayT):
        return None
    e = n.args[1]
    if e.op is not Opcode.CONST or isinstance(e.target, bool) or not isinstance(e.target, (int, float)):
        return None
    return _FAST_POWERS.get(e.target)


def _fast_power(fe: "FunctionEmitter", n: Node, key: str, operands: list[tuple[str, ScalarT]],
                ins: tuple[DType, ...], out: DType) -> str | None:
    """NumPy's fast_scalar_power: array ** 2 / 0.5 / -1 / 1 with a scalar exponent is square,
    sqrt, reciprocal or a copy (same results as NumPy, and no pow call)."""
    fn = fast_power_name(fe, n, key)
    if fn is None or not (ins[0].is_float or ins[0].is_complex) or (fn == "square" and ins[0] is not out):
        return None
    x = cast(operands[0][0], operands[0][1], ins[0])
    return f"ep::sc::{fn}<{ins[0].cpp}>({x})"


def fused_body(fe: "FunctionEmitter", n: Node, leaves: list[str]) -> str:
    operands: list[tuple[str, ScalarT]] = []
    for a in element_operands(fe, n):
        if a in fe.fused:
            operands.append((fused_body(fe, a, leaves), elem_type(fe.ty(a))))
        elif a.op is Opcode.CONST and isinstance(fe.ty(a), ScalarT):
            # literals stay in the body: x // 1000 becomes a multiply-shift, x * 2.0 an add
            operands.append((fe.value(a), elem_type(fe.ty(a))))
        else:
            leaves.append(fe.value(a))
            operands.append((f"x{len(leaves) - 1}", elem_type(fe.ty(a))))
    return scalar_op(fe, n, operands)


def elementwise(fe: "FunctionEmitter", n: Node) -> str:
    t = fe.ty(n)
    if isinstance(t, ScalarT) and not is_inplace_array(fe, n):
        return scalar_op(fe, n, [(fe.value(a), elem_type(fe.ty(a))) for a in n.args])
    leaves: list[str] = []
    body = fused_body(fe, n, leaves)
    params = ", ".join(f"auto x{i}" for i in range(len(leaves)))
    fn = f"[&]({params}) {{ return {body}; }}"
    if is_inplace_array(fe, n):
        target = leaves[0]
        fe.line(f"ep::map_into({target}, {fn}, {', '.join(leaves)});")
        return target
    assert isinstance(t, ArrayT)
    return elementwise_paths(fe, n, t, fn, leaves)


def elementwise_paths(fe: "FunctionEmitter", n: Node, t: ArrayT, fn: str, leaves: list[str]) -> str:
    """A fused expression on each path the policy admits: loops, simd (when the expression
    has a batch form, lowering/simd_body.py), threads."""
    from everypath.lowering.simd_body import NotVectorisable, simd_body
    from everypath.variants.ops.elementwise import ELEMENTWISE_VARIANTS

    variants = fe.policy.variants(ELEMENTWISE_VARIANTS)
    if sum(v.path in ("loops", "threads") for v in variants) > 1:
        # one closure for both: the threads path's serial fallback and row walks are then the same
        # ep::map_c / ep::map_rows instances as the loops path's, compiled once (issue 13: build time)
        name = fe.fresh("ep_f")
        fe.line(f"auto {name} = {fn};")
        fn = name
    loops = f"ep::map<{t.dtype.cpp}, {t.ndim}>({fn}, {', '.join(leaves)})"
    options = []
    for v in variants:
        if v.path == "loops":
            options.append((v, loops))
        elif v.path == "threads":
            options.append((v, f"ep::threads::map<{t.dtype.cpp}, {t.ndim}>({fn}, {', '.join(leaves)})"))
        elif v.path == "simd":
            vleaves: list[str] = []
            try:
                body = simd_body(fe, n, vleaves)
            except NotVectorisable:
                continue
            params = ", ".join(f"auto x{i}" for i in range(len(vleaves)))
            options.append((v, f"ep::simd::map<{t.dtype.cpp}, {t.ndim}>([&]({params}) {{ return {body}; }}, "
                               f"{', '.join(vleaves)})"))
    if not options:
        options.append((ELEMENTWISE_VARIANTS[0], loops))
    for v, _ in options:
        fe.used_paths.add(v.path)
        fe.used_headers.add(v.header)
    return fe.site_call(n, fused_op_name(fe, n), t.dtype.np.name, options, leaves)


def fused_op_name(fe: "FunctionEmitter", n: Node) -> str:
    """The operator a recorded element-wise site reports: the root's key, "fused:<root key>"
    when the loop computes several operators (the call site tells the expressions apart)."""
    key = fe.spec.op_keys.get(n, str(n.target))
    return f"fused:{key}" if any(a in fe.fused for a in element_operands(fe, n)) else key


# ---- indexing -----------------------------------------------------------
def index_items(fe: "FunctionEmitter", idx: Node) -> list[str]:
    t = fe.ty(idx)
    if idx.op is Opcode.CALL and idx.target == "ep.tuple":
        return [fe.value(a) for a in idx.args]
    if isinstance(t, TupleT):
        if idx.op is Opcode.CONST:
            return [literal(v, it) for v, it in zip(idx.target, t.items)]
        e = fe.value(idx)
        return [f"std::get<{i}>({e})" for i in range(len(t.items))]
    return [fe.value(idx)]


def _element_accessor(fe: "FunctionEmitter", idx: Node, base: str = "", base_node: Node | None = None) -> str:
    """ep::get wraps negative indices and checks bounds; when every index is provably >= 0 the
    wrap is dropped (ep::get_nonneg: one unsigned compare per axis), axes proven below their
    length lose the compare too (lowering/shape_bounds.py; ep::get_inbounds when all are), and
    inside a loop versioned on unit inner strides (FunctionEmitter.unit_stride) the last stride
    is the constant 1 (ep::get_unit*)."""
    acc = _element_accessor_kind(fe, idx, base_node, base)
    if base in fe.unit_stride and acc != "ep::get":
        return acc.replace("ep::get_nonneg", "ep::get_unit").replace("ep::get_inbounds", "ep::get_unit_inbounds")
    return acc


def _element_accessor_kind(fe: "FunctionEmitter", idx: Node, base_node: Node | None = None, base: str = "") -> str:
    """ep::get, ep::get_nonneg, ep::get_nonneg<mask of proven axes> or ep::get_inbounds."""
    if idx.op is Opcode.CALL and idx.target == "ep.tuple":
        nodes = list(idx.args)
    elif idx.op is Opcode.CONST and isinstance(idx.target, tuple):
        if not all(isinstance(v, int) and v >= 0 for v in idx.target):
            return "ep::get"
        nodes = []  # constant indices: checked (a shape is known only at run time)
    else:
        nodes = [idx]
    # (n, k, base) in fe.proven: a versioned loop's fast copy tested 0 <= n < shape[k] before it (unit_stride.py)
    if not all(fe.bounds.non_negative(n) or (n, k, base) in fe.proven for k, n in enumerate(nodes)):
        below = sum(1 << k for k, n in enumerate(nodes)
                    if base_node is not None and fe.bounds.below(n, base_node, k))
        return f"ep::get_below<{below}u>" if below else "ep::get"
    if base_node is None or not nodes:
        return "ep::get_nonneg"
    mask = sum(1 << k for k, n in enumerate(nodes) if (n, k, base) in fe.proven or fe.bounds.in_range(n, base_node, k))
    if mask == (1 << len(nodes)) - 1:
        return "ep::get_inbounds"
    return f"ep::get_nonneg<{mask}u>" if mask else "ep::get_nonneg"


def _index_parts(fe: "FunctionEmitter", base_t: ArrayT, idx: Node) -> tuple[list[str], "object"]:
    plan = plan_array_index(base_t, fe.ty(idx))
    items = index_items(fe, idx)
    return items, plan


def getitem(fe: "FunctionEmitter", n: Node) -> str:
    mine = records.emit_getitem(fe.ty(n.args[0]), fe.value(n.args[0]), n.args[1])  # a NamedTuple's item
    if mine is not None:
        return mine
    base, idx = n.args
    bt = fe.ty(base)
    b = fe.value(base)
    if isinstance(bt, TupleT):
        k = idx.target if idx.op is Opcode.CONST else None
        if k is None:
            raise EmitError("indexing a tuple needs a constant index")
        return f"std::get<{k % len(bt.items)}>({b})"
    if isinstance(bt, StrT):  # code points: variants/include/everypath/str_ops.hpp
        from everypath.variants.ops.strings import HEADER

        fe.used_headers.add(HEADER)
        fn = "ep::str_getitem" if isinstance(fe.ty(idx), ScalarT) else "ep::str_slice"
        return f"{fn}({b}, {fe.value(idx)})"
    if isinstance(bt, DictT):  # d[k]: KeyError(k) when missing (variants/include/everypath/dict.hpp)
        return f"{b}.at({fe.value(idx)})"
    if isinstance(bt, ListT):
        it = fe.ty(idx)
        if n.meta.get("unpack") is not None and idx.op is Opcode.CONST:  # a, b = lst: its length checked
            return f"ep::list_unpack({b}, {idx.target}, {n.meta['unpack']})"
        if isinstance(it, ScalarT):
            return f"ep::list_get({b}, {fe.value(idx)})"
        return f"ep::list_slice({b}, {fe.value(idx)})"  # a new list, as in Python
    assert isinstance(bt, ArrayT)
    items, plan = _index_parts(fe, bt, idx)
    if plan.kind == "element":
        return f"{_element_accessor(fe, idx, b, base)}({', '.join([b, *items])})"  # x[()] of a 0-d array: no index
    if plan.kind == "view":
        return f"ep::view({b}{''.join(', ' + i for i in items)})"
    if plan.kind == "mask":
        return f"ep::mask({b}, {items[0]})"
    if plan.kind == "gather":
        return f"ep::gather({b}, {', '.join(items)})"
    pos = plan.fancy_pos
    sl = ["ep::make_slice(ep::None{}, ep::None{}, ep::None{})" if k == pos else e for k, e in enumerate(items)]
    return f"ep::take_axis<{pos}>(ep::view({b}, {', '.join(sl)}), {items[pos]})"


def setitem(fe: "FunctionEmitter", n: Node) -> None:
    base, idx, val = n.args
    bt = fe.ty(base)
    b = fe.value(base)
    v = fe.value(val)
    if isinstance(bt, ListT):
        fe.line(f"ep::list_get({b}, {fe.value(idx)}) = {v};")
        return
    if isinstance(bt, DictT):
        fe.line(f"{b}.set({fe.value(idx)}, {v});")
        return
    assert isinstance(bt, ArrayT)
    items, plan = _index_parts(fe, bt, idx)
    vt = fe.ty(val)
    if plan.kind == "element":
        acc = _element_accessor(fe, idx, b, base)
        fe.line(f"{acc}({', '.join([b, *items])}) = {cast(v, elem_type(vt), bt.dtype) if isinstance(vt, ScalarT) else v};")
        return
    if (plan.kind == "view" and val.op is Opcode.CALL and is_inplace_array(fe, val) and val.args[0].op is Opcode.GETITEM
            and val.args[0].args[0] is base and val.args[0].args[1] is idx):
        return  # x[i:j] += y already wrote through the view
    if isinstance(vt, ScalarT):
        v = cast(v, vt, bt.dtype)
    if isinstance(vt, (TupleT, ListT)):  # a[i, :] = [0, 0, 1]: lowering/seq_assign.py
        from everypath.lowering.seq_assign import CONVERT_HEADER, sequence_array_expr

        v = sequence_array_expr(vt, v, bt.dtype)
        if plan.kind == "view":  # NumPy's "could not broadcast input array from shape ..." on a mismatch
            fe.used_headers.add(CONVERT_HEADER)
            fe.line(f"ep::copyto(ep::view({b}{''.join(', ' + i for i in items)}), {v});")
            return
    if plan.kind == "view":
        fe.line(f"ep::assign(ep::view({b}{''.join(', ' + i for i in items)}), {v});")
    elif plan.kind == "mask":
        fe.line(f"ep::mask_assign({b}, {items[0]}, {v});")
    elif plan.kind == "gather":
        fe.line(f"ep::scatter({b}, {v}, {', '.join(items)});")
    else:
        pos = plan.fancy_pos
        sl = ["ep::make_slice(ep::None{}, ep::None{}, ep::None{})" if k == pos else e for k, e in enumerate(items)]
        fe.line(f"ep::put_axis<{pos}>(ep::view({b}, {', '.join(sl)}), {items[pos]}, {v});")


# ---- calls --------------------------------------------------------------
def call(fe: "FunctionEmitter", n: Node) -> str:
    target = n.target
    mine = union_dispatch.emit_call(fe, n, call)  # operands that may hold several kinds: lowering/union_dispatch.py
    if mine is not None:
        return mine
    mine = int_pow.emit_call(fe, n)  # b ** e that may be a float, pow(a, b, m): lowering/int_pow.py
    if mine is not None:
        return mine
    mine = classes.emit_call(fe, n)  # plain classes: __init__, methods, comparisons (lowering/classes.py)
    if mine is not None:
        return mine
    mine = records.emit_call(fe, n)  # record construction and fields stored, enum comparisons
    if mine is not None:
        return mine
    mine = pil_images.emit_call(fe, n)  # Image.fromarray, np.asarray(img): lowering/pil_images.py
    if mine is not None:
        return mine
    mine = key_calls.emit_call(fe, n)  # sorted/max/min/list.sort with key=: lowering/key_calls.py
    if mine is not None:
        return mine
    if target == "ep.call" and len(fe.spec.choices.get(n, ())) > 1:
        # a variable bound to one of several closures holds the chosen one's tag
        members = fe.ty(n.args[0]).members
        rt = ctype(fe.ty(n))
        expr = ""
        for callee in fe.spec.choices[n]:
            tag = members.index(f"closure:{id(callee.fn)}:{callee.fn.qualname}")
            call_ = f"{rt}({callee.symbol}({', '.join(fe.bound_args(callee, list(n.args[1:]), n.kwargs))}))"
            expr = call_ if not expr else f"({fe.value(n.args[0])} == {tag} ? {call_} : {expr})"
        return expr
    if isinstance(target, FunctionRef) or target == "ep.call":
        callee = fe.spec.callees[n]
        args = list(n.args[1:]) if target == "ep.call" else list(n.args)
        symbol = callee.symbol
        if n in fe.proven_calls and fe.clones is not None:  # a loop's fast copy proved the helper's indices
            symbol = fe.clones.symbol(callee, fe.proven_calls[n]) or symbol
        return f"{symbol}({', '.join(fe.bound_args(callee, args, n.kwargs))})"
    if is_isinstance(target):  # isinstance(x, C): lowering/type_tests.py
        return type_tests.emit_call(fe, n)
    if target in ("ep.match_seq", "ep.match_class", "ep.match_is"):  # match patterns: lowering/match.py
        from everypath.lowering.match import emit_call as match_call

        return match_call(fe, n)
    if target == "ep.caught":  # str(e) in an except clause: lowering/exceptions.py
        from everypath.lowering.exceptions import emit_caught

        return emit_caught(fe, n)
    if target == "ep.tuple":
        return "std::make_tuple(" + ", ".join(fe.value(a) for a in n.args) + ")"
    if target == "ep.list":
        t = fe.ty(n)
        if isinstance(t, TupleT):  # a display of arrays of several dtypes, typed as a tuple (infer.py)
            return "std::make_tuple(" + ", ".join(fe.value(a) for a in n.args) + ")"
        if not n.args:
            t = fe.list_type_for(n)
        items = ", ".join(fe.value(a) if not isinstance(t.elem, UnionT)  # type: ignore[union-attr]
                          else unions.convert(fe, fe.value(a), fe.ty(a), t.elem) for a in n.args)  # type: ignore[union-attr]
        return f"ep::make_list<{ctype(t.elem)}>({{{items}}})" if n.args else f"{ctype(t)}{{}}"  # type: ignore[union-attr]
    if target == "ep.dict":  # {k: v, ...}: the type of the variable it is stored in (an empty one learns it there)
        t = fe.dict_type_for(n)
        if not n.args:
            return f"{ctype(t)}{{}}"
        kv = f"std::tuple<{ctype(t.key)}, {ctype(t.value)}>"  # type: ignore[arg-type]
        items = ", ".join(f"{kv}{{{fe.value(k)}, {fe.value(v)}}}" for k, v in zip(n.args[::2], n.args[1::2]))
        return f"ep::make_dict<{ctype(t.key)}, {ctype(t.value)}>({{{items}}})"  # type: ignore[arg-type]
    if target in ("builtins.dict", "builtins.set") and not n.args and not n.kwargs:  # dict() / set(): as {} is
        t = fe.dict_type_for(n) if target == "builtins.dict" else fe.set_type_for(n)
        return f"{ctype(t)}{{}}"
    if target == "ep.set":  # {a, b}: the type of the variable it is stored in (an empty one learns it there)
        t = fe.set_type_for(n)
        if not n.args:
            return f"{ctype(t)}{{}}"
        return f"ep::make_set<{ctype(t.elem)}>({{{', '.join(fe.value(a) for a in n.args)}}})"  # type: ignore[arg-type]
    if target == "ep.delitem":
        return f"({fe.value(n.args[0])}.take({fe.value(n.args[1])}), ep::None{{}})"
    if target == "builtins.slice":
        return "ep::make_slice(" + ", ".join(fe.value(a) for a in n.args) + ")"
    if target == "ep.format":
        from everypath.lowering.pyformat import format_call

        return format_call([(fe.value(a), fe.ty(a)) for a in n.args])
    if target == "ep.fspec":  # format(part, spec) of an f-string part with a spec
        from everypath.lowering.pyformat import Mode, text
        from everypath.lowering.strformat import HEADER, format_spec

        part, spec = n.args
        if not spec.target:  # f"{x:}": format(x, '')
            return text(fe.value(part), fe.ty(part), Mode.FORMAT)
        fe.used_headers.add(HEADER)
        return format_spec(fe.value(part), fe.ty(part), spec.target)
    if target == "builtins.str" and fe.spec.op_keys.get(n) == "builtins.str":  # str(x): variants/ops/strings.py
        from everypath.lowering.pyformat import Mode, text

        if not n.args:
            return "ep::Str()"
        t = fe.ty(n.args[0])
        return fe.value(n.args[0]) if isinstance(t, StrT) else f"ep::Str({text(fe.value(n.args[0]), t, Mode.STR)})"
    if target == "builtins.repr" and fe.spec.op_keys.get(n) == "builtins.repr":  # repr(x): pyformat's writer
        from everypath.lowering.pyformat import Mode, text

        return f"ep::Str({text(fe.value(n.args[0]), fe.ty(n.args[0]), Mode.REPR)})"
    if target in ("ep.rconv", "ep.sconv"):  # the !r / !s of an f-string part
        from everypath.lowering.pyformat import Mode, text

        return text(fe.value(n.args[0]), fe.ty(n.args[0]), Mode.REPR if target == "ep.rconv" else Mode.STR)
    if target in ("operator.eq", "operator.ne") and all(isinstance(fe.ty(a), TupleT) for a in n.args):
        op = "==" if target == "operator.eq" else "!="
        return f"({fe.value(n.args[0])} {op} {fe.value(n.args[1])})"
    if target in ("operator.eq", "operator.ne") and all(isinstance(fe.ty(a), DTypeT) for a in n.args):
        same = fe.ty(n.args[0]).dtype is fe.ty(n.args[1]).dtype
        return "true" if same == (target == "operator.eq") else "false"
    if target in ("operator.is_", "operator.is_not"):
        from everypath.base.types import NoneT

        same = all(isinstance(fe.ty(a), NoneT) for a in n.args)
        return "true" if same == (target == "operator.is_") else "false"
    if target == "method.append":
        return f"({fe.value(n.args[0])}.append({fe.value(n.args[1])}), ep::None{{}})"
    if target == "ep.truth":  # an and/or operand in a condition (tracer/frontend.py `test`)
        return fe.truth(n.args[0])
    if is_elementwise(fe, n):
        return elementwise(fe, n)
    if n.args and n.args[0] in fe.fused and is_fusable_reduction(fe, n, n.args[0]):
        leaves: list[str] = []
        body = fused_body(fe, n.args[0], leaves)
        src = fe.ty(n.args[0])
        params = ", ".join(f"auto x{i}" for i in range(len(leaves)))
        expr = (f"ep::fused_sum_all<{fe.ty(n).dtype.cpp}, {src.dtype.cpp}, {src.ndim}>("
                f"[&]({params}) {{ return {body}; }}, {', '.join(leaves)})")
        from everypath.variants.ops.reductions import REDUCTION_VARIANTS

        fe.used_paths.add("loops")
        return fe.site_call(n, f"fused:{fe.spec.op_keys[n]}", fe.ty(n).dtype.np.name,
                            [(REDUCTION_VARIANTS[0], expr)], leaves)
    key = fe.spec.op_keys[n]
    op = lookup_operator(key)
    if op.lower is None:
        raise EmitError(f"{key} has no C++ lowering yet")
    site = LowerSite(
        key=key, node=n, args=[fe.value(a) for a in n.args], kwargs={k: fe.value(v) for k, v in n.kwargs.items()},
        arg_types=[fe.ty(a) for a in n.args], kw_types={k: fe.ty(v) for k, v in n.kwargs.items()},
        result=fe.ty(n), ctype=ctype, site=f"{n.loc.filename}:{n.loc.lineno}", never_negative=fe.bounds.never_negative,
    )
    return fe.lower_call(op, site)


def attribute(fe: "FunctionEmitter", n: Node) -> str:
    from everypath.variants.attributes import attribute_lower

    base = n.args[0]
    mine = classes.emit_attribute(fe, n)  # a property's getter, a class constant (lowering/classes.py)
    if mine is not None:
        return mine
    mine = records.emit_attribute(fe.spec.type_of(base), fe.value(base), n.target, fe.ty(n))  # r.x, member.value
    if mine is not None:
        return mine
    mine = pil_images.emit_attribute(fe.ty(base), fe.value(base), n.target)  # img.size, img.mode
    if mine is not None:
        return mine
    return attribute_lower(fe.ty(base), fe.value(base), n.target, fe.ty(n), ctype)


__all__ = ["ITERATOR_KEYS", "attribute", "call", "elementwise", "getitem", "setitem", "is_elementwise",
           "is_inplace_array", "IndexKind"]

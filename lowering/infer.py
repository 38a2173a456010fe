"""Type inference over the IR, seeded by annotations (or by the types of call arguments).

Each local variable gets one type, the join of everything stored into it
(one C++ slot per Python local). Functions are specialised per argument
types, so un-annotated helpers take their types from the call sites.
Recursion and loop-carried values are handled by iterating to a fixpoint: a
value whose type is not known yet is ``None`` (bottom) and silently
propagates; errors are only collected in the last pass, all of them, each
with its location.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from everypath.base.const_tables import ConstTable
from everypath.base.errors import CompileError, CompileErrors, internal_error
from everypath.lowering.indexing import index_type
from everypath.base.types import (
    EnumT, ImageT, RecordT,
    BOOL, NONE, ArrayT, DictT, DTypeT, FuncT, GenT, SetT, IterT, ListT, MaybeWeakT, NoneT, ScalarT, SliceT, StrT, TupleT,
    Type, element_type, join, join_var,
    like_tensor, INT, RangeT,
)
from everypath.base.types import UnionT
from everypath.lowering import unions
from everypath.lowering import type_tests
from everypath.lowering import union_dispatch
from everypath.tracer.classinfo import is_isinstance
from everypath.tracer.ir import Function, FunctionRef, Node, Opcode
from everypath.lowering import generators
from everypath.lowering import half_ops
from everypath.lowering import int_pow
from everypath.lowering import classes, key_calls, pil_images, records
from everypath.lowering import weak_results
from everypath.lowering.weak_locals import check_union_reads
from everypath.variants.ops import dicts, lists, sets
from everypath.variants.ops.strings import OVERLOADED as STR_OVERLOADED
from everypath.variants.registry import Site, TypingError, lookup_operator


@dataclass(eq=False)
class TypedFunction:
    """One specialisation of a traced function for concrete argument types."""

    fn: Function
    arg_types: tuple[Type, ...]
    symbol: str
    types: dict[Node, Type | None] = field(default_factory=dict)
    var_types: dict[str, Type | None] = field(default_factory=dict)
    return_type: Type | None = None
    callees: dict[Node, "TypedFunction"] = field(default_factory=dict)  # call node -> specialisation called
    closures: dict[Node, list["TypedFunction"]] = field(default_factory=dict)  # closure node -> its specialisations
    op_keys: dict[Node, str] = field(default_factory=dict)  # call node -> resolved operator key
    choices: dict[Node, list["TypedFunction"]] = field(default_factory=dict)  # ep.call -> closure per choice tag
    parent: "TypedFunction | None" = None
    demoted: set[str] = field(default_factory=set)  # locals read where Python vs NumPy scalar would differ
    dispatch: dict[Node, Any] = field(default_factory=dict)  # call on union operands -> union_dispatch.Plan
    mixed_pows: set[Node] = field(default_factory=set)  # int ** int typed float | int: lowering/int_pow.py
    weak_reads: set[Node] = field(default_factory=set)  # MaybeWeakT loads read as the pair: weak_results.py

    def type_of(self, node: Node) -> Type:
        t = self.types.get(node)
        assert t is not None, f"untyped node {node!r}"
        return t


class ProgramTyper:
    """Types the entry function and every specialisation reachable from it."""

    def __init__(self, functions: dict[FunctionRef, Function]) -> None:
        self.functions = functions
        self.specs: dict[tuple[Any, tuple[Type, ...]], TypedFunction] = {}
        self.order: list[TypedFunction] = []
        self.final = False
        self.errors: list[CompileError] = []
        self.changed = False

    # ---- driver --------------------------------------------------------
    def run(self, entry: FunctionRef, arg_types: tuple[Type, ...]) -> TypedFunction:
        root = self.specialise(self.functions[entry], arg_types, None)
        for _ in range(50):
            self.changed = False
            for spec in list(self.order):
                self.infer_function(spec)
            # a power whose exponent may be negative is a float | int: its users are typed again
            if not self.changed and not int_pow.widen(self.order):
                break
        self.final = True
        for spec in list(self.order):
            self.infer_function(spec)
        if self.errors:
            unique: dict[str, CompileError] = {}
            for e in self.errors:
                unique.setdefault(str(e), e)
            errs = list(unique.values())
            raise errs[0] if len(errs) == 1 else CompileErrors(errs)
        return root

    def specialise(self, fn: Function, arg_types: tuple[Type, ...], parent: TypedFunction | None) -> TypedFunction:
        key = ((id(fn), id(parent)) if fn.is_closure else fn.ref, arg_types)
        spec = self.specs.get(key)
        if spec is None:
            n = sum(1 for s in self.order if s.fn.qualname == fn.qualname)  # two lambdas share a qualname
            base = fn.qualname.replace(".<lambda>", "_lambda").replace(".", "_").replace("<", "").replace(">", "")
            spec = TypedFunction(fn, arg_types, symbol=f"{base}__{n}", parent=parent)
            self.specs[key] = spec
            self.order.append(spec)
            self.changed = True
            self.infer_function(spec)
        return spec

    def error(self, node: Node, message: str, spec: TypedFunction) -> None:
        if self.final:
            self.errors.append(CompileError.at(node.loc, message, (f"typing {spec.fn.qualname}{_sig(spec)}",)))

    # ---- one function --------------------------------------------------
    def infer_function(self, spec: TypedFunction) -> None:
        fn = spec.fn
        for _ in range(30):
            before = (dict(spec.var_types), spec.return_type, len(spec.weak_reads))
            self._block(spec, fn.body.nodes)
            if (dict(spec.var_types), spec.return_type, len(spec.weak_reads)) == before:
                break
            self.changed = True


    def _store(self, spec: TypedFunction, name: str, t: Type | None, node: Node) -> None:
        if t is None:
            return
        cur = spec.var_types.get(name)
        t = weak_results.as_local(t)  # a helper's (Python float | np.float32) result: a MaybeWeakT local
        if isinstance(t, IterT):
            self.error(node, f"storing {t.kind}(...) in a variable is not supported; iterate over it directly", spec)
        if isinstance(t, GenT):  # one owner of the coroutine frame: the loop that runs it (lowering/generators.py)
            self.error(node, "storing a generator in a variable is not supported in compiled code; iterate over "
                             "it where it is made ('for x in gen(...)')", spec)
            return
        new = join(cur, t) if name in spec.demoted else join_var(cur, t)
        if new is None and name.startswith("bool$"):  # the value of `x and y` / `x or y` (tracer/frontend.py)
            self.error(node, f"the value of this 'and'/'or' is one of its operands, which are {cur} and {t}: "
                             "compiled code keeps one type per value; use it as a condition only, or give both "
                             "operands one type (e.g. bool(x))", spec)
            return
        if new is None:  # values of different kinds: a tagged union (lowering/unions.py), or a located refusal
            try:
                new = unions.join_values(cur, t, f"variable '{name.split('$')[0]}'")
            except TypingError as exc:
                self.error(node, str(exc), spec)
                return
        spec.var_types[name] = new

    def _block(self, spec: TypedFunction, nodes: list[Node]) -> None:
        for n in nodes:
            try:
                t = self._node(spec, n)
            except TypingError as exc:
                self.error(n, str(exc), spec)
                t = None
            except (CompileError, RecursionError):
                raise
            except Exception as exc:  # a bug of ours: still say where in the user's code it happened
                raise internal_error(n.loc, exc, (f"typing {spec.fn.qualname}{_sig(spec)}",)) from exc
            spec.types[n] = t
            check_union_reads(self, spec, n)

    def demote(self, spec: TypedFunction, name: str) -> None:
        """A Python-or-NumPy-scalar local read where the two differ: one promoted NumPy slot, as before NEP 50."""
        spec.demoted.add(name)
        cur = spec.var_types.get(name)
        if isinstance(cur, MaybeWeakT):
            spec.var_types[name] = cur.demoted()
            self.changed = True

    def _node(self, spec: TypedFunction, n: Node) -> Type | None:
        op = n.op
        ty = spec.types.get
        if op is Opcode.PARAM:
            i = [p.name for p in spec.fn.params].index(n.target)
            return spec.arg_types[i]
        if op is Opcode.CONST:
            return const_type(n.target)
        if op is Opcode.LOAD:
            t = spec.var_types.get(n.target)
            if t is None and spec.parent is not None and n.target in spec.fn.freevars:
                t = _outer_var(spec.parent, n.target)
                if isinstance(t, MaybeWeakT):  # a closure reads the one C++ slot by reference
                    owner = spec.parent
                    while owner is not None and n.target not in owner.var_types:
                        owner = owner.parent
                    if owner is not None:
                        self.demote(owner, n.target)
                    t = t.demoted()
            if isinstance(t, MaybeWeakT):  # the NumPy scalar, or where the two differ the pair (weak_results.py)
                return weak_results.load_type(spec, n, t)
            if isinstance(t, UnionT):  # the members its tests leave, or the one an Optional is used as
                return unions.load_type(spec, n, t)
            if t is None and self.final and n.target in spec.fn.locals and n.target not in spec.fn.freevars:
                raise TypingError(f"local variable '{n.target.split('$')[0]}' is read here but every store to it "
                                  "is unreachable (CPython raises UnboundLocalError)")
            return t
        if op is Opcode.STORE:
            self._store(spec, n.target, ty(n.args[0]), n)
            return None
        if op is Opcode.GETATTR:
            from everypath.variants.attributes import attribute_type

            base = ty(n.args[0])
            if classes.is_class(base):  # b.area (a property), b.SCALE (a class constant): lowering/classes.py
                mine = classes.attribute_type(self, spec, n, base)  # type: ignore[arg-type]
                if mine is not classes.NOT_MINE:
                    return mine
            if isinstance(base, (EnumT, RecordT)):  # Color.RED.value, r.x: lowering/records.py
                return records.attribute_type(base, n.target)
            if isinstance(base, ImageT):  # img.size, img.mode: lowering/pil_images.py
                return pil_images.attribute_type(base, n.target)
            return None if base is None else like_tensor(attribute_type(base, n.target), base)
        if op is Opcode.GETITEM:
            base, idx = ty(n.args[0]), records.as_int(ty(n.args[1]))
            if base is None or idx is None:
                return None
            if isinstance(base, RecordT):  # a NamedTuple's item: lowering/records.py
                return records.index_type(base, n.args[1])
            if isinstance(base, DictT):  # d[k]: variants/ops/dicts.py
                dicts.check_lookup(base.key, idx)
                if base.value is None:
                    return None if not self.final else _raise("cannot infer the value type of an empty dict")
                return base.value
            return like_tensor(index_type(base, idx, n.args[1], unpack=n.meta.get("unpack")), base)
        if op is Opcode.SETITEM:
            base, idx, val = (ty(a) for a in n.args)
            if base is None or idx is None or val is None:
                return None
            if isinstance(base, DictT):  # d[k] = v: the key and value types it gives the dict
                self._refine(spec, n.args[0], dicts.stored(base, idx, val), n)
                self._refine_holders(spec, n.args[0], dicts.stored(base, idx, val), n)
                return None
            from everypath.lowering.indexing import check_setitem

            check_setitem(base, idx, val, n.args[1])
            return None
        if op is Opcode.IF:
            c = ty(n.args[0])
            if isinstance(c, ArrayT):
                raise TypingError("the truth value of an array is ambiguous; use .any() or .all()")
            known = static_truth(spec, n.args[0])
            if known is not False:
                self._block(spec, n.blocks[0].nodes)
            if known is not True:
                self._block(spec, n.blocks[1].nodes)
            return None
        if op is Opcode.FOR:
            it = ty(n.args[0])
            if it is not None:
                self._bind(spec, n.target, like_tensor(element_type(it), it), n)
            self._block(spec, n.blocks[0].nodes)
            return None
        if op is Opcode.LOOP:
            self._block(spec, n.blocks[0].nodes)
            return None
        if op in (Opcode.BREAK, Opcode.CONTINUE):
            return None
        if op is Opcode.RETURN and spec.fn.is_generator:  # its items are the yields' (lowering/generators.py)
            generators.type_return(self, spec)
            return None
        if op is Opcode.RETURN:
            t = ty(n.args[0])
            if t is not None:
                # each path's own kind (`return 0` beside `return x / 2`), else one joined type: lowering/unions.py
                spec.return_type = unions.join_result(spec.return_type, t)
            return None
        if op is Opcode.RAISE:
            for a in n.args:
                if ty(a) is not None and not isinstance(ty(a), (StrT, ScalarT)):
                    raise TypingError("exception messages must be strings")
            return None
        if op is Opcode.TRY:  # try/except/else/finally (tracer/exceptions.py): every block may run
            for b in n.blocks:
                self._block(spec, b.nodes)
            return None
        if op is Opcode.CLOSURE:
            spec.closures.setdefault(n, [])
            return FuncT(f"closure:{id(n.target)}:{n.target.qualname}")
        if op is Opcode.CALL:
            return self._call(spec, n)
        raise AssertionError(op)

    def _bind(self, spec: TypedFunction, pattern: Any, t: Type | None, n: Node) -> None:
        if t is None:
            return
        if isinstance(pattern, str):
            self._store(spec, pattern, t, n)
            return
        if not isinstance(t, TupleT) or len(t.items) != len(pattern):
            raise TypingError(f"cannot unpack {t} into {len(pattern)} names")
        for p, item in zip(pattern, t.items):
            self._bind(spec, p, item, n)

    # ---- calls ---------------------------------------------------------
    def _call(self, spec: TypedFunction, n: Node) -> Type | None:
        ty = spec.types.get
        arg_types = [ty(a) for a in n.args]
        kw_types = {k: ty(v) for k, v in n.kwargs.items()}
        if any(t is None for t in arg_types) or any(t is None for t in kw_types.values()):
            return None
        target = n.target
        if target in generators.CALLS:  # yield, max(g, default=d), next(g, d): lowering/generators.py
            return generators.type_call(self, spec, n, arg_types)  # type: ignore[arg-type]
        if any(isinstance(t, GenT) for t in (*arg_types, *kw_types.values())):
            raise TypingError(generators.consumer_error(target))
        if union_dispatch.dispatched(target, arg_types):  # a switch over the tag: lowering/union_dispatch.py
            return union_dispatch.type_call(spec, n, lambda: self._call(spec, n))
        spec.dispatch.pop(n, None)
        unions.check_operands(target, arg_types, n)  # type: ignore[arg-type]
        mine = int_pow.type_call(spec, n, arg_types)  # type: ignore[arg-type]  # b ** e, pow(a, b, m): lowering/int_pow.py
        if mine is not int_pow.NOT_MINE:
            return mine  # type: ignore[return-value]
        if isinstance(target, FunctionRef):
            return self._call_user(spec, n, self.functions[target], arg_types, kw_types)  # type: ignore[arg-type]
        if key_calls.keyed(n):  # sorted/max/min/list.sort with key=: lowering/key_calls.py
            return key_calls.type_call(n, arg_types, kw_types,  # type: ignore[arg-type]
                                       lambda f, item: self._call_closure(spec, n, f, [item]))
        mine = classes.call_type(self, spec, n, arg_types, kw_types)  # type: ignore[arg-type]  # plain classes
        if mine is not classes.NOT_MINE:
            return mine
        mine = records.call_type(n, arg_types, kw_types)  # type: ignore[arg-type]  # enums, records
        if mine is not records.NOT_MINE:
            return mine
        mine = pil_images.call_type(spec, n, arg_types, kw_types)  # type: ignore[arg-type]  # PIL images
        if mine is not pil_images.NOT_MINE:
            return mine
        if target == "ep.call":
            f = arg_types[0]
            if not isinstance(f, FuncT):
                raise TypingError(f"'{f}' object is not callable")
            result: Type | None = None
            choices: list[TypedFunction] = []
            for member in f.members:  # one closure, or a choice between several
                closure = _closure_for(spec, FuncT(member))
                if closure is None:
                    raise TypingError(f"calling a value of type {f} is not supported")
                fn_node, owner = closure
                r = self._call_user(spec, n, fn_node.target, arg_types[1:], kw_types, closure_owner=(owner, fn_node))  # type: ignore[arg-type]
                choices.append(spec.callees[n])
                result = r if result is None else join(result, r)
                if result is None and r is not None:
                    raise TypingError(f"the closures this call may reach return different kinds of values ({r})")
            spec.choices[n] = choices
            return result
        if target == "ep.caught":  # str(e) of a caught exception (tracer/exceptions.py)
            return StrT()
        if target in ("ep.match_seq", "ep.match_class", "ep.match_is"):  # match patterns: lowering/match.py
            return BOOL
        if is_isinstance(target):  # isinstance(x, C): lowering/type_tests.py
            return type_tests.type_call(arg_types[0], target)  # type: ignore[arg-type]
        if target == "ep.truth":  # an and/or operand in a condition: its truth (tracer/frontend.py `test`)
            if isinstance(arg_types[0], ArrayT):
                raise TypingError("the truth value of an array is ambiguous; use .any() or .all()")
            return BOOL
        if target == "ep.tuple":
            return TupleT(tuple(arg_types))  # type: ignore[arg-type]
        if target == "ep.list":
            elem = None
            for t in arg_types:
                # [1, "a", None]: a list of a union when the items share no one type (lowering/unions.py)
                elem = join(elem, t) or unions.union_items(elem, t)
                if elem is None:
                    if all(isinstance(a, ArrayT) for a in arg_types):  # [a_f64, b_i64] for np.concatenate:
                        return TupleT(tuple(arg_types))  # type: ignore[arg-type]  # a fixed sequence, as a tuple
                    raise TypingError("list items must share one type")
            return ListT(elem)
        if target == "builtins.slice":
            for t in arg_types:
                if not (isinstance(t, NoneT) or (isinstance(t, ScalarT) and (t.dtype.is_integer or t.dtype.is_bool))):
                    raise TypingError("slice indices must be integers or None")
            return SliceT()
        if target in ("ep.format", "ep.rconv", "ep.sconv", "ep.fspec"):
            return StrT()
        if target in ("operator.eq", "operator.ne") and all(isinstance(t, TupleT) for t in arg_types):
            return BOOL  # shape comparisons: a.shape == b.shape
        if target in ("operator.eq", "operator.ne") and all(isinstance(t, DTypeT) for t in arg_types):
            return BOOL  # a.dtype == np.float64: decided at compile time
        if target in ("operator.is_", "operator.is_not"):
            return BOOL  # only `x is None` reaches here (checked by the frontend); decided at compile time
        if target == "ep.dict":  # {k: v, ...}: keys and values interleaved (tracer/frontend.py)
            d: DictT = DictT(None, None)
            for k, v in zip(arg_types[::2], arg_types[1::2]):
                d = dicts.stored(d, k, v)  # type: ignore[arg-type]
            return d
        if target == "ep.set":  # {a, b, ...}: one item type (variants/ops/sets.py)
            st = SetT(None)
            for t in arg_types:
                st = sets.added(st, t)  # type: ignore[arg-type]
            return st
        if target == "method.add" and isinstance(arg_types[0], SetT) and len(arg_types) == 2:
            if n.args[0].op is Opcode.LOAD:  # s.add(x): the local learns its item type
                self._store(spec, n.args[0].target, sets.added(arg_types[0], arg_types[1]), n)  # type: ignore[arg-type]
        if target == "ep.delitem":
            if not isinstance(arg_types[0], DictT):
                raise TypingError(f"'del x[i]' is only supported on dict items, not on {arg_types[0]}")
            dicts.check_lookup(arg_types[0].key, arg_types[1])  # type: ignore[arg-type]
            return NONE
        if target in ("method.setdefault", "method.update") and isinstance(arg_types[0], DictT):
            d0 = arg_types[0]
            if target == "method.setdefault" and len(arg_types) == 3:
                inner = dicts.stored(d0, arg_types[1], arg_types[2])  # type: ignore[arg-type]
                self._refine(spec, n.args[0], inner, n)
                self._refine_holders(spec, n.args[0], inner, n)  # d.setdefault(a, {}).setdefault(b, [])
            elif target == "method.update" and len(arg_types) == 2 and isinstance(arg_types[1], DictT):
                o = arg_types[1]
                if o.key is not None and o.value is not None:
                    self._refine(spec, n.args[0], dicts.stored(d0, o.key, o.value), n)
        if target in ("method.extend", "method.insert") and isinstance(arg_types[0], ListT) and \
                n.args[0].op is Opcode.LOAD and arg_types[0].elem is None:  # out = []; out.extend(xs): learns xs's
            src = arg_types[-1]
            elem = INT if isinstance(src, RangeT) else src.elem if target == "method.extend" and isinstance(src, ListT) \
                else src if target == "method.insert" else None
            if elem is not None:
                self._store(spec, n.args[0].target, ListT(elem), n)
        if target == "method.append" and isinstance(arg_types[0], ListT):
            lst = n.args[0]
            if lst.op is Opcode.LOAD:
                self._store(spec, lst.target, ListT(arg_types[1]), n)
            # d.setdefault(k, []).append(x), d[k].append(x): d's values learn it (and the dicts holding d)
            self._refine_holders(spec, lst, ListT(arg_types[1]), n, "the list appended to")
            return NONE
        arg_types = [records.as_int(t) for t in arg_types]  # an IntEnum member computes as its int value
        key, site = resolve_site(n, arg_types, kw_types)  # type: ignore[arg-type]
        spec.op_keys[n] = key
        op = lookup_operator(key)
        return half_ops.check(op, site, op.infer(site))  # float16 only where it is written for it

    def _refine(self, spec: TypedFunction, base: Node, t: DictT, n: Node) -> None:
        """A store into a dict held by a local: the local's type learns the key and value types."""
        if base.op is Opcode.LOAD:
            self._store(spec, base.target, t, n)

    def _refine_holders(self, spec: TypedFunction, item: Node, t: Type, n: Node,
                        what: str = "the dict stored into") -> None:
        """d.setdefault(k, {})[x] = v, d[a][b] = v: the dicts holding the value `item` (now of type t) learn
        its type, outwards (an empty dict's key and value types come from such later stores)."""
        owner = _dict_holding(item)
        while owner is not None:
            dt = spec.types.get(owner)
            if not (isinstance(dt, DictT) and dt.key is not None):
                return
            t = DictT(dt.key, dicts.merge(dt.value, t, what))
            self._refine(spec, owner, t, n)
            owner = _dict_holding(owner)

    def _call_closure(self, spec: TypedFunction, n: Node, f: FuncT, arg_types: list[Type]) -> Type | None:
        """A call at n of the one closure f stands for (a key= function), recorded as n's callee."""
        closure = _closure_for(spec, f)
        if closure is None:
            raise TypingError(f"calling a value of type {f} is not supported")
        fn_node, owner = closure
        return self._call_user(spec, n, fn_node.target, arg_types, {}, closure_owner=(owner, fn_node))

    def _call_user(self, spec: TypedFunction, n: Node, fn: Function, arg_types: list[Type],
                   kw_types: dict[str, Type], closure_owner: tuple[TypedFunction, Node] | None = None) -> Type | None:
        bound = bind_arguments(fn, arg_types, kw_types, n)
        owner = closure_owner[0] if closure_owner else None
        callee = self.specialise(fn, bound, owner if fn.is_closure else None)
        if closure_owner is not None:
            owner_spec, cnode = closure_owner
            lst = owner_spec.closures.setdefault(cnode, [])
            if callee not in lst:
                lst.append(callee)
        spec.callees[n] = callee
        return callee.return_type


def _dict_holding(item: Node) -> Node | None:
    """The dict node an item expression reads from: d[k] or d.setdefault(k, default)."""
    if item.op is Opcode.GETITEM or (item.op is Opcode.CALL and item.target == "method.setdefault"):
        return item.args[0]
    return None


def _raise(message: str) -> None:
    raise TypingError(message)


def static_truth(spec: TypedFunction, cond: Node) -> bool | None:
    """The value of a condition known at compile time (`x is None`, constants), else None.

    Branches that can never run are neither typed nor emitted, so
    `if w is None: ... else: w * 2` compiles for both kinds of `w`."""
    if cond.op is Opcode.CONST and isinstance(cond.target, (bool, int, float, type(None))):
        return bool(cond.target)
    if cond.op is Opcode.CALL and cond.target in ("operator.is_", "operator.is_not"):
        ts = [spec.types.get(a) for a in cond.args]
        if any(t is None or isinstance(t, UnionT) for t in ts):  # a union's tag decides it at run time
            return None
        if any(isinstance(t, EnumT) for t in ts):  # `mode is Mode.FAST`: known only for two constants
            if not all(a.op is Opcode.CONST for a in cond.args):
                return None
            same = cond.args[0].target is cond.args[1].target
            return same if cond.target == "operator.is_" else not same
        same = all(isinstance(t, NoneT) for t in ts)
        return same if cond.target == "operator.is_" else not same
    if cond.op is Opcode.CALL and cond.target == "operator.not_":
        inner = static_truth(spec, cond.args[0])
        return None if inner is None else not inner
    if cond.op is Opcode.CALL and cond.target == "ep.truth":
        return static_truth(spec, cond.args[0])
    if cond.op is Opcode.CALL and cond.target in ("ep.match_seq", "ep.match_class", "ep.match_is"):
        from everypath.lowering.match import static_truth as match_truth  # a pattern's kind test

        return match_truth(cond, spec.types)
    return None


def bind_arguments(fn: Function, arg_types: list[Type], kw_types: dict[str, Type], n: Node) -> tuple[Type, ...]:
    """Positional + keyword + default argument types in parameter order (CPython's binding rules)."""
    names = [p.name for p in fn.params]
    if len(arg_types) > len(names):
        raise TypingError(f"{fn.name}() takes {len(names)} positional arguments but {len(arg_types)} were given")
    out: list[Type | None] = list(arg_types) + [None] * (len(names) - len(arg_types))
    for k, t in kw_types.items():
        if k not in names:
            raise TypingError(f"{fn.name}() got an unexpected keyword argument '{k}'")
        i = names.index(k)
        if out[i] is not None:
            raise TypingError(f"{fn.name}() got multiple values for argument '{k}'")
        out[i] = t
    for i, p in enumerate(fn.params):
        if out[i] is None:
            if not p.has_default:
                raise TypingError(f"{fn.name}() missing required argument '{p.name}'")
            out[i] = const_type(p.default)
    return tuple(out)  # type: ignore[arg-type]


def _outer_var(spec: TypedFunction, name: str) -> Type | None:
    s: TypedFunction | None = spec
    while s is not None:
        if name in s.var_types:
            return s.var_types[name]
        s = s.parent
    return None


def _closure_for(spec: TypedFunction, t: Type | None) -> tuple[Node, TypedFunction] | None:
    """The CLOSURE node (and the specialisation owning it) that a closure type stands for."""
    if not isinstance(t, FuncT) or not t.key.startswith("closure:"):
        return None
    want = int(t.key.split(":")[1])
    s: TypedFunction | None = spec
    while s is not None:
        for node in s.fn.body.walk():
            if node.op is Opcode.CLOSURE and id(node.target) == want:
                return node, s
        s = s.parent
    return None


def const_type(value: Any) -> Type:
    import numpy as np

    from everypath.base.annotations import describe_value_type
    from everypath.base.types import DType, DTypeT, EllipsisT, FuncT, StrT

    if isinstance(value, str) and not isinstance(value, enum.Enum):  # a StrEnum member is an enum (EnumT)
        return StrT()
    if isinstance(value, np.dtype):
        return DTypeT(DType.of(value))
    if isinstance(value, FunctionRef):
        return FuncT(str(value))
    if isinstance(value, ConstTable):  # a module-global dict/set/list of constants (base/const_tables.py)
        return value.type()
    if value is Ellipsis:  # only an index item (tracer/frontend.py index_item)
        return EllipsisT()
    t = describe_value_type(value)
    if t is None:
        raise TypingError(f"constant {value!r} is not supported")
    return t


def resolve_site(n: Node, arg_types: list[Type], kw_types: dict[str, Type]) -> tuple[str, Site]:
    """Method calls are resolved by receiver type (ndarray.sum, list.append); calls on torch tensors
    by torch's rules (tensor.sum, torch.add for +: variants/ops/_torch.py)."""
    key = n.target
    if key in sets.OVERLOADED and any(isinstance(t, SetT) for t in arg_types):  # a | b, x in s: variants/ops/sets.py
        return f"set:{key}", Site(f"set:{key}", n, arg_types, kw_types)
    if key in dicts.OVERLOADED and any(dicts.is_dictlike(t) for t in arg_types):  # len(d), k in d: variants/ops/dicts.py
        return f"dict:{key}", Site(f"dict:{key}", n, arg_types, kw_types)
    if key in STR_OVERLOADED and any(isinstance(t, StrT) for t in arg_types):  # a + b of str: variants/ops/strings.py
        return f"str:{key}", Site(f"str:{key}", n, arg_types, kw_types)
    prefix = lists.route(key, arg_types)  # a + b, a == b, not a of lists, a < b of tuples: variants/ops/lists.py
    if prefix is not None:
        return f"{prefix}:{key}", Site(f"{prefix}:{key}", n, arg_types, kw_types)
    if any(isinstance(t, ArrayT) and t.torch for t in (*arg_types, *kw_types.values())):
        from everypath.variants.ops._torch import torch_key

        key = torch_key(key, arg_types)
    if key.startswith("method."):
        from everypath.base.types import GeneratorT

        recv = arg_types[0]
        meth = key.split(".", 1)[1]
        if isinstance(recv, ArrayT):
            key = f"ndarray.{meth}"
        elif isinstance(recv, ScalarT):
            key = f"scalar.{meth}"
        elif isinstance(recv, ListT):
            key = f"list.{meth}"
        elif isinstance(recv, StrT):
            key = f"str.{meth}"
        elif isinstance(recv, SetT):
            if meth not in sets.METHODS:
                raise TypingError(f"set.{meth}() is not supported in compiled code")
            key = f"set.{meth}"
        elif isinstance(recv, DictT):
            if meth not in dicts.METHODS:
                raise TypingError(f"dict.{meth}() is not supported in compiled code")
            key = f"dict.{meth}"
        elif isinstance(recv, GeneratorT):  # np.random.Generator: variants/ops/random.py
            key = f"Generator.{meth}"
        else:
            raise TypingError(f"{recv} has no method '{meth}'")
    return key, Site(key, n, arg_types, kw_types)


def _sig(spec: TypedFunction) -> str:
    return "(" + ", ".join(str(t) for t in spec.arg_types) + ")"


__all__ = ["ProgramTyper", "TypedFunction", "const_type", "bind_arguments",
           "BOOL", "NoneT", "SliceT"]

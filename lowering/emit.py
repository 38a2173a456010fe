"""Typed IR -> one C++20 translation unit.

Every Python local becomes one C++ variable declared at the top of its
function (Python scopes are function-wide); each value node is evaluated
once, in program order, into a temporary unless it is cheap and safe to
inline. Element-wise trees are fused into one loop (see emit_values). Each
statement carries a ``// file.py:LINE`` marker.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import numpy as np

from everypath.base.errors import CompileError, internal_error
from everypath.lowering.borrowed import borrowed_params
from everypath.lowering.bounds import LowerBounds
from everypath.lowering import pyint_checks
from everypath.lowering.int_ranges import IntRanges
from everypath.base.cpp import EmitError, c_string, cast, ctype, literal, string_literal
from everypath.lowering import exceptions, generators
from everypath.lowering.definite import Unbound, analyse
from everypath.lowering.emit_values import (
    ITERATOR_KEYS, attribute, call, getitem, is_elementwise, is_fusable_reduction, is_inplace_array,
    setitem,
)
from everypath.lowering.infer import TypedFunction, const_type, static_truth
from everypath.base.types import (
    INT, ArrayT, DictT, DType, DTypeT, EnumT, FuncT, GenT, SetT, IterT, ListT, MaybeWeakT, NoneT, RangeT, ScalarT, StrT, TupleT, Type, element_type,
)
from everypath.tracer.ir import Block, Node, Opcode
from everypath.base.types import UnionT
from everypath.lowering import unions, weak_results

if TYPE_CHECKING:
    from everypath.lowering.dispatch import PathPolicy
    from everypath.lowering.masked_update import MaskedUpdate
    from everypath.lowering.sites import SiteTable
    from everypath.lowering.helper_clones import HelperClones
    from everypath.variants.registry import LowerSite, Operator, Variant

_PURE = frozenset({Opcode.CONST, Opcode.LOAD, Opcode.PARAM, Opcode.GETATTR})
# calls that only build index values: fusion may reach past them
_PURE_CALLS = frozenset({"builtins.slice", "ep.tuple"})


def ident(name: str) -> str:
    return "l_" + name.replace("$", "_")


class FunctionEmitter:
    def __init__(self, spec: TypedFunction, indent: int = 1, policy: "PathPolicy | None" = None,
                 sites: "SiteTable | None" = None, clones: "HelperClones | None" = None) -> None:
        from everypath.lowering.dispatch import PathPolicy
        from everypath.lowering.sites import SiteTable

        self.spec = spec
        self.policy = policy or PathPolicy(frozenset({"loops"}))
        self.sites = sites if sites is not None else SiteTable()  # the unit's operator call sites
        self.unit_stride: frozenset[str] = frozenset()  # arrays with last stride 1 (lowering/unit_stride.py)
        self.proven: frozenset[tuple[Node, int, str]] = frozenset()  # (index, axis, array) in range here
        self.borrowed: frozenset[str] = frozenset()  # array parameters bound by reference (lowering/borrowed.py)
        self.facts: tuple[Node | None, frozenset[tuple[str, int, str, int]]] = (None, frozenset())  # for g++
        self.proven_calls: dict[Node, frozenset[tuple[int, int, int]]] = {}  # helper calls: accesses proven
        self.clones = clones  # the unit's helper copies (lowering/helper_clones.py); None: no copies
        self.used_paths: set[str] = set()  # implementation paths the emitted calls use
        self.used_headers: set[str] = set()  # their headers
        self.lines: list[str] = []
        self.depth = indent
        self.exprs: dict[Node, str] = {}
        self.counter = 0
        self.last_line: tuple[str, int] | None = None
        self.fused: set[Node] = set()
        self._plan_fusion(spec.fn.body)
        self.masked: dict[Node, "MaskedUpdate"] = {}  # a[m] = f(a[m]) done in place
        self._plan_masked()
        self.bounds = LowerBounds(spec)
        self.int_ranges = IntRanges(self.bounds)  # which Python int operations need overflow checks
        self.unbound = Unbound()  # filled by function_body

    # ---- small helpers -------------------------------------------------
    def lower_call(self, op: "Operator", site: "LowerSite") -> str:
        """A registry call through every implementation path the policy admits for it."""
        from everypath.lowering.dispatch import dispatch_expr, lower_variants
        from everypath.lowering.sites import dtype_name, recorded

        options = lower_variants(op, site, self.policy, self.used_paths)
        self.used_headers.update(v.header for v, _ in options)
        self.used_headers.update(v.header for v in op.variants if v.path == "loops")  # shared helpers
        types = [*site.arg_types, *site.kw_types.values(), site.result]
        if not recorded(op, types):
            return dispatch_expr(options, list(site.args))
        return self.site_call(site.node, op.key, dtype_name(site.result), options, list(site.args))

    def site_call(self, n: Node, op: str, dtype: str, options: "list[tuple[Variant, str]]",
                  operands: list[str]) -> str:
        """One recorded operator call site: the shim chooses among the options and times the call."""
        from everypath.lowering.sites import Site, site_function

        fn = self.spec.fn
        where = f"{os.path.basename(n.loc.filename or fn.filename)}:{n.loc.lineno or fn.loc.lineno}"
        site = Site(site_function(fn.module, fn.qualname, fn.filename), op, where, dtype, tuple(v for v, _ in options))
        return self.sites.call(site, [e for _, e in options], operands)

    def ty(self, n: Node) -> Any:
        t = self.spec.type_of(n)
        return INT if isinstance(t, EnumT) and t.by_value else t  # an IntEnum is its int64 value (records.py)

    def line(self, text: str) -> None:
        self.lines.append("  " * self.depth + text)

    def fresh(self, hint: str = "t") -> str:
        self.counter += 1
        return f"{hint}{self.counter}"

    def mark(self, n: Node) -> None:
        key = (n.loc.filename, n.loc.lineno)
        if key != self.last_line and n.loc.lineno:
            self.last_line = key
            comment = f"// {os.path.basename(n.loc.filename)}:{n.loc.lineno}"
            # EP_LINE: the line a run-time error is reported at (array.hpp; free on the hot path)
            same_file = not n.loc.filename or n.loc.filename == self.spec.fn.filename
            self.line(f"EP_LINE({n.loc.lineno});  {comment}" if same_file else comment)

    def value(self, n: Node) -> str:
        try:
            return self.exprs[n]
        except KeyError:
            raise EmitError(f"internal: {n!r} used before it was emitted") from None

    def list_type_for(self, n: Node) -> ListT:
        for u in n.users:
            if u.op is Opcode.STORE:
                t = self.spec.var_types.get(u.target)
                if isinstance(t, ListT) and t.elem is not None:
                    return t
            d = self._dict_user(u, n)  # d[k] = [] / d.setdefault(k, []): the dict's value type
            if isinstance(d, DictT) and isinstance(d.value, ListT) and d.value.elem is not None:
                return d.value
            r = self._returned(u, n)  # `return []` beside `return rows`: the function's result type
            if isinstance(r, ListT) and r.elem is not None:
                return r
        t = self.ty(n)
        if isinstance(t, ListT) and t.elem is not None:
            return t
        raise EmitError("cannot infer the element type of an empty list (append to it first)")

    def _returned(self, u: Node, n: Node) -> Type | None:
        """The function's result type when user u returns node n (an empty display takes it), else None."""
        if u.op is Opcode.RETURN and u.args and u.args[0] is n and not self.spec.fn.is_generator:
            return self.spec.return_type
        return None

    def set_type_for(self, n: Node) -> SetT:
        """A set display's C++ type: its variable's (which later adds completed), else its own."""
        for u in n.users:
            if u.op is Opcode.STORE:
                t = self.spec.var_types.get(u.target)
                if isinstance(t, SetT) and t.elem is not None:
                    return t
            r = self._returned(u, n)
            if isinstance(r, SetT) and r.elem is not None:
                return r
        t = self.ty(n)
        if isinstance(t, SetT) and t.elem is not None:
            return t
        raise EmitError("cannot infer the item type of an empty set (add to it first)")

    def _dict_user(self, u: Node, n: Node) -> Type | None:
        """The (final) type of the dict that node n is stored into as a value by user u, if it is."""
        if u.op is Opcode.CALL and u.target == "ep.dict" and any(v is n for v in u.args[1::2]):
            try:  # {"eval": {}}: the enclosing display's type
                return self.dict_type_for(u)
            except EmitError:
                return None
        stores = (u.op is Opcode.SETITEM and u.args[2] is n) or (
            u.op is Opcode.CALL and u.target in ("method.setdefault", "method.get", "method.pop")
            and len(u.args) == 3 and u.args[2] is n)
        if not stores:
            return None
        base = u.args[0]
        return self.spec.var_types.get(base.target) if base.op is Opcode.LOAD else self.spec.types.get(base)

    def dict_type_for(self, n: Node) -> DictT:
        """A dict display's C++ type: its variable's (which later stores completed), else its own."""
        for u in n.users:
            if u.op is Opcode.STORE:
                t = self.spec.var_types.get(u.target)
                if isinstance(t, DictT) and t.key is not None and t.value is not None:
                    return t
            d = self._dict_user(u, n)  # out["eval"] = {} ...: the outer dict's value type
            if isinstance(d, DictT) and isinstance(d.value, DictT) and d.value.key is not None and d.value.value is not None:
                return d.value
            r = self._returned(u, n)  # `return {}` beside `return counts`
            if isinstance(r, DictT) and r.key is not None and r.value is not None:
                return r
        t = self.ty(n)
        if isinstance(t, DictT) and t.key is not None and t.value is not None:
            return t
        raise EmitError("cannot infer the key and value types of an empty dict (store into it first)")

    # ---- fusion and inlining decisions --------------------------------------
    def _plan_fusion(self, block: Block) -> None:
        """An element-wise array node with exactly one element-wise user later in the same
        block, and nothing but pure nodes in between, is computed inside its user's loop."""
        for i, n in enumerate(block.nodes):
            for b in n.blocks:
                self._plan_fusion(b)
            if not (is_elementwise(self, n) and isinstance(self.spec.types.get(n), ArrayT)):
                continue
            if is_inplace_array(self, n) or len(n.users) != 1:
                continue
            (u,) = n.users
            consumer = (is_elementwise(self, u) and isinstance(self.spec.types.get(u), ArrayT)) or \
                is_fusable_reduction(self, u, n)
            if u.block is not block or not consumer:
                continue
            j = block.nodes.index(u)
            between = block.nodes[i + 1:j]
            if all(m.op in _PURE or (m.op is Opcode.CALL and m.target in _PURE_CALLS) or self._is_view(m)
                   or (is_elementwise(self, m) and not is_inplace_array(self, m)) for m in between):
                self.fused.add(n)

    def _is_view(self, m: Node) -> bool:
        """Basic slicing of an array: a view, no copy and no effect (fusion may reach past it)."""
        if m.op is not Opcode.GETITEM or not isinstance(self.spec.types.get(m.args[0]), ArrayT):
            return False
        from everypath.lowering.indexing import plan_array_index

        try:
            return plan_array_index(self.spec.types[m.args[0]], self.spec.type_of(m.args[1])).kind == "view"
        except Exception:  # an index the planner rejects is emitted (and reported) later
            return False

    def _plan_masked(self) -> None:
        from everypath.lowering.masked_update import plan_masked_updates

        plan_masked_updates(self, self.spec.fn.body, self.masked)
        for p in self.masked.values():
            self.fused |= p.reads | p.tree  # computed inside the update, never materialised

    def _load_inlinable(self, n: Node) -> bool:
        block = n.block
        assert block is not None
        i = block.nodes.index(n)
        last = i
        for u in n.users:
            eff = u
            while eff in self.fused:
                (eff,) = eff.users
            if eff.block is not block:
                return False
            last = max(last, block.nodes.index(eff))
        for m in block.nodes[i + 1:last]:
            for x in (m, *[y for b in m.blocks for y in b.walk()]):
                if x.op is Opcode.STORE and x.target == n.target:
                    return False
                if x.op is Opcode.FOR and n.target in _pattern_names(x.target):
                    return False
        return True

    def _str_append(self, n: Node) -> bool:
        """`out += s` / `out = out + s` of a str local: appended in place (amortised O(1)), not rebuilt."""
        if self.spec.op_keys.get(n) not in ("str:operator.iadd", "str:operator.add") or len(n.users) != 1:
            return False
        base, (user,) = n.args[0], n.users
        block = n.block
        if not (base.op is Opcode.LOAD and user.op is Opcode.STORE and user.target == base.target
                and self.exprs.get(base) == ident(base.target) and isinstance(self.ty(n.args[1]), StrT)
                and block is not None and user.block is block
                and block.nodes.index(user) == block.nodes.index(n) + 1):
            return False
        self.mark(n)
        self.line(f"{ident(base.target)} += {self.value(n.args[1])};")
        self.exprs[n] = ident(base.target)
        return True

    # ---- statements ----------------------------------------------------
    def block(self, block: Block) -> None:
        for n in block.nodes:
            try:
                self.node(n)
            except EmitError as exc:
                raise CompileError.at(n.loc, str(exc), (f"generating C++ for {self.spec.fn.qualname}",)) from None
            except (CompileError, RecursionError):
                raise
            except Exception as exc:  # a bug of ours: still say where in the user's code it happened
                raise internal_error(n.loc, exc, (f"generating C++ for {self.spec.fn.qualname}",)) from exc

    def node(self, n: Node) -> None:
        op = n.op
        if op is Opcode.PARAM:
            self.exprs[n] = "a_" + n.target
            return
        if op is Opcode.CONST:
            pyint_checks.check_constant(self, n)  # `2 ** 70`: a located error, not a wrapped literal
            self.exprs[n] = literal(n.target, self.ty(n))
            return
        if op is Opcode.CLOSURE:
            self.exprs[n] = "ep::None{}"  # defined at the top of the function (see function_body)
            return
        if op is Opcode.LOAD:
            t = self.ty(n)
            name = ident(n.target)
            if n in self.unbound.checked:  # may run before any store (lowering/definite.py)
                self.mark(n)
                msg = string_literal(self.unbound.message(n.target))
                self.line(f'if (!{name}__set) ep::raise("UnboundLocalError", {msg});')
            vart = self.spec.var_types.get(n.target)
            if isinstance(vart, MaybeWeakT):
                self.mark(n)
                self.exprs[n] = self._materialize(n, weak_results.load(self, name, vart, t) if isinstance(t, UnionT)
                                                  else self._load_maybe_weak(n.target, vart))
            elif isinstance(vart, UnionT) and t != vart:  # narrowed, or an Optional read as its value
                self.mark(n)
                self.exprs[n] = self._materialize(n, unions.load(self, n, vart, name))
            elif isinstance(t, FuncT) and len(t.members) > 1:
                self.exprs[n] = self._materialize(n, name)  # the tag of the chosen closure
            elif isinstance(t, (FuncT,)):
                self.exprs[n] = "ep::None{}"
            elif isinstance(t, ArrayT | ListT | TupleT | StrT) and self._load_inlinable(n):
                self.exprs[n] = name
            else:
                self.mark(n)
                self.exprs[n] = self._materialize(n, name)
            return
        if op is Opcode.CALL and n.target in ITERATOR_KEYS | {"builtins.range"} and n.users and all(
                u.op is Opcode.FOR and u.args[0] is n for u in n.users):
            self.exprs[n] = "/*iterator*/"
            return
        if op is Opcode.CALL and n.target == "builtins.slice":
            self.exprs[n] = call(self, n)
            return
        if op is Opcode.CALL and n.target == "ep.tuple" and n.users and all(
                u.op in (Opcode.GETITEM, Opcode.SETITEM) and u.args[1] is n
                and not isinstance(self.spec.types.get(u.args[0]), DictT) for u in n.users):  # d[(i, j)]: a key
            self.exprs[n] = "/*index*/"
            return
        if op is Opcode.CALL and n.target in generators.CALLS:  # yield: lowering/generators.py
            generators.emit_call(self, n)
            return
        if op is Opcode.CALL:
            self._pyint_checks(n)  # before the element loop, also when this node is fused into it
            if self.spec.op_keys.get(n) == "ndarray.fill" and len(n.args) == 2:
                self._store_checks(n.args[0], n.args[1])
        if op is Opcode.CALL and self._str_append(n):
            return
        if n in self.fused:
            self.exprs[n] = "/*fused*/"
            return
        self.mark(n)
        if op is Opcode.STORE:
            t = self.spec.var_types.get(n.target)
            vt = self.ty(n.args[0])
            if isinstance(t, FuncT) and len(t.members) > 1 and isinstance(vt, FuncT):
                self._assigned(n.target)
                tag = t.members.index(vt.key) if len(vt.members) == 1 else None
                self.line(f"{ident(n.target)} = {tag if tag is not None else self.value(n.args[0])};")
                return
            self._assigned(n.target)
            if isinstance(t, FuncT) or isinstance(vt, FuncT) or (n.target in self.borrowed and n.args[0].op is Opcode.PARAM):
                return
            v = self.value(n.args[0])
            if isinstance(t, MaybeWeakT):
                self._store_maybe_weak(n.target, v, vt, t)
            elif v != ident(n.target):
                self.line(f"{ident(n.target)} = {self._convert(v, self.ty(n.args[0]), t)};")
            return
        if op is Opcode.SETITEM:
            self._store_checks(n.args[0], n.args[2], n.args[1])
            if n in self.masked:
                from everypath.lowering.masked_update import emit_masked_update

                emit_masked_update(self, self.masked[n])
            else:
                setitem(self, n)
            return
        if op is Opcode.IF:
            known = static_truth(self.spec, n.args[0])
            if known is not None:  # decided at compile time: only the live branch exists
                live = n.blocks[0] if known else n.blocks[1]
                if live.nodes:
                    self.line("{")
                    self.nested(live)
                    self.line("}")
                return
            self.line(f"if ({self.truth(n.args[0])}) {{")
            self.nested(n.blocks[0])
            if n.blocks[1].nodes:
                self.line("} else {")
                self.nested(n.blocks[1])
            self.line("}")
            return
        if op is Opcode.LOOP:
            self.line("while (true) {")
            self.nested(n.blocks[0])
            self.line("}")
            return
        if op is Opcode.FOR:
            self.emit_for(n)
            return
        if op is Opcode.TRY:  # try/except/else/finally: lowering/exceptions.py
            exceptions.emit_try(self, n)
            return
        if op in exceptions.JUMPS and exceptions.emit_jump(self, n):  # leaving through a finally
            return
        if op is Opcode.BREAK:
            self.line("break;")
            return
        if op is Opcode.CONTINUE:
            self.line("continue;")
            return
        if op is Opcode.RETURN and self.spec.fn.is_generator:
            generators.emit_return(self, n)
            return
        if op is Opcode.RETURN:
            rt = self.spec.return_type
            self.line(f"return {self._convert(self.value(n.args[0]), self.ty(n.args[0]), rt)};")
            return
        if op is Opcode.RAISE and n.target == exceptions.RERAISE:
            exceptions.emit_reraise(self, n)
            return
        if op is Opcode.RAISE:
            msg = self._message(n)
            self.line(f'ep::raise("{n.target}", {msg});')
            return
        # value-producing nodes: CALL, GETATTR, GETITEM
        if op is Opcode.CALL:
            expr = unions.is_none(self, n) or call(self, n)  # `x is None` of a union: its tag
        elif op is Opcode.GETATTR:
            expr = attribute(self, n)
        elif op is Opcode.GETITEM:
            expr = getitem(self, n)
        else:  # pragma: no cover
            raise AssertionError(op)
        if not n.users:
            self.line(f"(void)({expr});")
            self.exprs[n] = expr
            return
        if op is Opcode.CALL and is_elementwise(self, n) and is_inplace_array(self, n):
            self.exprs[n] = expr  # the in-place target itself
            return
        self.exprs[n] = self._materialize(n, expr)

    def _pyint_checks(self, n: Node) -> None:
        """NumPy 2 raises OverflowError when a Python int does not fit the integer loop dtype it joins
        (`uint8_array + 300`): one check per operand, outside any element loop; in-range constants cost nothing."""
        from everypath.lowering.emit_values import pyint_operand_checks

        for a, d in pyint_operand_checks(self, n):
            self.mark(n)
            self.line(f"(void)ep::checked_int<{d.cpp}>({self.value(a)});")

    def _store_checks(self, base: Node, value: Node, index: Node | None = None) -> None:
        """A Python int or float stored into an integer array raises as NumPy 2 does when it does not fit;
        so does a NumPy scalar stored into a signed integer array through an integer or slice index."""
        bt, vt = self.spec.types.get(base), self.spec.types.get(value)
        if not (isinstance(bt, ArrayT) and bt.dtype.is_integer and not bt.torch and isinstance(vt, ScalarT)):
            return
        d = bt.dtype
        if not vt.weak:
            if index is None or not self._fancy(index):
                self._strong_store_check(d, vt.dtype, value)
            return
        if vt.dtype is DType.INT64 and d is not DType.INT64:
            from everypath.lowering.emit_values import needs_int_check

            if needs_int_check(value, d):
                self.line(f"(void)ep::checked_int<{d.cpp}>({self.value(value)});")
        elif vt.dtype is DType.FLOAT64:
            self.used_headers.add("everypath/pystore.hpp")
            self.line(f"ep::check_pyfloat_store<{d.cpp}>({self.value(value)});")

    def _fancy(self, index: Node) -> bool:
        """An index holding an array (a mask or integers): NumPy casts scalars stored through it."""
        t = self.spec.types.get(index)
        items = t.items if isinstance(t, TupleT) else (t,)
        return any(isinstance(x, ArrayT) for x in items)

    def _strong_store_check(self, d: DType, src: DType, value: Node) -> None:
        """NumPy 2 stores a NumPy scalar into a signed integer array element (or basic slice) through
        int(): NaN and inf raise, values beyond C long or the dtype raise OverflowError as a Python int
        does (`a[0] = np.int64(300)` into int8). Unsigned destinations cast (wrap) as NumPy does."""
        if d.kind != "i" or src is d or src.is_bool or src.is_complex:
            return
        if src.is_integer and np.can_cast(src.np, d.np, "safe"):
            return
        self.used_headers.add("everypath/pystore.hpp")
        v = self.value(value)
        if src.is_float:
            self.line(f"ep::check_pyfloat_store<{d.cpp}>(static_cast<double>({v}));")
        elif src is DType.UINT64:
            self.line(f"ep::check_npuint_store<{d.cpp}>({v});")
        else:
            self.line(f"(void)ep::checked_int<{d.cpp}>(static_cast<int64_t>({v}));")

    def _store_maybe_weak(self, name: str, expr: str, vt: Type, t: "MaybeWeakT") -> None:
        """A Python scalar goes to the weak half, a NumPy scalar to the strong one; the flag says which is live."""
        if isinstance(vt, UnionT):  # a helper's (Python float | np.float32) result: the member held picks
            weak_results.store(self, ident(name), expr, vt, t)
            return
        weak = isinstance(vt, ScalarT) and vt.weak
        slot = f"{ident(name)}__w" if weak else ident(name)
        self.line(f"{slot} = {cast(expr, vt, t.weak if weak else t.strong)}; "
                  f"{ident(name)}__weak = {'true' if weak else 'false'};")

    def _load_maybe_weak(self, name: str, t: "MaybeWeakT") -> str:
        """Read as the NumPy scalar: a Python value is converted as NumPy converts it (ints range-checked)."""
        w = f"{ident(name)}__w"
        conv = f"ep::checked_int<{t.strong.cpp}>({w})" if t.strong.is_integer and t.weak is DType.INT64 \
            else cast(w, t.weak_t, t.strong)
        return f"({ident(name)}__weak ? {conv} : {ident(name)})"

    def _assigned(self, name: str) -> None:
        if name in self.unbound.flagged:
            self.line(f"{ident(name)}__set = true;")

    def _materialize(self, n: Node, expr: str) -> str:
        name = f"v{n.id}" if n.id >= 0 else self.fresh("v")
        self.line(f"auto {name} = {expr};")
        return name

    def _message(self, n: Node) -> str:
        if not n.args:
            return 'std::string("")'
        a = n.args[0]
        from everypath.lowering.pyformat import message

        return message(self.value(a), self.ty(a))

    def _convert(self, expr: str, src: Type | None, dst: Type | None) -> str:
        if src is not None and dst is not None and unions.involved(src, dst):  # lowering/unions.py
            return unions.convert(self, expr, src, dst)
        return self.plain_convert(expr, src, dst)

    def plain_convert(self, expr: str, src: Type | None, dst: Type | None) -> str:
        if dst is None or src == dst or not isinstance(dst, (ScalarT, TupleT)):
            return expr
        if isinstance(dst, ScalarT) and isinstance(src, ScalarT):
            return cast(expr, src, dst.dtype)
        return f"{ctype(dst)}({expr})"

    def truth(self, n: Node) -> str:
        t = self.ty(n)
        v = self.value(n)
        if isinstance(t, ScalarT):
            return v if t.dtype is DType.BOOL else f"ep::sc::truthy({v})"
        if isinstance(t, (ListT, StrT, DictT, SetT)):
            return f"({v}.size() != 0)"
        if isinstance(t, NoneT):
            return "false"
        if isinstance(t, TupleT):
            return "true" if t.items else "false"
        if isinstance(t, UnionT):
            return unions.truth(v, t)
        raise EmitError(f"cannot test the truth value of {t}")

    def nested(self, b: Block) -> None:
        self.depth += 1
        saved = self.last_line
        self.block(b)
        self.last_line = saved
        self.depth -= 1

    # ---- loops ---------------------------------------------------------
    def emit_for(self, n: Node) -> None:
        it = n.args[0]
        if isinstance(self.ty(it), GenT):  # resumes a coroutine: lowering/generators.py
            generators.emit_for(self, n)
            return
        if it.op is Opcode.CALL and it.target == "builtins.range" and self._const_step(it) is not None:
            from everypath.lowering.unit_stride import emit_range_versions

            emit_range_versions(self, n)  # unit strides / in-bounds indices: a fast copy of the loop
            return
        else:
            length, elem = self.iter_source(it)
            k = self.fresh("k")
            self.line(f"for (int64_t {k} = 0; {k} < {length}; ++{k}) {{")
            self.depth += 1
            self.bind(n.target, elem(k))
            self.depth -= 1
        self.nested(n.blocks[0])
        self.line("}")

    def _emit_range_for(self, n: Node) -> None:
        it = n.args[0]
        step = self._const_step(it)
        assert step is not None
        args = [self.value(a) for a in it.args]
        start, stop = ("int64_t(0)", args[0]) if len(args) == 1 else (args[0], args[1])
        k, end = self.fresh("i"), self.fresh("end")
        self.line(f"for (int64_t {k} = {start}, {end} = {stop}; {k} {'<' if step > 0 else '>'} {end}; {k} += {step}) {{")
        self.depth += 1
        self.bind(n.target, (k, INT))
        from everypath.lowering.unit_stride import assumptions

        for fact in assumptions(self, n, k):  # a fast copy's in-range indices, for g++ (lowering/unit_stride.py)
            self.line(fact)
        self.depth -= 1
        self.nested(n.blocks[0])
        self.line("}")

    def _const_step(self, rng: Node) -> int | None:
        if len(rng.args) < 3:
            return 1
        s = rng.args[2]
        if s.op is Opcode.CONST and isinstance(s.target, int) and s.target != 0:
            return s.target
        return None

    def iter_source(self, it: Node):  # type: ignore[no-untyped-def]
        """(length expression, k -> element) for anything `for` can walk."""
        t = self.ty(it)
        if it.op is Opcode.CALL and it.target == "builtins.range" or isinstance(t, RangeT):
            if it.op is Opcode.CALL and it.target == "builtins.range" and self.exprs.get(it) == "/*iterator*/":
                args = [self.value(a) for a in it.args]
                if len(args) == 1:
                    args = ["int64_t(0)", args[0], "int64_t(1)"]
                elif len(args) == 2:
                    args.append("int64_t(1)")
                r = self.fresh("r")
                self.line(f"const ep::Range {r} = ep::make_range({', '.join(args)});")
            else:
                r = self.value(it)
            return f"{r}.size()", lambda k: (f"({r}.start + {k} * {r}.step)", INT)
        if isinstance(t, ArrayT):
            a = self.value(it)
            if t.ndim == 1:
                return f"{a}.shape[0]", lambda k: (f"{a}.data[{k} * {a}.strides[0]]", ScalarT(t.dtype))
            return f"{a}.shape[0]", lambda k: (f"ep::view({a}, {k})", ArrayT(t.dtype, t.ndim - 1))
        if isinstance(t, ListT):
            lst = self.value(it)
            return f"{lst}.size()", lambda k: (f"{lst}[{k}]", t.elem)
        if isinstance(t, DictT) or (isinstance(t, IterT) and t.kind.startswith("dict_")):
            # for k in d / d.items() ...: a snapshot list made as the loop starts (dict.hpp)
            snap, dref, ver, size0 = self.fresh("snap"), self.fresh("d"), self.fresh("ver"), self.fresh("n")
            src = self.value(it) if isinstance(t, DictT) else self.value(it.args[0])
            self.line(f"const auto {dref} = {src}; const auto {ver} = {dref}.rep->version; "
                      f"const auto {size0} = {dref}.size();")
            self.line(f"const auto {snap} = {self.value(it)}{'.keys()' if isinstance(t, DictT) else ''};")
            et = element_type(t)
            # the body changing the dict's keys raises CPython's RuntimeError at the next step
            return f"{dref}.iter_check({ver}, {size0}, {snap}.size())", lambda k: (f"{snap}[{k}]", et)
        if isinstance(t, StrT):  # for ch in s: the k-th code point (O(1): ASCII, or the offsets table)
            s = self.value(it)
            if not s.isidentifier():
                s = self.fresh("s")
                self.line(f"const ep::Str {s} = {self.value(it)};")
            return f"{s}.size()", lambda k: (f"{s}.at({k})", t)
        if isinstance(t, IterT) and it.op is Opcode.CALL:
            if t.kind == "enumerate":
                length, inner = self.iter_source(it.args[0])
                first = it.args[1] if len(it.args) > 1 else it.kwargs.get("start")  # enumerate(x, start=2) too
                start = self.value(first) if first is not None else "int64_t(0)"
                return length, lambda k: ("struct", [(f"({start} + {k})", INT), inner(k)])
            if t.kind == "zip":
                parts = [self.iter_source(a) for a in it.args]
                length = "std::min<int64_t>({" + ", ".join(f"int64_t({p[0]})" for p in parts) + "})"
                return length, lambda k: ("struct", [p[1](k) for p in parts])
            if t.kind == "reversed":
                length, inner = self.iter_source(it.args[0])
                n = self.fresh("n")
                self.line(f"const int64_t {n} = {length};")
                return n, lambda k: inner(f"({n} - 1 - {k})")
            if t.kind == "ndindex":
                dims = self.fresh("dims")
                exprs = self._shape_exprs(it)
                self.line(f"const std::array<int64_t, {len(exprs)}> {dims} = {{{', '.join(exprs)}}};")
                total = self.fresh("total")
                self.line(f"int64_t {total} = 1; for (auto d : {dims}) {total} *= d;")
                return total, lambda k: ("struct", self._unravel(k, dims, len(exprs)))
        if isinstance(t, GenT):
            raise EmitError(generators.consumer_error(None))
        if isinstance(t, TupleT):
            tup = self.value(it)
            arr = self.fresh("items")
            et = element_type(t)
            self.line(f"const std::array<{ctype(et)}, {len(t.items)}> {arr} = std::apply([](auto... x) {{ return "
                      f"std::array<{ctype(et)}, {len(t.items)}>{{x...}}; }}, {tup});")
            return str(len(t.items)), lambda k: (f"{arr}[{k}]", et)
        raise EmitError(f"cannot iterate over {t}")

    def _shape_exprs(self, it: Node) -> list[str]:
        out: list[str] = []
        for a in it.args:
            at = self.ty(a)
            v = self.value(a)
            if isinstance(at, TupleT):
                out += [f"std::get<{i}>({v})" for i in range(len(at.items))]
            else:
                out.append(v)
        return out

    def _unravel(self, k: str, dims: str, rank: int) -> list[tuple[str, Type]]:
        parts: list[tuple[str, Type]] = []
        for axis in range(rank):
            inner = " * ".join(f"{dims}[{j}]" for j in range(axis + 1, rank)) or "1"
            parts.append((f"(({k} / ({inner})) % {dims}[{axis}])", INT))
        return parts

    def bind(self, pattern: Any, elem: Any) -> None:
        expr, t = elem
        if isinstance(pattern, str):
            if expr == "struct":
                raise EmitError("cannot bind a tuple element to one name here")
            var_t = self.spec.var_types.get(pattern)
            if isinstance(var_t, MaybeWeakT):
                self._store_maybe_weak(pattern, expr, t, var_t)
            else:
                self.line(f"{ident(pattern)} = {self._convert(expr, t, var_t)};")
            self._assigned(pattern)
            return
        if expr == "struct":
            for p, part in zip(pattern, t):
                self.bind(p, part)
            return
        assert isinstance(t, TupleT)
        tmp = self.fresh("e")
        self.line(f"const auto {tmp} = {expr};")
        for i, p in enumerate(pattern):
            self.bind(p, (f"std::get<{i}>({tmp})", t.items[i]))

    # ---- calls to user functions ---------------------------------------
    def bound_args(self, callee: TypedFunction, args: list[Node], kwargs: dict[str, Node]) -> list[str]:
        out: list[str] = []
        for i, p in enumerate(callee.fn.params):
            if i < len(args):
                out.append(self.value(args[i]))
            elif p.name in kwargs:
                out.append(self.value(kwargs[p.name]))
            else:
                out.append(literal(p.default, const_type(p.default)))
        return out

    def closure(self, n: Node) -> None:
        for spec in self.spec.closures.get(n, []):
            self.mark(n)
            sub = FunctionEmitter(spec, indent=self.depth + 1, policy=self.policy, sites=self.sites, clones=self.clones)
            body = sub.function_body()
            self.used_paths |= sub.used_paths
            self.used_headers |= sub.used_headers
            params = ", ".join(f"{ctype(t)} a_{p.name}" for p, t in zip(spec.fn.params, spec.arg_types))
            self.line(f"auto {spec.symbol} = [&]({params}) -> {return_ctype(spec)} {{")
            self.lines.extend(body)
            self.line("};")

    # ---- whole function ------------------------------------------------
    def function_body(self) -> list[str]:
        self.spec.fn.number()
        fn = self.spec.fn
        self.unbound = analyse(fn.body, frozenset(), frozenset(fn.locals), lambda c: static_truth(self.spec, c))
        self.borrowed = borrowed_params(self.spec)
        for name in sorted(self.unbound.flagged):
            self.line(f"bool {ident(name)}__set = false;  // read where it may be unbound")
        for name, t in self.spec.var_types.items():
            if isinstance(t, FuncT) and len(t.members) > 1:
                self.line(f"int64_t {ident(name)}{{}};  // tag of the closure chosen")
                continue
            if t is None or isinstance(t, (FuncT, IterT, DTypeT)):
                continue
            if isinstance(t, MaybeWeakT):  # Python scalar or NumPy scalar: both halves and which is live
                self.line(f"{t.strong.cpp} {ident(name)}{{}}; {t.weak.cpp} {ident(name)}__w{{}}; "
                          f"bool {ident(name)}__weak = false;")
                continue
            if isinstance(t, ListT) and t.elem is None:
                continue
            if name in self.borrowed:  # the caller's array, not a copy (lowering/borrowed.py)
                self.line(f"const {ctype(t)}& {ident(name)} = a_{name};")
                continue
            try:
                self.line(f"{ctype(t)} {ident(name)}{{}};")
            except EmitError as exc:
                loc = self.spec.fn.locals.get(name, self.spec.fn.loc)
                raise CompileError.at(loc if loc.lineno else self.spec.fn.loc, f"variable '{name}': {exc}",
                                      (f"generating C++ for {self.spec.fn.qualname}",)) from None
        # Run-time errors leave through this function's frame (file, name: CPython's co_name).
        # A portable build names the file only: no build machine's path may reach a shipped binary
        # (bundles are byte-identical wherever they are built).
        filename = self.spec.fn.filename
        if self.policy.target is not None:
            filename = os.path.basename(filename)
        where = f"{c_string(filename)}, {c_string(self.spec.fn.name)}"
        self.line(f"EP_TRACE_BEGIN({where})")
        # Closures capture by reference, and every local is declared above, so defining
        # them all here keeps Python's late binding and makes them visible to every call site.
        for n in self.spec.fn.body.walk():
            if n.op is Opcode.CLOSURE:
                self.closure(n)
        self.block(self.spec.fn.body)
        self.line(f"EP_TRACE_END({where})")
        return self.lines


def return_ctype(spec: TypedFunction) -> str:
    rt = spec.return_type
    return "ep::None" if rt is None else ctype(rt)


def _pattern_names(p: Any) -> list[str]:
    if isinstance(p, str):
        return [p]
    return [n for x in p for n in _pattern_names(x)]


__all__ = ["FunctionEmitter", "return_ctype", "ident", "DType", "DTypeT"]

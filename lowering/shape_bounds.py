"""Upper bounds of integer values relative to array shapes, to drop bounds checks that cannot fail.

`for i in range(1, h - 1): v[i, j] = u[i - 1, j] + u[i + 1, j]` after `h, w = u.shape` never
indexes out of range: i <= h - 2, so i + 1 < h = u.shape[0]. Values are compared as linear
forms `key + offset`, where a key is a value that cannot change while the function runs:
an axis of an array variable whose every definition has the same shape (a parameter, its
copies, `np.zeros((h, w))` of such lengths, a tuple swap of two of them), or an integer
variable assigned once outside any loop (an int parameter). Facts are flow-insensitive:
each holds at every point where the value exists, so loops and branches need no care.
A variable's bounds are those every assignment keeps, to an optimistic fixpoint (as
lowering/bounds.py does for lower bounds): a bisection's `hi = mid` keeps `hi <= a.shape[0]`
because `mid = (lo + hi) // 2` is at most `hi - 1` where `lo < hi` was just tested
(lowering/guard_facts.py), and `hi <= a.shape[0]` is what the round assumed. A bound whose
offset still moves after a few rounds (`i += 1`) is dropped. Everything unknown gets no fact
and keeps its run-time check.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from everypath.base.types import ArrayT, ScalarT
from everypath.tracer.ir import Node, Opcode

if TYPE_CHECKING:
    from everypath.lowering.bounds import LowerBounds

Form = tuple[Any, int]  # (key or None for a constant, offset): the value key + offset
Dims = tuple["Form | None", ...]
_TOP = object()  # a name's shape not yet known during the fixpoint (optimistic start)
_UNSEEN = frozenset({("unseen", 0)})  # a variable's bounds before any assignment is seen: any bound holds
_ROUNDS = 8  # rounds per widening step of the variables' fixpoint


class _Unseen(Exception):
    """A value depends on a variable the fixpoint has not bounded yet: its definition waits a round."""

_SAME_SHAPE = frozenset({"ndarray.copy", "numpy.copy", "numpy.zeros_like", "numpy.empty_like", "numpy.ones_like",
                         "numpy.full_like", "ndarray.astype", "numpy.ascontiguousarray"})
_FROM_SHAPE = frozenset({"numpy.zeros", "numpy.empty", "numpy.ones", "numpy.full"})


def _in_loop(n: Node) -> bool:
    b = n.block
    while b is not None and b.parent is not None:
        if b.parent.op in (Opcode.FOR, Opcode.LOOP):
            return True
        b = b.parent.block
    return False


class ShapeBounds:
    def __init__(self, lb: "LowerBounds") -> None:
        self.lb = lb
        self.spec = lb.spec
        self.defs: dict[str, list[Node]] = lb.defs
        self.name_dims: dict[str, Any] = {}
        self.eq_memo: dict[Node, Form | None] = {}
        self.ub_memo: dict[Node, frozenset[Form]] = {}
        self.var_ubs: dict[str, frozenset[Form]] = {}
        self._above: dict[Node, list[tuple[Node, int]]] = {}  # a read's tested upper facts (every round asks)
        self._fix_shapes()
        self.guards = self._guards()
        self._fix_vars()

    def _key(self, n: Node) -> str:
        return self.spec.op_keys.get(n, n.target if isinstance(n.target, str) else "")

    # ---- shapes of array variables ---------------------------------------------------
    def _fix_shapes(self) -> None:
        names = [name for name, ds in self.defs.items()
                 if all(d.op is Opcode.STORE and isinstance(self.spec.types.get(d.args[0]), ArrayT) for d in ds)]
        self.name_dims = {name: _TOP for name in names}
        for _ in range(6):  # optimistic: a swap `u, v = v, u` keeps both shapes
            memo: dict[Node, Any] = {}
            new = {name: self._meet([self._dims(d.args[0], memo) for d in self.defs[name]]) for name in names}
            self.eq_memo.clear()  # they read the previous round's shapes
            if new == self.name_dims:
                break
            self.name_dims = new
        else:
            self.name_dims = {}  # no fixpoint: no facts (each round must agree with the last to be sound)
        self.name_dims = {k: (None if v is _TOP else v) for k, v in self.name_dims.items()}

    @staticmethod
    def _meet(ds: list[Any]) -> Any:
        known = [d for d in ds if d is not _TOP]
        if not known:
            return _TOP
        first = known[0]
        if first is None or any(d is None or len(d) != len(first) for d in known):
            return None
        return tuple(f if all(d[k] == f for d in known) else None for k, f in enumerate(first))

    def dims(self, n: Node) -> Dims | None:
        d = self._dims(n, {})
        return None if d is _TOP else d

    def _dims(self, n: Node, memo: dict[Node, Any]) -> Any:
        if n in memo:
            return memo[n]
        memo[n] = None
        memo[n] = d = self._compute_dims(n, memo)
        return d

    def _compute_dims(self, n: Node, memo: dict[Node, Any]) -> Any:
        t = self.spec.types.get(n)
        if not isinstance(t, ArrayT):
            return None
        if n.op is Opcode.PARAM:
            return tuple((("dim", n.target, k), 0) for k in range(t.ndim))
        if n.op is Opcode.LOAD:
            return self.name_dims.get(n.target)
        if n.op is Opcode.GETITEM:
            base, idx = n.args
            if base.op is Opcode.CALL and base.target == "ep.tuple" and idx.op is Opcode.CONST \
                    and isinstance(idx.target, int) and -len(base.args) <= idx.target < len(base.args):
                return self._dims(base.args[idx.target], memo)
            return None
        if n.op is not Opcode.CALL or not n.args:
            return None
        key = self._key(n)
        if key in _SAME_SHAPE:
            src = self.spec.types.get(n.args[0])
            return self._dims(n.args[0], memo) if isinstance(src, ArrayT) and src.ndim == t.ndim else None
        if key in _FROM_SHAPE:
            d = self._shape_arg(n.args[0])
            return d if d is not None and len(d) == t.ndim else None
        return None

    def _shape_arg(self, s: Node) -> Dims | None:
        st = self.spec.types.get(s)
        if isinstance(st, ScalarT):
            return (self.eq(s),)
        if s.op is Opcode.CALL and s.target == "ep.tuple":
            return tuple(self.eq(a) for a in s.args)
        if s.op is Opcode.GETATTR and s.target == "shape":
            return self.dims(s.args[0])
        return None

    # ---- exact values -------------------------------------------------------------------
    def eq(self, n: Node) -> Form | None:
        if n in self.eq_memo:
            return self.eq_memo[n]
        self.eq_memo[n] = None  # cycles: unknown
        f = self._compute_eq(n)
        self.eq_memo[n] = f
        return f

    def _compute_eq(self, n: Node) -> Form | None:
        t = self.spec.types.get(n)
        if not (isinstance(t, ScalarT) and t.dtype.is_integer):
            return None
        item = _tuple_item(n)
        if item is not None:
            return self.eq(item)
        if n.op is Opcode.CONST and isinstance(n.target, int):
            return (None, int(n.target))
        if n.op is Opcode.GETITEM:
            base, idx = n.args
            if base.op is Opcode.GETATTR and base.target == "shape" and idx.op is Opcode.CONST \
                    and isinstance(idx.target, int):
                d = self.dims(base.args[0])
                return d[idx.target] if d is not None and -len(d) <= idx.target < len(d) else None
            return None
        if n.op is Opcode.LOAD:
            ds = self.defs.get(n.target, [])
            if not ds or any(d.op is not Opcode.STORE for d in ds):
                return None
            forms = {self.eq(d.args[0]) for d in ds}
            if len(forms) == 1 and None not in forms:
                return forms.pop()
            if len(ds) == 1 and not _in_loop(ds[0]):
                return (("name", n.target), 0)  # assigned once: a constant while the function runs
            return None
        if n.op is not Opcode.CALL:
            return None
        key = self._key(n)
        args = n.args
        if key == "builtins.len" and len(args) == 1:
            d = self.dims(args[0])
            return d[0] if d else None
        if key == "builtins.int" and len(args) == 1:
            return self.eq(args[0])
        if key in ("operator.add", "operator.sub") and len(args) == 2:
            a, b = self.eq(args[0]), self.eq(args[1])
            if a is None or b is None:
                return None
            if key == "operator.sub":
                return (a[0], a[1] - b[1]) if b[0] is None else ((None, 0) if a[0] == b[0] and a[0] is not None
                                                                 and a[1] == b[1] else None)
            if a[0] is not None and b[0] is not None:
                return None
            return (a[0] if a[0] is not None else b[0], a[1] + b[1])
        return None

    # ---- upper bounds of variables, to a fixpoint -------------------------------------------
    def _fix_vars(self) -> None:
        names = [name for name, ds in self.defs.items() if self._int_var(name)]
        self.var_ubs = {name: _UNSEEN for name in names}
        dropped: dict[str, set[Any]] = {name: set() for name in names}
        stuck: set[str] = set()
        while True:
            for _ in range(_ROUNDS):
                self.ub_memo.clear()
                new = {name: frozenset() if name in stuck else self._var_ubs(name, dropped[name]) for name in names}
                if new == self.var_ubs:
                    break
                changed = {name: (self.var_ubs[name], new[name]) for name in names if new[name] != self.var_ubs[name]}
                self.var_ubs = new
            else:
                # still moving (`i += 1` raises its offset each round): drop the keys that moved, for good; each
                # step drops at least one, so the rounds end
                for name, (old, now) in changed.items():
                    if old is _UNSEEN or now is _UNSEEN:
                        stuck.add(name)
                    else:
                        dropped[name] |= {k for k, _ in old ^ now}
                continue
            break
        # still unseen: no assignment stores a bounded value first (such a variable is never read)
        self.var_ubs = {k: (frozenset() if v is _UNSEEN else v) for k, v in self.var_ubs.items()}
        self.ub_memo.clear()

    def _int_var(self, name: str) -> bool:
        t = self.spec.var_types.get(name)
        return isinstance(t, ScalarT) and t.dtype.is_integer

    def _var_ubs(self, name: str, dropped: set[Any]) -> frozenset[Form]:
        """Bounds every assignment keeps, given the last round's bounds of every variable."""
        # induction: a definition that only lowers the variable's own value (`j -= 1`) keeps any bound
        # every other definition has (its first value comes from one of those: reads are never unbound)
        sets = []
        for d in self.defs[name]:
            if self._lowers_itself(name, d):
                continue
            try:
                sets.append(self._def_ubs(name, d))
            except _Unseen:
                continue  # reads a variable not bounded yet: optimistic, it keeps whatever the others give
        if not sets:
            return _UNSEEN
        return frozenset((k, o) for k, o in self._common(sets) if k not in dropped)

    # ---- upper bounds ------------------------------------------------------------------
    def ubs(self, n: Node) -> frozenset[Form]:
        """Forms f with n <= f wherever n is evaluated."""
        if n in self.ub_memo:
            return self.ub_memo[n]
        self.ub_memo[n] = frozenset()
        try:
            f = self._compute_ubs(n)
        except _Unseen:
            del self.ub_memo[n]
            raise
        self.ub_memo[n] = f
        return f

    def _compute_ubs(self, n: Node) -> frozenset[Form]:
        t = self.spec.types.get(n)
        if not (isinstance(t, ScalarT) and t.dtype.is_integer):
            return frozenset()
        item = _tuple_item(n)
        if item is not None:
            return self.ubs(item)
        e = self.eq(n)
        out: set[Form] = {e} if e is not None else set()
        top = dtype_max(t)
        if top is not None:  # a narrow integer never exceeds its dtype (`hist[v]` of a uint8 v, hist of 256)
            out.add((None, top))
        if n.op is Opcode.LOAD:
            var = self.var_ubs.get(n.target, frozenset())
            if var is _UNSEEN:
                raise _Unseen(n.target)
            if n not in self._above:
                self._above[n] = self.lb.guards.above(n)
            for q, d in self._above[n]:  # `while i < len(a)`: i <= len(a) - 1 at this read
                out |= {(k, o + d) for k, o in self.ubs(q)}
            return frozenset(out | var)
        if n.op is not Opcode.CALL:
            return frozenset(out)
        key = self._key(n)
        args = n.args
        if key == "builtins.min" and len(args) >= 2:
            for a in args:
                out |= self.ubs(a)
        elif key in ("operator.add", "operator.iadd") and len(args) == 2:
            out |= _sums(self.ubs(args[0]), self.ubs(args[1]))
            out |= self._half_step(n)
        elif key in ("operator.sub", "operator.isub") and len(args) == 2:
            lo = self.lb.lower_bound(args[1])
            if lo is not None:
                out |= {(k, o - lo) for k, o in self.ubs(args[0])}
        elif key in ("operator.floordiv", "operator.rshift") and len(args) == 2:
            c = args[1]
            least = 1 if key == "operator.floordiv" else 0
            if c.op is Opcode.CONST and type(c.target) is int and c.target >= least:
                if self.lb.non_negative(args[0]):
                    out |= self.ubs(args[0])
                if c.target == (2 if key == "operator.floordiv" else 1):
                    out |= self._midpoint(args[0])
        elif key == "operator.mod" and len(args) == 2 and self.lb.non_negative(args[1]):
            out |= {(k, o - 1) for k, o in self.ubs(args[1])}  # Python's a % m is in [0, m) for m > 0
        elif key == "builtins.int" and len(args) == 1:
            out |= self.ubs(args[0])
        return frozenset(out)

    # ---- bisection: the midpoint of `lo < hi` -----------------------------------------------
    def _tested(self, at: Node, a: Node, b: Node) -> int | None:
        """d with `a <= b + d` where `at` runs, a and b reads of integer variables, from a test just before."""
        if not (a.op is Opcode.LOAD and b.op is Opcode.LOAD and a.target != b.target):
            return None
        return self.lb.guards.relation(at, a.target, b.target)

    def _midpoint(self, s: Node) -> set[Form]:
        """Bounds of `s // 2` (`s >> 1`) for s = `x + y` with `x <= y + d` known: `x + y <= 2 * y + d`, so the
        floor of half of it is at most `y + d // 2` (`hi - 1` inside `while lo < hi`), whatever the signs."""
        if not (s.op is Opcode.CALL and self._key(s) in ("operator.add", "operator.iadd") and len(s.args) == 2):
            return set()
        out: set[Form] = set()
        for x, y in (s.args, s.args[::-1]):
            d = self._tested(s, x, y)
            if d is not None:
                out |= {(k, o + d // 2) for k, o in self.ubs(y)}
        return out

    def _half_step(self, n: Node) -> set[Form]:
        """Bounds of `x + (y - x) // 2` with `x < y` known: `(y - x) // 2 <= y - x - 1` for y - x >= 1,
        so the sum is at most `y - 1` (the overflow-safe midpoint)."""
        x, h = n.args
        if not (h.op is Opcode.CALL and self._key(h) in ("operator.floordiv", "operator.rshift") and len(h.args) == 2):
            return set()
        c = h.args[1]
        if not (c.op is Opcode.CONST and type(c.target) is int
                and c.target == (2 if self._key(h) == "operator.floordiv" else 1)):
            return set()
        diff = h.args[0]
        if not (diff.op is Opcode.CALL and self._key(diff) == "operator.sub" and len(diff.args) == 2):
            return set()
        y, x2 = diff.args
        if not (x.op is Opcode.LOAD and x2.op is Opcode.LOAD and x.target == x2.target):
            return set()
        d = self._tested(n, x, y)
        if d is None or d > -1:
            return set()
        return {(k, o - 1) for k, o in self.ubs(y)}

    def _lowers_itself(self, name: str, d: Node) -> bool:
        """`name = name - k` / `name -= k` with k >= 0, or `name + k` with a constant k <= 0."""
        if d.op is not Opcode.STORE or d.args[0].op is not Opcode.CALL or len(d.args[0].args) != 2:
            return False
        v = d.args[0]
        own, k = v.args
        if not (own.op is Opcode.LOAD and own.target == name):
            return False
        key = self._key(v)
        if key in ("operator.sub", "operator.isub"):
            lo = self.lb.lower_bound(k)
            return lo is not None and lo >= 0
        if key in ("operator.add", "operator.iadd"):
            return k.op is Opcode.CONST and isinstance(k.target, int) and not isinstance(k.target, bool) \
                and k.target <= 0
        return False

    def _def_ubs(self, name: str, d: Node) -> frozenset[Form]:
        if d.op is Opcode.STORE:
            return self.ubs(d.args[0])
        it = d.args[0]
        if it.op is not Opcode.CALL:
            return frozenset()
        key = self._key(it)
        if isinstance(d.target, str) and key == "builtins.range":
            return self._range_ubs(it)
        if key == "builtins.enumerate" and not isinstance(d.target, str) and d.target and d.target[0] == name \
                and len(it.args) == 1:
            src = self.spec.types.get(it.args[0])
            dd = self.dims(it.args[0]) if isinstance(src, ArrayT) else None
            return frozenset({(dd[0][0], dd[0][1] - 1)}) if dd and dd[0] is not None else frozenset()
        if key == "numpy.ndindex" and not isinstance(d.target, str) and all(isinstance(t, str) for t in d.target):
            extent = self._ndindex_dims(it)
            pos = d.target.index(name)
            if extent is not None and len(extent) == len(d.target) and extent[pos] is not None:
                return frozenset({(extent[pos][0], extent[pos][1] - 1)})
        return frozenset()

    def _ndindex_dims(self, it: Node) -> Dims | None:
        if len(it.args) == 1 and not isinstance(self.spec.types.get(it.args[0]), ScalarT):
            return self._shape_arg(it.args[0])
        return tuple(self.eq(a) for a in it.args)

    def _range_ubs(self, it: Node) -> frozenset[Form]:
        args = it.args
        if len(args) == 3:
            s = args[2]
            if not (s.op is Opcode.CONST and isinstance(s.target, int) and s.target != 0):
                return frozenset()
            if s.target < 0:
                return self.ubs(args[0])  # counting down from start
        stop = args[0] if len(args) == 1 else args[1]
        start_lb = 0 if len(args) == 1 else self.lb.lower_bound(args[0])
        stops = set(self.ubs(stop))
        m = self._resolve(stop)
        if m.op is Opcode.CALL and self._key(m) == "builtins.max" and start_lb is not None:
            # range(max(e, c)) with c <= start: when the loop runs at all, i < e
            consts = [a for a in m.args if a.op is Opcode.CONST and isinstance(a.target, int)]
            rest = [a for a in m.args if a not in consts]
            if len(rest) == 1 and all(c.target <= start_lb for c in consts):
                stops |= self.ubs(rest[0])
        return frozenset((k, o - 1) for k, o in stops)

    def _resolve(self, n: Node) -> Node:
        """The value a load of a variable assigned once stands for."""
        if n.op is Opcode.LOAD:
            ds = self.defs.get(n.target, [])
            if len(ds) == 1 and ds[0].op is Opcode.STORE:
                v = ds[0].args[0]
                return _tuple_item(v) or v
        return n

    @staticmethod
    def _common(sets: list[frozenset[Form]]) -> set[Form]:
        """Bounds holding for every definition: per key, the largest offset among them."""
        if not sets:
            return set()
        keys = set.intersection(*({k for k, _ in s} for s in sets))
        return {(k, max(min(o for kk, o in s if kk == k) for s in sets)) for k in keys}

    # ---- equalities checked at the top of the function ------------------------------------
    def _guards(self) -> list[tuple[int, Form, Form]]:
        """(position, a, b): a == b in every top-level statement after position, from
        `assert a == b` and `if a != b: raise ...` (the function stops there otherwise)."""
        out = []
        for pos, n in enumerate(self.spec.fn.body.nodes):
            if n.op is not Opcode.IF or len(n.blocks) != 2:
                continue
            then, orelse = (list(b.nodes) for b in n.blocks)
            raises_then = bool(then) and then[-1].op is Opcode.RAISE and not orelse
            raises_else = bool(orelse) and orelse[-1].op is Opcode.RAISE and not then
            if not (raises_then or raises_else):
                continue
            # raise when true: every `a != b` of an or-chain is false after it; raise when false
            # (assert): every `a == b` of an and-chain is true
            want = "operator.ne" if raises_then else "operator.eq"
            for c in self._chain(n.args[0], pos, or_chain=raises_then):
                if c.op is Opcode.CALL and len(c.args) == 2 and self._key(c) == want:
                    a, b = self.eq(c.args[0]), self.eq(c.args[1])
                    if a is not None and b is not None:
                        out.append((pos, a, b))
        return out

    def _chain(self, cond: Node, pos: int, or_chain: bool) -> list[Node]:
        """The operands of `x or y or ...` (`x and y and ...`) a guard tests, as the frontend
        lowers them: a temporary assigned x, then y in the else (then) branch of `if temp:`
        (in the top-level statements just before the guard); [cond] for a plain condition."""
        if cond.op is not Opcode.LOAD:
            return [cond]
        body = self.spec.fn.body.nodes
        starts = [i for i in range(pos) if body[i].op is Opcode.STORE and body[i].target == cond.target]
        if not starts:
            return []
        # the value the guard sees: the last top-level assignment and those nested after it
        ds = [d for d in self.defs.get(cond.target, []) if starts[-1] <= self._top_index(d) < pos]
        if any(d.op is not Opcode.STORE for d in ds):
            return []
        for d in ds:
            b = d.block
            if b is self.spec.fn.body:
                continue
            owner = b.parent if b is not None else None
            if owner is None or owner.op is not Opcode.IF or not (owner.args[0].op is Opcode.LOAD
                                                                  and owner.args[0].target == cond.target):
                return []
            other = owner.blocks[0] if or_chain else owner.blocks[1]
            if b is not owner.blocks[1 if or_chain else 0] or other.nodes:
                return []
        return [d.args[0] for d in ds]

    def _top_index(self, n: Node) -> int:
        while n.block is not None and n.block.parent is not None:
            n = n.block.parent
        nodes = self.spec.fn.body.nodes
        return nodes.index(n) if n.block is self.spec.fn.body else -1

    def _key_lb(self, key: Any) -> int | None:
        if isinstance(key, tuple) and key[0] == "dim":
            return 0
        if isinstance(key, tuple) and key[0] == "name":
            return self.lb.lower_bound(self.defs[key[1]][0].args[0])
        return None

    # ---- the question the emitter asks ------------------------------------------------
    def below_shape(self, idx: Node, array: Node, axis: int) -> bool:
        """idx < array.shape[axis] wherever the access is evaluated (idx >= 0 is asked separately)."""
        d = self.dims(array)
        if d is None or not -len(d) <= axis < len(d) or d[axis] is None:
            return False
        key, off = d[axis]
        bounds = set(self.ubs(idx))
        if self.guards:
            here = self._top_index(idx)
            for pos, a, b in self.guards:
                if pos < here:
                    for x, y in ((a, b), (b, a)):  # x == y: a bound x[0] + o is y[0] + o + y[1] - x[1]
                        bounds |= {(y[0], o + y[1] - x[1]) for k, o in list(bounds) if k == x[0]}
        key_lb = self._key_lb(key)
        for k, o in bounds:
            if k == key and o < off:
                return True
            if k is None and key_lb is not None and o < key_lb + off:
                return True  # a constant below the smallest the length can be
        return False


def dtype_max(t: ScalarT) -> int | None:
    """The largest value of an integer scalar of at most 32 bits (C++ holds it in its own type: the
    emitter's arithmetic is typed, `ep::sc::add<uint8_t>` wraps as NumPy does), else None."""
    if not t.dtype.is_integer or t.dtype.np.itemsize > 4:
        return None
    return int(np.iinfo(t.dtype.np).max)


def dtype_min(t: ScalarT) -> int | None:
    """The smallest value of such a scalar (0 for every unsigned type and bool)."""
    if t.dtype.is_bool or (t.dtype.is_integer and t.dtype.kind == "u"):
        return 0
    if not t.dtype.is_integer or t.dtype.np.itemsize > 4:
        return None
    return int(np.iinfo(t.dtype.np).min)


def _tuple_item(n: Node) -> Node | None:
    """The item `(a, b)[k]` picks (how `x, y = a, b` is lowered), else None."""
    if n.op is Opcode.GETITEM:
        base, idx = n.args
        if base.op is Opcode.CALL and base.target == "ep.tuple" and idx.op is Opcode.CONST \
                and isinstance(idx.target, int) and 0 <= idx.target < len(base.args):
            return base.args[idx.target]
    return None


def _sums(a: frozenset[Form], b: frozenset[Form]) -> set[Form]:
    out: set[Form] = set()
    for ka, oa in a:
        for kb, ob in b:
            if ka is None or kb is None:
                out.add((ka if ka is not None else kb, oa + ob))
    return out

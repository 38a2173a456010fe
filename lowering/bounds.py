"""Lower bounds of integer values, to drop negative-index wrapping where it cannot happen
(and, with lowering/shape_bounds.py's upper bounds, the bounds check itself).

`a[i - 1, j + 1]` inside `for i in range(1, h)` can never see a negative index, so the
element access needs no `i < 0 ? i + n : i` per index (which also blocks vectorisation).
Conservative: a value has a known lower bound only when it is a constant, a length or shape,
a loop variable bound by `for` over a range with a constant positive step and a bounded start,
+, *, // and % of such values (and `x - c` for constant c, `y - x` where `x <= y + d` was just
tested), or a variable every assignment of which stores such a value. Variables that feed each
other (`lo = mid + 1`, `mid = (lo + hi) // 2`) get their bounds from an optimistic fixpoint: each
starts as "any bound holds", every round recomputes all of them from the last round's, and the
facts are kept only once a round reproduces the previous one exactly (an inductive invariant:
every assignment keeps it, given that it held before). A variable still changing after a few
rounds (`j -= 1` lowers its bound each round) is widened to "unknown" and the rounds go on.

`never_negative` answers the same question for float and int values alike (a square, a sum
of squares, abs, an unsigned element): `math.sqrt(gx * gx + gy * gy)` then needs no domain
check, which is what keeps a stencil loop vectorisable.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from everypath.lowering.guard_facts import GuardFacts
from everypath.base.types import ScalarT
from everypath.lowering.shape_bounds import _tuple_item, dtype_min
from everypath.tracer.ir import Node, Opcode

if TYPE_CHECKING:
    from everypath.lowering.infer import TypedFunction
    from everypath.lowering.shape_bounds import ShapeBounds


# the optimistic start of the fixpoint: a bound above every real one (arithmetic on it stays above any
# value a variable can hold, so a result this large only means "no definition has been seen yet")
_TOP = 2**80
_ROUNDS = 8  # rounds per widening step of the variables' fixpoint


def _names(pattern: Any) -> list[str]:
    if isinstance(pattern, str):
        return [pattern]
    return [n for p in pattern for n in _names(p)]


class LowerBounds:
    def __init__(self, spec: TypedFunction) -> None:
        self.spec = spec
        self.memo: dict[Node, int | None] = {}
        self.sign_memo: dict[Node, bool] = {}
        self.var_lb: dict[str, int | None] = {}
        self._shapes: "ShapeBounds | None" = None  # upper bounds, built on first use (lowering/shape_bounds.py)
        self.guards = GuardFacts(lambda c: spec.op_keys.get(c, c.target if isinstance(c.target, str) else ""))
        self._guarded: dict[Node, tuple[int | None, frozenset[int]]] = {}  # a read's tested facts (every round asks)
        defs: dict[str, list[Node]] = {}
        for n in self.spec.fn.body.walk():
            if n.op is Opcode.STORE:
                defs.setdefault(n.target, []).append(n)
            elif n.op is Opcode.FOR:
                for name in _names(n.target):
                    defs.setdefault(name, []).append(n)
        self.defs = defs
        self._fix_vars()

    def _fix_vars(self) -> None:
        """Every integer variable's lower bound: the smallest over its assignments, to a fixpoint."""
        names = [name for name in self.defs if self._int_var(name)]
        self.var_lb = {name: _TOP for name in names}
        widened: set[str] = set()
        while True:
            for _ in range(_ROUNDS):
                self.memo.clear()
                new = {name: None if name in widened else self._var_lb(name) for name in names}
                if new == self.var_lb:
                    break
                changed = {name for name in names if new[name] != self.var_lb[name]}
                self.var_lb = new
            else:
                widened |= changed  # still moving: no bound for these, and the others are recomputed
                continue
            break
        self.memo.clear()
        # a bound still at _TOP: no assignment stores a known value first (such a variable is never read)
        self.var_lb = {k: (None if v is not None and v >= _TOP // 2 else v) for k, v in self.var_lb.items()}
        self.memo.clear()

    def _int_var(self, name: str) -> bool:
        t = self.spec.var_types.get(name)
        return isinstance(t, ScalarT) and (t.dtype.is_integer or t.dtype.is_bool)

    def _var_lb(self, name: str) -> int | None:
        lbs = [self._def_lb(name, d) for d in self.defs[name]]
        return None if None in lbs else min(lbs)  # type: ignore[type-var]

    def _def_lb(self, name: str, d: Node) -> int | None:
        if d.op is Opcode.STORE:
            return self.lower_bound(d.args[0])
        if not self._counter(d, name):
            return None  # the value of `for x in xs` (or a tuple unpacked from it)
        return self._range_lb(d.args[0]) if isinstance(d.target, str) else self._enumerate_lb(d.args[0])

    @staticmethod
    def _counter(d: Node, name: str) -> bool:
        """name is d's loop variable itself, or the counter of `for name, v in enumerate(...)`."""
        if isinstance(d.target, str):
            return True
        it = d.args[0]
        if it.op is not Opcode.CALL:
            return False
        if it.target == "builtins.enumerate":
            return len(d.target) == 2 and d.target[0] == name
        return it.target == "numpy.ndindex" and name in d.target  # positions: all >= 0

    def _enumerate_lb(self, it: Node) -> int | None:
        if it.target == "numpy.ndindex":
            return 0
        return 0 if len(it.args) == 1 else self.lower_bound(it.args[1])

    def _range_lb(self, it: Node) -> int | None:
        if not (it.op is Opcode.CALL and it.target == "builtins.range"):
            return None
        args = it.args
        if len(args) == 3:
            step = args[2]
            if not (step.op is Opcode.CONST and isinstance(step.target, int) and step.target > 0):
                return None
        if len(args) == 1:
            return 0
        return self.lower_bound(args[0])

    def lower_bound(self, n: Node) -> int | None:
        if n in self.memo:
            return self.memo[n]
        self.memo[n] = None  # cycles: unknown
        lb = self._compute(n)
        t = self.spec.types.get(n)
        floor = dtype_min(t) if isinstance(t, ScalarT) else None  # an unsigned value is never negative
        if floor is not None:
            lb = floor if lb is None else max(lb, floor)
        self.memo[n] = lb
        return lb

    def _compute(self, n: Node) -> int | None:
        t = self.spec.types.get(n)
        if not (isinstance(t, ScalarT) and (t.dtype.is_integer or t.dtype.is_bool)):
            return None
        if n.op is Opcode.CONST and isinstance(n.target, int):
            return n.target
        item = _tuple_item(n)
        if item is not None:  # `lo, hi = 0, len(a)`
            return self.lower_bound(item)
        if n.op is Opcode.LOAD:
            return self._load_lb(n)
        if n.op is Opcode.GETITEM and n.args[0].op is Opcode.GETATTR and n.args[0].target == "shape":
            return 0
        if n.op is Opcode.CALL:
            key = self.spec.op_keys.get(n, n.target if isinstance(n.target, str) else "")
            if key == "builtins.len":
                return 0
            args = [self.lower_bound(a) for a in n.args]
            if key in ("operator.add", "operator.iadd") and None not in args:
                return args[0] + args[1]  # type: ignore[operator]
            if key in ("operator.mul", "operator.imul") and None not in args and min(args) >= 0:  # type: ignore[type-var]
                return args[0] * args[1]  # type: ignore[operator]
            if key in ("operator.sub", "operator.isub"):
                c = n.args[1]
                if c.op is Opcode.CONST and isinstance(c.target, int) and args[0] is not None:
                    return args[0] - c.target
                x, y = n.args[1], n.args[0]
                if x.op is Opcode.LOAD and y.op is Opcode.LOAD:  # y - x where `x <= y + d` was just tested
                    d = self.guards.relation(n, x.target, y.target)
                    if d is not None:
                        return -d
            c = n.args[1] if len(n.args) == 2 else None
            positive = c is not None and c.op is Opcode.CONST and type(c.target) is int and c.target > 0
            if key in ("operator.floordiv", "operator.ifloordiv", "operator.rshift", "operator.irshift") and positive:
                assert c is not None
                half = c.target == (2 if "floordiv" in key else 1)
                mid = self._midpoint(n.args[0]) if half else None
                if args[0] is None:
                    return mid
                low = args[0] // c.target if "floordiv" in key else args[0] >> c.target  # both are monotone
                return low if mid is None else max(low, mid)
            if key in ("operator.mod", "operator.imod") and positive and args[0] is not None and args[0] >= 0:
                return 0
            if key == "operator.mod" and args[1] is not None and args[1] >= 0:
                return 0  # Python's a % m is in [0, m) for m > 0 (m == 0 raises)
            if key == "builtins.int" and args and args[0] is not None:
                return args[0]
        return None

    def _midpoint(self, s: Node) -> int | None:
        """A lower bound of `s // 2` for s = `x + y` with `x <= y + d` tested just before (`while lo <= hi:`):
        `x + y >= 2 * x - d`, so the half is at least `x + (-d) // 2` (the midpoint is never below lo)."""
        if not (s.op is Opcode.CALL and self.spec.op_keys.get(s, s.target) in ("operator.add", "operator.iadd")
                and len(s.args) == 2):
            return None
        best: int | None = None
        for x, y in (s.args, s.args[::-1]):
            if x.op is Opcode.LOAD and y.op is Opcode.LOAD and x.target != y.target:
                d = self.guards.relation(s, x.target, y.target)
                lx = self.lower_bound(x) if d is not None else None
                if lx is not None and d is not None:
                    best = lx + (-d) // 2 if best is None else max(best, lx + (-d) // 2)
        return best

    def _load_lb(self, n: Node) -> int | None:
        flow = self.var_lb.get(n.target)
        if n not in self._guarded:
            # `j >= 0` tested just before this read (lowering/guard_facts.py); `if n == 0: return`: n != 0
            self._guarded[n] = (self.guards.lower_bound(n), self.guards.excluded(n))
        guarded, out = self._guarded[n]
        lb = flow if guarded is None else guarded if flow is None else max(flow, guarded)
        if lb is not None and lb < _TOP // 2:
            while lb in out:  # n >= 0 and n != 0: n >= 1
                lb += 1
        return lb

    def non_negative(self, n: Node) -> bool:
        lb = self.lower_bound(n)
        return lb is not None and lb >= 0

    def shapes(self) -> "ShapeBounds":
        """The upper bounds relative to shapes (lowering/shape_bounds.py), built on first use."""
        if self._shapes is None:
            from everypath.lowering.shape_bounds import ShapeBounds

            self._shapes = ShapeBounds(self)
        return self._shapes

    def in_range(self, idx: Node, array: Node, axis: int) -> bool:
        """0 <= idx < array.shape[axis] wherever the access runs: no bounds check needed."""
        return self.non_negative(idx) and self.below(idx, array, axis)

    def below(self, idx: Node, array: Node, axis: int) -> bool:
        """idx < array.shape[axis] wherever the access runs (its sign may be unknown)."""
        return self.shapes().below_shape(idx, array, axis)

    # ---- signs of any real scalar (not only integers) -------------------------------
    def never_negative(self, n: Node) -> bool:
        """n is >= 0 or NaN whenever it is evaluated (a NaN passes math.sqrt's check too)."""
        if n in self.sign_memo:
            return self.sign_memo[n]
        self.sign_memo[n] = False  # cycles: unknown
        ok = self._sign(n)
        self.sign_memo[n] = ok
        return ok

    def _sign(self, n: Node) -> bool:
        t = self.spec.types.get(n)
        if not isinstance(t, ScalarT) or t.dtype.is_complex:
            return False
        if t.dtype.is_bool or (t.dtype.is_integer and t.dtype.np.kind == "u") or self.non_negative(n):
            return True
        if n.op is Opcode.CONST:
            return isinstance(n.target, (int, float)) and n.target >= 0
        if n.op is Opcode.LOAD:
            ds = self.defs.get(n.target, [])
            return bool(ds) and all(d.op is Opcode.STORE and self.never_negative(d.args[0]) for d in ds)
        if n.op is not Opcode.CALL:
            return False
        key = self.spec.op_keys.get(n, n.target if isinstance(n.target, str) else "")
        args = n.args
        if key in ("operator.mul", "operator.imul") and len(args) == 2 and self._same_value(args[0], args[1]):
            return True  # a square
        if key in ("operator.add", "operator.iadd", "operator.mul", "operator.imul", "operator.truediv",
                   "operator.itruediv", "builtins.max", "numpy.maximum") and len(args) == 2:
            return all(self.never_negative(a) for a in args)
        if key in ("builtins.abs", "math.fabs", "numpy.absolute", "math.sqrt", "math.exp", "numpy.exp",
                   "builtins.len", "math.hypot"):
            return True
        if key in ("builtins.float", "builtins.int", "math.floor", "math.ceil", "math.trunc") and len(args) == 1:
            return self.never_negative(args[0])
        if key in ("operator.pow", "builtins.pow") and len(args) == 2:
            e = args[1]
            even = e.op is Opcode.CONST and isinstance(e.target, int) and not isinstance(e.target, bool) \
                and e.target % 2 == 0
            return even or self.never_negative(args[0])
        return False

    def _same_value(self, a: Node, b: Node) -> bool:
        """a and b are one value: the same node, or loads of one variable with no store between."""
        if a is b:
            return True
        if not (a.op is Opcode.LOAD and b.op is Opcode.LOAD and a.target == b.target and a.block is b.block):
            return False
        block = a.block
        assert block is not None
        i, j = sorted((block.nodes.index(a), block.nodes.index(b)))
        return not any(m.op is Opcode.STORE and m.target == a.target or m.blocks for m in block.nodes[i:j])

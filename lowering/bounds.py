"""Lower bounds of integer values, to drop negative-index wrapping where it cannot happen
(and, with lowering/shape_bounds.py's upper bounds, the bounds check itself).

`a[i - 1, j + 1]` inside `for i in range(1, h)` can never see a negative index, so the
element access needs no `i < 0 ? i + n : i` per index (which also blocks vectorisation).
Conservative: a value has a known lower bound only when it is a non-negative constant, a
length or shape, a loop variable bound only by `for` over a range with a constant positive
step and a bounded start, or +, *, // and % of such values (and `x - c` for constant c).

`never_negative` answers the same question for float and int values alike (a square, a sum
of squares, abs, an unsigned element): `math.sqrt(gx * gx + gy * gy)` then needs no domain
check, which is what keeps a stencil loop vectorisable.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from everypath.lowering.guard_facts import GuardFacts
from everypath.lowering.infer import TypedFunction
from everypath.base.types import ScalarT
from everypath.lowering.shape_bounds import dtype_min
from everypath.tracer.ir import Node, Opcode

if TYPE_CHECKING:
    from everypath.lowering.shape_bounds import ShapeBounds


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
        self._loop_vars()

    def _loop_vars(self) -> None:
        """Variables whose every definition is a `for` over a non-negative range."""
        defs: dict[str, list[Node]] = {}
        for n in self.spec.fn.body.walk():
            if n.op is Opcode.STORE:
                defs.setdefault(n.target, []).append(n)
            elif n.op is Opcode.FOR:
                for name in _names(n.target):
                    defs.setdefault(name, []).append(n)
        self.defs = defs
        pending = {name: ds for name, ds in defs.items() if all(d.op is Opcode.FOR and self._counter(d, name) for d in ds)}
        for name in pending:
            self.var_lb[name] = None
        for _ in range(3):  # a range start may itself be another loop variable
            for name, ds in pending.items():
                bounds = [self._range_lb(d.args[0]) if isinstance(d.target, str) else self._enumerate_lb(d.args[0])
                          for d in ds]
                self.var_lb[name] = None if any(b is None for b in bounds) else min(bounds)  # type: ignore[type-var]
            self.memo.clear()

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
        if n.op is Opcode.LOAD:
            flow = self._load_lb(n)
            guarded = self.guards.lower_bound(n)  # `j >= 0` tested just before this read (lowering/guard_facts.py)
            return flow if guarded is None else guarded if flow is None else max(flow, guarded)
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
            if key in ("operator.sub", "operator.isub") and args[0] is not None:
                c = n.args[1]
                if c.op is Opcode.CONST and isinstance(c.target, int):
                    return args[0] - c.target
            if key in ("operator.floordiv", "operator.mod") and args[0] is not None and args[0] >= 0:
                c = n.args[1]
                if c.op is Opcode.CONST and isinstance(c.target, int) and c.target > 0:
                    return 0
            if key == "operator.mod" and args[1] is not None and args[1] >= 0:
                return 0  # Python's a % m is in [0, m) for m > 0 (m == 0 raises)
            if key == "builtins.int" and args and args[0] is not None:
                return args[0]
        return None

    def _load_lb(self, n: Node) -> int | None:
        if n.target in self.var_lb:
            return self.var_lb[n.target]
        ds = self.defs.get(n.target, [])
        if not ds or any(d.op is not Opcode.STORE for d in ds):
            return None
        lbs = [self.lower_bound(d.args[0]) for d in ds]  # every assignment's value (cycles: unknown)
        return None if None in lbs else min(lbs)  # type: ignore[type-var]

    def non_negative(self, n: Node) -> bool:
        lb = self.lower_bound(n)
        return lb is not None and lb >= 0

    def in_range(self, idx: Node, array: Node, axis: int) -> bool:
        """0 <= idx < array.shape[axis] wherever the access runs: no bounds check needed."""
        if self._shapes is None:
            from everypath.lowering.shape_bounds import ShapeBounds

            self._shapes = ShapeBounds(self)
        return self.non_negative(idx) and self.below(idx, array, axis)

    def below(self, idx: Node, array: Node, axis: int) -> bool:
        """idx < array.shape[axis] wherever the access runs (its sign may be unknown)."""
        if self._shapes is None:
            from everypath.lowering.shape_bounds import ShapeBounds

            self._shapes = ShapeBounds(self)
        return self._shapes.below_shape(idx, array, axis)

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

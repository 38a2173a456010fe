"""Value ranges of integer scalars, so that Python int arithmetic is overflow-checked only where it can overflow.

A Python int is an int64 in compiled code; where CPython's exact result does not fit, the compiled operator
raises OverflowError (variants/include/everypath/pyint.hpp). A check costs a compare and a predicted branch,
and it can keep an index computation from vectorising, so the emitter asks `fits(n)` first: the exact result
of `n` lies in a closed interval inside int64 wherever it is evaluated. Intervals are exact integer bounds
computed with Python's own ints, so a bound is never itself wrapped:

- constants; values of a narrow dtype (bool, int8..uint32, an element of a uint8 image);
- lengths and axes (`len(x)`, `x.shape[k]`): [0, LEN_MAX = 2**62] (see LEN_MAX); `x.size`: [0, 2**63 - 1];
- `for` counters over `range(a, b, s)`: between a and b; `enumerate` counters; `np.ndindex` positions;
- `+ - * // % ** << >> & | ^ ~ -x abs min max int() ord()` of bounded operands (`h & 0xFFFFFFFF` is bounded
  whatever h is, `x % m` by m);
- counters (`count += 1`, `j -= 1`): their start moved by at most STEPS_MAX steps (see STEPS_MAX);
- variables: the union of what every assignment stores, to a fixpoint that starts from "anything" (each round
  derives facts only from the previous round's, which held, so stopping at any round is sound: no widening);
- a read of a variable is also within what lowering/bounds.py and lowering/shape_bounds.py prove of it (their
  optimistic fixpoints bound a bisection's `lo = mid + 1`, `hi = mid`: 0 <= lo, hi <= len(a) <= LEN_MAX), and
  `x + y` where `x < y` was just tested is at most `2 * y - 1`: `lo + hi` in `while lo < hi:` fits int64.
  Those facts assume each operation gives its exact result, which the checks kept here guarantee and the
  proven ones need not: every fact used to drop a check holds, by induction, before that operation runs.

Anything else is unbounded and keeps its check. Facts are flow-insensitive, like lowering/bounds.py's.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from everypath.base.types import ScalarT
from everypath.lowering.bounds import LowerBounds
from everypath.tracer.ir import Node, Opcode

if TYPE_CHECKING:
    from everypath.lowering.infer import TypedFunction

Interval = tuple[int, int]
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
# A length or an axis is at most 2**62: memory bounds lists, strs and allocated arrays far below it, and NumPy
# keeps size * itemsize below 2**63 even for views; only a broadcast view of 1-byte items could be longer, and
# one is refused where it enters (entry.hpp arg_array, np.broadcast_to in arrange.hpp).
# So `len(x) + 1`, `n - 1`, `(h + 1) * 2` fit int64; `len(x) * len(y)` may not and stays checked.
LEN_MAX = 2**62
_LEN: Interval = (0, LEN_MAX)
# A counting step (`count += 1`) runs at most STEPS_MAX = 2**56 times in one call: that many executed
# additions take over two years at one a nanosecond. A counter that starts within [-2**62, 2**62] and moves by
# at most STEP_MAX a step stays inside int64, so `count += 1` in a loop needs no check.
STEPS_MAX, STEP_MAX = 2**56, 2**6
_ROUNDS = 4  # variable facts: rounds of the descending fixpoint (each one sound)


def _dtype_range(t: object) -> Interval | None:
    """Every value of an integer scalar type (a Python int: int64), None for other types."""
    if not isinstance(t, ScalarT):
        return None
    if t.dtype.is_bool:
        return (0, 1)
    if not t.dtype.is_integer:
        return None
    info = np.iinfo(t.dtype.np)
    return (int(info.min), int(info.max))


def _fit(lo: int, hi: int) -> Interval | None:
    return (lo, hi) if INT64_MIN <= lo <= hi <= INT64_MAX else None


def _corners(f: Callable[[int, int], int], a: Interval, b: Interval) -> Interval | None:
    """f monotone in each argument on these intervals: its extremes are at the corners."""
    vals = [f(x, y) for x in a for y in b]
    return _fit(min(vals), max(vals))


def _floordiv(a: Interval, b: Interval) -> Interval | None:
    if b[0] <= 0 <= b[1]:
        return None  # may divide by zero (raises) or by -1 and 1 alike: no useful bound kept
    return _corners(lambda x, y: x // y, a, b)


def _mod(a: Interval, b: Interval) -> Interval | None:
    if b[0] > 0:  # Python's a % m is in [0, m) for m > 0
        return (0, min(b[1] - 1, a[1])) if a[0] >= 0 else (0, b[1] - 1)
    if b[1] < 0:
        return (b[0] + 1, 0)
    return None


def _and(a: Interval, b: Interval) -> Interval | None:
    nonneg = [x for x in (a, b) if x[0] >= 0]
    return (0, min(x[1] for x in nonneg)) if nonneg else None  # a & m with m >= 0 is in [0, m]


def _or_xor(a: Interval, b: Interval) -> Interval | None:
    if a[0] < 0 or b[0] < 0:
        return None
    return (0, (1 << max(a[1], b[1]).bit_length()) - 1)


def _shift(left: bool) -> Callable[[Interval, Interval], Interval | None]:
    def rule(a: Interval, b: Interval) -> Interval | None:
        if b[0] < 0 or (left and b[1] > 63):
            return None  # a negative count raises; a long left shift leaves int64
        b = (b[0], min(b[1], 64))
        return _corners((lambda x, y: x << y) if left else (lambda x, y: x >> y), a, b)

    return rule


def _pow(a: Interval, b: Interval) -> Interval | None:
    if b[0] < 0 or b[1] > 64:
        return None  # a negative exponent is a float (or ValueError); 2**65 is past int64 for any |x| >= 2
    # for a fixed exponent the extremes are at the base's ends or at 0 (even powers); for a fixed base
    # |x| >= 2 they are at the exponent's ends of each parity, and -1, 0, 1 take every value they can
    xs = {a[0], a[1]} | {x for x in (-1, 0, 1) if a[0] <= x <= a[1]}
    es = {b[0], min(b[0] + 1, b[1]), max(b[1] - 1, b[0]), b[1]}
    vals = [x**e for x in xs for e in es]
    return _fit(min(vals), max(vals))


_BINARY: dict[str, Callable[[Interval, Interval], Interval | None]] = {
    "add": lambda a, b: _fit(a[0] + b[0], a[1] + b[1]),
    "sub": lambda a, b: _fit(a[0] - b[1], a[1] - b[0]),
    "mul": lambda a, b: _corners(lambda x, y: x * y, a, b),
    "floordiv": _floordiv,
    "mod": _mod,
    "pow": _pow,
    "lshift": _shift(True),
    "rshift": _shift(False),
    "and_": _and,
    "or_": _or_xor,
    "xor": _or_xor,
}
_UNARY: dict[str, Callable[[Interval], Interval | None]] = {
    "neg": lambda a: _fit(-a[1], -a[0]),
    "pos": lambda a: a,
    "invert": lambda a: (-a[1] - 1, -a[0] - 1),
    "abs": lambda a: _fit(0 if a[0] <= 0 <= a[1] else min(abs(a[0]), abs(a[1])), max(abs(a[0]), abs(a[1]))),
    "int": lambda a: a,
}


def op_name(key: str) -> str | None:
    """operator.iadd -> add, builtins.pow -> pow, builtins.abs -> abs; None for anything else."""
    mod, _, name = key.partition(".")
    if mod == "builtins":
        return name if name in ("pow", "abs", "int") else None
    if mod != "operator":
        return None
    if name.startswith("i") and name not in ("invert", "is_", "is_not"):
        name = name[1:]
        name = name + "_" if name in ("and", "or") else name
    return name if name in _BINARY or name in _UNARY else None


class IntRanges:
    """Intervals of integer scalar nodes of one typed function (computed on first use)."""

    def __init__(self, bounds: LowerBounds) -> None:
        self.spec: TypedFunction = bounds.spec
        self.bounds = bounds
        self.defs = bounds.defs  # every STORE and FOR defining each name
        spec = self.spec
        self.key_of: Callable[[Node], str] = lambda c: spec.op_keys.get(c, c.target if isinstance(c.target, str) else "")
        self.var: dict[str, Interval | None] | None = None
        self.memo: dict[Node, Interval | None] = {}

    def fits(self, n: Node) -> bool:
        """n's exact (CPython) result lies within int64 wherever it is evaluated: no overflow check needed."""
        self._ready()
        return self._exact(n) is not None

    def interval(self, n: Node) -> Interval | None:
        """The values n holds (after any check that raised): None for a node that is not an integer."""
        self._ready()
        return self._iv(n)

    def _ready(self) -> None:
        if self.var is None:
            self._fix_vars()

    # ---- variables ---------------------------------------------------------------------
    def _fix_vars(self) -> None:
        names = [name for name in self.defs if self._int_var(name)]
        self.var = {}
        for _ in range(_ROUNDS):
            self.memo.clear()
            new = {name: self._var_iv(name) for name in names}
            if new == self.var:
                break
            self.var = new
        self.memo.clear()

    def _var_iv(self, name: str) -> Interval | None:
        """Every value a variable holds: a value some assignment stores, moved by at most STEPS_MAX counting
        steps (`count += 1`, `j -= 1`) since."""
        base: list[Interval | None] = []
        lo_step = hi_step = 0
        for d in self.defs[name]:
            step = self._step(name, d)
            if step is None:
                base.append(self._def_iv(name, d))
            else:
                lo_step, hi_step = min(lo_step, step[0]), max(hi_step, step[1])
        iv = self._union(base)
        if iv is None or (lo_step, hi_step) == (0, 0):
            return iv
        return _fit(iv[0] + lo_step * STEPS_MAX, iv[1] + hi_step * STEPS_MAX)

    def _step(self, name: str, d: Node) -> Interval | None:
        """`name = name + c` / `name -= c` with |c| <= STEP_MAX: the change it makes, else None."""
        v = d.args[0] if d.op is Opcode.STORE else None
        if v is None or v.op is not Opcode.CALL or len(v.args) != 2:
            return None
        name_op = op_name(self.key_of(v))
        own = [k for k, a in enumerate(v.args) if a.op is Opcode.LOAD and a.target == name]
        if name_op not in ("add", "sub") or not own or (name_op == "sub" and own[0] != 0):
            return None
        c = self._iv(v.args[1 - own[0]])
        if c is None or not -STEP_MAX <= c[0] <= c[1] <= STEP_MAX:
            return None
        return c if name_op == "add" else (-c[1], -c[0])

    def _int_var(self, name: str) -> bool:
        t = self.spec.var_types.get(name)
        return isinstance(t, ScalarT) and (t.dtype.is_integer or t.dtype.is_bool)

    @staticmethod
    def _union(ivs: list[Interval | None]) -> Interval | None:
        if not ivs or any(iv is None for iv in ivs):
            return None
        return (min(iv[0] for iv in ivs), max(iv[1] for iv in ivs))  # type: ignore[index]

    def _def_iv(self, name: str, d: Node) -> Interval | None:
        if d.op is Opcode.STORE:
            return self._iv(d.args[0])
        if d.op is not Opcode.FOR or d.args[0].op is not Opcode.CALL:
            return None
        it = d.args[0]
        key = self.key_of(it)
        if key == "builtins.range" and isinstance(d.target, str):
            return self._range(it)
        if key == "builtins.enumerate" and not isinstance(d.target, str) and d.target and d.target[0] == name:
            start = self._iv(it.args[1]) if len(it.args) > 1 else (0, 0)
            return None if start is None else _fit(start[0], start[1] + LEN_MAX - 1)
        if key == "numpy.ndindex" and not isinstance(d.target, str) and name in d.target:
            return (0, LEN_MAX - 1)
        return None

    def _range(self, it: Node) -> Interval | None:
        args = [self._iv(a) for a in it.args]
        if None in args or not 1 <= len(args) <= 3:
            return None
        start, stop = (args[0], args[1]) if len(args) > 1 else ((0, 0), args[0])
        assert start is not None and stop is not None
        step = args[2] if len(args) == 3 else (1, 1)
        assert step is not None
        if step[0] > 0:
            return (start[0], max(start[0], stop[1] - 1))
        if step[1] < 0:
            return (min(start[1], stop[0] + 1), start[1])
        return (min(start[0], stop[0]), max(start[1], stop[1]))  # always between start and stop

    # ---- nodes ---------------------------------------------------------------------------
    def _iv(self, n: Node) -> Interval | None:
        """What n holds: its exact interval, else anything its dtype holds (an int64 result that would
        leave int64 has raised, a NumPy one has wrapped: either way it is within the dtype)."""
        full = _dtype_range(self.spec.types.get(n))
        if full is None:
            return None
        iv = self._exact(n)
        return full if iv is None else (max(iv[0], full[0]), min(iv[1], full[1]))

    def _exact(self, n: Node) -> Interval | None:
        if n in self.memo:
            return self.memo[n]
        self.memo[n] = None  # cycles: unbounded
        iv = self._compute(n)
        self.memo[n] = iv
        return iv

    def _compute(self, n: Node) -> Interval | None:
        t = self.spec.types.get(n)
        if not (isinstance(t, ScalarT) and (t.dtype.is_integer or t.dtype.is_bool)):
            return None
        if n.op is Opcode.CONST:
            v = n.target
            return _fit(int(v), int(v)) if isinstance(v, int) else None
        if n.op is Opcode.LOAD:
            return _meet((self.var or {}).get(n.target), self._proven(n))
        if n.op is Opcode.GETATTR and n.target == "size":
            return (0, INT64_MAX)  # a broadcast view's axes may each be below 2**62 and multiply past it
        if n.op is Opcode.GETATTR and n.target == "ndim":
            return (0, 64)
        if n.op is Opcode.GETITEM:
            return self._getitem(n)
        if n.op is not Opcode.CALL:
            return None
        return self._call(n, self.key_of(n))

    def _getitem(self, n: Node) -> Interval | None:
        base, idx = n.args
        if base.op is Opcode.GETATTR and base.target == "shape":
            return _LEN
        if base.op is Opcode.CALL and base.target == "ep.tuple" and idx.op is Opcode.CONST \
                and isinstance(idx.target, int) and 0 <= idx.target < len(base.args):
            return self._iv(base.args[idx.target])  # `x, y = a, b`
        return None

    def _call(self, n: Node, key: str) -> Interval | None:
        if key == "builtins.len":
            return _LEN
        if key == "builtins.ord" or key == "str:builtins.ord":
            return (0, 0x10FFFF)
        args: list[Any] = [self._iv(a) for a in n.args]
        if key in ("builtins.min", "builtins.max") and len(args) >= 2 and None not in args:
            pick = min if key == "builtins.min" else max
            return (pick(a[0] for a in args), pick(a[1] for a in args))
        name = op_name(key)
        if name is None or None in args:
            return None
        if len(args) == 2 and name == "add":
            return self._add(n, args[0], args[1])
        if len(args) == 2 and name in _BINARY:
            return _BINARY[name](args[0], args[1])
        if len(args) == 1 and name in _UNARY:
            return _UNARY[name](args[0])
        return None

    def _add(self, n: Node, a: Interval, b: Interval) -> Interval | None:
        """x + y, narrowed where `x <= y + d` was just tested: 2 * x - d <= x + y <= 2 * y + d."""
        lo, hi = a[0] + b[0], a[1] + b[1]
        x, y = n.args
        for (p, ip), (q, iq) in (((x, a), (y, b)), ((y, b), (x, a))):
            if p.op is Opcode.LOAD and q.op is Opcode.LOAD and p.target != q.target:
                d = self.bounds.guards.relation(n, p.target, q.target)
                if d is not None:
                    lo, hi = max(lo, 2 * ip[0] - d), min(hi, 2 * iq[1] + d)
        return _fit(lo, hi)

    def _proven(self, n: Node) -> Interval | None:
        """What lowering/bounds.py (a lower bound) and lowering/shape_bounds.py (forms `key + offset`) prove of n."""
        lo = self.bounds.lower_bound(n)
        his = [self._form_max(k, o) for k, o in self.bounds.shapes().ubs(n)]
        known = [h for h in his if h is not None]
        if lo is None and not known:
            return None
        return (INT64_MIN if lo is None else lo, min(known) if known else INT64_MAX)

    def _form_max(self, key: Any, off: int) -> int | None:
        if key is None:
            return off
        if isinstance(key, tuple) and key[0] == "dim":
            return LEN_MAX + off  # an axis is at most LEN_MAX
        if isinstance(key, tuple) and key[0] == "name":
            iv = (self.var or {}).get(key[1])  # a variable assigned once, outside any loop
            return None if iv is None else iv[1] + off
        return None


def _meet(a: Interval | None, b: Interval | None) -> Interval | None:
    """Both hold: the overlap (an empty one cannot happen where the value exists; keep a)."""
    if a is None or b is None:
        return a if b is None else b
    lo, hi = max(a[0], b[0]), min(a[1], b[1])
    return (lo, hi) if lo <= hi else a


__all__ = ["INT64_MAX", "INT64_MIN", "IntRanges", "LEN_MAX", "op_name"]

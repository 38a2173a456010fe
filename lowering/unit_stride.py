"""Loop versioning on unit inner strides and on in-range indices.

Arrays arrive as views with run-time strides, so in `for j in range(1, w - 1): out[i, j] =
img[i - 1, j + 1] + ...` g++ sees strided loads of unknown stride and does not vectorise.
An innermost `for` over a range (or one whose only inner loops have constant trip counts, which
g++ unrolls) whose body only reads and writes array elements and does scalar arithmetic is emitted twice: behind `if (a.strides[N-1] == 1 && ...)` with the last
stride the constant 1 (ep::get_unit), and the general loop after `else`. Results are the same
either way; only the contiguous case gets faster (the common one: fresh arrays and NumPy
arguments are C-contiguous).

The same copy also drops bounds checks the compiler cannot prove statically (lowering/shape_bounds.py)
but one test before the loop can: in `for j in range(n): ... d[i, j] ... y[j + 1]`, `n <= d.shape[1]
&& n + 1 <= y.shape[0]` makes every such index in range for the whole loop (as JIT compilers remove
checks); when it fails, the checked loop runs and raises IndexError where CPython would.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from everypath.lowering.indexing import plan_array_index
from everypath.lowering.borrowed import pattern_names
from everypath.lowering.loop_counters import element_accesses, position, trailing_counters
from everypath.base.types import ArrayT, ScalarT
from everypath.tracer.ir import Node, Opcode

if TYPE_CHECKING:
    from everypath.lowering.emit import FunctionEmitter

# (array, axis, counter variable or "" for the loop's own, offset): `uint64_t(var + offset) < array.shape[axis]`
Facts = frozenset[tuple[str, int, str, int]]

_ALLOWED = frozenset({Opcode.CONST, Opcode.LOAD, Opcode.STORE, Opcode.GETITEM, Opcode.SETITEM, Opcode.CALL,
                      Opcode.IF, Opcode.BREAK, Opcode.CONTINUE, Opcode.FOR})


def _constant_range(n: Node) -> bool:
    """range(3), range(-1, 2): a loop g++ unrolls completely, so the loop around it is the one to vectorise."""
    return n.op is Opcode.CALL and n.target == "builtins.range" and all(a.op is Opcode.CONST for a in n.args)


def _array_name(n: Node) -> str | None:
    """The C++ name the emitter gives the array (lowering.emit.ident for locals)."""
    from everypath.lowering.emit import ident

    if n.op is Opcode.LOAD and isinstance(n.target, str):
        return ident(n.target)
    if n.op is Opcode.PARAM:
        return "a_" + n.target
    return None


def unit_stride_arrays(fe: "FunctionEmitter", loop: Node) -> dict[str, int] | None:
    """{C++ array name: ndim} to check before the fast version of loop, or None when the
    loop is not a candidate (nested loops, array-valued calls, wrapping indices, ...)."""
    from everypath.lowering.emit import ident
    from everypath.lowering.emit_values import _element_accessor_kind

    arrays: dict[str, int] = {}
    stored: set[str] = set()
    for n in loop.blocks[0].walk():
        if n.op not in _ALLOWED:
            return None
        if n.op is Opcode.STORE:
            stored.add(ident(str(n.target)))
        elif n.op is Opcode.FOR:
            if not _constant_range(n.args[0]):
                return None  # a loop nest: only the innermost loop is versioned
        elif n.op is Opcode.CALL:
            if _constant_range(n):
                continue
            result_ok = isinstance(fe.ty(n), ScalarT) or n.target == "ep.tuple"  # tuples: element indices
            if not isinstance(n.target, str) or any(not isinstance(fe.ty(a), ScalarT) for a in n.args) \
                    or n.kwargs or not result_ok:
                return None  # only scalar arithmetic: no operator call sites, no user calls
        elif n.op in (Opcode.GETITEM, Opcode.SETITEM):
            base, idx = n.args[0], n.args[1]
            bt = fe.ty(base)
            if not isinstance(bt, ArrayT):
                continue  # tuples, lists
            name = _array_name(base)
            try:
                kind = plan_array_index(bt, fe.spec.type_of(idx)).kind
            except Exception:
                return None
            if name is None or kind != "element" or _element_accessor_kind(fe, idx) == "ep::get":
                return None
            if bt.ndim > 0:  # a 0-d element has no stride to check
                arrays[name] = bt.ndim
    if not arrays or stored & set(arrays):
        return None
    return arrays


def _loop_offset(n: Node, var: str) -> int | None:
    """c when n is `var`, `var + c`, `c + var` or `var - c` for a constant int c."""
    if n.op is Opcode.LOAD and n.target == var:
        return 0
    if n.op is not Opcode.CALL or len(n.args) != 2 or n.target not in ("operator.add", "operator.sub"):
        return None
    a, b = n.args
    if n.target == "operator.add" and a.op is Opcode.CONST:
        a, b = b, a
    if not (a.op is Opcode.LOAD and a.target == var and b.op is Opcode.CONST and isinstance(b.target, int)
            and not isinstance(b.target, bool)):
        return None
    return b.target if n.target == "operator.add" else -b.target


def bounds_versions(fe: "FunctionEmitter", loop: Node) -> tuple[list[str], frozenset[tuple[Node, int, str]], Facts,
                                                                 dict[Node, frozenset[tuple[int, int, int]]]]:
    """The run-time conditions under which the loop's own `i + c` indices (its trailing counters' and its helpers'
    too: lowering/loop_counters.py) are all in range, the (index, axis, array) they prove, and the facts to tell g++
    at the top of each iteration, and per helper call the helper's accesses proven (lowering/helper_clones.py);
    ([], {}, {}, {}) when there are none or the loop is not innermost."""
    from everypath.lowering.emit import ident

    rng = loop.args[0]
    step = fe._const_step(rng)
    if not isinstance(loop.target, str) or step is None or step <= 0:
        return [], frozenset(), frozenset(), {}
    stored: set[str] = set()
    for n in loop.blocks[0].walk():
        if n.op is Opcode.LOOP or (n.op is Opcode.FOR and not _constant_range(n.args[0])):
            return [], frozenset(), frozenset(), {}  # a loop nest: only the innermost loop is versioned
        if n.op is Opcode.STORE:
            stored.add(str(n.target))
        elif n.op is Opcode.FOR:
            stored.update(pattern_names(n.target))
    if loop.target in stored:
        return [], frozenset(), frozenset(), {}
    counters = trailing_counters(fe.spec, loop)
    order = position(loop) if counters else {}
    stop = fe.value(rng.args[0] if len(rng.args) == 1 else rng.args[1])
    start = fe.value(rng.args[0]) if len(rng.args) > 1 else "int64_t(0)"
    lows: list[int] = []  # offsets c whose j + c >= 0 is tested: start + min(c) >= 0 covers them all
    highs: dict[tuple[str, int], int] = {}  # (array, axis) -> the largest c whose j + c < shape is tested
    proven: set[tuple[Node, int, str]] = set()
    facts: set[tuple[str, int, str, int]] = set()
    calls: dict[Node, set[tuple[int, int, int]]] = {}
    for acc in element_accesses(fe.spec, loop):
        base, n, k = acc.array, acc.index, acc.axis
        name = _array_name(base)
        if name is None or (base.op is Opcode.LOAD and base.target in stored):
            continue  # rebound in the loop: its shape may change
        c, var, low_c = _loop_offset(n, loop.target), "", None
        if c is None and n.op is Opcode.LOAD and n.target in counters:
            # start <= counter <= j before its increment, <= j + 1 after it
            c, var, low_c = (0 if order[n] < order[counters[str(n.target)]] else 1), ident(str(n.target)), 0
        if c is None:
            continue
        # the counter runs from start to stop - 1 (a positive step): start + c >= 0 and stop + c <= shape
        # put every j + c in range; a bound known at compile time needs no test (`lo` a parameter does)
        low, high = (fe.bounds.non_negative(n), fe.bounds.in_range(n, base, k)) if acc.direct else (False, False)
        if acc.direct and low and high:
            continue
        if not low:
            lows.append(c if low_c is None else low_c)
        if not high:
            highs[(name, k)] = max(c, highs.get((name, k), c))
        if acc.direct:
            proven.add((n, k, name))
        elif acc.call is not None and acc.triple is not None:
            calls.setdefault(acc.call, set()).add(acc.triple)
        facts.add((name, k, var, c))
    conds = [_plus(start, min(lows)) + " >= 0"] if lows else []
    conds += [f"{_plus(stop, c)} <= {name}.shape[{k}]" for (name, k), c in highs.items()]
    return conds, frozenset(proven), frozenset(facts), {c: frozenset(t) for c, t in calls.items()}


def _plus(v: str, c: int) -> str:
    return f"{v} + {c}" if c > 0 else f"{v} - {-c}" if c < 0 else v


def assumptions(fe: "FunctionEmitter", loop: Node, counter: str) -> list[str]:
    """In the fast copy, what its test proved of each index, said to g++ at the top of every iteration: a helper
    inlined into the loop (`swap(a, i, j)`) then loses its own checks of the same indices."""
    owner, facts = fe.facts
    if owner is not loop:
        return []  # an inner loop of the versioned one: `counter` is not the variable the facts speak of
    # signed, both sides: g++ does not read `i >= 0` out of an unsigned compare with a shape it cannot bound
    # (measured on quicksort_inplace: of the forms tried, this one removes the most, checked and unchecked)
    return [f"if (!({_plus(var or counter, c)} >= 0 && {_plus(var or counter, c)} < {name}.shape[{k}])) "
            "__builtin_unreachable();" for name, k, var, c in sorted(facts)]  # sorted: the same text everywhere




def emit_range_versions(fe: "FunctionEmitter", loop: Node) -> None:
    """A `for` over a range with a constant step: one loop, or a fast copy behind `if (unit strides &&
    indices in range)` and the general loop after `else`."""
    nested = bool(fe.unit_stride or fe.proven)  # inside a fast copy already: one level of versions
    arrays = None if nested else unit_stride_arrays(fe, loop)
    conds, proven, facts, calls = ([], frozenset(), frozenset(), {}) if nested else bounds_versions(fe, loop)
    if not arrays and not conds:
        fe._emit_range_for(loop)
        return
    strides = [f"{a}.strides[{nd - 1}] == 1" for a, nd in (arrays or {}).items()]
    fe.line(f"if ({' && '.join(strides + conds)}) {{")
    fe.depth += 1
    fe.unit_stride, fe.proven, fe.facts, fe.proven_calls = frozenset(arrays or ()), proven, (loop, facts), calls
    fe._emit_range_for(loop)
    fe.unit_stride, fe.proven, fe.facts, fe.proven_calls = frozenset(), frozenset(), (None, frozenset()), {}
    fe.depth -= 1
    fe.line("} else {")
    fe.depth += 1
    fe._emit_range_for(loop)
    fe.depth -= 1
    fe.line("}")

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
from everypath.base.types import ArrayT, ScalarT
from everypath.tracer.ir import Node, Opcode

if TYPE_CHECKING:
    from everypath.lowering.emit import FunctionEmitter

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


def bounds_versions(fe: "FunctionEmitter", loop: Node) -> tuple[list[str], frozenset[tuple[Node, int, str]]]:
    """The run-time conditions under which the loop's own `i + c` indices are all in range, and the
    (index, axis, array) they prove; ([], {}) when there are none or the loop is not innermost."""
    rng = loop.args[0]
    step = fe._const_step(rng)
    if not isinstance(loop.target, str) or step is None or step <= 0:
        return [], frozenset()
    stored: set[str] = set()
    accesses: list[Node] = []
    for n in loop.blocks[0].walk():
        if n.op is Opcode.LOOP or (n.op is Opcode.FOR and not _constant_range(n.args[0])):
            return [], frozenset()  # a loop nest: only the innermost loop is versioned
        if n.op is Opcode.STORE:
            stored.add(str(n.target))
        elif n.op is Opcode.FOR:
            stored.update(_pattern(n.target))
        elif n.op in (Opcode.GETITEM, Opcode.SETITEM) and isinstance(fe.ty(n.args[0]), ArrayT):
            accesses.append(n)
    if loop.target in stored:
        return [], frozenset()
    stop = fe.value(rng.args[0] if len(rng.args) == 1 else rng.args[1])
    start = fe.value(rng.args[0]) if len(rng.args) > 1 else "int64_t(0)"
    lows: list[int] = []  # offsets c whose j + c >= 0 is tested: start + min(c) >= 0 covers them all
    highs: dict[tuple[str, int], int] = {}  # (array, axis) -> the largest c whose j + c < shape is tested
    proven: set[tuple[Node, int, str]] = set()
    for a in accesses:
        base, idx = a.args[0], a.args[1]
        name = _array_name(base)
        if name is None or (base.op is Opcode.LOAD and base.target in stored):
            continue  # rebound in the loop: its shape may change
        try:
            if plan_array_index(fe.ty(base), fe.spec.type_of(idx)).kind != "element":
                continue
        except Exception:  # noqa: BLE001 - not an element access: nothing to prove
            continue
        nodes = list(idx.args) if idx.op is Opcode.CALL and idx.target == "ep.tuple" else [idx]
        for k, n in enumerate(nodes):
            c = _loop_offset(n, loop.target)
            if c is None:
                continue
            # the counter runs from start to stop - 1 (a positive step): start + c >= 0 and stop + c <= shape
            # put every j + c in range; a bound known at compile time needs no test (`lo` a parameter does)
            low, high = fe.bounds.non_negative(n), fe.bounds.in_range(n, base, k)
            if low and high:
                continue
            if not low:
                lows.append(c)
            if not high:
                highs[(name, k)] = max(c, highs.get((name, k), c))
            proven.add((n, k, name))
    conds = [_plus(start, min(lows)) + " >= 0"] if lows else []
    conds += [f"{_plus(stop, c)} <= {name}.shape[{k}]" for (name, k), c in highs.items()]
    return conds, frozenset(proven)


def _plus(v: str, c: int) -> str:
    return f"{v} + {c}" if c > 0 else f"{v} - {-c}" if c < 0 else v


def assumptions(fe: "FunctionEmitter", loop: Node, counter: str) -> list[str]:
    """In the fast copy, what its test proved of each `j + c` index, said to g++ for every iteration: a helper
    inlined into the loop (`swap(a, i, j)`) then loses its own check of the same index."""
    if not isinstance(loop.target, str):
        return []
    facts: set[tuple[str, int, int]] = set()
    for n, k, name in fe.proven:
        c = _loop_offset(n, loop.target)
        if c is not None and _inside(n, loop):
            facts.add((name, k, c))
    return [f"if (!(uint64_t({_plus(counter, c)}) < uint64_t({name}.shape[{k}]))) __builtin_unreachable();"
            for name, k, c in sorted(facts)]  # sorted: the same C++ text in every process (the cache key)


def _inside(n: Node, loop: Node) -> bool:
    return any(m is n for m in loop.blocks[0].walk())


def _pattern(p: object) -> list[str]:
    return [p] if isinstance(p, str) else [x for q in p for x in _pattern(q)]  # type: ignore[attr-defined]


def emit_range_versions(fe: "FunctionEmitter", loop: Node) -> None:
    """A `for` over a range with a constant step: one loop, or a fast copy behind `if (unit strides &&
    indices in range)` and the general loop after `else`."""
    nested = bool(fe.unit_stride or fe.proven)  # inside a fast copy already: one level of versions
    arrays = None if nested else unit_stride_arrays(fe, loop)
    conds, proven = ([], frozenset()) if nested else bounds_versions(fe, loop)
    if not arrays and not conds:
        fe._emit_range_for(loop)
        return
    strides = [f"{a}.strides[{nd - 1}] == 1" for a, nd in (arrays or {}).items()]
    fe.line(f"if ({' && '.join(strides + conds)}) {{")
    fe.depth += 1
    fe.unit_stride, fe.proven = frozenset(arrays or ()), proven
    fe._emit_range_for(loop)
    fe.unit_stride, fe.proven = frozenset(), frozenset()
    fe.depth -= 1
    fe.line("} else {")
    fe.depth += 1
    fe._emit_range_for(loop)
    fe.depth -= 1
    fe.line("}")

"""try / except / else / finally in C++ (the IR comes from tracer/exceptions.py; run-time helpers in
variants/include/everypath/exceptions.hpp).

    try/except/else       bool ok = false; try { body; ok = true; } catch (...) {
                            PyError exc = caught_error(); if (<handler 1 matches>) {...} else ... else throw; }
                          if (ok) { orelse }
    ... finally           int fin = 0; exception_ptr fexc; optional<R> fret;
                          try { <the above> } catch (...) { fexc = current_exception(); fin = -1; }
                          done: finalbody; then leave as recorded: rethrow, return *fret, break, continue

A `return` / `break` / `continue` whose way out crosses a finally records itself and jumps to that
finally's `done` label (C++ allows a goto out of a try block or a handler), which then leaves the same way,
through any outer finally. A handler matches by the raised exception's type name: the compiler lists the
names of the exceptions compiled code can raise that are subclasses of the handler's classes (CPython's
hierarchy: `except LookupError` lists IndexError, KeyError, ...). C++ exceptions cost nothing on the path that
does not throw, and functions without `try` are emitted exactly as before.
"""
from __future__ import annotations

import builtins
import importlib
import os
import sys
from typing import TYPE_CHECKING

from everypath.base.cpp import c_string
from everypath.tracer.exceptions import BODY, CAUGHT, FINAL, ORELSE, RERAISE, Handler, enclosing_handler
from everypath.tracer.ir import Block, Node, Opcode
from everypath.tracer.statics import EXCEPTION_NAMES

if TYPE_CHECKING:
    from everypath.lowering.emit import FunctionEmitter
    from everypath.lowering.infer import TypedFunction

HEADER = "everypath/exceptions.hpp"
JUMPS = frozenset({Opcode.RETURN, Opcode.BREAK, Opcode.CONTINUE})
MARKER = "// everypath: try at "  # portable builds without C++ exceptions refuse units holding one
_KIND = {Opcode.RETURN: 1, Opcode.BREAK: 2, Opcode.CONTINUE: 3}
# exceptions the C++ library raises that are not builtins (variants/include: ep::raise("numpy.linalg...."))
_LIBRARY = ("numpy.linalg.LinAlgError",)


def _resolve(name: str) -> type | None:
    mod, _, qual = name.rpartition(".")
    try:
        cls = getattr(sys.modules.get(mod) or importlib.import_module(mod), qual)
    except (ImportError, AttributeError, ValueError):
        return None
    return cls if isinstance(cls, type) and issubclass(cls, BaseException) else None


def _raised_by(spec: "TypedFunction", block: Block) -> set[str]:
    """The non-builtin exception names that code in block (and every function it calls) raises."""
    out: set[str] = set()
    seen: set[int] = set()

    def visit(s: "TypedFunction", nodes: list[Node]) -> None:
        for x in nodes:
            if x.op is Opcode.RAISE and isinstance(x.target, str) and "." in x.target and x.target != RERAISE:
                out.add(x.target)
            for c in (s.callees.get(x), *getattr(s, "choices", {}).get(x, ())):
                if c is not None and id(c) not in seen:
                    seen.add(id(c))
                    visit(c, list(c.fn.body.walk()))

    visit(spec, list(block.walk()))
    return out


def _universe(spec: "TypedFunction", n: Node) -> dict[str, type]:
    names = {name: getattr(builtins, name) for name in EXCEPTION_NAMES}
    for name in (*_LIBRARY, *_raised_by(spec, n.blocks[BODY])):
        cls = _resolve(name)
        if cls is not None:
            names[name] = cls
    for h in n.target.handlers:  # a class of the user's: what compiled code raising it is called
        for c in h.classes:
            if c.__module__ != "builtins":
                names[f"{c.__module__}.{c.__qualname__}"] = c
    return names


def _matches(h: Handler, exc: str, universe: dict[str, type]) -> str:
    if not h.classes or BaseException in h.classes:
        return "true"
    if Exception in h.classes:  # everything but the few BaseException-only classes
        others = sorted(k for k, c in universe.items() if not issubclass(c, Exception))
        return f"!::ep::exc_in({exc}.type, {{{', '.join(c_string(k) for k in others)}}})"
    names = sorted(k for k, c in universe.items() if issubclass(c, h.classes))
    if not names:
        return "false"
    return f"::ep::exc_in({exc}.type, {{{', '.join(c_string(k) for k in names)}}})"


def _region(n: Node, loop_stops: bool) -> Node | None:
    """The innermost try with a finally whose body, else or handlers hold n; for break/continue only
    one inside the loop they leave."""
    b = n.block
    while b is not None and b.parent is not None:
        owner = b.parent
        if loop_stops and owner.op in (Opcode.FOR, Opcode.LOOP):
            return None
        if owner.op is Opcode.TRY and owner.blocks[FINAL].nodes and b is not owner.blocks[FINAL]:
            return owner
        b = owner.block
    return None


def _jump_kinds(t: Node) -> set[int]:
    """The jumps that leave through t's finally (so its dispatch after the finally has them)."""
    kinds: set[int] = set()
    for b in (t.blocks[BODY], t.blocks[ORELSE], *t.blocks[FINAL + 1:]):
        for x in b.walk():
            if x.op in _KIND and _region(x, x.op is not Opcode.RETURN) is t:
                kinds.add(_KIND[x.op])
    return kinds


def _leave(fe: "FunctionEmitter", at: Node, kind: int, value: str | None) -> None:
    """Leave `at` by `kind` (return value / break / continue): straight, or through the next finally out."""
    r = _region(at, kind != 1)
    if r is None:
        fe.line(f"return {value};" if kind == 1 else "break;" if kind == 2 else "continue;")
        return
    k = r.meta["ep_try"]
    if kind == 1:
        fe.line(f"ep_fret{k}.emplace({value});")
    fe.line(f"ep_fin{k} = {kind}; goto ep_fin_done{k};")


def emit_jump(fe: "FunctionEmitter", n: Node) -> bool:
    """A return / break / continue that crosses a finally (False: none does, the usual statement applies)."""
    if fe.spec.fn.is_generator or _region(n, n.op is not Opcode.RETURN) is None:
        return False
    fe.mark(n)
    value = None
    if n.op is Opcode.RETURN:
        value = fe._convert(fe.value(n.args[0]), fe.ty(n.args[0]), fe.spec.return_type)
    _leave(fe, n, _KIND[n.op], value)
    return True


def emit_reraise(fe: "FunctionEmitter", n: Node) -> None:
    """Bare `raise` (and `raise e`): the handled exception itself, reported at the line it was raised."""
    at = enclosing_handler(n)
    assert at is not None  # tracer/exceptions.py refuses a bare raise outside a handler
    fe.mark(n)
    fe.line(f"EP_LINE(ep_at{at[0].meta['ep_try']}); throw;")


def emit_caught(fe: "FunctionEmitter", n: Node) -> str:
    at = enclosing_handler(n)
    assert at is not None
    return f"::ep::exc_str(ep_exc{at[0].meta['ep_try']})"


def emit_try(fe: "FunctionEmitter", n: Node) -> None:
    from everypath.lowering.emit import return_ctype

    fe.used_headers.add(HEADER)
    k = fe.fresh("")  # labels are per function, and a loop may be emitted twice (lowering/unit_stride.py)
    n.meta["ep_try"] = k
    body, orelse, final, *handlers = n.blocks
    fe.mark(n)
    fe.line(f"{MARKER}{os.path.basename(n.loc.filename)}:{n.loc.lineno}:{n.loc.col + 1}")
    fe.line("{")
    fe.depth += 1
    kinds = _jump_kinds(n) if final.nodes else set()
    if final.nodes:
        fe.line(f"int ep_fin{k} = 0; int ep_fat{k} = 0; std::exception_ptr ep_fexc{k};")
        if 1 in kinds:
            fe.line(f"std::optional<{return_ctype(fe.spec)}> ep_fret{k};")
        fe.line("try {")
        fe.depth += 1
    _try_except(fe, n, k, body, orelse, handlers)
    if final.nodes:
        fe.depth -= 1
        fe.line(f"}} catch (...) {{ ep_fexc{k} = std::current_exception(); ep_fin{k} = -1; ep_fat{k} = ep_line; }}")
        fe.line(f"ep_fin_done{k}:;")
        fe.line("{")
        fe.nested(final)
        fe.line("}")
        fe.line(f"if (ep_fin{k} == -1) {{ EP_LINE(ep_fat{k}); std::rethrow_exception(ep_fexc{k}); }}")
        for kind in sorted(kinds):
            fe.line(f"if (ep_fin{k} == {kind}) {{")
            fe.depth += 1
            _leave(fe, n, kind, f"std::move(*ep_fret{k})" if kind == 1 else None)
            fe.depth -= 1
            fe.line("}")
    fe.depth -= 1
    fe.line("}")


def _try_except(fe: "FunctionEmitter", n: Node, k: str, body: Block, orelse: Block, handlers: list[Block]) -> None:
    if not handlers:  # try/finally: the body, then the else (there is none without a handler)
        fe.line("{")
        fe.nested(body)
        fe.line("}")
        return
    flag = bool(orelse.nodes) and not body.terminates()
    if flag:
        fe.line(f"bool ep_ok{k} = false;")
    fe.line("try {")
    fe.nested(body)
    if flag:
        fe.line(f"  ep_ok{k} = true;")
    fe.line("} catch (...) {")
    fe.depth += 1
    fe.line(f"::ep::PyError ep_exc{k} = ::ep::caught_error(); int ep_at{k} = ep_line; (void)ep_at{k};")
    universe = _universe(fe.spec, n)
    for i, (h, b) in enumerate(zip(n.target.handlers, handlers)):
        fe.line(f"{'if' if i == 0 else '} else if'} ({_matches(h, f'ep_exc{k}', universe)}) {{")
        fe.nested(b)
    fe.line("} else {")
    fe.line("  throw;")
    fe.line("}")
    fe.depth -= 1
    fe.line("}")
    if flag:
        fe.line(f"if (ep_ok{k}) {{")
        fe.nested(orelse)
        fe.line("}")


def portable_refusal(source: str) -> str | None:
    """Why a unit cannot be built for a target without C++ exceptions (wasm), or None."""
    at = source.find(MARKER)
    if at < 0:
        return None
    where = source[at + len(MARKER):source.find("\n", at)].strip()
    return (f"{where}: error: try/except needs C++ exceptions, which this target builds without "
            "(wasm32: -fno-exceptions); raise is supported there")


__all__ = ["CAUGHT", "HEADER", "JUMPS", "RERAISE", "emit_caught", "emit_jump", "emit_reraise", "emit_try",
           "portable_refusal"]

"""Generators in the frontend: `yield` / `yield from` statements, and iterables consumed without a list.

`yield v` becomes a call to `ep.yield` (typed and emitted by lowering/generators.py as `co_yield`);
`yield from it` becomes `for x in it: yield x`. A generator expression (or a call of a user generator
function) given to any/all/max/min/sum/list/sorted is folded by loops as it is produced: any/all stop
at the first item that decides them, as CPython's do, and nothing is materialised for any/all/max/min/sum.
"""
from __future__ import annotations

import ast
import builtins
import inspect
import sys
import types
from typing import TYPE_CHECKING, Any, Callable

from everypath.tracer.ir import Block, Node, Opcode
from everypath.tracer.statics import Static, unwrap_compiled

if TYPE_CHECKING:
    from everypath.base.errors import SourceLocation

_ITEM = "ep$item"  # the loop variable of a generator call seen as `(x for x in gen(...))`
_REDUCERS = frozenset({"builtins.any", "builtins.all", "builtins.max", "builtins.min", "builtins.sum",
                       "builtins.list", "builtins.sorted", "builtins.next"})


def empty_message(name: str) -> str:
    """CPython's ValueError for max()/min() of nothing (its wording changed in 3.12)."""
    return f"{name}() arg is an empty sequence" if sys.version_info < (3, 12) else f"{name}() iterable argument is empty"


class GeneratorLowering:
    """yield statements and generator consumers, mixed into tracer.frontend.FunctionBuilder (whose state
    and helpers these methods use: emit, value, fresh, renames, comprehension, ...)."""

    generator: bool = False  # the function being built yields (set by FunctionBuilder.build_def)

    # ---- yield -----------------------------------------------------------
    def stmt_Expr(self, s: ast.Expr) -> None:
        if isinstance(s.value, ast.Yield):
            loc = self.loc(s.value)
            v = self.value(s.value.value) if s.value.value is not None else self.const(None, loc)
            self.emit(Opcode.CALL, "ep.yield", (v,), loc)
            return
        if isinstance(s.value, ast.YieldFrom):  # for x in it: yield x
            loc = self.loc(s.value)
            iterable = self.value(s.value.value)
            name = self.fresh("yield_from")
            body = self._loop_body(lambda: self.emit(Opcode.CALL, "ep.yield",
                                                     (self.emit(Opcode.LOAD, name, (), loc),), loc))
            self.emit(Opcode.FOR, name, (iterable,), loc, blocks=(body,))
            return
        super().stmt_Expr(s)  # type: ignore[misc]

    def expr_Yield(self, e: ast.Yield) -> Node:
        raise self.error(e, "the value of a yield expression (what send() passes in) is not supported; "
                            "write 'yield' as a statement")

    def expr_YieldFrom(self, e: ast.YieldFrom) -> Node:
        raise self.error(e, "the value of 'yield from' (the inner generator's return value) is not supported; "
                            "write 'yield from' as a statement")

    def stmt_Return(self, s: ast.Return) -> None:
        if self.generator and s.value is not None and not (isinstance(s.value, ast.Constant) and s.value.value is None):
            raise self.error(s, "a generator's return value (StopIteration.value) is not supported; "
                                "use a bare 'return'")
        super().stmt_Return(s)  # type: ignore[misc]

    # ---- consumers ---------------------------------------------------------
    def consume_iterable(self, callee: Node | Static, e: ast.Call) -> Node | None:
        """any/all/max/min/sum/list/sorted of a generator expression or of a generator call, as loops
        (None: not such a call; the ordinary call is emitted)."""
        if not isinstance(callee, Static) or not e.args:
            return None
        key = "builtins.next" if callee.obj is builtins.next else callee.key  # no registry operator of its own
        if key not in _REDUCERS:
            return None
        name = key.split(".")[1]
        if len(e.args) > (2 if name in ("sum", "next") else 1):
            return None
        ge = self.as_genexpr(e.args[0])
        if ge is None:
            return None
        loc = self.loc(e)
        kws = {k.arg: k for k in e.keywords}
        if name in ("any", "all", "list", "sum", "next") and kws:
            return None  # CPython's TypeError: left to the ordinary call, which refuses it
        if name == "next":
            return self._next(ge, e.args[1] if len(e.args) == 2 else None, loc)
        if name == "sum":
            start = self.value(e.args[1]) if len(e.args) == 2 else self.const(0, loc)
            return self.comprehension(ge, accumulate=start)
        if name == "list":
            return self.comprehension(ge)
        if name == "sorted":
            items = self.comprehension(ge)
            return self.emit(Opcode.CALL, key, (items,), loc, self.keywords(e))
        if name in ("any", "all"):
            return self._any_all(ge, name == "any", loc)
        if set(kws) - {"default"}:
            bad = next(k for k in e.keywords if k.arg != "default")
            raise self.error(bad, f"{name}(..., {bad.arg}=...) of a generator is not supported in compiled code; "
                                  f"compute the key in the generator expression")
        return self._min_max(ge, name, kws.get("default"), loc)

    def as_genexpr(self, a: ast.expr) -> ast.GeneratorExp | None:
        """A generator expression, or a call of a user generator function seen as `(x for x in gen(...))`."""
        if isinstance(a, ast.GeneratorExp):
            return a
        if not (isinstance(a, ast.Call) and self._generator_function(a.func)):
            return None
        target = ast.Name(id=_ITEM, ctx=ast.Store())
        ge = ast.GeneratorExp(elt=ast.Name(id=_ITEM, ctx=ast.Load()),
                              generators=[ast.comprehension(target=target, iter=a, ifs=[], is_async=0)])
        for node in (ge, ge.elt, target):
            ast.copy_location(node, a)
        return ge

    def _generator_function(self, f: ast.expr) -> bool:
        """Whether f names a user function that yields (a module global, or a module attribute)."""
        obj: Any = None
        try:
            if isinstance(f, ast.Name) and not self._bound_here(f.id):
                obj = self.lookup_global(f.id)
            elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and not self._bound_here(f.value.id):
                mod = self.lookup_global(f.value.id)
                obj = getattr(mod, f.attr, None) if isinstance(mod, types.ModuleType) else None
        except KeyError:
            return False
        obj = unwrap_compiled(obj)
        return isinstance(obj, types.FunctionType) and bool(obj.__code__.co_flags & inspect.CO_GENERATOR)

    def _bound_here(self, name: str) -> bool:
        b: Any = self
        while b is not None:
            if name in b.locals or name in b.static_locals or any(name in s for s in b.renames):
                return True
            b = b.parent
        return False

    def genexpr_loops(self, ge: ast.GeneratorExp, inner: Callable[[ast.expr], None], flag: str | None = None,
                      stop_when: bool = True, on_start: Callable[[], None] | None = None) -> None:
        """The loops of a generator expression with `inner` at their heart; with `flag`, every enclosing loop
        also breaks once the flag reads `stop_when` (an inner `break` leaves only the innermost loop).
        `on_start` runs once the first iterable is evaluated (as CPython makes the generator object then)."""
        scope: dict[str, str] = {}
        loc = self.loc(ge)

        def gen(i: int) -> None:
            if i == len(ge.generators):
                inner(ge.elt)
                return
            g = ge.generators[i]
            iterable = self.value(g.iter)  # evaluated in the scope enclosing this generator
            if i == 0 and on_start is not None:
                on_start()
            for name in target_names(g.target):
                scope[name] = self.fresh(name)
            pattern = self.pattern(g.target)

            def guarded(conds: list[ast.expr]) -> None:
                if not conds:
                    gen(i + 1)
                    return
                c = self.test(conds[0])
                b = self.in_block(Block(), lambda: guarded(conds[1:]))
                self.emit(Opcode.IF, None, (c,), self.loc(conds[0]), blocks=(b, Block()))

            body = self._loop_body(lambda: guarded(list(g.ifs)))
            self.emit(Opcode.FOR, pattern, (iterable,), self.loc(g.target), blocks=(body,))
            if flag is not None and i > 0:  # inside the enclosing loop's body: leave it too
                self._break_if(flag, stop_when, loc)

        self.renames.append(scope)
        try:
            gen(0)
        finally:
            self.renames.pop()

    def _break_if(self, flag: str, when: bool, loc: "SourceLocation") -> None:
        brk = self.in_block(Block(), lambda: self.emit(Opcode.BREAK, None, (), loc))
        cond = self.emit(Opcode.LOAD, flag, (), loc)
        self.emit(Opcode.IF, None, (cond,), loc, blocks=(brk, Block()) if when else (Block(), brk))

    def _any_all(self, ge: ast.GeneratorExp, is_any: bool, loc: "SourceLocation") -> Node:
        """any(): False until an item is true (then stop); all(): True until an item is false."""
        out = self.fresh("any" if is_any else "all")
        self.emit(Opcode.STORE, out, (self.const(not is_any, loc),), loc)

        def inner(elt: ast.expr) -> None:
            v = self.value(elt)

            def decided() -> None:
                self.emit(Opcode.STORE, out, (self.const(is_any, loc),), loc)
                self.emit(Opcode.BREAK, None, (), loc)

            hit = self.in_block(Block(), decided)
            self.emit(Opcode.IF, None, (v,), self.loc(elt), blocks=(hit, Block()) if is_any else (Block(), hit))

        self.genexpr_loops(ge, inner, out, stop_when=is_any)
        return self.emit(Opcode.LOAD, out, (), loc)

    def _min_max(self, ge: ast.GeneratorExp, name: str, default: ast.keyword | None, loc: "SourceLocation") -> Node:
        """CPython's order: the first item, then each later one that compares greater (max) / less (min)."""
        if default is not None and isinstance(default.value, ast.Constant) and default.value.value is None:
            raise self.error(default, f"{name}(..., default=None) of a generator is not supported in compiled code: "
                                      "the result would be None or an item (one variable holds one type); give a "
                                      "default of the items' type")
        best, has = self.fresh(name), self.fresh("has")
        items = self.fresh("items") if default is not None else None
        self.emit(Opcode.STORE, has, (self.const(False, loc),), loc)
        cmp = "operator.gt" if name == "max" else "operator.lt"

        def inner(elt: ast.expr) -> None:
            v = self.value(elt)
            if items is not None:  # the items' own type, which a default must share (lowering/generators.py)
                self.emit(Opcode.STORE, items, (v,), loc)

            def better() -> None:
                c = self.emit(Opcode.CALL, cmp, (v, self.emit(Opcode.LOAD, best, (), loc)), loc)
                take = self.in_block(Block(), lambda: self.emit(Opcode.STORE, best, (v,), loc))
                self.emit(Opcode.IF, None, (c,), loc, blocks=(take, Block()))

            def first() -> None:
                self.emit(Opcode.STORE, best, (v,), loc)
                self.emit(Opcode.STORE, has, (self.const(True, loc),), loc)

            then, orelse = self.in_block(Block(), better), self.in_block(Block(), first)
            self.emit(Opcode.IF, None, (self.emit(Opcode.LOAD, has, (), loc),), loc, blocks=(then, orelse))

        self.genexpr_loops(ge, inner)

        def empty() -> None:
            if default is None:
                self.emit(Opcode.RAISE, "ValueError", (self.const(empty_message(name), loc),), loc)
                return
            self.emit(Opcode.STORE, best, (self._default(default.value, items),), loc)

        none = self.in_block(Block(), empty)
        self.emit(Opcode.IF, None, (self.emit(Opcode.LOAD, has, (), loc),), loc, blocks=(Block(), none))
        return self.emit(Opcode.LOAD, best, (), loc)


    def _default(self, value: ast.expr, items: str | None) -> Node:
        """A default that must have the items' type (checked by lowering/generators.py)."""
        d = self.emit(Opcode.CALL, "ep.default", (self.value(value),), self.loc(value))
        d.meta["items"] = items
        return d

    def _next(self, ge: ast.GeneratorExp, default: ast.expr | None, loc: "SourceLocation") -> Node:
        """next(gen[, default]): the first item, else the default (evaluated once the generator is made,
        as CPython evaluates the arguments), else StopIteration (a RuntimeError inside a generator, PEP 479)."""
        out, found, items = self.fresh("next"), self.fresh("found"), self.fresh("items")
        self.emit(Opcode.STORE, found, (self.const(False, loc),), loc)

        def start() -> None:
            if default is not None:
                self.emit(Opcode.STORE, out, (self._default(default, items),), loc)

        def inner(elt: ast.expr) -> None:
            v = self.value(elt)
            for name in (items, out):
                self.emit(Opcode.STORE, name, (v,), loc)
            self.emit(Opcode.STORE, found, (self.const(True, loc),), loc)
            self.emit(Opcode.BREAK, None, (), loc)

        self.genexpr_loops(ge, inner, found, stop_when=True, on_start=start)
        if default is None:
            exc, args = ("RuntimeError", (self.const("generator raised StopIteration", loc),)) if self.generator \
                else ("StopIteration", ())
            stop = self.in_block(Block(), lambda: self.emit(Opcode.RAISE, exc, args, loc))
            self.emit(Opcode.IF, None, (self.emit(Opcode.LOAD, found, (), loc),), loc, blocks=(Block(), stop))
        return self.emit(Opcode.LOAD, out, (), loc)


def target_names(t: ast.expr) -> list[str]:
    if isinstance(t, ast.Name):
        return [t.id]
    if isinstance(t, (ast.Tuple, ast.List)):
        return [n for e in t.elts for n in target_names(e)]
    return []

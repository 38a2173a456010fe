"""try / except / else / finally -> one TRY node (the tracer half; lowering/exceptions.py types and emits it).

A TRY node's blocks are (body, orelse, finalbody, one block per handler); its target is a TrySpec naming
each handler's classes (resolved Python classes, matched against what compiled code raises with CPython's
hierarchy when emitting). `except E as e` binds `e` to the caught exception, which compiled code uses as
its text: `str(e)`, `e.args[0]` and `f"{e}"` become one str local set at the handler's start, and
`raise e` a re-raise. Any other use of `e` is a located refusal. A bare `raise` re-raises the exception
being handled (only lexically inside a handler: elsewhere CPython raises RuntimeError).
"""
from __future__ import annotations

import ast
import copy
from dataclasses import dataclass
from typing import TYPE_CHECKING

from everypath.base.errors import SourceLocation
from everypath.tracer.ir import Block, Opcode
from everypath.tracer.statics import Static

if TYPE_CHECKING:
    from everypath.tracer.ir import Node

RERAISE = "ep.reraise"  # a RAISE target: re-raise the exception being handled
CAUGHT = "ep.caught"  # a CALL target: str() of the exception being handled (a handler's first node)
BODY, ORELSE, FINAL = 0, 1, 2  # block positions in a TRY node; handlers follow
_USES = "str(e), e.args[0], f\"{e}\" and 'raise e'"


@dataclass(frozen=True)
class Handler:
    classes: tuple[type, ...]  # empty: a bare `except:`
    names: tuple[str, ...]  # as the source spells them (the printer's text)
    binding: str | None  # the local holding str(e), or None without `as e`
    loc: SourceLocation


@dataclass(frozen=True)
class TrySpec:
    handlers: tuple[Handler, ...]

    def __str__(self) -> str:
        parts = [f"except {', '.join(h.names) or '*'}" + (f" as {h.binding}" if h.binding else "")
                 for h in self.handlers]
        return "; ".join(parts)


def handler_blocks(n: "Node") -> tuple[Block, ...]:
    return n.blocks[FINAL + 1:]


def enclosing_handler(n: "Node") -> "tuple[Node, int] | None":
    """The TRY node and handler index whose handler block (directly or nested) holds n."""
    b = n.block
    while b is not None and b.parent is not None:
        owner = b.parent
        if owner.op is Opcode.TRY:
            for i, h in enumerate(handler_blocks(owner)):
                if h is b:
                    return owner, i
        b = owner.block
    return None


class _Binding(ast.NodeTransformer):
    """Rewrites the uses of `e` in one handler body to the str local; refuses the rest."""

    def __init__(self, builder: "ExceptionLowering", name: str, local: str, keyerror: bool) -> None:
        self.b, self.name, self.local, self.keyerror = builder, name, local, keyerror
        self.depth = 0  # nested handlers: `raise e` there would re-raise another exception

    def _is_e(self, x: ast.AST) -> bool:
        return isinstance(x, ast.Name) and x.id == self.name

    def _local(self, like: ast.AST) -> ast.Name:
        return ast.copy_location(ast.Name(id=self.local, ctx=ast.Load()), like)

    def visit_ExceptHandler(self, h: ast.ExceptHandler) -> ast.AST:
        if h.name == self.name:
            return h  # rebinds e: the inner handler's own binding
        self.depth += 1
        try:
            return self.generic_visit(h)
        finally:
            self.depth -= 1

    def visit_Call(self, c: ast.Call) -> ast.AST:
        if (isinstance(c.func, ast.Name) and c.func.id == "str" and "str" not in self.b.locals
                and len(c.args) == 1 and not c.keywords and self._is_e(c.args[0])):
            return self._local(c)
        return self.generic_visit(c)

    def visit_Subscript(self, s: ast.Subscript) -> ast.AST:
        v = s.value
        if isinstance(v, ast.Attribute) and v.attr == "args" and self._is_e(v.value):
            if not (isinstance(s.slice, ast.Constant) and s.slice.value in (0, -1)):
                raise self.b.error(s, "only e.args[0] of a caught exception is supported (compiled exceptions "
                                      "carry one message)")
            if self.keyerror:
                raise self.b.error(s, "e.args[0] of an exception that may be a KeyError (its key, not text) is "
                                      "not supported in compiled code; use str(e)")
            return self._local(s)
        return self.generic_visit(s)

    def visit_FormattedValue(self, f: ast.FormattedValue) -> ast.AST:
        if self._is_e(f.value):
            if f.conversion == ord("r") or f.format_spec is not None:
                raise self.b.error(f, f"f-string {{{self.name}!r}} and format specs of a caught exception are not "
                                      f"supported in compiled code; its uses are {_USES}")
            return ast.copy_location(ast.FormattedValue(value=self._local(f), conversion=-1, format_spec=None), f)
        return self.generic_visit(f)

    def visit_Raise(self, r: ast.Raise) -> ast.AST:
        if r.exc is not None and self._is_e(r.exc) and r.cause is None:
            if self.depth:
                raise self.b.error(r, f"'raise {self.name}' inside a nested handler is not supported in compiled "
                                      "code (it would re-raise another exception); raise it outside")
            return ast.copy_location(ast.Raise(exc=None, cause=None), r)
        return self.generic_visit(r)

    def visit_Name(self, x: ast.Name) -> ast.AST:
        if x.id == self.name:
            raise self.b.error(x, f"the caught exception '{self.name}' can be used as {_USES.replace('e', self.name)} "
                                  "in compiled code")
        return x


class ExceptionLowering:
    """stmt_Try and the re-raise half of stmt_Raise, mixed into tracer.frontend.FunctionBuilder."""

    def stmt_Try(self, s: ast.Try) -> None:
        loc = self.loc(s)
        if self.generator:
            raise self.error(s, "try statements in generator functions are not supported yet")
        body = self.in_block(Block(), lambda: self.statements(s.body))
        handlers: list[Handler] = []
        blocks: list[Block] = []
        for h in s.handlers:
            classes, names = self._handler_classes(h)
            binding = self.fresh(f"{h.name}$exc") if h.name else None
            stmts = h.body
            if h.name:
                keyerror = not classes or any(issubclass(KeyError, c) for c in classes)
                stmts = [_Binding(self, h.name, binding, keyerror).visit(copy.deepcopy(x)) for x in h.body]
            handlers.append(Handler(classes, names, binding, self.loc(h)))

            def trace(stmts: list[ast.stmt] = stmts, binding: str | None = binding, h: ast.ExceptHandler = h) -> None:
                if binding is not None:
                    self.emit(Opcode.STORE, binding, (self.emit(Opcode.CALL, CAUGHT, (), self.loc(h)),), self.loc(h))
                self.handler_depth += 1
                try:
                    self.statements(stmts)
                finally:
                    self.handler_depth -= 1

            blocks.append(self.in_block(Block(), trace))
        orelse = self.in_block(Block(), lambda: self.statements(s.orelse))
        final = self.in_block(Block(), lambda: self.statements(s.finalbody))
        self.emit(Opcode.TRY, TrySpec(tuple(handlers)), (), loc, blocks=(body, orelse, final, *blocks))

    def _handler_classes(self, h: ast.ExceptHandler) -> tuple[tuple[type, ...], tuple[str, ...]]:
        if h.type is None:
            return (), ()
        elts = h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]
        classes: list[type] = []
        for e in elts:
            v = self.expr(e)
            cls = v.obj if isinstance(v, Static) else None
            if not (isinstance(cls, type) and issubclass(cls, BaseException)):
                raise self.error(e, "an except clause takes exception classes (a class or a tuple of classes) "
                                    "known when compiling")
            classes.append(cls)
        return tuple(classes), tuple(ast.unparse(e) for e in elts)

    def reraise(self, s: ast.Raise) -> None:
        if not self.handler_depth:
            raise self.error(s, "bare 'raise' outside an except clause (CPython raises RuntimeError: No active "
                                "exception to reraise) is not supported in compiled code")
        self.emit(Opcode.RAISE, RERAISE, (), self.loc(s))

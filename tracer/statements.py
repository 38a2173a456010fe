"""Python statements -> IR: the statement half of tracer.frontend.FunctionBuilder (a mixin it inherits).

`while` becomes a `loop` whose first statements test the condition and `break`; `assert` becomes
`if not cond: raise AssertionError(...)`; augmented assignment stores the in-place operator's result;
`import` inside a function binds a module statically; a nested `def` is traced as a closure.
"""
from __future__ import annotations

import ast
import sys
from typing import TYPE_CHECKING, Callable

from everypath.tracer.ir import Block, Node, Opcode
from everypath.tracer.opnames import AUGOPS
from everypath.tracer.statics import EXCEPTION_NAMES, Static, import_module, module_name_allowed, static_for

if TYPE_CHECKING:
    pass


class StatementLowering:
    """stmt_<Name> methods, dispatched by FunctionBuilder.statements; the expression half and the state
    (block, emit, error, renames, ...) live in FunctionBuilder."""

    def statements(self, stmts: list[ast.stmt]) -> None:
        for s in stmts:
            if self.block.terminates():
                return  # code after return/raise/break/continue is unreachable
            method = getattr(self, "stmt_" + type(s).__name__, None)
            if method is None:
                raise self.error(s, f"statement '{type(s).__name__}' is not supported")
            method(s)

    def store(self, target: ast.expr, value: Node) -> None:
        loc = self.loc(target)
        if isinstance(target, ast.Name):
            self.emit(Opcode.STORE, target.id, (value,), loc)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for i, t in enumerate(target.elts):
                item = self.emit(Opcode.GETITEM, None, (value, self.const(i, loc)), loc)
                item.meta["unpack"] = len(target.elts)
                self.store(t, item)
        elif isinstance(target, ast.Subscript):
            base = self.expr(target.value)
            if isinstance(base, Static):
                raise self.error(target, "cannot assign into a module-level object")
            self.emit(Opcode.SETITEM, None, (base, self.index(target.slice), value), loc)
        elif isinstance(target, ast.Attribute):  # r.x = v: a record's field (lowering/records.py)
            base = self.expr(target.value)
            if isinstance(base, Static):
                raise self.error(target, "cannot assign into a module-level object")
            self.emit(Opcode.CALL, "ep.setattr", (base, self.const(target.attr, loc), value), loc)
        else:
            raise self.error(target, "only names, tuples, subscripts and fields can be assigned to")

    def stmt_Assign(self, s: ast.Assign) -> None:
        value = self.value(s.value)
        for t in s.targets:
            self.store(t, value)

    def stmt_AnnAssign(self, s: ast.AnnAssign) -> None:
        if s.value is not None:
            self.store(s.target, self.value(s.value))

    def stmt_AugAssign(self, s: ast.AugAssign) -> None:
        loc = self.loc(s)
        key = AUGOPS[type(s.op)]
        t = s.target
        if isinstance(t, ast.Name):
            cur = self.value(t)
            self.emit(Opcode.STORE, t.id, (self.emit(Opcode.CALL, key, (cur, self.value(s.value)), loc),), loc)
        elif isinstance(t, ast.Subscript):
            base = self.value(t.value)
            idx = self.index(t.slice)
            cur = self.emit(Opcode.GETITEM, None, (base, idx), loc)
            new = self.emit(Opcode.CALL, key, (cur, self.value(s.value)), loc)
            self.emit(Opcode.SETITEM, None, (base, idx, new), loc)
        elif isinstance(t, ast.Attribute):
            base = self.value(t.value)
            cur = self.emit(Opcode.GETATTR, t.attr, (base,), loc)
            new = self.emit(Opcode.CALL, key, (cur, self.value(s.value)), loc)
            self.emit(Opcode.CALL, "ep.setattr", (base, self.const(t.attr, loc), new), loc)
        else:
            raise self.error(t, "augmented assignment to this target is not supported")

    def stmt_Expr(self, s: ast.Expr) -> None:
        if isinstance(s.value, ast.Constant):
            return  # docstrings and bare constants do nothing
        self.expr(s.value)

    def stmt_Delete(self, s: ast.Delete) -> None:  # del d[k] (tracer/whitelist.py refuses other targets)
        for t in s.targets:
            assert isinstance(t, ast.Subscript)
            self.emit(Opcode.CALL, "ep.delitem", (self.value(t.value), self.index(t.slice)), self.loc(t))

    def stmt_Pass(self, s: ast.Pass) -> None:
        return

    def stmt_Return(self, s: ast.Return) -> None:
        loc = self.loc(s)
        value = self.value(s.value) if s.value is not None else self.const(None, loc)
        self.emit(Opcode.RETURN, None, (value,), loc)

    def stmt_If(self, s: ast.If) -> None:
        cond = self.test(s.test)
        then = self.in_block(Block(), lambda: self.statements(s.body))
        orelse = self.in_block(Block(), lambda: self.statements(s.orelse))
        self.emit(Opcode.IF, None, (cond,), self.loc(s), blocks=(then, orelse))

    def _loop_body(self, fn: Callable[[], None]) -> Block:
        self.loop_depth += 1
        try:
            return self.in_block(Block(), fn)
        finally:
            self.loop_depth -= 1

    def stmt_For(self, s: ast.For) -> None:
        iterable = self.value(s.iter)
        pattern = self.pattern(s.target)
        body = self._loop_body(lambda: self.statements(s.body))
        self.emit(Opcode.FOR, pattern, (iterable,), self.loc(s), blocks=(body,))

    def stmt_While(self, s: ast.While) -> None:
        loc = self.loc(s)

        def body() -> None:
            cond = self.test(s.test)
            stop = Block()
            self.in_block(stop, lambda: self.emit(Opcode.BREAK, None, (), loc))
            self.emit(Opcode.IF, None, (cond,), self.loc(s.test), blocks=(Block(), stop))
            self.statements(s.body)

        self.emit(Opcode.LOOP, None, (), loc, blocks=(self._loop_body(body),))

    def stmt_Break(self, s: ast.Break) -> None:
        self.emit(Opcode.BREAK, None, (), self.loc(s))

    def stmt_Continue(self, s: ast.Continue) -> None:
        self.emit(Opcode.CONTINUE, None, (), self.loc(s))

    def stmt_Raise(self, s: ast.Raise) -> None:
        loc = self.loc(s)
        exc = s.exc
        if exc is None:  # re-raise the exception being handled: tracer/exceptions.py
            return self.reraise(s)
        if s.cause is not None:
            raise self.error(s, "'raise ... from ...' is not supported")
        call_args: list[ast.expr] = []
        if isinstance(exc, ast.Call):
            call_args = list(exc.args)
            if exc.keywords or len(call_args) > 1:
                raise self.error(exc, "exceptions take at most one message argument")
            exc = exc.func
        name = exc.id if isinstance(exc, ast.Name) else None
        if name is None or name not in EXCEPTION_NAMES or name in self.locals:
            name = self.library_exception(exc)
        self.emit(Opcode.RAISE, name, tuple(self.value(a) for a in call_args), loc)

    def library_exception(self, exc: ast.expr) -> str:
        """`module.Name` of an exception class other than a builtin (statistics.StatisticsError): one the
        runtime can import by that name, and that subclasses a builtin, so callers can catch it as either."""
        if not isinstance(exc, ast.Name | ast.Attribute):
            raise self.error(exc, "only exception classes can be raised")
        value = self.expr(exc)
        cls = value.obj if isinstance(value, Static) else None
        if not (isinstance(cls, type) and issubclass(cls, BaseException)):
            raise self.error(exc, "only exception classes can be raised")
        mod, qual = getattr(cls, "__module__", ""), getattr(cls, "__qualname__", "")
        importable = "." not in qual and mod not in ("", "__main__") and \
            getattr(sys.modules.get(mod), qual, None) is cls
        if not importable or len(f"{mod}.{qual}") >= 64:
            raise self.error(exc, f"exception class {qual} cannot be raised from compiled code: only builtin "
                                  "exceptions and classes importable as module.Name are")
        return f"{mod}.{qual}"

    def stmt_Assert(self, s: ast.Assert) -> None:
        loc = self.loc(s)
        cond = self.test(s.test)
        fail = Block()

        def raise_() -> None:
            args = (self.value(s.msg),) if s.msg is not None else ()
            self.emit(Opcode.RAISE, "AssertionError", args, loc)

        self.in_block(fail, raise_)
        self.emit(Opcode.IF, None, (cond,), loc, blocks=(Block(), fail))

    def stmt_Import(self, s: ast.Import) -> None:
        for a in s.names:
            if not module_name_allowed(a.name):
                raise self.error(s, f"import of '{a.name}' is not supported (numpy and math are)")
            if a.asname:
                self.static_locals[a.asname] = static_for(import_module(a.name))
            else:
                top = a.name.split(".")[0]
                self.static_locals[top] = static_for(import_module(top))

    def stmt_ImportFrom(self, s: ast.ImportFrom) -> None:
        if s.level or not s.module or not module_name_allowed(s.module):
            raise self.error(s, f"import from '{s.module}' is not supported (numpy and math are)")
        mod = import_module(s.module)
        for a in s.names:
            if not hasattr(mod, a.name):
                raise self.error(s, f"module '{s.module}' has no attribute '{a.name}'")
            self.static_locals[a.asname or a.name] = static_for(getattr(mod, a.name))

    def stmt_FunctionDef(self, s: ast.FunctionDef) -> None:
        if s.decorator_list:
            raise self.error(s.decorator_list[0], "decorators on nested functions are not supported")
        child = type(self)(s.name, f"{self.qualname}.{s.name}", self.module, self.smap, self.lookup_global,
                           self.on_function, parent=self)
        defaults = tuple(self._default_value(d) for d in s.args.defaults)
        fn = child.build_def(s, lambda _a, _n: None, defaults)
        self._propagate_freevars(fn)
        node = self.emit(Opcode.CLOSURE, fn, (), self.loc(s))
        self.emit(Opcode.STORE, s.name, (node,), self.loc(s))

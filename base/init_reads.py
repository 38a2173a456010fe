"""Reads of `self.x` in a plain class's `__init__` that may come before `self.x` is assigned.

CPython raises `AttributeError: 'Box' object has no attribute 'x'` there; compiled code would read the struct's
zero, a silent wrong answer, so such a read is a located compile error instead. The walk follows `__init__` in
evaluation order with the set of attributes assigned on every path so far (base/plain_classes.py `_definite`
computes the same sets for the class's layout): a branch joins by intersection, a loop body may not run, a
`del self.x` unassigns. A method or property getter `__init__` calls on `self` is summarised once (the attributes
it reads before assigning them, the ones it surely assigns), so `self.reset()` before `self.total = 0.0` is
caught at the call. `self` passed on as a value (`helper(self)`, `return self` in such a method) before every
attribute is assigned is refused too: compiled code cannot see what the receiver reads.
"""
from __future__ import annotations

import ast
import types
from dataclasses import dataclass, field
from typing import Callable

from everypath.base.class_source import Source, loc, self_name, source
from everypath.base.errors import CompileError

Assigned = frozenset[str] | None  # None: every path so far ended (return/raise/break/continue)
_ENDS = (ast.Return, ast.Raise, ast.Break, ast.Continue)
_DURING = ("checking which attributes __init__ reads",)
WHOLE = "*"  # Exposed.attr of `self` used as a value: it needs every attribute


@dataclass(frozen=True)
class Exposed:
    """One read that may precede the assignment: the attribute and where (the node in its function)."""

    attr: str
    src: Source
    node: ast.AST


@dataclass(frozen=True)
class Summary:
    """What running one method does to an instance under construction."""

    reads: tuple[Exposed, ...]  # the attributes it may read before it assigns them (first read of each)
    assigns: frozenset[str] | None  # the ones it assigns on every path (None: it never returns)


def _join(a: Assigned, b: Assigned) -> Assigned:
    return b if a is None else a if b is None else a & b


@dataclass(frozen=True)
class _Walk:
    """One function's walk; `missing` is called for each read of an attribute not surely assigned."""

    cls: type
    src: Source
    me: str
    fields: frozenset[str]
    missing: Callable[[Exposed, ast.AST, str], None]  # (the read, the node here that reaches it, an unset name)
    summaries: dict[str, Summary | None] = field(default_factory=dict)  # shared by every walk of one class

    # ---- expressions, in CPython's evaluation order ----
    def expr(self, e: ast.AST | None, done: frozenset[str], conditional: bool = False) -> frozenset[str]:
        """The attributes surely assigned after evaluating e (a method call on self may assign some)."""
        if e is None:
            return done
        if isinstance(e, ast.Attribute) and self._is_me(e.value):
            return self._self_attribute(e, done, conditional)
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and self._is_me(e.func.value):
            for a in (*e.args, *(k.value for k in e.keywords)):
                done = self.expr(a, done, conditional)
            return self._call(e.func.attr, e, done, conditional)
        if isinstance(e, ast.Name) and e.id == self.me and isinstance(e.ctx, ast.Load):
            self._need(Exposed(WHOLE, self.src, e), e, done)
            return done
        if isinstance(e, ast.Lambda):  # runs later, if ever: its reads count as reads now
            self.expr(e.body, done, True)
            return done
        lazy = _lazy_children(e)
        for child in ast.iter_child_nodes(e):
            after = self.expr(child, done, conditional or child in lazy)
            if child not in lazy and not conditional:
                done = after
        return done

    def _is_me(self, e: ast.AST) -> bool:
        return isinstance(e, ast.Name) and e.id == self.me

    def _self_attribute(self, e: ast.Attribute, done: frozenset[str], conditional: bool) -> frozenset[str]:
        if isinstance(e.ctx, ast.Store):  # the target of an assignment: the statement stores it
            return done
        if e.attr in self.fields:
            self._need(Exposed(e.attr, self.src, e), e, done)
            return done
        if isinstance(vars(self.cls).get(e.attr), property):  # a property getter runs here
            return self._call(e.attr, e, done, conditional)
        return done  # a class constant, a method read for a call below, or an error the typer reports

    def _call(self, name: str, at: ast.AST, done: frozenset[str], conditional: bool) -> frozenset[str]:
        summary = self._summary(name)
        if summary is None:
            return done
        for r in summary.reads:
            self._need(r, at, done)
        if conditional:
            return done
        return self.fields if summary.assigns is None else done | summary.assigns

    def _need(self, read: Exposed, at: ast.AST, done: frozenset[str]) -> None:
        unset = sorted((self.fields if read.attr == WHOLE else {read.attr}) - done)
        if unset:
            self.missing(read, at, unset[0])

    def _summary(self, name: str) -> Summary | None:
        """A method's (or property getter's) effect on self; None for what takes no self (a staticmethod)."""
        if name in self.summaries:
            return self.summaries[name]
        value = vars(self.cls).get(name)
        fn = value.fget if isinstance(value, property) else value
        if not isinstance(fn, types.FunctionType):
            return None
        self.summaries[name] = None  # recursion: a method calling itself adds nothing new
        src = source(fn)
        me = self_name(src.tree)
        if me is None:
            return None
        reads: dict[str, Exposed] = {}

        def record(read: Exposed, _at: ast.AST, _unset: str) -> None:
            reads.setdefault(read.attr, read)

        inner = _Walk(self.cls, src, me, self.fields, record, self.summaries)
        out = inner.body(src.tree.body, frozenset())
        self.summaries[name] = Summary(tuple(reads.values()), out)
        return self.summaries[name]

    # ---- statements ----
    def body(self, stmts: list[ast.stmt], done: Assigned) -> Assigned:
        for s in stmts:
            if done is None:
                return None  # unreachable: nothing after return/raise/break/continue runs
            done = self.stmt(s, done)
        return done

    def _store(self, target: ast.AST, done: frozenset[str]) -> frozenset[str]:
        if isinstance(target, ast.Attribute) and self._is_me(target.value):
            return done | {target.attr}
        if isinstance(target, (ast.Tuple, ast.List)):
            for t in target.elts:
                done = self._store(t, done)
            return done
        if isinstance(target, ast.Starred):
            return self._store(target.value, done)
        return self.expr(target, done)  # `self.d[k] = v` reads self.d; a plain name reads nothing

    def stmt(self, s: ast.stmt, done: frozenset[str]) -> Assigned:
        if isinstance(s, ast.Assign):
            done = self.expr(s.value, done)
            for t in s.targets:
                done = self._store(t, done)
            return done
        if isinstance(s, ast.AugAssign):  # `self.x += v` reads self.x first
            done = self.expr(ast.Attribute(s.target.value, s.target.attr, ast.Load(), lineno=s.target.lineno,
                                           col_offset=s.target.col_offset)
                             if isinstance(s.target, ast.Attribute) else s.target, done)
            return self._store(s.target, self.expr(s.value, done))
        if isinstance(s, ast.AnnAssign):  # `self.x: float` without a value assigns nothing
            return done if s.value is None else self._store(s.target, self.expr(s.value, done))
        if isinstance(s, ast.Delete):
            for t in s.targets:
                if isinstance(t, ast.Attribute) and self._is_me(t.value):
                    done = done - {t.attr}
                else:
                    done = self.expr(t, done)
            return done
        if isinstance(s, _ENDS):
            self.expr(getattr(s, "value", None) or getattr(s, "exc", None), done)
            return None
        if isinstance(s, ast.If):
            done = self.expr(s.test, done)
            return _join(self.body(s.body, done), self.body(s.orelse, done))
        if isinstance(s, (ast.For, ast.AsyncFor, ast.While)):  # the body may run no time at all
            done = self.expr(s.iter if isinstance(s, (ast.For, ast.AsyncFor)) else s.test, done)
            inside = self._store(s.target, done) if isinstance(s, (ast.For, ast.AsyncFor)) else done
            after = _join(done, self.body(s.body, inside))
            return _join(after, self.body(s.orelse, after)) if s.orelse else after
        if isinstance(s, (ast.With, ast.AsyncWith)):
            for item in s.items:
                done = self.expr(item.context_expr, done)
                if item.optional_vars is not None:
                    done = self._store(item.optional_vars, done)
            return self.body(s.body, done)
        if isinstance(s, ast.Try):  # a handler may run after any statement of the body: from the entry's set
            ok = self.body(s.orelse, self.body(s.body, done))
            for h in s.handlers:
                ok = _join(ok, self.body(h.body, done))
            final = self.body(s.finalbody, done)
            return None if final is None or ok is None else ok | final
        if isinstance(s, ast.Match):
            done = self.expr(s.subject, done)
            out: Assigned = done  # no case may match
            for c in s.cases:
                out = _join(out, self.body(c.body, self.expr(c.guard, done)))
            return out
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return done  # compiled code refuses these inside methods, located, elsewhere
        for child in ast.iter_child_nodes(s):  # Expr, Assert, Pass, Global, ...: their expressions
            done = self.expr(child, done)
        return done


def _lazy_children(e: ast.AST) -> set[ast.AST]:
    """The parts of an expression that may not run (`b` in `a and b`, both arms of `x if c else y`,
    a comprehension's body): their reads count, what they assign does not."""
    if isinstance(e, ast.BoolOp):
        return set(e.values[1:])
    if isinstance(e, ast.IfExp):
        return {e.body, e.orelse}
    if isinstance(e, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
        first = e.generators[0].iter if e.generators else None
        return {c for c in ast.iter_child_nodes(e) if c is not first}
    return set()


def _message(cls: type, read: Exposed, unset: str, init: Source) -> str:
    name = cls.__qualname__
    where = loc(read.src, read.node)
    by = "" if read.src is init else f"{read.src.tree.name}() at {where.filename}:{where.lineno}"
    if read.attr == WHOLE:  # self itself, as a value
        return (f"self is used as a value{' by ' + by if by else ''} before __init__ assigns self.{unset}: compiled "
                f"code cannot tell what is read of this {name} under construction; assign every attribute first")
    return (f"self.{unset} is read before __init__ assigns it{': ' + by + ' reads it' if by else ''} (CPython "
            f"raises AttributeError: '{name}' object has no attribute '{unset}')")


def check_reads(cls: type, init: types.FunctionType, fields: tuple[str, ...]) -> None:
    """Refuse, located, the first read in __init__ (or in what it calls on self) that may precede the
    attribute's assignment."""
    src = source(init)
    me = self_name(src.tree)
    if me is None:
        return

    def missing(read: Exposed, at: ast.AST, unset: str) -> None:
        raise CompileError.at(loc(src, at), _message(cls, read, unset, src), _DURING)

    _Walk(cls, src, me, frozenset(fields), missing).body(src.tree.body, frozenset())

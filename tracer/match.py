"""match statements -> nested `if`s in the IR (the tracer half; lowering/match.py types the three tests).

Each case becomes tests nested around its body: a literal or value pattern is `subject == value`, `None`
is `subject is None`, `True`/`False` `ep.match_is`, a sequence pattern `ep.match_seq(subject, n)` and then
its items' patterns, a class pattern `ep.match_class(subject, "module:qualname")` and then its fields'
patterns (positional ones through the class's __match_args__). The kind tests are decided at compile time
wherever the subject's type decides them (a tuple's length, a record's class), so `case (x,)` and
`case (r, c)` both compile for a 2-tuple: only the live branch is typed and emitted. Captures are stores
to the function's locals, bound only once their pattern matched. A case whose body falls through sets a
flag the later cases test; after a body that returns (breaks, raises) none is needed, so a match whose
every case returns ends the function as an if/else chain would.
"""
from __future__ import annotations

import ast
from typing import Callable

from everypath.base.classes import is_enum_class, is_record_class
from everypath.tracer.ir import Block, Node, Opcode
from everypath.tracer.statics import Static

MATCH_SEQ, MATCH_CLASS, MATCH_IS = "ep.match_seq", "ep.match_class", "ep.match_is"
CALLS = frozenset({MATCH_SEQ, MATCH_CLASS, MATCH_IS})
BUILTIN_CLASSES = (int, float, str, bool)  # class patterns of builtins: `case int():`, `case str(s):`
_REFUSED = {
    ast.MatchMapping: "mapping patterns ({...})",
    ast.MatchStar: "star patterns (*rest)",
}


def capture_names(pattern: ast.pattern) -> list[str]:
    """The names a pattern binds (tracer.frontend's local names)."""
    return [x.name for x in ast.walk(pattern) if isinstance(x, (ast.MatchAs, ast.MatchStar)) and x.name]


def irrefutable(p: ast.pattern) -> bool:
    if isinstance(p, ast.MatchAs):
        return p.pattern is None or irrefutable(p.pattern)
    if isinstance(p, ast.MatchOr):
        return any(irrefutable(x) for x in p.patterns)
    return False


class MatchLowering:
    """stmt_Match, mixed into tracer.frontend.FunctionBuilder."""

    def stmt_Match(self, s: ast.Match) -> None:
        loc = self.loc(s)
        subject = self.fresh("match")
        self.emit(Opcode.STORE, subject, (self.value(s.subject),), loc)
        done = self.fresh("matched")
        at = len(self.block.nodes)
        flag = False  # a case before this one may fall through: test `done` first
        for c in s.cases:
            fell: list[bool] = []

            def case(c: ast.match_case = c, fell: list[bool] = fell) -> None:
                def body() -> None:
                    def run() -> None:
                        self.statements(c.body)
                        if not self.block.terminates():
                            self.emit(Opcode.STORE, done, (self.const(True, self.loc(c.pattern)),), self.loc(c.pattern))
                            fell.append(True)

                    if c.guard is None:
                        run()
                    else:
                        self._if(self.test(c.guard), run, self.loc(c.guard))

                self.pattern_test(c.pattern, lambda: self.emit(Opcode.LOAD, subject, (), loc), body)

            if flag:
                not_done = self.emit(Opcode.CALL, "operator.not_", (self.emit(Opcode.LOAD, done, (), loc),), loc)
                self._if(not_done, case, self.loc(c.pattern))
            else:
                case()
            flag = flag or bool(fell)
            if self.block.terminates():
                break
        if flag:  # `done = False` before the first case
            head = self.in_block(Block(), lambda: self.emit(Opcode.STORE, done, (self.const(False, loc),), loc))
            for x in head.nodes:
                x.block = self.block
            self.block.nodes[at:at] = head.nodes

    def _if(self, cond: Node, then: Callable[[], None], loc: object) -> None:
        b = self.in_block(Block(), then)
        self.emit(Opcode.IF, None, (cond,), loc, blocks=(b, Block()))

    def pattern_test(self, p: ast.pattern, subject: Callable[[], Node], then: Callable[[], None]) -> None:
        """Emit the tests of p on the subject, with `then` where p matched (its captures bound)."""
        loc = self.loc(p)
        if type(p) in _REFUSED:
            raise self.error(p, f"{_REFUSED[type(p)]} in match statements are not supported in compiled code")
        if isinstance(p, ast.MatchAs):
            def bind() -> None:
                if p.name is not None:
                    self.emit(Opcode.STORE, p.name, (subject(),), loc)
                then()

            if p.pattern is None:
                bind()
            else:
                self.pattern_test(p.pattern, subject, bind)
            return
        if isinstance(p, ast.MatchValue):
            value = self.value(p.value)
            self._if(self.emit(Opcode.CALL, "operator.eq", (subject(), value), loc), then, loc)
            return
        if isinstance(p, ast.MatchSingleton):
            if p.value is None:
                cond = self.emit(Opcode.CALL, "operator.is_", (subject(), self.const(None, loc)), loc)
            else:
                cond = self.emit(Opcode.CALL, MATCH_IS, (subject(), self.const(p.value, loc)), loc)
            self._if(cond, then, loc)
            return
        if isinstance(p, ast.MatchOr):
            self._alternatives(p, subject, then)
            return
        if isinstance(p, ast.MatchSequence):
            star = next((x for x in p.patterns if isinstance(x, ast.MatchStar)), None)
            if star is not None:
                raise self.error(star, f"{_REFUSED[ast.MatchStar]} in match statements are not supported in "
                                       "compiled code")
            n = len(p.patterns)
            cond = self.emit(Opcode.CALL, MATCH_SEQ, (subject(), self.const(n, loc)), loc)
            items = [(lambda i=i: self.emit(Opcode.GETITEM, None, (subject(), self.const(i, loc)), loc))
                     for i in range(n)]
            self._if(cond, lambda: self._each(list(zip(p.patterns, items)), then), loc)
            return
        if isinstance(p, ast.MatchClass):
            self._class(p, subject, then)
            return
        raise self.error(p, f"the pattern {ast.unparse(p)} is not supported in compiled code")

    def _each(self, pairs: list[tuple[ast.pattern, Callable[[], Node]]], then: Callable[[], None]) -> None:
        if not pairs:
            then()
            return
        (p, item), rest = pairs[0], pairs[1:]
        self.pattern_test(p, item, lambda: self._each(rest, then))

    def _alternatives(self, p: ast.MatchOr, subject: Callable[[], Node], then: Callable[[], None]) -> None:
        names = capture_names(p)
        if names:
            raise self.error(p, f"capture patterns inside '|' alternatives ({names[0]}) are not supported in "
                                "compiled code")
        loc = self.loc(p)
        hit = self.fresh("alt")
        self.emit(Opcode.STORE, hit, (self.const(False, loc),), loc)
        for i, alt in enumerate(p.patterns):
            def one(alt: ast.pattern = alt) -> None:
                self.pattern_test(alt, subject, lambda: self.emit(Opcode.STORE, hit, (self.const(True, loc),), loc))

            if i == 0:
                one()
            else:
                miss = self.emit(Opcode.CALL, "operator.not_", (self.emit(Opcode.LOAD, hit, (), loc),), loc)
                self._if(miss, one, loc)
        self._if(self.emit(Opcode.LOAD, hit, (), loc), then, loc)

    def _class(self, p: ast.MatchClass, subject: Callable[[], Node], then: Callable[[], None]) -> None:
        loc = self.loc(p)
        v = self.expr(p.cls)
        cls = v.obj if isinstance(v, Static) else None
        if cls in BUILTIN_CLASSES:
            key, fields = f"builtins:{cls.__name__}", ()
            if len(p.patterns) > 1 or p.kwd_patterns:
                raise self.error(p, f"{cls.__name__}() patterns take one positional sub-pattern (the subject)")
        elif isinstance(cls, type) and (is_record_class(cls) or is_enum_class(cls)):
            key, fields = f"{cls.__module__}:{cls.__qualname__}", tuple(getattr(cls, "__match_args__", ()))
            if len(p.patterns) > len(fields):
                raise self.error(p, f"{cls.__qualname__}() accepts {len(fields)} positional sub-pattern"
                                    f"{'s' if len(fields) != 1 else ''} ({len(p.patterns)} given)")
        else:
            raise self.error(p.cls, f"class patterns are supported for dataclasses, NamedTuples, enums and int, "
                                    f"float, str, bool; not {ast.unparse(p.cls)}")
        cond = self.emit(Opcode.CALL, MATCH_CLASS, (subject(), self.const(key, loc)), loc)
        pairs: list[tuple[ast.pattern, Callable[[], Node]]] = []
        if cls in BUILTIN_CLASSES:
            pairs = [(x, subject) for x in p.patterns]
        else:
            attrs = [*fields[:len(p.patterns)], *p.kwd_attrs]
            for attr, sub in zip(attrs, [*p.patterns, *p.kwd_patterns]):
                pairs.append((sub, lambda attr=attr: self.emit(Opcode.GETATTR, attr, (subject(),), loc)))
        self._if(cond, lambda: self._each(pairs, then), loc)

"""Errors users see. Compile errors are gcc-style, carry their location and are picklable."""
from __future__ import annotations

import linecache
from dataclasses import dataclass


@dataclass(frozen=True)
class SourceLocation:
    """Where a construct came from in the user's Python source (1-based line, 0-based column)."""

    filename: str
    lineno: int
    col: int

    def __str__(self) -> str:
        return f"{self.filename}:{self.lineno}:{self.col + 1}"


UNKNOWN_LOCATION = SourceLocation("<unknown>", 0, 0)


class CompileError(Exception):
    """A program everypath refuses to compile, with the place that caused it.

    Printed as ``path:line:col: error: message``, then the source line and a
    caret under the column, then ``during: ...`` lines from the outermost
    stage inwards. Picklable so that errors survive worker processes.
    """

    def __init__(
        self,
        message: str,
        filename: str = "<unknown>",
        lineno: int = 0,
        col: int = 0,
        during: tuple[str, ...] = (),
        source_line: str | None = None,
    ) -> None:
        self.message = message
        self.filename = filename
        self.lineno = lineno
        self.col = col
        self.during = tuple(during)
        if source_line is None and lineno > 0:
            source_line = linecache.getline(filename, lineno).rstrip("\n")
        self.source_line = source_line or ""
        super().__init__(self._render())

    @classmethod
    def at(cls, loc: SourceLocation, message: str, during: tuple[str, ...] = ()) -> "CompileError":
        return cls(message, loc.filename, loc.lineno, loc.col, during)

    @property
    def location(self) -> SourceLocation:
        return SourceLocation(self.filename, self.lineno, self.col)

    def with_during(self, context: str) -> "CompileError":
        """The same error with one more (outer) ``during:`` context line."""
        return CompileError(
            self.message, self.filename, self.lineno, self.col, (context, *self.during), self.source_line
        )

    def _render(self) -> str:
        col = self.col + 1
        lines = [f"{self.filename}:{self.lineno}:{col}: error: {self.message}"]
        if self.source_line:
            lines.append(self.source_line)
            lines.append(" " * self.col + "^")
        lines.extend(f"during: {d}" for d in self.during)
        return "\n".join(lines)

    def __reduce__(self):  # keep every field through pickle
        return (
            CompileError,
            (self.message, self.filename, self.lineno, self.col, self.during, self.source_line),
        )


class CompileErrors(CompileError):
    """Several independent errors found in one pass (type inference collects them all)."""

    def __init__(self, errors: tuple[CompileError, ...] | list[CompileError]) -> None:
        self.errors = tuple(errors)
        first = self.errors[0]
        super().__init__(first.message, first.filename, first.lineno, first.col, first.during, first.source_line)
        self.args = ("\n".join(e._render() for e in self.errors),)

    def __str__(self) -> str:
        return self.args[0]

    def with_during(self, context: str) -> "CompileErrors":
        return CompileErrors([e.with_during(context) for e in self.errors])

    def __reduce__(self):
        return (CompileErrors, (self.errors,))


class SourceSyntaxError(CompileError):
    """The user's source does not parse: Python's SyntaxError as one located gcc-style error."""

    @classmethod
    def from_syntax_error(cls, exc: SyntaxError, filename: str | None = None, line_offset: int = 0,
                          col_offset: int = 0) -> "SourceSyntaxError":
        """line_offset/col_offset: where the parsed text starts in its file (a dedented function)."""
        lineno = (exc.lineno or 1) + line_offset
        col = max((exc.offset or 1) - 1, 0) + (col_offset if exc.lineno and exc.lineno > 0 else 0)
        name = filename or exc.filename or "<unknown>"
        line = linecache.getline(name, lineno).rstrip("\n") or (exc.text or "").rstrip("\n")
        return cls(exc.msg or "invalid syntax", name, lineno, col, (), line)

    def __reduce__(self):
        return (SourceSyntaxError, (self.message, self.filename, self.lineno, self.col, self.during, self.source_line))


def internal_error(loc: SourceLocation, exc: BaseException, during: tuple[str, ...] = ()) -> CompileError:
    """An unexpected exception inside the compiler, reported at the user's construct it was working on."""
    return CompileError.at(loc, f"internal error: {type(exc).__name__}: {exc} (please report this bug)", during)


class TypingError(Exception):
    """A typing rule rejected a call; becomes a CompileError at the call's location."""


class OpenSignatureError(CompileError):
    """The signature leaves a type open (no annotation, or an array without a rank):
    it cannot be built ahead of time, only specialised on a call's arguments."""

    def __reduce__(self):
        return (OpenSignatureError, (self.message, self.filename, self.lineno, self.col, self.during, self.source_line))

    def with_during(self, context: str) -> "OpenSignatureError":
        return OpenSignatureError(self.message, self.filename, self.lineno, self.col, (context, *self.during),
                                  self.source_line)


class BuildError(RuntimeError):
    """The C++ toolchain failed on code we generated: always our bug, never the user's."""

__all__ = ["SourceLocation", "CompileError", "CompileErrors", "SourceSyntaxError", "internal_error",
           "OpenSignatureError", "BuildError", "TypingError"]

"""The parsed source of a plain class's method, and locations in it (base/plain_classes.py, base/init_reads.py)."""
from __future__ import annotations

import ast
import inspect
import textwrap
import types
from dataclasses import dataclass

from everypath.base.errors import SourceLocation


@dataclass(frozen=True)
class Source:
    tree: ast.FunctionDef
    filename: str
    first: int  # line offset of the def in its file


def source(fn: types.FunctionType) -> Source:
    lines, first = inspect.getsourcelines(fn)
    tree = ast.parse(textwrap.dedent("".join(lines)))
    node = tree.body[0]
    assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    return Source(node, fn.__code__.co_filename, first - 1)  # type: ignore[arg-type]


def loc(src: Source, node: ast.AST) -> SourceLocation:
    return SourceLocation(src.filename, src.first + node.lineno, node.col_offset)  # type: ignore[attr-defined]


def self_name(fdef: ast.FunctionDef) -> str | None:
    """The name of a method's first parameter (`self`), None when it takes none."""
    return fdef.args.args[0].arg if fdef.args.args else None

"""Importing a user's module by path and finding its @compile functions."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import click

from everypath.api import CompiledFunction
from everypath.base.errors import SourceSyntaxError


def import_path(path: str) -> object:
    p = Path(path).resolve()
    if not p.exists():
        raise click.BadParameter(f"no such file: {path}", param_hint="MODULE")
    name = f"everypath_user.{p.stem}"
    spec = importlib.util.spec_from_file_location(name, p)
    if spec is None or spec.loader is None:
        raise click.BadParameter(f"cannot import {path}", param_hint="MODULE")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, str(p.parent))
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:  # one located gcc-style line, not a traceback from inside the CLI
        raise LocatedError(str(SourceSyntaxError.from_syntax_error(exc))) from None
    return module


class LocatedError(click.ClickException):
    """A compile error printed as is (path:line:col: error: ...), exit status 1."""

    def show(self, file: object = None) -> None:
        click.echo(self.message, err=True)


def compiled_functions(module: object) -> dict[str, CompiledFunction]:
    return {k: v for k, v in vars(module).items() if isinstance(v, CompiledFunction)}


def resolve_target(target: str) -> tuple[object, list[tuple[str, object]]]:
    """MODULE.py[:FUNC] -> (module, [(name, function)]); plain functions are allowed with :FUNC."""
    path, _, func = target.partition(":")
    module = import_path(path)
    if func:
        obj = getattr(module, func, None)
        if obj is None:
            raise click.BadParameter(f"{path} has no function '{func}'", param_hint="TARGET")
        return module, [(func, obj)]
    found = compiled_functions(module)
    if not found:
        raise click.BadParameter(f"{path} has no @everypath.compile functions; name one as {path}:FUNC",
                                 param_hint="TARGET")
    return module, list(found.items())

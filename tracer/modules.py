"""Importing a user's module by path and finding its @compile functions (for the CLI and the demo)."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import click

from everypath.base.errors import SourceSyntaxError
from everypath.tracer.statics import is_compiled


def import_path(path: str) -> object:
    """Import a user's file. Inside a package (folders with __init__.py) it is imported by its package
    name from the package root, as `from pkg import app` would (relative imports work); a lone script
    as everypath_user.<stem>, so that it cannot shadow a module of that name. Either way its builds
    share the cache with `python app.py` and `python -m pkg.app`: keys never use the import name."""
    p = Path(path).resolve()
    if not p.exists():
        raise click.BadParameter(f"no such file: {path}", param_hint="MODULE")
    root = p.parent
    while (root / "__init__.py").is_file():
        root = root.parent
    try:
        if root != p.parent:
            module = _import_package_module(p, root)
            if module is not None:
                return module
        return _import_file(path, p)
    except SyntaxError as exc:  # one located gcc-style line, not a traceback from inside the CLI
        raise LocatedError(str(SourceSyntaxError.from_syntax_error(exc))) from None


def _import_package_module(p: Path, root: Path) -> object | None:
    """pkg/app.py imported as pkg.app with root on sys.path; None when that name is another file here
    (an installed package of the same name)."""
    from everypath.tracer.globals import source_module

    name = source_module(str(p), "")
    sys.path.insert(0, str(root))
    module = importlib.import_module(name)
    f = getattr(module, "__file__", None)
    return module if f is not None and Path(f).resolve() == p else None


def _import_file(path: str, p: Path) -> object:
    name = f"everypath_user.{p.stem}"
    spec = importlib.util.spec_from_file_location(name, p)
    if spec is None or spec.loader is None:
        raise click.BadParameter(f"cannot import {path}", param_hint="MODULE")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, str(p.parent))
    spec.loader.exec_module(module)
    return module


class LocatedError(click.ClickException):
    """A compile error printed as is (path:line:col: error: ...), exit status 1."""

    def show(self, file: object = None) -> None:
        click.echo(self.message, err=True)


def compiled_functions(module: object) -> dict[str, object]:
    """The module's @everypath.compile functions by name."""
    return {k: v for k, v in vars(module).items() if is_compiled(v)}


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

"""`everypath trace`: the canonical IR of a function and everything it calls."""
from __future__ import annotations

import click

from everypath.base.errors import CompileError


@click.command("trace")
@click.argument("target")
@click.option("--typed/--untyped", default=True, help="Annotate every node with its inferred type.")
def trace_cmd(target: str, typed: bool) -> None:
    """Print the IR of MODULE.py:FUNC (or of every @compile function in MODULE.py)."""
    from everypath.modules import resolve_target
    from everypath.lowering.pipeline import ir_text

    _, funcs = resolve_target(target)
    for _, obj in funcs:
        fn = getattr(obj, "py_function", obj)
        try:
            click.echo(ir_text(fn, typed=typed))  # type: ignore[arg-type]
        except CompileError as exc:
            raise click.ClickException(str(exc)) from None

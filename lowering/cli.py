"""`everypath compile` and `everypath cpp`: ahead-of-time builds and the generated C++."""
from __future__ import annotations

import json
import time

import click

from everypath.api import CompiledFunction, CompileOptions
from everypath.base.errors import BuildError, CompileError


def _as_compiled(obj: object) -> CompiledFunction:
    if isinstance(obj, CompiledFunction):
        return obj
    return CompiledFunction(obj, CompileOptions())  # type: ignore[arg-type]


@click.command("compile")
@click.argument("target")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per function.")
def compile_cmd(target: str, as_json: bool) -> None:
    """Build every @compile function in MODULE.py (or MODULE.py:FUNC) ahead of time.

    Builds land in the content-addressed cache, so the first call at run time
    finds them and starts in milliseconds."""
    from everypath.modules import resolve_target
    from rich.console import Console
    from rich.table import Table

    _, funcs = resolve_target(target)
    rows = []
    failed = 0
    for name, obj in funcs:
        t0 = time.perf_counter()
        try:
            m = _as_compiled(obj).build()
            rows.append({"function": name, "status": "cached" if m.from_cache else "built",
                         "seconds": round(time.perf_counter() - t0, 3), "artifact": str(m.so_path)})
        except (CompileError, BuildError) as exc:
            failed += 1
            rows.append({"function": name, "status": "error", "seconds": round(time.perf_counter() - t0, 3),
                         "error": str(exc)})
    if as_json:
        click.echo(json.dumps(rows, indent=2))
    else:
        console = Console()
        table = Table(title=f"everypath compile {target}")
        for col in ("function", "status", "seconds", "artifact"):
            table.add_column(col)
        for r in rows:
            table.add_row(r["function"], r["status"], f"{r['seconds']:.2f}", r.get("artifact", ""))
        console.print(table)
        for r in rows:
            if r["status"] == "error":
                click.echo(r["error"], err=True)
    if failed:
        raise SystemExit(1)


@click.command("cpp")
@click.argument("target")
def cpp_cmd(target: str) -> None:
    """Print the C++ generated for MODULE.py:FUNC."""
    from everypath.modules import resolve_target

    _, funcs = resolve_target(target)
    for _, obj in funcs:
        try:
            click.echo(_as_compiled(obj).cpp_source)
        except CompileError as exc:
            raise click.ClickException(str(exc)) from None

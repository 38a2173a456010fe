"""`everypath compile`, `everypath cpp` and `everypath trace`: ahead-of-time builds, the generated C++ and
the IR of a user's functions (decorated or not: a plain function builds with the environment's settings)."""
from __future__ import annotations

import json
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import click

from everypath.base.errors import BuildError, CompileError

if TYPE_CHECKING:
    from rich.progress import Progress


def _build(obj: object) -> Any:
    """The CompiledModule of a @compile function (with its own settings) or of a plain function."""
    from everypath.base.settings import Settings
    from everypath.lowering.cache import build_cached

    settings = getattr(obj, "settings", None) if getattr(type(obj), "__everypath_compiled__", False) else None
    return build_cached(getattr(obj, "py_function", obj), settings or Settings.from_env())


def _build_one(name: str, obj: object) -> dict[str, object]:
    """One function's row of the compile table; compile errors are rows, anything else propagates."""
    t0 = time.perf_counter()
    try:
        m = _build(obj)
        return {"function": name, "status": "cached" if m.from_cache else "built",
                "seconds": round(time.perf_counter() - t0, 3), "artifact": str(m.so_path)}
    except (CompileError, BuildError) as exc:
        return {"function": name, "status": "error", "seconds": round(time.perf_counter() - t0, 3), "error": str(exc)}


def _build_all(funcs: list[tuple[str, object]], jobs: int, progress: Progress | None) -> list[dict[str, object]]:
    """Build on `jobs` threads (g++ runs as a subprocess, so the threads overlap where the time goes);
    rows come back in the module's order. Two functions of one generated C++ may build at once:
    the build writes through temporary names and renames (lowering.build), so neither corrupts the other."""
    running: list[str] = []
    lock = threading.Lock()
    task = progress.add_task("", total=len(funcs)) if progress is not None else None

    def show() -> None:
        if progress is not None and task is not None:
            progress.update(task, description=", ".join(running) or "done")

    def run(name: str, obj: object) -> dict[str, object]:
        with lock:
            running.append(name)
            show()
        try:
            return _build_one(name, obj)
        finally:
            with lock:
                running.remove(name)
                show()
                if progress is not None and task is not None:
                    progress.advance(task)

    with ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="everypath-compile") as pool:
        futures = [pool.submit(run, name, obj) for name, obj in funcs]
        return [f.result() for f in futures]


def _progress(force: bool | None) -> Progress | None:
    """A progress bar on stderr: when it is a terminal, or always with --progress (a pipe then gets
    the final state only: rich does not redraw what is not a terminal)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    if force is False or (force is None and not console.is_terminal):
        return None
    return Progress(SpinnerColumn(), TextColumn("compiling"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), TextColumn("{task.description}"), console=console)


@click.command("compile")
@click.argument("target")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per function.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Functions built at once (default: the CPU count).")
@click.option("--progress/--no-progress", default=None,
              help="Show a progress bar on stderr (default: when stderr is a terminal).")
def compile_cmd(target: str, as_json: bool, jobs: int | None, progress: bool | None) -> None:
    """Build every @compile function in MODULE.py (or MODULE.py:FUNC) ahead of time.

    Builds land in the content-addressed cache under the function's own identity (file, qualname,
    source, types, flags, compiler), so the program's first call finds them and starts in
    milliseconds, whether it runs as a script, a package module or `python -m`."""
    from everypath.tracer.modules import resolve_target
    from rich.console import Console
    from rich.table import Table

    _, funcs = resolve_target(target)
    bar = _progress(progress)
    if bar is not None:
        with bar:
            rows = _build_all(funcs, jobs or os.cpu_count() or 1, bar)
    else:
        rows = _build_all(funcs, jobs or os.cpu_count() or 1, None)
    failed = sum(r["status"] == "error" for r in rows)
    if as_json:
        click.echo(json.dumps(rows, indent=2))
    else:
        console = Console()
        table = Table(title=f"everypath compile {target}")
        for col in ("function", "status", "seconds", "artifact"):
            table.add_column(col)
        for r in rows:
            table.add_row(str(r["function"]), str(r["status"]), f"{r['seconds']:.2f}", str(r.get("artifact", "")))
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
    from everypath.tracer.modules import resolve_target

    _, funcs = resolve_target(target)
    for _, obj in funcs:
        try:
            click.echo(_build(obj).cpp_path.read_text())
        except CompileError as exc:
            raise click.ClickException(str(exc)) from None


@click.command("trace")
@click.argument("target")
@click.option("--typed/--untyped", default=True, help="Annotate every node with its inferred type.")
def trace_cmd(target: str, typed: bool) -> None:
    """Print the IR of MODULE.py:FUNC (or of every @compile function in MODULE.py)."""
    from everypath.lowering.pipeline import ir_text
    from everypath.tracer.modules import resolve_target

    _, funcs = resolve_target(target)
    for _, obj in funcs:
        fn = getattr(obj, "py_function", obj)
        try:
            click.echo(ir_text(fn, typed=typed))  # type: ignore[arg-type]
        except CompileError as exc:
            raise click.ClickException(str(exc)) from None

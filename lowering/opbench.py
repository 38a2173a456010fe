"""`everypath ops bench OP`: every available variant of one operator, side by side.

Each path is compiled separately (Settings.force_path) from a one-line kernel calling the operator
(variants/opbench.py's recipes), and timed against the Python reference (NumPy) in the same process on the
same inputs: best-of-repeats of back-to-back calls, so the ratios are what matters, not the absolute times.
Compiled through lowering.compiled (telemetry stays off: it would time itself).
"""
from __future__ import annotations

import json
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

import click
import numpy as np

from everypath.base.settings import Settings
from everypath.lowering.compiled import CompiledFunction, CompileOptions
from everypath.variants.availability import available
from everypath.variants.cli import ops_group
from everypath.variants.opbench import load_recipe, recipe
from everypath.variants.registry import Operator


@dataclass(frozen=True)
class Timing:
    path: str
    size: int
    seconds: float | None  # None: the variant failed (error holds why)
    error: str | None = None


def _best(fn: Callable[..., Any], args: tuple[Any, ...], budget: float = 0.2) -> float:
    fn(*args)
    best = float("inf")
    deadline = time.perf_counter() + budget
    reps = 0
    while reps < 5 or (time.perf_counter() < deadline and reps < 1000):
        t = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - t)
        reps += 1
    return best


def bench(op: Operator, sizes: list[int], settings: Settings, dtype: str = "float64",
          progress: Callable[[str], None] = lambda s: None, axis: int | None = None) -> list[Timing]:
    """Time the reference and every available path of op at each size."""
    rec = recipe(op, dtype, axis)
    out: list[Timing] = []
    with tempfile.TemporaryDirectory() as tmp:
        ref = load_recipe(rec.source, Path(tmp))
        paths = [v.path for v in op.variants if available(v)[0]]
        compiled = {p: CompiledFunction(ref, CompileOptions(), replace(settings, force_path=p)) for p in paths}
        rng = np.random.default_rng(0)
        for n in sizes:
            args = rec.inputs(n, rng)
            out.append(Timing("reference", n, _best(ref, args)))
            for p, fn in compiled.items():
                progress(f"{op.key} {p} n={n}")
                try:
                    got = fn(*args)
                    np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(ref(*args), dtype=float),
                                               rtol=1e-4, atol=1e-6 * max(n, 1))
                    out.append(Timing(p, n, _best(fn, args)))
                except Exception as exc:  # a failing variant is data, not a crash of the benchmark
                    out.append(Timing(p, n, None, f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"))
    return out


@click.command("bench")
@click.argument("op")
@click.option("--sizes", default="1000,100000,1000000", show_default=True,
              help="Comma-separated element counts (matrix products: n elements = sqrt(n) x sqrt(n)).")
@click.option("--dtype", default="float64", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="A JSON list of {path, size, seconds, ratio, error}.")
def ops_bench(op: str, sizes: str, dtype: str, as_json: bool) -> None:
    """Measure each available variant of OP side by side with its Python reference."""
    from everypath.base.settings import Settings
    from everypath.variants.registry import TypingError, lookup_operator

    try:
        operator = lookup_operator(op)
    except TypingError as exc:
        raise click.BadParameter(str(exc), param_hint="OP") from None
    try:
        size_list = [int(s) for s in sizes.split(",") if s.strip()]
    except ValueError:
        raise click.BadParameter(f"expected comma-separated integers, got {sizes!r}", param_hint="--sizes") from None
    if not size_list or min(size_list) < 0:
        raise click.BadParameter("expected non-negative sizes", param_hint="--sizes")
    try:
        rows = bench(operator, size_list, Settings.from_env(), dtype,
                     progress=lambda s: click.echo(s, err=True) if not as_json else None)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    ref = {t.size: t.seconds for t in rows if t.path == "reference"}
    out = [{"path": t.path, "size": t.size, "seconds": t.seconds, "error": t.error,
            "ratio": (ref[t.size] / t.seconds) if t.seconds and ref.get(t.size) else None} for t in rows]
    if as_json:
        click.echo(json.dumps(out, indent=1))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{operator.key} ({dtype}): time per call, speedup over the reference")
    for c in ("size", "path", "time", "× reference"):
        table.add_column(c, justify="right" if c != "path" else "left")
    for r in out:
        t = "failed: " + r["error"] if r["seconds"] is None else f"{r['seconds'] * 1e6:.1f} µs"
        table.add_row(str(r["size"]), r["path"], t, "" if r["ratio"] is None else f"{r['ratio']:.2f}×")
    Console().print(table)


ops_group.add_command(ops_bench)

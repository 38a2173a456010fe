"""`everypath ops ...`: the operator library as users see it."""
from __future__ import annotations

import json

import click

from everypath.variants.registry import registry


@click.group("ops")
def ops_group() -> None:
    """Inspect the operator library."""


@click.command("list")
@click.option("--json", "as_json", is_flag=True, help="A JSON list of {op, family, variants}.")
def ops_list(as_json: bool) -> None:
    """Every operator with its variants and whether each is available on this host."""
    from everypath.variants.availability import available

    seen: dict[str, dict] = {}
    for key, op in sorted(registry().ops.items()):
        if op.key in seen and key != op.key:
            continue
        variants = []
        for v in op.variants:
            ok, reason = available(v)
            variants.append({"path": v.path, "available": ok, "reason": reason})
        seen[op.key] = {"op": op.key, "family": op.family.value, "aliases": list(op.aliases), "variants": variants}
    rows = list(seen.values())
    if as_json:
        click.echo(json.dumps(rows, indent=1))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{len(rows)} operators")
    table.add_column("operator")
    table.add_column("family")
    table.add_column("variants")
    for r in rows:
        table.add_row(r["op"], r["family"], ", ".join(v["path"] + ("" if v["available"] else " (n/a)") for v in r["variants"]))
    Console().print(table)


@click.command("bench")
@click.argument("op")
@click.option("--sizes", default="1000,100000,1000000", show_default=True,
              help="Comma-separated element counts (matrix products: n elements = sqrt(n) x sqrt(n)).")
@click.option("--dtype", default="float64", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="A JSON list of {path, size, seconds, ratio, error}.")
def ops_bench(op: str, sizes: str, dtype: str, as_json: bool) -> None:
    """Measure each available variant of OP side by side with its Python reference."""
    from everypath.base.settings import Settings
    from everypath.variants.opbench import bench
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


ops_group.add_command(ops_list)
ops_group.add_command(ops_bench)

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


ops_group.add_command(ops_list)

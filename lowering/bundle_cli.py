"""`everypath bundle` (and `bundle keygen`), `everypath inspect`, `everypath run`: bundles from the shell."""
from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import click

from everypath.lowering.bundle import BundleError


class _DefaultGroup(click.Group):
    """`everypath bundle MODULE.py:FUNC ...` builds; `everypath bundle keygen KEYFILE` is a subcommand."""

    default = "create"

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = [self.default, *args]
        return super().parse_args(ctx, args)


@click.group("bundle", cls=_DefaultGroup)
def bundle_group() -> None:
    """Build MODULE.py:FUNC for every target into one NAME.everypath bundle
    (`everypath bundle MODULE.py:FUNC -o NAME.everypath`), or make a signing key (`bundle keygen`)."""


def _one_function(target: str) -> Any:
    from everypath.tracer.modules import resolve_target
    from everypath.tracer.statics import is_compiled

    _, funcs = resolve_target(target)
    if len(funcs) != 1:
        names = ", ".join(n for n, _ in funcs)
        raise click.BadParameter(f"{target} has several @compile functions ({names}): name one as "
                                 f"{target.partition(':')[0]}:FUNC", param_hint="TARGET")
    obj = funcs[0][1]
    return obj.py_function if is_compiled(obj) else obj


@bundle_group.command("create")
@click.argument("target")
@click.option("-o", "--output", "output", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="The bundle to write (NAME.everypath).")
@click.option("--targets", "targets", default=None, help="Comma-separated targets (default: all).")
@click.option("--sign", "sign_key", default=None, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="An ed25519 private key (PEM, OpenSSH or 32 raw bytes): writes manifest.sig.")
@click.option("--table", "table", default=None, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="The selection table to ship (default: the one in force, if any).")
def create_cmd(target: str, output: Path, targets: str | None, sign_key: Path | None, table: Path | None) -> None:
    """Build MODULE.py:FUNC for every target into one bundle."""
    import types

    from everypath.base.errors import BuildError, CompileError
    from everypath.base.settings import Settings
    from everypath.lowering.bundle import read_table, table_in_force, write_bundle
    from everypath.lowering.bundle_sign import BadKeyError, load_private_key
    from everypath.lowering.portable import build_function
    from everypath.lowering.targets import parse_targets

    try:
        wanted = parse_targets(targets)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--targets") from None
    try:
        key = load_private_key(sign_key) if sign_key is not None else None
    except BadKeyError as exc:
        raise click.BadParameter(str(exc), param_hint="--sign") from None
    pyfunc = _one_function(target)
    if not isinstance(pyfunc, types.FunctionType):
        raise click.BadParameter(f"{target} is not a Python function", param_hint="TARGET")
    settings = Settings.from_env()
    try:
        table_path = table_in_force(table, settings)
        table_text = read_table(table_path)[0].decode() if table_path is not None else None
        pf = build_function(pyfunc, wanted, settings, table=table_text,
                            on_target=lambda t: click.echo(f"building {t} ...", err=True))
        manifest = write_bundle(pyfunc, pf, output, table_path, key)
    except (CompileError, BuildError, BundleError) as exc:
        raise click.ClickException(str(exc)) from None
    for a in manifest["artifacts"]:
        click.echo(f"  {a['target']:<16} {a['kind']:<16} {a['size']:>10} B  {a['sha256'][:12]}")
    for s in manifest["not_built"]:
        click.echo(f"  {s['target']:<16} {s['kind']:<16} not built: {s['reason']}")
    t = manifest["selection_table"]
    click.echo(f"wrote {output}: {len(manifest['artifacts'])} artifacts, {len(manifest['not_built'])} not built, "
               f"selection table {t['version'] if t else 'none'}, {'signed' if key is not None else 'unsigned'}")


@bundle_group.command("keygen")
@click.argument("keyfile", type=click.Path(dir_okay=False, path_type=Path))
def keygen_cmd(keyfile: Path) -> None:
    """Write a new ed25519 private key to KEYFILE (0600) and its public half to KEYFILE.pub."""
    from everypath.lowering.bundle_sign import BadKeyError, keygen

    try:
        priv, pub = keygen(keyfile)
    except BadKeyError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"wrote {priv} (private, 0600) and {pub} (public: pass it to inspect/run --key, everypath.load)")


def _open(path: Path, key: Path | None = None) -> Any:
    from everypath.lowering.bundle import open_bundle
    from everypath.lowering.bundle_sign import BadKeyError

    try:
        return open_bundle(path, key)
    except (BundleError, BadKeyError) as exc:
        raise click.ClickException(str(exc)) from None


def _operator_rows(arts: list[dict[str, Any]]) -> list[tuple[str, str, str, str, str]]:
    """(operator, call site, variants inside, which artifacts, paths left out): one row per distinct choice."""
    groups: dict[tuple[str, str, str, str], list[str]] = {}
    for a in arts:
        for o in a["operators"]:
            k = (o["op"], o["call_site"], ", ".join(o["variants"]), ", ".join(x["path"] for x in o["left_out"]))
            groups.setdefault(k, []).append(a["target"] if a["kind"] in ("shared", "wasm") else
                                            f"{a['target']} ({a['kind']})")
    n = len(arts)
    return [(op, site, inside, "all" if len(ts) == n else ", ".join(sorted(set(ts))), left or "-")
            for (op, site, inside, left), ts in groups.items()]


@click.command("inspect")
@click.argument("bundle", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the artifacts and the manifest as JSON.")
@click.option("--key", default=None, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A public key: verify the signature with it.")
def inspect_cmd(bundle: Path, as_json: bool, key: Path | None) -> None:
    """What a bundle holds; every entry's hash is checked as it is read (exit 1 when one is bad)."""
    b = _open(bundle, key)  # with a key, a bad signature is refused here
    problems = b.problems()
    bad = {p.split(": entry ", 1)[1].split(" ", 1)[0] for p in problems if ": entry " in p}
    m = b.manifest
    arts = [{**a, "verified": a["path"] not in bad and all(f["path"] not in bad for f in a.get("files", []))}
            for a in m["artifacts"]]
    sig = {"present": b.signed, "verified": True if key is not None else None}
    if as_json:
        click.echo(json.dumps({"bundle": str(bundle), "function": m["function"]["name"], "artifacts": arts,
                               "not_built": m["not_built"], "selection_table": m["selection_table"],
                               "signature": sig, "problems": problems, "ok": not problems, "manifest": m},
                              indent=2, sort_keys=True))
    else:
        from rich import box
        from rich.console import Console
        from rich.table import Table

        f, t = m["function"], m["selection_table"]
        params = ", ".join(f"{p['name']}: {f['annotations'].get(p['name'], p.get('annotation', '?'))}"
                           + (f" = {p['default']!r}" if "default" in p else "") for p in f["signature"]["params"])
        console = Console()
        console.print(f"[bold]{bundle}[/bold]: {f['module']}.{f['qualname']}({params})"
                      + (f" -> {f['annotations']['return']}" if "return" in f["annotations"] else ""), soft_wrap=True)
        c = m["compiler"]
        console.print(f"everypath {c['everypath']} (compiler {c['compiler']}, format {c['format']}); signature: "
                      + ("verified" if key is not None else "present (not verified: pass --key)" if b.signed
                         else "none") + f"; selection table: {t['version'] if t else 'none'}", soft_wrap=True)
        table = Table(title="artifacts", box=box.SIMPLE_HEAD, pad_edge=False)  # fits 80 columns
        for col in ("target", "kind", "ISA", "size", "sha256", "hash"):
            table.add_column(col, no_wrap=True, justify="right" if col == "size" else "left")
        for a in arts:
            table.add_row(a["target"], a["kind"], a.get("isa_level") or "-", f"{a['size']:,}", a["sha256"][:12],
                          "ok" if a["verified"] else "[red]BAD[/red]")
        console.print(table)
        ops = Table(title="operators", box=box.SIMPLE_HEAD, pad_edge=False)
        for col in ("operator", "call site", "variants", "in", "left out"):
            ops.add_column(col, overflow="fold")
        for row in _operator_rows(arts):
            ops.add_row(*row)
        console.print(ops)
        if m["not_built"]:
            nb = Table(title="not built", box=box.SIMPLE_HEAD, pad_edge=False)
            for col in ("target", "kind", "why"):
                nb.add_column(col)
            for s in m["not_built"]:
                nb.add_row(s["target"], s["kind"], s["reason"])
            console.print(nb)
    if problems:
        for p in problems:
            click.echo(f"error: {p}", err=True)
        raise SystemExit(1)


@click.command("run")
@click.argument("bundle", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--inputs", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="An .npz with one array per parameter (tuples as NAME_0, NAME_1, ...).")
@click.option("--out", default=None, type=click.Path(dir_okay=False, path_type=Path),
              help="Where to write the results (.npz); without it they are printed.")
@click.option("--target", default=None, help="Run this target's executable (default: the best for this device).")
@click.option("--key", default=None, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A public key: refuse the bundle unless its signature verifies.")
@click.option("--no-telemetry", is_flag=True, help="Pass --no-telemetry to the executable.")
def run_cmd(bundle: Path, inputs: Path, out: Path | None, target: str | None, key: Path | None,
            no_telemetry: bool) -> None:
    """Run a bundle's executable for this device (natively, under qemu-aarch64-static or wasmtime)."""
    from everypath.base.settings import Settings
    from everypath.lowering.bundle_exec import plan, run_artifact

    b = _open(bundle, key)
    try:
        art, how = plan(b, target)
        with tempfile.TemporaryDirectory(prefix="everypath-run-") as d:
            dest = out or Path(d) / "out.npz"
            rc, stdout, stderr = run_artifact(b, art, how, inputs, dest, Settings.from_env(),
                                              ["--no-telemetry"] if no_telemetry else [])
            if stdout:
                click.echo(stdout, nl=False)
            if stderr:
                click.echo(stderr, err=True, nl=False)
            if rc != 0:
                raise SystemExit(rc)
            if out is None:
                _print_results(dest)
    except BundleError as exc:
        raise click.ClickException(str(exc)) from None


def _print_results(path: Path) -> None:
    import numpy as np

    with np.load(path) as z:
        for name in z.files:
            v = z[name]
            with np.printoptions(threshold=50, edgeitems=5):
                click.echo(f"{name}: {v.dtype} {tuple(v.shape)} {np.array2string(v, separator=', ')}")


COMMANDS = (bundle_group, inspect_cmd, run_cmd)

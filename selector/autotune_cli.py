"""`everypath autotune MODULE.py[:FUNC] | --ops OP,...`: the sweep on this device and, with
--isa / --threads, on restricted variants of it (each in a process of its own: the ISA level
is a build flag, the thread count must be set before OpenMP starts)."""
from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import click

from everypath.base.settings import Settings

# --isa names -> (gcc -march, the level the rows record; None = this host's own)
_ISA = {"native": ("native", None), "baseline": ("x86-64", "x86-64-v1"), "v1": ("x86-64", "x86-64-v1"),
        "v2": ("x86-64-v2", "x86-64-v2"), "v3": ("x86-64-v3", "x86-64-v3"), "v4": ("x86-64-v4", "x86-64-v4")}
_ISA.update({f"x86-64-v{i}": _ISA[f"v{i}"] for i in range(1, 5)})


def _isa_list(text: str) -> list[str]:
    out = [s.strip() for s in text.split(",") if s.strip()]
    bad = [s for s in out if s not in _ISA]
    if bad or not out:
        raise click.BadParameter(f"{bad[0] if bad else text!r} is not one of native, baseline, v2, v3, v4",
                                 param_hint="--isa")
    return out


def _threads_list(text: str) -> list[int | None]:
    out: list[int | None] = []
    for s in (s.strip() for s in text.split(",") if s.strip()):
        if s == "all":
            out.append(None)
        elif s.isdigit() and int(s) > 0:
            out.append(int(s))
        else:
            raise click.BadParameter(f"{s!r}: expected 'all' or a positive thread count", param_hint="--threads")
    if not out:
        raise click.BadParameter("expected 'all' or thread counts", param_hint="--threads")
    return out


def _sizes(text: str) -> tuple[int, ...]:
    try:
        out = tuple(int(s) for s in text.split(",") if s.strip())
    except ValueError:
        raise click.BadParameter(f"expected comma-separated element counts, got {text!r}", param_hint="--sizes") from None
    if not out or min(out) < 1:
        raise click.BadParameter("expected positive element counts", param_hint="--sizes")
    return out


def _print(summary: object, err: bool = False) -> None:
    from rich.console import Console
    from rich.table import Table

    rows = summary.to_pylist()  # type: ignore[attr-defined]
    table = Table(title="autotune: median latency per call site, variant and size (fastest marked *)")
    for c in ("device", "function", "op", "call site", "size", "variant", "median", "status"):
        table.add_column(c, justify="right" if c in ("size", "median") else "left")
    best: dict[tuple[object, ...], float] = {}
    for r in rows:
        if r["median_ns"] is not None:
            k = (r["device_id"], r["function"], r["call_site"], r["size"])
            best[k] = min(best.get(k, float("inf")), r["median_ns"])
    for r in rows:
        k = (r["device_id"], r["function"], r["call_site"], r["size"])
        med = "" if r["median_ns"] is None else f"{r['median_ns'] / 1e3:,.1f} µs" + (" *" if best.get(k) == r["median_ns"] else "")
        table.add_row(str(r["device_id"])[64:] or "host", r["function"], r["op"], r["call_site"], str(r["size"]), r["variant"], med,
                      r["status"] + (f": {r['error']}" if r["error"] else ""))
    Console(stderr=err, width=None if sys.stdout.isatty() else 150).print(table)


def run_here(targets_spec: str | None, ops: str | None, fixed: tuple[str, ...], dtype: str, cfg: object,
             settings: Settings, quiet: bool) -> object:
    """The sweep in this process; stores its rows and summary in settings.lake; returns the summary."""
    import pyarrow.parquet as pq
    from rich.console import Console

    from everypath.selector.autotune import Sweep
    from everypath.selector.autotune_inputs import module_targets, op_targets, parse_fixed
    from everypath.telemetry.device import process_device
    from everypath.telemetry.lake import Lake

    device = process_device(settings)
    console = Console(stderr=True, quiet=quiet)
    with tempfile.TemporaryDirectory(prefix="everypath-autotune-") as tmp:
        targets = []
        if targets_spec:
            targets += module_targets(targets_spec, parse_fixed(fixed))
        if ops:
            targets += op_targets([o.strip() for o in ops.split(",") if o.strip()], dtype, Path(tmp))
        label = settings.device_variant or "this host"
        with console.status(f"autotune on {label}") as status:
            sweep = Sweep(cfg, settings, device, progress=lambda s: status.update(f"autotune on {label}: {s}"))  # type: ignore[arg-type]
            sweep.run(targets)
    lake = Lake(settings.lake)
    calls = sweep.calls()
    if calls is not None:
        lake.publish(calls)
    out = lake.root / "autotune"
    out.mkdir(parents=True, exist_ok=True)
    summary = sweep.summary()
    tmp_path = out / f".{sweep.run_id}.parquet.tmp"
    pq.write_table(summary, tmp_path)
    tmp_path.replace(out / f"{sweep.run_id}.parquet")  # readers never see half a file
    return summary


def _child(argv: list[str], march: str, level: str | None, threads: int | None) -> subprocess.CompletedProcess[str]:
    from everypath.telemetry.device import DeviceVariant

    env = dict(os.environ, EVERYPATH_MARCH=march, EVERYPATH_DEVICE_VARIANT=DeviceVariant(level, threads).label)
    if threads is not None:
        env["OMP_NUM_THREADS"] = env["OPENBLAS_NUM_THREADS"] = str(threads)  # OpenMP teams and OpenBLAS's own
    return subprocess.run([sys.executable, "-m", "everypath.cli", "autotune", *argv, "--here", "--json"],
                          env=env, capture_output=True, text=True)


@click.command("autotune")
@click.argument("target", required=False)
@click.option("--ops", default=None, help="Comma-separated operator keys to measure (one-line kernels), e.g. "
              "numpy.matmul,numpy.sort.")
@click.option("--sizes", default="1000,30000,1000000", show_default=True, help="Element counts per array argument.")
@click.option("--dtype", default="float64", show_default=True, help="dtype of the --ops kernels.")
@click.option("--arg", "fixed", multiple=True, help="NAME=VALUE for a scalar parameter (a Python literal).")
@click.option("--repeats", type=click.IntRange(1, 1000), default=7, show_default=True)
@click.option("--warmup", type=click.IntRange(0, 100), default=2, show_default=True)
@click.option("--isa", default="native", show_default=True,
              help="ISA levels to build for, each measured as its own device: native,baseline,v2,v3,v4.")
@click.option("--threads", default="all", show_default=True, help="OpenMP thread counts: all and/or numbers.")
@click.option("--lake", "lake_dir", type=click.Path(file_okay=False, path_type=Path), default=None)
@click.option("--json", "as_json", is_flag=True, help="Print the summary rows as JSON.")
@click.option("--here", is_flag=True, hidden=True, help="Run in this process only (what the device variants run).")
def autotune_cmd(target: str | None, ops: str | None, sizes: str, dtype: str, fixed: tuple[str, ...], repeats: int,
                 warmup: int, isa: str, threads: str, lake_dir: Path | None, as_json: bool, here: bool) -> None:
    """Measure every variant of every operator TARGET (MODULE.py[:FUNC]) calls, or of --ops, on a grid of sizes."""
    from everypath.selector.autotune import SweepConfig
    from everypath.selector.autotune_inputs import AutotuneError

    if not target and not ops:
        raise click.UsageError("give a TARGET (MODULE.py[:FUNC]) or --ops OP,...")
    settings = Settings.from_env()
    if lake_dir is not None:
        settings = replace(settings, lake=lake_dir)
    cfg = SweepConfig(sizes=_sizes(sizes), repeats=repeats, warmup=warmup)
    combos = list(itertools.product(_isa_list(isa), _threads_list(threads)))
    if here or combos == [("native", None)]:
        try:
            summary = run_here(target, ops, fixed, dtype, cfg, settings, quiet=as_json)
        except AutotuneError as exc:
            raise click.ClickException(str(exc)) from None
        if as_json:
            click.echo(json.dumps(summary.to_pylist(), default=str))  # type: ignore[attr-defined]
        else:
            _print(summary)
        return
    argv = [a for a in ([target] if target else []) + (["--ops", ops] if ops else [])]
    argv += ["--sizes", sizes, "--dtype", dtype, "--repeats", str(repeats), "--warmup", str(warmup),
             "--lake", str(settings.lake), *itertools.chain.from_iterable(("--arg", f) for f in fixed)]
    rows: list[dict[str, object]] = []
    for name, t in combos:
        march, level = _ISA[name]
        click.echo(f"autotune: {name} ISA, {t or 'all'} threads ...", err=True)
        r = _child(argv, march, level, t)
        if r.returncode != 0:
            raise click.ClickException(f"autotune for --isa {name} --threads {t or 'all'} failed:\n{r.stderr.strip()}")
        rows += json.loads(r.stdout)
    if as_json:
        click.echo(json.dumps(rows, default=str))
    else:
        import pyarrow as pa

        _print(pa.Table.from_pylist(rows))

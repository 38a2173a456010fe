"""`everypath selector retrain` and `everypath telemetry simulate` (added to the telemetry group)."""
from __future__ import annotations

import json
from pathlib import Path

import click

from everypath.base.settings import Settings
from everypath.telemetry.cli import telemetry_group


@click.group("selector")
def selector_group() -> None:
    """The learned variant selector (docs/selector.md)."""


@selector_group.command("retrain")
@click.option("--lake", "lake_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Lake root (default: EVERYPATH_LAKE or the user data directory).")
@click.option("--registry", "registry_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Model registry (default: EVERYPATH_REGISTRY or the user data directory).")
@click.option("--max-rows", type=int, default=None, help="Stratified sample cap (default 1,000,000).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object with the metrics.")
@click.option("--engine", type=click.Choice(["duckdb", "spark"]), default="duckdb", show_default=True,
              help="Where the training rows are gathered (the model is fitted here either way).")
@click.option("--master", default=None, help="--engine spark: Spark master URL (default local[2]).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the holdout split (which device classes and shapes are held out).")
def retrain_cmd(lake_dir: Path | None, registry_dir: Path | None, max_rows: int | None, as_json: bool,
                engine: str, master: str | None, seed: int) -> None:
    """Fit the selector on the lake, evaluate it on held-out devices, store and maybe promote it."""
    from rich.console import Console

    from everypath.selector.retrain import MAX_ROWS, RetrainConfig, retrain
    from everypath.telemetry.spark import SparkUnavailable

    s = Settings.from_env()
    err = Console(stderr=True)
    if master is not None and engine != "spark":
        raise click.UsageError("--master is for --engine spark")
    cfg = RetrainConfig(max_rows=max_rows or MAX_ROWS, seed=seed, engine=engine, master=master)
    try:
        with err.status("retraining") as status:
            out = retrain(lake_dir or s.lake, registry_dir or s.registry, cfg, progress=status.update)
    except (ValueError, SparkUnavailable) as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps(out, sort_keys=True))
        return
    click.echo(f"version {out['version']}  promoted: {out['promoted']}")
    if not out["judged"]:
        click.echo(str(out["coverage"]))
    click.echo(f"selector  top1 {out['top1_score']:.4f}  closed gap {out['closed_gap']:.3f}  "
               f"regret mean {out['regret_mean']:.4f} p95 {out['regret_p95']:.4f}")
    for name, m in out["baselines"].items():  # type: ignore[union-attr]
        click.echo(f"{name:9} top1 {m['top1_score']:.4f}  closed gap {m['closed_gap']:.3f}  "
                   f"regret mean {m['regret_mean']:.4f} p95 {m['regret_p95']:.4f}")


@telemetry_group.command("simulate")
@click.option("--devices", type=int, default=40, show_default=True)
@click.option("--rows", type=int, default=200_000, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--lake", "lake_dir", type=click.Path(file_okay=False, path_type=Path), default=None)
def simulate_cmd(devices: int, rows: int, seed: int, lake_dir: Path | None) -> None:
    """Write a synthetic fleet's calls (runtime "simulated", device ids "sim-...") into the lake."""
    from everypath.selector.simulate import SimConfig, simulate_into

    n = simulate_into(lake_dir or Settings.from_env().lake, SimConfig(devices=devices, rows=rows, seed=seed))
    click.echo(f"{n} simulated rows stored")

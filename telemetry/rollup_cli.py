"""`everypath telemetry rollup`: the fleet roll-up on DuckDB (default) or Spark (added to the telemetry group)."""
from __future__ import annotations

import click

from everypath.base.settings import Settings
from everypath.telemetry.cli import telemetry_group


@telemetry_group.command("rollup")
@click.option("--engine", type=click.Choice(["duckdb", "spark"]), default="duckdb", show_default=True,
              help="duckdb: embedded, one machine; spark: PySpark SQL, local or a cluster (--master).")
@click.option("--lake", "lake_uri", default=None,
              help="Lake root: a folder, or for --engine spark a URI the cluster can read (s3a://bucket/lake). "
                   "Default: EVERYPATH_LAKE or the user data directory.")
@click.option("--master", default=None, help="Spark master URL (default local[2]; spark://host:7077, yarn, k8s://...).")
def rollup_cmd(engine: str, lake_uri: str | None, master: str | None) -> None:
    """Per date x device class x operator x variant x size bucket: count, sum, min, max and p50/p95/p99 (merged
    aggregates: every call counted, percentiles within 0.78%), into ROOT/rollups/fleet."""
    from everypath.telemetry.rollup import Engine
    from everypath.telemetry.rollup_job import run
    from everypath.telemetry.spark import SparkUnavailable

    if master is not None and engine != "spark":
        raise click.UsageError("--master is for --engine spark")
    lake = lake_uri or str(Settings.from_env().lake)
    try:
        r = run(Engine(engine), lake, master=master)
    except (SparkUnavailable, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    span = f"{r.dates[0]} .. {r.dates[-1]}" if r.dates else "no calls"
    click.echo(f"{r.engine.value}: {r.groups} groups over {len(r.dates)} dates ({span}) -> {r.written} "
               f"in {r.seconds:.1f} s")

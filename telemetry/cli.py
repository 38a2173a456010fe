"""`everypath telemetry ...`: query, inspect, compact, ingest, serve and upload the lake."""
from __future__ import annotations

import datetime as dt
import decimal
import json
import math
from pathlib import Path
from typing import TYPE_CHECKING

import click

from everypath.base.settings import Settings

if TYPE_CHECKING:  # the command imports it when run (the CLI starts without the data stack)
    from everypath.telemetry.ingest import Result


def _lake_option(f):  # type: ignore[no-untyped-def]
    return click.option("--lake", "lake_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                        help="Lake root (default: EVERYPATH_LAKE or the user data directory).")(f)


def _lake(lake_dir: Path | None):  # type: ignore[no-untyped-def]
    from everypath.telemetry.lake import Lake

    return Lake(lake_dir if lake_dir is not None else Settings.from_env().lake)


def _jsonable(v: object) -> object:
    if isinstance(v, (dt.datetime, dt.date, dt.time)):
        return v.isoformat()
    if isinstance(v, dt.timedelta):
        return v.total_seconds()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, decimal.Decimal):
        return float(v)
    if isinstance(v, bytes):
        return v.hex()
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    return v


@click.group("telemetry")
def telemetry_group() -> None:
    """The telemetry lake: per-call latencies of compiled functions (docs/telemetry.md)."""


@telemetry_group.command("query")
@_lake_option
@click.option("--json", "as_json", is_flag=True, help="A JSON list of row objects (timestamps as ISO strings).")
@click.argument("sql")
def query_cmd(lake_dir: Path | None, as_json: bool, sql: str) -> None:
    """Run SQL over the views calls, op_latency, daily, trend."""
    import duckdb

    from everypath.telemetry.views import query

    try:
        table = query(_lake(lake_dir), sql)
    except duckdb.Error as e:
        raise click.ClickException(str(e)) from None
    rows = table.to_pylist()
    if as_json:
        click.echo(json.dumps([_jsonable(r) for r in rows], indent=1))
        return
    from rich.console import Console
    from rich.table import Table

    out = Table(title=f"{len(rows)} rows")
    for name in table.column_names:
        out.add_column(name)
    for r in rows:
        out.add_row(*(str(_jsonable(r[c])) for c in table.column_names))
    Console().print(out)


@telemetry_group.command("stats")
@_lake_option
def stats_cmd(lake_dir: Path | None) -> None:
    """Rows, files, bytes, date range, devices and the busiest operators."""
    from rich.console import Console
    from rich.table import Table

    from everypath.telemetry.views import query

    lake = _lake(lake_dir)
    files = lake.files()
    size = sum(p.stat().st_size for p in files if p.exists())
    head = query(lake, "SELECT count(*) AS n, min(date) AS first, max(date) AS last, "
                       "count(DISTINCT device_id) AS devices, count(DISTINCT device_class) AS classes FROM calls")
    h = head.to_pylist()[0]
    summary = Table(title=f"lake {lake.root}", show_header=False)
    for k, v in (("rows", h["n"]), ("files", len(files)), ("bytes", size), ("dates", f"{h['first']} .. {h['last']}"),
                 ("devices", h["devices"]), ("device classes", h["classes"])):
        summary.add_row(k, str(v))
    top = query(lake, "SELECT op, variant, n, p50, p99 FROM op_latency ORDER BY n DESC LIMIT 15").to_pylist()
    ops = Table(title="top operators")
    for c in ("op", "variant", "calls", "p50 ns", "p99 ns"):
        ops.add_column(c)
    for r in top:
        ops.add_row(r["op"], r["variant"], str(r["n"]), f"{r['p50']:.0f}", f"{r['p99']:.0f}")
    console = Console()
    console.print(summary)
    console.print(ops)


@telemetry_group.command("compact")
@_lake_option
@click.option("--grace", type=float, default=3600.0, show_default=True,
              help="Seconds a partition must have been quiet before it is compacted.")
def compact_cmd(lake_dir: Path | None, grace: float) -> None:
    """Merge closed partitions into one file each and refresh the daily roll-ups."""
    from everypath.telemetry.compact import compact

    try:
        r = compact(_lake(lake_dir), grace_s=grace)
    except RuntimeError as e:
        raise click.ClickException(str(e)) from None
    click.echo(f"compacted {len(r.partitions)} partitions ({r.files_in} files, {r.rows} rows); "
               f"roll-ups for {len(r.rollups)} dates; {r.recovered} interrupted compactions recovered")


@telemetry_group.command("ingest")
@_lake_option
@click.option("--skip-rejected", is_flag=True,
              help="Store a file's accepted rows even when some are rejected (those go to FILE.rejected.jsonl).")
@click.option("--drop-unknown", is_flag=True, help="Drop columns the calls schema does not have (default: refuse).")
@click.option("--report", "report_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write every rejected row as JSON Lines: file, row, column, problem.")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
def ingest_cmd(lake_dir: Path | None, skip_rejected: bool, drop_unknown: bool, report_path: Path | None,
               paths: tuple[Path, ...]) -> None:
    """Import rows: spool files of standalone programs (renamed to *.ingested), and Parquet, CSV
    and JSON Lines files (or directories of them, e.g. another tool's lake) in the documented
    calls columns (docs/telemetry.md, "Rows from other producers"). Each file is stored once,
    however often it is ingested; exit status 1 when any row or file was rejected."""
    from everypath.telemetry.ingest import ingest_file, sources
    from everypath.telemetry.readers import Format, format_of
    from everypath.telemetry.spool import SpoolError, ingest

    lake, failed = _lake(lake_dir), 0
    calls = lake.calls.resolve()
    for p in paths:  # its own parts again, under new batch ids, would be every row twice
        if p.resolve().is_relative_to(calls) or (p.is_dir() and calls.is_relative_to(p.resolve())):
            raise click.ClickException(f"{p} holds the lake's own parts ({lake.calls}): they are in it already")
    report = report_path.open("w") if report_path else None
    try:
        for p, constants in sources(list(paths)):
            if format_of(p) is Format.SPOOL:
                try:
                    rows, stored = ingest(p, lake)
                except SpoolError as e:
                    click.echo(f"{p}: {e}", err=True)
                    failed += 1
                    continue
                click.echo(f"{p}: {rows} rows" + ("" if stored else " (already ingested)"))
                continue
            r = ingest_file(p, lake, constants=constants, drop_unknown=drop_unknown, skip_rejected=skip_rejected)
            _echo_ingested(r, report_path)
            if report:
                for rej in r.rejected:
                    report.write(json.dumps({"file": str(p), "row": rej.row, "column": rej.column,
                                             "problem": rej.problem}) + "\n")
            failed += bool(r.error or r.rejected)
    finally:
        if report:
            report.close()
    if failed:
        raise SystemExit(1)


def _echo_ingested(r: Result, report_path: Path | None, shown: int = 20) -> None:
    """What ingest_file did with one file: conversions, problems, rejections (the first few), outcome."""
    for note in r.notes:
        click.echo(f"{r.path}: converted: {note}")
    for problem in r.problems:
        click.echo(f"{r.path}: {problem}", err=True)
    for rej in r.rejected[:shown]:
        click.echo(f"{r.path}: {rej}", err=True)
    if len(r.rejected) > shown:
        click.echo(f"{r.path}: ... and {len(r.rejected) - shown} more rejected rows"
                   + (f" (all in {report_path})" if report_path else " (--report FILE lists all)"), err=True)
    if r.error:
        click.echo(f"{r.path}: {r.error}", err=True)
    else:
        click.echo(f"{r.path}: {r.rows} rows: {r.stored} stored, {r.duplicate} already stored, "
                   f"{len(r.rejected)} rejected" + (f" (written to {r.rejects_file})" if r.rejects_file else ""))


@telemetry_group.command("serve")
@_lake_option
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=int, default=8765, show_default=True)
@click.option("--token-file", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None)
@click.option("--max-bytes", type=int, default=64 << 20, show_default=True)
def serve_cmd(lake_dir: Path | None, host: str, port: int, token_file: Path | None, max_bytes: int) -> None:
    """Accept uploads from devices (POST /v1/calls) into the lake."""
    from everypath.telemetry.collector import CollectorConfig, make_server, serve_until_signal

    token = token_file.read_text().strip() if token_file else Settings.from_env().collector_token
    if not token:
        raise click.ClickException("a token is required: --token-file or EVERYPATH_COLLECTOR_TOKEN")
    server = make_server(CollectorConfig(_lake(lake_dir), token, max_bytes), host, port)
    click.echo(f"collector on http://{server.server_address[0]}:{server.server_address[1]}", err=True)
    serve_until_signal(server)  # SIGTERM / SIGINT: what was accepted is published and answered first


@telemetry_group.command("upload")
@_lake_option
@click.option("--url", default=None, help="Collector URL (default: EVERYPATH_COLLECTOR_URL).")
@click.option("--token-file", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="File holding the bearer token (kept out of the process list, unlike --token).")
@click.option("--token", default=None, help="Bearer token (default: EVERYPATH_COLLECTOR_TOKEN).")
def upload_cmd(lake_dir: Path | None, url: str | None, token_file: Path | None, token: str | None) -> None:
    """Send local parts (calls and aggregates) not uploaded yet to a collector (opt-in)."""
    from everypath.telemetry.upload import upload

    if token_file is not None and token is not None:
        raise click.UsageError("give the token once: --token-file or --token, not both")
    s = Settings.from_env()
    if token_file is not None:
        token = token_file.read_text().strip()
        if not token:
            raise click.ClickException(f"{token_file}: the token file is empty")
    url, token = url or s.collector_url, token or s.collector_token
    if not url or not token:
        raise click.ClickException("uploading is opt-in: give --url and --token-file (or --token, or the "
                                   "EVERYPATH_COLLECTOR_* settings)")
    r = upload(_lake(lake_dir), url, token)
    click.echo(f"sent {r.sent} parts ({r.rows} rows) and {r.aggregate_parts} aggregates parts "
               f"({r.aggregate_rows} rows), {r.duplicates} already there, {r.skipped} uploaded before")
    for f in r.failed:
        click.echo(f, err=True)
    if r.failed:
        raise SystemExit(1)

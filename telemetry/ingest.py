"""Rows from any producer into the lake: Parquet, CSV and JSON Lines files in the documented
`calls` columns (`everypath telemetry ingest`; the collector uses the same parsing for uploads).

Each file is read, converted (telemetry/convert.py) and published under a batch id made from
its content, so ingesting the same file again, or again after a crash part-way, stores every
row once. By default a file is all or nothing: one rejected row and nothing of it is stored,
every rejected row is reported (row, column, problem), and the corrected file is ingested
whole. With skip_rejected the accepted rows are stored and the rejected ones are written, as
read, to FILE.rejected.jsonl: fixed, that file is ingested on its own, so nothing is lost and
nothing is stored twice.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from everypath.telemetry.convert import ConvertError, Converted, Rejection, convert
from everypath.telemetry.lake import Lake
from everypath.telemetry.readers import READERS, Format, Rows, format_of
from everypath.telemetry.schema import CALLS_SCHEMA


@dataclass(frozen=True)
class Result:
    path: Path
    rows: int = 0  # records in the file
    stored: int = 0  # rows this run stored
    duplicate: int = 0  # accepted rows stored by an earlier run of the same content
    rejected: tuple[Rejection, ...] = ()
    notes: tuple[str, ...] = ()
    error: str | None = None  # why nothing of the file was stored
    rejects_file: Path | None = None
    problems: tuple[str, ...] = ()  # file-level problems (unknown columns, ...)


def content_id(data: bytes, prefix: str = "ingest") -> str:
    return f"{prefix}-" + hashlib.sha256(data).hexdigest()[:48]


def class_batch_id(batch_id: str, device_class: str) -> str:
    """The id under which one device class's rows of a multi-class batch are stored."""
    return "c-" + hashlib.sha256(f"{batch_id}\0{device_class}".encode()).hexdigest()[:48]


def publish_rows(lake: Lake, table: pa.Table, batch_id: str) -> tuple[int, int]:
    """Publish converted rows once under batch_id: (rows stored now, rows stored before).
    Rows of several device classes go out as one batch per class (an id derived from
    batch_id and the class), so a crash between two classes' parts is finished, not
    duplicated or lost, by the retry."""
    classes = pc.unique(table.column("device_class")).to_pylist() if table.num_rows else []
    if len(classes) <= 1:
        r = lake.publish_named(table, name=batch_id)
        return (r.rows, 0) if r.stored else (0, r.rows)
    if lake.has_batch(batch_id):  # stored whole by a collector before per-class batches
        return 0, table.num_rows
    stored = duplicate = 0
    for dc in classes:
        part = table.filter(pc.equal(table.column("device_class"), dc))
        r = lake.publish_named(part, name=class_batch_id(batch_id, dc))
        stored, duplicate = (stored + r.rows, duplicate) if r.stored else (stored, duplicate + r.rows)
    return stored, duplicate


def hive_constants(path: Path, root: Path) -> dict[str, str]:
    """key=value directory names between root and path (a hive-partitioned lake's columns)."""
    out = {}
    for part in path.relative_to(root).parts[:-1]:
        if "=" in part:
            k, v = part.split("=", 1)
            out[k] = v
    return out


def sources(paths: list[Path]) -> list[tuple[Path, dict[str, str]]]:
    """Files to ingest: each path, or every readable file under a directory (sorted)."""
    out = []
    for p in paths:
        if p.is_dir():
            for f in sorted(p.rglob("*")):
                if f.is_file() and not f.name.startswith(".") and not f.name.endswith((".ingested", ".rejected.jsonl")) \
                        and format_of(f) is not None:
                    out.append((f, hive_constants(f, p)))
        else:
            out.append((p, {}))
    return out


def convert_rows(rows: Rows, *, constants: dict[str, str] | None = None, drop_unknown: bool = False) -> Converted:
    """convert() of what a reader read, with the unreadable records among the rejections."""
    if rows.table.num_rows == 0 and rows.unreadable:  # nothing parsed: no columns to judge
        return Converted(CALLS_SCHEMA.empty_table(), tuple(r for r, _ in rows.unreadable), ())
    c = convert(rows.table, constants=constants, drop_unknown=drop_unknown, row_numbers=rows.numbers)
    if not rows.unreadable:
        return c
    rejected = sorted([*c.rejected, *(r for r, _ in rows.unreadable)], key=lambda r: r.row)
    return Converted(c.table, tuple(rejected), c.notes)


def ingest_file(path: Path, lake: Lake, *, constants: dict[str, str] | None = None, drop_unknown: bool = False,
                skip_rejected: bool = False) -> Result:
    """Read, convert and publish one Parquet, CSV or JSON Lines file (see the module docstring)."""
    fmt = format_of(path)
    if fmt is None or fmt is Format.SPOOL:
        return Result(path, error=f"not a Parquet, CSV or JSON Lines file (by its name: {path.name})")
    data = path.read_bytes()
    try:
        rows = READERS[fmt](data)
    except (pa.ArrowException, OSError, ValueError) as e:
        return Result(path, error=f"unreadable {fmt.value} file: {e}")
    n = rows.table.num_rows + len(rows.unreadable)
    try:
        c = convert_rows(rows, constants=constants, drop_unknown=drop_unknown)
    except ConvertError as e:
        return Result(path, rows=n, error="the columns do not convert to the calls schema", problems=tuple(e.problems))
    if c.rejected and not skip_rejected:
        return Result(path, rows=n, rejected=c.rejected, notes=c.notes,
                      error=f"{len(c.rejected)} of {n} rows rejected: nothing stored (or pass --skip-rejected)")
    rejects = _write_rejects(path, rows, c.rejected) if c.rejected else None
    stored, duplicate = publish_rows(lake, c.table, content_id(data)) if c.table.num_rows else (0, 0)
    return Result(path, n, stored, duplicate, c.rejected, c.notes, rejects_file=rejects)


def _write_rejects(path: Path, rows: Rows, rejected: tuple[Rejection, ...]) -> Path:
    """The rejected records as read (JSON Lines, the producer's column names): ingestable once fixed."""
    wanted = {r.row for r in rejected}
    index = {int(num): i for i, num in enumerate(rows.numbers) if int(num) in wanted}
    texts = dict((r.row, t) for r, t in rows.unreadable)
    lines = []
    for row in sorted(wanted):
        if row in texts:
            lines.append(texts[row])
        else:
            lines.append(json.dumps(rows.table.slice(index[row], 1).to_pylist()[0], default=str))
    out = path.with_name(path.name + ".rejected.jsonl")
    tmp = out.with_name("." + out.name + ".tmp")
    tmp.write_text("".join(line + "\n" for line in lines))
    tmp.replace(out)
    return out

"""Aggregate rows from elsewhere (collector uploads): checked against AGGREGATES_SCHEMA and its
version, then published into the lake's `aggregates` table once per batch id.

The version is the body's `everypath.schema_version` metadata (what `aggregates.publish` writes)
or, for producers that cannot set Arrow metadata, the X-Everypath-Schema-Version header; one of
them is required, and a version newer than AGGREGATES_VERSION is refused (its columns may mean
something else). Columns are matched by name; integer and string columns of another width or
kind are cast when every value converts; unknown columns are refused, as for calls. Values are
checked row by row (counts, bins, size buckets), so a batch is stored whole or not at all.
"""
from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from everypath.telemetry.aggregates import N_BINS, file_schema
from everypath.telemetry.lake import Lake, write_parquet
from everypath.telemetry.readers import json_lines
from everypath.telemetry.schema import AGGREGATES_SCHEMA, AGGREGATES_VERSION

MAX_SIZE_BUCKET = 64  # n_elements < 2^63


@dataclass(frozen=True)
class Problem:
    row: int | None  # 1-based; None: the batch as a whole
    column: str | None
    problem: str


def version_of(schema: pa.Schema, header: str | None) -> tuple[int | None, str | None]:
    """(version, None) or (None, why it is missing or refused)."""
    meta = schema.metadata or {}
    text = header if header else meta.get(b"everypath.schema_version", b"").decode() or None
    if meta.get(b"everypath.schema", b"aggregates") != b"aggregates":
        return None, f"the body is a {meta[b'everypath.schema'].decode()!r} table, not aggregates"
    if text is None:
        return None, "schema version required (X-Everypath-Schema-Version or everypath.schema_version metadata)"
    try:
        v = int(text)
    except ValueError:
        return None, f"schema version {text!r} is not an integer"
    if not 1 <= v <= AGGREGATES_VERSION:
        return None, f"aggregates schema version {v} is not supported (this collector knows 1..{AGGREGATES_VERSION})"
    return v, None


TIME_COLUMNS = ("ts", "start")


def read_jsonl(body: bytes) -> pa.Table:
    """Aggregate rows as JSON Lines (what a page's telemetryJSONLines writes): one object per line, blank
    lines skipped; `ts`/`start` as integer UNIX nanoseconds or ISO-8601 strings; integers read exactly
    (json, not float64: nanosecond times exceed 2^53). ValueError names the first bad line or column;
    the values themselves are checked by conform(), like every other upload's."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"not UTF-8 at byte {e.start}") from None
    records: list[dict[str, object]] = []
    for i, _, obj, problem in json_lines(text):
        if problem is not None:
            raise ValueError(f"line {i} is {problem}")
        records.append(obj)  # type: ignore[arg-type]
    names = list(dict.fromkeys(k for r in records for k in r))
    cols = {}
    for name in names:
        values = [r.get(name) for r in records]
        try:
            cols[name] = _time_column(values) if name in TIME_COLUMNS else pa.array(values)
        except (pa.ArrowException, TypeError, ValueError, OverflowError) as e:
            raise ValueError(f"column {name!r}: {e}") from None
    return pa.table(cols) if cols else pa.table({f.name: pa.array([], f.type) for f in AGGREGATES_SCHEMA})


def _time_column(values: list[object]) -> pa.Array:
    """Integers (UNIX ns) or ISO-8601 strings, as timestamp[ns, UTC]; a mix of the two is fine."""
    ts = pa.timestamp("ns", tz="UTC")
    out = []
    for v in values:
        if v is None or isinstance(v, bool) or not isinstance(v, (int, str)):
            if v is not None:
                raise ValueError(f"{v!r} is neither integer nanoseconds nor an ISO-8601 string")
            out.append(None)
        elif isinstance(v, int):
            out.append(v)
        else:
            out.append(pa.scalar(v).cast(ts).value)  # "2026-12-02T10:00:00.123456789Z"; raises on a bad one
    return pa.array(out, pa.int64()).cast(ts)


def conform(table: pa.Table) -> tuple[pa.Table | None, list[Problem]]:
    """The rows as AGGREGATES_SCHEMA, or the problems (columns first, then values)."""
    want = {f.name: f for f in AGGREGATES_SCHEMA}
    problems = [Problem(None, c, "unknown column") for c in table.column_names if c not in want]
    cols = []
    for name, f in want.items():
        if name not in table.column_names:
            if not f.nullable:
                problems.append(Problem(None, name, "missing required column"))
            cols.append(pa.nulls(table.num_rows, f.type))
            continue
        try:
            cols.append(table.column(name).cast(f.type, safe=True))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
            problems.append(Problem(None, name, f"type {table.schema.field(name).type} does not convert to {f.type}: {e}"))
    if problems:
        return None, problems
    out = pa.Table.from_arrays(cols, schema=AGGREGATES_SCHEMA)
    problems = _values(out)
    return (None, problems) if problems else (out, [])


def _values(t: pa.Table) -> list[Problem]:
    """Row-level checks: what a merge would silently get wrong."""
    problems = [Problem(i + 1, f.name, "null in a required column") for f in AGGREGATES_SCHEMA if not f.nullable
                for i in np.flatnonzero(t.column(f.name).is_null().to_numpy(zero_copy_only=False))[:20]]
    if problems:
        return problems
    col = {n: t.column(n).to_numpy() for n in ("count", "timed", "sum_ns", "min_ns", "max_ns", "size_bucket")}
    nb = pc.list_value_length(t.column("hist_bin")).to_numpy(zero_copy_only=False)
    nc = pc.list_value_length(t.column("hist_count")).to_numpy(zero_copy_only=False)
    bins = pc.list_flatten(t.column("hist_bin")).to_numpy()
    counts = pc.list_flatten(t.column("hist_count")).to_numpy()
    row_of = np.repeat(np.arange(t.num_rows), nb) if (nb == nc).all() else None
    timed = col["timed"] > 0
    checks = (
        ("count", (col["count"] < 0) | (col["timed"] < 0) | (col["timed"] > col["count"]), "needs 0 <= timed <= count"),
        ("size_bucket", (col["size_bucket"] < 0) | (col["size_bucket"] > MAX_SIZE_BUCKET), "is outside 0..64"),
        ("min_ns", timed & ((col["min_ns"] < 0) | (col["min_ns"] > col["max_ns"])), "needs 0 <= min_ns <= max_ns"),
        ("sum_ns", col["sum_ns"] < 0, "is negative"),
        ("hist_count", nb != nc, "has another length than hist_bin"),
    )
    for name, bad, why in checks:
        problems += [Problem(int(i) + 1, name, why) for i in np.flatnonzero(bad)[:20]]
    if row_of is not None:
        bad_bin = np.unique(row_of[(bins < 0) | (bins >= N_BINS)])
        bad_count = np.unique(row_of[counts < 0])
        problems += [Problem(int(i) + 1, "hist_bin", f"has a bin outside 0..{N_BINS - 1}") for i in bad_bin[:20]]
        problems += [Problem(int(i) + 1, "hist_count", "has a negative count") for i in bad_count[:20]]
    return problems


def publish_named(lake: Lake, table: pa.Table, name: str, *, date: dt.date | None = None) -> bool:
    """Publish AGGREGATES_SCHEMA rows under a batch id: False when this id was stored before. One part
    per device class, `part-b-<id>.parquet` linked exclusively (a retry after a crash part-way
    stores only the classes still missing), then a marker in ROOT/batches that outlives compaction."""
    marker = lake.batches / f"aggregates-{name}"
    if marker.exists():
        return False
    day = date or dt.datetime.now(dt.timezone.utc).date()
    schema = file_schema()
    stored = False
    for dc in pc.unique(table.column("device_class")).to_pylist():
        if not dc or "/" in dc or dc.startswith("."):
            raise ValueError(f"device_class {dc!r} is not a valid partition name")
        part = table.filter(pc.equal(table.column("device_class"), dc)).drop_columns(["device_class"])
        part = pa.Table.from_arrays(part.columns, schema=schema)
        stored |= write_parquet(part, lake.aggregates_dir(day, dc), f"part-b-{name}.parquet", exclusive=True) is not None
    lake.batches.mkdir(parents=True, exist_ok=True)
    try:
        os.close(os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    except FileExistsError:
        return False
    return stored or table.num_rows == 0

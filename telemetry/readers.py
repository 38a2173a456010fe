"""Reading a producer's file (or upload body) into Arrow: Parquet, CSV and JSON Lines, each
record numbered as the file numbers it, for the rejections convert() reports.

CSV and JSON Lines go through Arrow's readers when the file's records are its lines one for
one (the common case, fast), else through Python's csv / json modules line by line, which
know every record's line number and keep the records that do not parse (with their text)
for the report. Both paths give the same rows (tests/telemetry/test_ingest.py).
"""
from __future__ import annotations

from collections.abc import Iterator

import csv
import gzip
import io
import json
import re
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from everypath.telemetry.convert import Rejection
from everypath.telemetry.schema import CALLS_SCHEMA
from everypath.telemetry.spool import MAGIC


class Format(Enum):
    PARQUET = "parquet"
    CSV = "csv"
    JSONL = "jsonl"
    SPOOL = "spool"  # telemetry/spool.py's files from standalone programs


SUFFIXES = {".parquet": Format.PARQUET, ".pq": Format.PARQUET, ".csv": Format.CSV, ".jsonl": Format.JSONL,
            ".ndjson": Format.JSONL, ".spool": Format.SPOOL}
WHOLE_COLUMN = "*"  # a rejection of a record as a whole (unparsable line, wrong field count)


@dataclass(frozen=True)
class Rows:
    """A file's records as read: a table of the producer's columns and types, each row's
    number in the file, and the records that could not even be read (with their text)."""

    table: pa.Table
    numbers: np.ndarray
    unreadable: tuple[tuple[Rejection, str], ...] = ()


def format_of(path: Path) -> Format | None:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes.pop()
    if suffixes and suffixes[-1] in SUFFIXES:
        return SUFFIXES[suffixes[-1]]
    with open(path, "rb") as f:
        head = f.read(8)
    return Format.SPOOL if head == MAGIC else Format.PARQUET if head[:4] == b"PAR1" else None


def _text(data: bytes) -> str:
    return (gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data).decode("utf-8-sig")


def _lines(text: str) -> int:
    return text.count("\n") + (not text.endswith("\n"))


def _fast_csv(text: str) -> Rows | None:
    """Arrow's reader, when its rows are the file's lines 2.. one for one (no blank line, no
    value with a newline, no torn record); None: use the line-exact reader."""
    import pyarrow.csv as pcsv

    header = next(csv.reader([text.split("\n", 1)[0]]), [])
    if not header or len(set(header)) != len(header):
        return None
    torn: list[object] = []
    try:
        table = pcsv.read_csv(pa.py_buffer(text.encode()), parse_options=pcsv.ParseOptions(
            invalid_row_handler=lambda row: torn.append(row) or "skip"), convert_options=pcsv.ConvertOptions(
            column_types={h: pa.string() for h in header}, strings_can_be_null=True,
            quoted_strings_can_be_null=True, null_values=[""]))
    except (pa.ArrowInvalid, ValueError):
        return None
    if torn or table.column_names != header or table.num_rows != _lines(text) - 1:
        return None
    return Rows(table, np.arange(2, table.num_rows + 2))


def read_csv(data: bytes) -> Rows:
    """CSV with a header line; every value read as text (convert() types it), empty = null.
    Arrow's reader when rows and lines match one for one, else Python's csv module, which
    knows each record's line number."""
    text = _text(data)
    fast = _fast_csv(text)
    if fast is not None:
        return fast
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        return Rows(pa.table({}), np.zeros(0, np.int64))
    records, numbers, bad = [], [], []
    line = reader.line_num + 1
    for rec in reader:
        if rec and len(rec) == len(header):
            records.append(rec)
            numbers.append(line)
        elif rec:
            text = io.StringIO()
            csv.writer(text, lineterminator="").writerow(rec)
            bad.append((Rejection(line, WHOLE_COLUMN, f"{len(rec)} fields, the header has {len(header)}"),
                        json.dumps({"_line": text.getvalue()})))
        line = reader.line_num + 1
    cols = list(zip(*records)) if records else [()] * len(header)
    # from_arrays keeps a repeated header name (convert() refuses it by name; a dict would drop one)
    table = pa.Table.from_arrays([pa.array([v if v != "" else None for v in c], pa.string()) for c in cols],
                                 names=header)
    return Rows(table, np.array(numbers, np.int64), tuple(bad))


_TEXT_COLUMNS = {f.name for f in CALLS_SCHEMA if pa.types.is_string(f.type)}


def _column(name: str, values: list[object]) -> pa.Array:
    if name in _TEXT_COLUMNS:  # a number where text is documented: its JSON text (a version 2 -> "2")
        return pa.array([v if v is None or isinstance(v, str) else json.dumps(v) for v in values], pa.string())
    try:
        return pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, OverflowError):
        # mixed types (3 and "3", [2] and "[2]"): all as text, which convert() parses per row
        return pa.array([v if v is None or isinstance(v, str) else json.dumps(v) for v in values], pa.string())


def _fast_jsonl(text: str) -> Rows | None:
    """Arrow's reader, with text columns and `ts` declared (its inference would turn ISO text
    into second-resolution timestamps), when every line is one object of uniform types."""
    import pyarrow.json as pj

    lines = _lines(text)
    for ts in (pa.string(), pa.int64()):
        declared = pa.schema([pa.field(n, pa.string()) for n in sorted(_TEXT_COLUMNS)] + [pa.field("ts", ts)])
        try:
            table = pj.read_json(pa.py_buffer(text.encode()), parse_options=pj.ParseOptions(
                explicit_schema=declared, unexpected_field_behavior="infer"))
        except (pa.ArrowInvalid, ValueError):
            continue
        if table.num_rows != lines or any(pa.types.is_struct(t) for t in table.schema.types):
            return None
        # a declared column the lines lack must stay absent (device_class is then derived, ...):
        # `"name":` with unescaped quotes can only be a key
        present = [n for n in table.column_names
                   if n not in declared.names or re.search(rf'"{re.escape(n)}"\s*:', text)]
        return Rows(table.select(present), np.arange(1, table.num_rows + 1))
    return None


def json_lines(text: str) -> Iterator[tuple[int, str, dict[str, object] | None, str | None]]:
    """(line number, line, object, None) per JSON object line, or (..., None, what is wrong); blank lines skipped.
    json.loads, not float64: nanosecond integers stay exact."""
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as e:
            yield i, line, None, f"not JSON: {e}"
            continue
        yield (i, line, obj, None) if isinstance(obj, dict) else (i, line, None, "not a JSON object")


def read_jsonl(data: bytes) -> Rows:
    """One JSON object per line; blank lines skipped; a line that is not an object is rejected.
    Arrow's reader when the lines allow (see _fast_jsonl), else json.loads line by line."""
    text = _text(data)
    fast = _fast_jsonl(text)
    if fast is not None:
        return fast
    records: list[dict[str, object]] = []
    numbers, bad = [], []
    for i, line, obj, problem in json_lines(text):
        if problem is not None:
            bad.append((Rejection(i, WHOLE_COLUMN, problem), json.dumps({"_line": line})))
            continue
        records.append(obj)  # type: ignore[arg-type]
        numbers.append(i)
    names = list(dict.fromkeys(k for r in records for k in r))
    table = pa.table({n: _column(n, [r.get(n) for r in records]) for n in names})
    return Rows(table, np.array(numbers, np.int64), tuple(bad))


def read_parquet(data: bytes) -> Rows:
    table = pq.read_table(io.BytesIO(data))
    return Rows(table, np.arange(1, table.num_rows + 1))


READERS = {Format.PARQUET: read_parquet, Format.CSV: read_csv, Format.JSONL: read_jsonl}

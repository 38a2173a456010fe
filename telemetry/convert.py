"""Rows from any producer into the calls schema: the documented conversions (docs/telemetry.md,
"Rows from other producers"), with every row that cannot be converted rejected and said why.

A producer without our Python (a phone app, a page in a browser, another fleet tool) writes
the documented columns with the types its language has: a `ts` without time zone, `shape` as
the text "[2, 3]", int64 where int16 is documented, `gpu` as "none". convert() maps each
column to its CALLS_SCHEMA type with vectorized Arrow kernels (rows already in our schema,
the collector's common case, pay only for the checks); a value with no conversion rejects
its row (row number, column, problem), never the file. File-level problems (an unknown or a
missing required column, a column whose type has no conversion) raise ConvertError.
"""
from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from everypath.telemetry.columns import (MISSING, TS_MAX, TS_MIN, Problem, TypeProblem, any_true, bools, converter,
                                         decode)
from everypath.telemetry.device import _CLASS_KEYS, device_class  # the one list of class features
from everypath.telemetry.schema import CALLS_SCHEMA

__all__ = ["MISSING", "TS_MAX", "TS_MIN", "ConvertError", "Converted", "Rejection", "convert"]

IGNORED = ("date",)  # the lake's date is the publish date (docs/telemetry.md, Lake layout)
DEFAULTS: dict[str, object] = {"explore": False, "propensity": 1.0}  # a producer that does not explore


class ConvertError(ValueError):
    """Rows that cannot be converted as a whole (their columns); .problems lists why."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Rejection:
    row: int  # Parquet / Arrow: 1-based row; CSV and JSON Lines: the line number (the CSV header is line 1)
    column: str
    problem: str

    def __str__(self) -> str:
        return f"row {self.row}: {self.column}: {self.problem}"


@dataclass(frozen=True)
class Converted:
    table: pa.Table  # CALLS_SCHEMA, the accepted rows in their input order
    rejected: tuple[Rejection, ...]  # one per rejected row (its first problem in schema order)
    notes: tuple[str, ...]  # the conversions that were applied


def _derive_class(cols: dict[str, pa.Array]) -> pa.Array:
    """device_class for rows that lack it: the hash of the class features, as device.py computes it."""
    feats = [cols[k].to_pylist() for k in _CLASS_KEYS]
    cache: dict[tuple[object, ...], str] = {}
    out = []
    for row in zip(*feats):
        if row not in cache:
            cache[row] = device_class(dict(zip(_CLASS_KEYS, row)))
        out.append(cache[row])
    return pa.array(out, pa.string())


def _product(shapes: pa.Array) -> pa.Array:
    return pa.array([None if s is None else int(np.prod(s, dtype=np.int64)) for s in shapes.to_pylist()], pa.int64())


def convert(table: pa.Table, *, constants: dict[str, str] | None = None, drop_unknown: bool = False,
            row_numbers: np.ndarray | None = None) -> Converted:
    """table (any producer's columns) as CALLS_SCHEMA rows. constants: values for columns the
    rows lack (hive partition directories); row_numbers: each row's number for the report
    (default 1, 2, ...)."""
    notes: list[str] = []
    names = table.column_names
    want = {f.name: f for f in CALLS_SCHEMA}
    problems = [f"column {n!r} appears more than once" for n in sorted(set(names)) if names.count(n) > 1]
    unknown = [n for n in names if n not in want and n not in IGNORED]
    if unknown and not drop_unknown:
        problems += [f"unknown column {n!r}" for n in unknown]
    elif unknown:
        notes.append(f"unknown columns dropped: {', '.join(unknown)}")
    n = table.num_rows
    src: dict[str, pa.Array] = {}
    for name in names:
        if name in want and names.count(name) == 1:
            src[name] = decode(table.column(name).combine_chunks())
    for name, value in (constants or {}).items():
        if name in want and name not in src:
            src[name] = pa.array([value] * n, pa.string())
            notes.append(f"{name} {value!r} from the directory name")
    derived = {"device_class": "device_class" not in src, "n_elements": "n_elements" not in src and "shape" in src}
    for name, value in DEFAULTS.items():
        if name not in src:
            src[name] = pa.array([value] * n, want[name].type)
            notes.append(f"{name} absent: {value} for every row (a producer that does not explore)")
    for f in CALLS_SCHEMA:
        if not f.nullable and f.name not in src and not derived.get(f.name):
            problems.append(f"missing required column {f.name!r}")
    out: dict[str, pa.Array] = {}
    checks: list[tuple[str, pa.Array, list[Problem]]] = []
    for f in CALLS_SCHEMA:
        if f.name not in src:
            continue
        try:
            out[f.name], ps = converter(f)(src[f.name], f, notes)
        except TypeProblem as e:
            problems.append(str(e))
            continue
        checks.append((f.name, src[f.name], ps))
    if problems:
        raise ConvertError(problems)
    for f in CALLS_SCHEMA:
        if f.name not in out:
            out[f.name] = pa.nulls(n, f.type)
    if derived["n_elements"]:
        out["n_elements"] = _product(out["shape"])
        notes.append("n_elements absent: the product of shape")
    if derived["device_class"]:
        out["device_class"] = _derive_class(out)
        notes.append("device_class absent: the hash of the class features, as everypath computes it")
    rejected = np.zeros(n, bool)
    found: list[tuple[int, Rejection]] = []
    numbers = np.arange(1, n + 1) if row_numbers is None else row_numbers
    for name, values, ps in checks:
        for mask, message in ps:
            if not any_true(mask):
                continue
            rows = np.flatnonzero(bools(mask) & ~rejected)
            if not len(rows):
                continue
            rejected[rows] = True
            shown = values.take(pa.array(rows)).to_pylist() if "{v}" in message else [None] * len(rows)
            found += [(int(i), Rejection(int(numbers[i]), name, message.format(v=_show(v))))
                      for i, v in zip(rows, shown)]
    table = pa.Table.from_arrays([out[f.name] for f in CALLS_SCHEMA], schema=CALLS_SCHEMA)
    if rejected.any():
        table = table.filter(pa.array(~rejected))
    found.sort(key=lambda x: x[0])
    return Converted(table, tuple(r for _, r in found), tuple(dict.fromkeys(notes)))


def _show(v: object) -> str:
    if isinstance(v, (dt.datetime, dt.date)):
        return v.isoformat()
    try:
        return json.dumps(v)
    except (TypeError, ValueError):
        return repr(v)

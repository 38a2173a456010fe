"""The lake on disk: hive-partitioned zstd Parquet parts, published atomically.

Layout (docs/telemetry.md): ROOT/calls/date=YYYY-MM-DD/device_class=<c>/part-<id>.parquet.
Every process writes its own files (never a shared DuckDB file); a part becomes visible only
by a rename of a fully written, fsync'ed file, so readers never see a partial one. The
date is the UTC date of the publish, so a closed date receives no new files and can be
compacted. `date` and `device_class` live in the directory names, not in the files.
"""
from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import uuid
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import pyarrow as pa
import pyarrow.parquet as pq

from everypath.telemetry.records import arrow_kernel
from everypath.telemetry.schema import CALLS_SCHEMA, SCHEMA_VERSION, check_schema

BATCH_ID = re.compile(r"[A-Za-z0-9_-]{8,64}")
ROW_GROUP = 1 << 20  # big row groups: pyarrow's small defaults make writes and scans several times slower
# min/max statistics only where readers filter (stats on constant list columns cost ~15% of the write)
STATS_COLUMNS = ["ts", "function", "op", "variant", "dtype", "n_elements", "latency_ns", "device_id", "runtime"]
FILE_SCHEMA = pa.schema([f for f in CALLS_SCHEMA if f.name != "device_class"], metadata=CALLS_SCHEMA.metadata)
# Dictionary pages only for the text columns (few distinct values per part); the integers are
# near-unique, where building a dictionary that is then abandoned cost ~15% of the write. ts is
# ascending within a producer's batch: DELTA_BINARY_PACKED stores it in ~1 byte a row before
# zstd. zstd level 1: the same size here as the default 3, ~10% less CPU (bench/collector_bench.py
# --parquet measures each option).
DICTIONARY_COLUMNS = [f.name for f in FILE_SCHEMA if pa.types.is_string(f.type)]
CALLS_WRITE_OPTIONS: dict[str, object] = {
    "compression": "zstd", "compression_level": 1, "row_group_size": ROW_GROUP, "use_dictionary": DICTIONARY_COLUMNS,
    "column_encoding": {"ts": "DELTA_BINARY_PACKED"}, "write_statistics": STATS_COLUMNS}


class SchemaError(ValueError):
    """A batch does not have the calls schema; .problems lists why."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Published:
    paths: tuple[Path, ...]
    stored: bool  # False: a batch with this id was already stored (nothing written)
    rows: int


def _fsync_dir(fd_or_path: int | Path) -> None:
    fd = os.open(fd_or_path, os.O_RDONLY) if isinstance(fd_or_path, Path) else fd_or_path
    try:
        os.fsync(fd)
    finally:
        if isinstance(fd_or_path, Path):
            os.close(fd)


def as_table(data: pa.Table | pa.RecordBatch | Iterable[pa.RecordBatch]) -> pa.Table:
    """One table of CALLS_SCHEMA (missing nullable columns become nulls), or SchemaError."""
    if isinstance(data, pa.RecordBatch):
        table = pa.Table.from_batches([data])
    elif isinstance(data, pa.Table):
        table = data
    else:
        batches = list(data)
        table = pa.Table.from_batches(batches) if batches else CALLS_SCHEMA.empty_table()
    problems = check_schema(table.schema)
    if problems:
        raise SchemaError(problems)
    cols = [table.column(f.name) if f.name in table.column_names else pa.nulls(table.num_rows, f.type)
            for f in CALLS_SCHEMA]
    nulls = [f"required column {f.name!r} has {c.null_count} nulls" for f, c in zip(CALLS_SCHEMA, cols)
             if not f.nullable and c.null_count]
    if nulls:
        raise SchemaError(nulls)
    return pa.Table.from_arrays(cols, schema=CALLS_SCHEMA)


def _rows_of(table: pa.Table, device_class: str) -> pa.Table:
    import pyarrow.compute as pc

    return table.filter(pc.equal(table.column("device_class"), device_class))


def write_parquet(table: pa.Table, directory: Path, final_name: str, *, exclusive: bool) -> Path | None:
    """_write_parquet, again when a compaction removed the directory under our feet."""
    for attempt in range(5):
        try:
            return _write_parquet(table, directory, final_name, exclusive=exclusive)
        except FileNotFoundError:
            if attempt == 4:
                raise
    raise AssertionError("unreachable")


def _write_options(schema: pa.Schema) -> dict[str, object]:
    """CALLS_WRITE_OPTIONS for a calls part; the previous defaults for anything else written
    through here (aggregates, roll-ups: other columns)."""
    if schema.equals(FILE_SCHEMA):
        return CALLS_WRITE_OPTIONS
    return {"compression": "zstd", "row_group_size": ROW_GROUP, "use_dictionary": True,
            "write_statistics": STATS_COLUMNS}


def _write_parquet(table: pa.Table, directory: Path, final_name: str, *, exclusive: bool) -> Path | None:
    """Write table as directory/final_name atomically: temp name (not matching *.parquet),
    fsync, rename (exclusive: link, so an existing file wins and None is returned), fsync dir.
    All steps go through one directory fd, so a concurrent directory swap (compaction) sends
    the file into the directory that was opened, never to a half-resolved path."""
    directory.mkdir(parents=True, exist_ok=True)
    dfd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    tmp = f".tmp-{uuid.uuid4().hex}"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644, dir_fd=dfd)
        try:
            with os.fdopen(fd, "wb", closefd=False) as f:
                pq.write_table(table, f, **_write_options(table.schema))
                f.flush()
            os.fsync(fd)
        finally:
            os.close(fd)
        if exclusive:
            try:
                os.link(tmp, final_name, src_dir_fd=dfd, dst_dir_fd=dfd)
            except FileExistsError:
                return None
            finally:
                os.unlink(tmp, dir_fd=dfd)
        else:
            os.rename(tmp, final_name, src_dir_fd=dfd, dst_dir_fd=dfd)
        os.fsync(dfd)
        return directory / final_name
    except BaseException:
        try:
            os.unlink(tmp, dir_fd=dfd)
        except OSError:
            pass
        raise
    finally:
        os.close(dfd)


_validated: dict[str, tuple[int, int]] = {}  # path -> (size, mtime_ns) of files whose footer checked out


class Lake:
    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        self.calls = self.root / "calls"
        self.rollups = self.root / "rollups" / "daily"
        self.batches = self.root / "batches"  # one marker per stored batch id (idempotent uploads)
        self.aggregates = self.root / "aggregates"  # exact per-interval aggregates (telemetry/aggregates.py)

    def partition_dir(self, date: dt.date, device_class: str) -> Path:
        return self.calls / f"date={date.isoformat()}" / f"device_class={device_class}"

    def publish(self, data: pa.Table | pa.RecordBatch | Iterable[pa.RecordBatch], name: str | None = None,
                *, date: dt.date | None = None) -> list[Path]:
        """Publish rows as one part per device class; [] when `name` was stored before.
        `date` overrides the partition date (tests and backfills only)."""
        return list(self.publish_named(data, name, date=date).paths)

    def publish_named(self, data: pa.Table | pa.RecordBatch | Iterable[pa.RecordBatch], name: str | None = None,
                      *, date: dt.date | None = None) -> Published:
        table = as_table(data)
        if name is not None and not BATCH_ID.fullmatch(name):
            raise ValueError(f"batch id {name!r} must match [A-Za-z0-9_-]{{8,64}}")
        if name is not None and self.has_batch(name):
            return Published((), False, table.num_rows)
        day = date or dt.datetime.now(dt.timezone.utc).date()
        paths: list[Path] = []
        stored = name is None
        # one class (every process's own publish): no pyarrow.compute, which costs ~70 ms to import
        classes = arrow_kernel("unique", table.column("device_class")).to_pylist() if table.num_rows else []
        for dc in classes:
            if not dc or "/" in dc or dc.startswith("."):
                raise SchemaError([f"device_class {dc!r} is not a valid partition name"])
            part = _rows_of(table, dc) if len(classes) > 1 else table
            # as_table gave every column its CALLS_SCHEMA type: FILE_SCHEMA's, with no cast to make
            part = pa.Table.from_arrays(part.drop_columns(["device_class"]).columns, schema=FILE_SCHEMA)
            fname = f"part-b-{name}.parquet" if name else f"part-{uuid.uuid4().hex}.parquet"
            p = write_parquet(part, self.partition_dir(day, dc), fname, exclusive=name is not None)
            if p is not None:
                paths.append(p)
                stored = True
        if name is not None:
            self._mark_batch(name, paths)
        return Published(tuple(paths), stored, table.num_rows)

    def aggregates_dir(self, date: dt.date, device_class: str) -> Path:
        return self.aggregates / f"date={date.isoformat()}" / f"device_class={device_class}"

    def aggregate_files(self) -> list[Path]:
        self.settle()
        return sorted(self.aggregates.glob("date=*/device_class=*/*.parquet"))

    def settle(self) -> int:
        """Publish the exit journals of processes that ended before their first publish (telemetry/journal.py):
        every reader lists parts through here, so what a finished process recorded is always seen."""
        from everypath.telemetry import journal

        try:
            return journal.settle(self)
        except OSError:  # a lake this process may read but not write: the journals wait for a writer
            return 0

    def has_batch(self, name: str) -> bool:
        if (self.batches / name).exists():
            return True
        # a batch published but not yet marked (crash between the two) is still found
        return any(self.calls.glob(f"date=*/device_class=*/part-b-{name}.parquet"))

    def _mark_batch(self, name: str, paths: list[Path]) -> None:
        self.batches.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(self.batches / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            return
        with os.fdopen(fd, "w") as f:
            json.dump([str(p.relative_to(self.root)) for p in paths], f)

    def mark_batches(self, names: list[str], paths: list[Path]) -> None:
        """Mark several batch ids stored in paths (the collector's group commits), durably:
        one fsync of LAKE/batches/ covers them all (a marker lost to a power cut would let a
        retry store the rows a second time; the part's name does not carry these ids)."""
        for name in names:
            self._mark_batch(name, paths)
        _fsync_dir(self.batches)

    def files(self) -> list[Path]:
        """The visible parts (what DuckDB's glob reads), the exit journals published first."""
        self.settle()
        return sorted(self.calls.glob("date=*/device_class=*/*.parquet"))

    def rollup_files(self) -> list[Path]:
        return sorted(self.rollups.glob("date=*/*.parquet"))

    def glob(self) -> str:
        return str(self.calls / "*" / "*" / "*.parquet")

    def problem(self, path: Path) -> str | None:
        """Why a part is unreadable or foreign (None: fine)."""
        try:
            schema = pq.read_schema(path)
        except FileNotFoundError:
            return None  # moved by a compaction meanwhile: not ours to judge
        except Exception as e:  # noqa: BLE001 - any parser failure means the footer is unusable
            return f"unreadable footer: {e}"
        meta = schema.metadata or {}
        if meta.get(b"everypath.schema") != b"calls":
            return "foreign file (no everypath calls schema metadata)"
        try:
            version = int(meta.get(b"everypath.schema_version", b"0"))
        except ValueError:
            return "unparsable schema version"
        if version > SCHEMA_VERSION:
            return None  # written by a newer everypath: additive columns, read by name
        full = schema.append(pa.field("device_class", pa.string(), nullable=False))
        problems = check_schema(full)
        return "; ".join(problems) if problems else None

    def quarantine(self) -> list[Path]:
        """Move unreadable or foreign parts to ROOT/quarantine/<relative path>, with a warning.
        Validated files are remembered by (size, mtime_ns) so repeated calls are cheap."""
        moved: list[Path] = []
        for p in [*self.files(), *self.rollup_files(), *self.aggregate_files()]:
            try:
                st = p.stat()
            except FileNotFoundError:
                continue
            key = (st.st_size, st.st_mtime_ns)
            if _validated.get(str(p)) == key:
                continue
            why = (self.problem(p) if p.is_relative_to(self.calls)
                   else self._aggregate_problem(p) if p.is_relative_to(self.aggregates) else self._rollup_problem(p))
            if why is None:
                _validated[str(p)] = key
                continue
            dest = self.root / "quarantine" / p.relative_to(self.root)
            dest.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.replace(p, dest)
            except FileNotFoundError:
                continue
            warnings.warn(f"everypath telemetry: quarantined {p} -> {dest}: {why}", RuntimeWarning, stacklevel=2)
            moved.append(dest)
        return moved

    @staticmethod
    def _rollup_problem(path: Path) -> str | None:
        try:
            pq.read_schema(path)
        except FileNotFoundError:
            return None
        except Exception as e:  # noqa: BLE001
            return f"unreadable footer: {e}"
        return None

    @staticmethod
    def _aggregate_problem(path: Path) -> str | None:
        try:
            meta = pq.read_schema(path).metadata or {}
        except FileNotFoundError:
            return None
        except Exception as e:  # noqa: BLE001
            return f"unreadable footer: {e}"
        return None if meta.get(b"everypath.schema") == b"aggregates" else "foreign file (no aggregates schema metadata)"

    def dates(self) -> list[dt.date]:
        out = []
        for d in self.calls.glob("date=*"):
            try:
                out.append(dt.date.fromisoformat(d.name.removeprefix("date=")))
            except ValueError:
                continue
        return sorted(out)

    def clear_stale_tmp(self, older_than_s: float = 3600.0) -> int:
        """Delete temp files left by crashed writers (invisible to readers, only disk space)."""
        import time

        n = 0
        for p in [*self.calls.glob("date=*/device_class=*/.tmp-*"), *self.aggregates.glob("date=*/device_class=*/.tmp-*")]:
            try:
                if time.time() - p.stat().st_mtime > older_than_s:
                    p.unlink()
                    n += 1
            except FileNotFoundError:
                continue
        return n

    def remove_empty_staging(self) -> None:
        staging = self.root / "staging"
        if staging.is_dir() and not any(staging.iterdir()):
            shutil.rmtree(staging, ignore_errors=True)

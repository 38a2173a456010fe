"""Compaction: closed partitions become one file each, and closed dates get daily roll-ups.

A partition is closed when its date is before today (UTC) and none of its files is younger
than a grace period. The merged file is written in ROOT/staging/<uuid>/..., its row count
checked against the inputs, and the directories are swapped atomically (renameat2
RENAME_EXCHANGE): a reader's glob lists either the old files or the merged one, never both,
and never a partial file. Files that land in the old directory after the listing are moved
into the new one; only the listed inputs are deleted. A journal in the staging dir lets the
next run finish or undo a compaction that crashed half-way. One compaction at a time (flock).
Both tables (`calls`, `aggregates`) are compacted alike; with uploads in use each partition is
decided on and merged under the upload lock so the upload ledger stays true (upload.py). A closed
date's roll-up counts every call: the date's aggregates merged with the raw rows none cover.
"""
from __future__ import annotations

import ctypes
import datetime as dt
import errno
import fcntl
import json
import os
import shutil
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from everypath.telemetry.lake import FILE_SCHEMA, ROW_GROUP, STATS_COLUMNS, Lake, write_parquet
from everypath.telemetry.upload import (AGGREGATES, CALLS, UPLOADED_KEY, Table, ledger, note_uploaded, part_id,
                                        upload_lock)
from everypath.telemetry.views import ROLLUP_SCHEMA, ROLLUP_VERSION, table_views

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


@dataclass
class CompactReport:
    partitions: list[str] = field(default_factory=list)  # compacted partition dirs (relative)
    files_in: int = 0
    rows: int = 0
    rollups: list[str] = field(default_factory=list)  # dates whose roll-up was (re)written
    recovered: int = 0


def exchange(a: Path, b: Path) -> bool:
    """Atomically swap two directory entries (Linux renameat2); False where unsupported."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(a))


def _swap(live: Path, new: Path) -> None:
    """After this, `live` holds new's contents and `new` holds the old ones."""
    if exchange(live, new):
        return
    # fallback: a short window where the partition is missing (readers undercount, never double count)
    aside = new.with_name(new.name + ".old")
    os.rename(live, aside)
    os.rename(new, live)
    os.rename(aside, new)


def _merge(inputs: list[Path], out_dir: Path, name: str, schema: pa.Schema = FILE_SCHEMA) -> int:
    """Stream the inputs into one zstd file (row groups up to ROW_GROUP); returns its rows."""
    tmp = out_dir / f".tmp-{uuid.uuid4().hex}"
    pending: list[pa.Table] = []
    n_pending = 0
    with open(tmp, "wb") as f:
        stats = [c for c in STATS_COLUMNS if c in schema.names]
        writer = pq.ParquetWriter(f, schema, compression="zstd", use_dictionary=True, write_statistics=stats)
        for p in inputs:
            t = pq.read_table(p, schema=schema)
            pending.append(t)
            n_pending += t.num_rows
            if n_pending >= ROW_GROUP:
                writer.write_table(pa.concat_tables(pending), row_group_size=ROW_GROUP)
                pending, n_pending = [], 0
        if pending:
            writer.write_table(pa.concat_tables(pending), row_group_size=ROW_GROUP)
        writer.close()
        f.flush()
        os.fsync(f.fileno())
    os.rename(tmp, out_dir / name)
    return pq.ParquetFile(out_dir / name).metadata.num_rows


def _drain_old(old: Path, live: Path, inputs: set[str], timeout_s: float = 30.0) -> None:
    """Empty the swapped-out directory: delete the merged inputs, move late parts into the
    live dir, wait for in-flight temp files (a publisher holding the old dir's fd), rmdir."""
    deadline = time.monotonic() + timeout_s
    while True:
        for f in list(old.iterdir()) if old.exists() else []:
            if f.name in inputs:
                f.unlink()
            elif f.name.endswith(".parquet"):
                if (live / f.name).exists():  # already linked across before the swap
                    f.unlink()
                else:
                    os.rename(f, live / f.name)
            elif f.name.startswith(".tmp-") and time.monotonic() > deadline:
                f.unlink()  # a writer that died mid-write: never becomes visible anyway
        try:
            old.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError as e:
            if e.errno != errno.ENOTEMPTY:
                raise
        time.sleep(0.005)


def compact_partition(lake: Lake, pdir: Path, inputs: list[Path] | None = None,
                      schema: pa.Schema = FILE_SCHEMA) -> tuple[int, Path]:
    """Merge one partition's parts (default: all of them) into one file; (rows, merged part).
    schema: the parts' file schema (calls, or aggregates.file_schema() for the aggregates table)."""
    inputs = sorted(pdir.glob("*.parquet")) if inputs is None else sorted(inputs)
    rel = pdir.relative_to(lake.root)
    staging = lake.root / "staging" / uuid.uuid4().hex
    sdir = staging / rel
    sdir.mkdir(parents=True)
    merged = f"part-c-{uuid.uuid4().hex}.parquet"
    journal = {"partition": str(rel), "inputs": [p.name for p in inputs], "merged": merged}
    with open(staging / "journal.json", "w") as f:
        json.dump(journal, f)
        f.flush()
        os.fsync(f.fileno())
    want = sum(pq.ParquetFile(p).metadata.num_rows for p in inputs)
    got = _merge(inputs, sdir, merged, schema)
    if got != want:
        shutil.rmtree(staging)
        raise RuntimeError(f"compaction of {rel}: merged file has {got} rows, inputs have {want}")
    listed = {p.name for p in inputs}
    for late in pdir.glob("*.parquet"):  # published since the listing: carry them across the swap
        if late.name not in listed:
            os.link(late, sdir / late.name)
    _swap(pdir, sdir)
    _fsync_parent(pdir)
    _drain_old(sdir, pdir, listed)
    shutil.rmtree(staging, ignore_errors=True)
    return got, pdir / merged


def _fsync_parent(p: Path) -> None:
    fd = os.open(p.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def recover(lake: Lake) -> int:
    """Finish or undo compactions that crashed; returns how many staging dirs were handled."""
    n = 0
    for staging in sorted((lake.root / "staging").glob("*")) if (lake.root / "staging").is_dir() else []:
        jpath = staging / "journal.json"
        try:
            journal = json.loads(jpath.read_text())
        except (OSError, ValueError):
            journal = None  # crashed before the journal: nothing was swapped
        if journal is not None:
            live, old = lake.root / journal["partition"], staging / journal["partition"]
            if (live / journal["merged"]).exists() and old.exists():
                _drain_old(old, live, set(journal["inputs"]))  # swapped: finish the clean-up
        shutil.rmtree(staging, ignore_errors=True)
        n += 1
    return n


def write_rollup(lake: Lake, date: dt.date) -> None:
    """(Re)write ROOT/rollups/daily/date=D/part-0.parquet from the date's parts of both tables:
    every call counted (aggregates merged with the raw rows none cover, views.daily_sql); replaced
    by rename, so the daily view sees the old roll-up or the new one, never a mix."""
    day = f"date={date.isoformat()}"
    calls = [str(p) for p in sorted((lake.calls / day).glob("device_class=*/*.parquet"))]
    aggs = [str(p) for p in sorted((lake.aggregates / day).glob("device_class=*/*.parquet"))]
    con = duckdb.connect(":memory:")
    try:
        table_views(con, calls or None, aggs or None)
        table = (con.sql("SELECT * FROM daily_computed ORDER BY ALL").to_arrow_table()
                 .drop_columns(["date"]).cast(ROLLUP_SCHEMA))
    finally:
        con.close()
    write_parquet(table, lake.rollups / day, "part-0.parquet", exclusive=False)


def _rollup_current(path: Path, newest_ns: int) -> bool:
    """Whether a stored roll-up is of this ROLLUP_VERSION and newer than every part it rolls up."""
    try:
        meta = pq.read_schema(path).metadata or {}
        return path.stat().st_mtime_ns >= newest_ns and meta.get(b"everypath.schema_version") == \
            str(ROLLUP_VERSION).encode()
    except (OSError, pa.ArrowInvalid):
        return False


def compact(lake: Lake, *, grace_s: float = 3600.0, today: dt.date | None = None) -> CompactReport:
    """Compact every closed partition and refresh the roll-ups of closed dates."""
    report = CompactReport()
    lake.root.mkdir(parents=True, exist_ok=True)
    with open(lake.root / ".compact.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RuntimeError("another compaction of this lake is running") from None
        report.recovered = recover(lake)
        lake.quarantine()
        today = today or dt.datetime.now(dt.timezone.utc).date()
        now = time.time()
        from everypath.telemetry.aggregates import file_schema

        # closed before compacting (a merged part is young: it must not reopen its date)
        closed = {b: set(_closed_dates(b, today, now, grace_s)) for b in (lake.calls, lake.aggregates)}
        for table, base, schema in ((CALLS, lake.calls, FILE_SCHEMA), (AGGREGATES, lake.aggregates, file_schema())):
            for date in sorted(closed[base]):
                for pdir in sorted((base / f"date={date.isoformat()}").glob("device_class=*")):
                    _compact_uploaded(lake, pdir, table, schema, report)
        # a date's roll-up counts both tables' rows: written once the date is closed in each table
        # that has parts of it, rewritten when either changed since (or it is of an older version)
        for date in sorted(closed[lake.calls] | closed[lake.aggregates]):
            parts = [p for b in (lake.calls, lake.aggregates)
                     for p in (b / f"date={date.isoformat()}").glob("device_class=*/*.parquet")]
            if any(p.is_relative_to(b) and date not in closed[b] for p in parts for b in closed):
                continue  # the other table still has young parts of this date
            rollup = lake.rollups / f"date={date.isoformat()}" / "part-0.parquet"
            if not _rollup_current(rollup, max(p.stat().st_mtime_ns for p in parts)):
                write_rollup(lake, date)
                report.rollups.append(date.isoformat())
        lake.remove_empty_staging()
    return report


def _closed_dates(base: Path, today: dt.date, now: float, grace_s: float) -> list[dt.date]:
    """A table's dates before today with parts, none younger than the grace period."""
    out = []
    for ddir in sorted(base.glob("date=*")):
        try:
            date = dt.date.fromisoformat(ddir.name.removeprefix("date="))
        except ValueError:
            continue
        parts = list(ddir.glob("device_class=*/*.parquet"))
        if date < today and parts and all(now - p.stat().st_mtime >= grace_s for p in parts):
            out.append(date)
    return out


def _compact_uploaded(lake: Lake, pdir: Path, table: Table, schema: pa.Schema, report: CompactReport) -> None:
    """Compact one partition of either table so that the upload ledger stays true: with uploads in
    use a merged part must be wholly uploaded (its id is noted) or wholly not, else the collector
    would get uploaded rows twice; a partition mixing both waits for the next upload. Decided and
    done under the upload lock, so no part is sent between the decision and the merge."""
    with upload_lock(lake):
        files = list(pdir.glob("*.parquet"))
        if len(files) < 2:
            return
        done = ledger(lake) if (lake.root / ".uploaded").exists() else None
        ids = {part_id(f, table.id_prefix) for f in files} if done is not None else set()
        if done is not None and ids & done and not ids <= done:
            return
        uploaded = done is not None and ids <= done
        if uploaded:  # marked in the file too: a lost ledger does not make it look unsent (upload.py)
            schema = schema.with_metadata({**(schema.metadata or {}), UPLOADED_KEY: b"1"})
        rows, merged = compact_partition(lake, pdir, files, schema)
        if uploaded:
            note_uploaded(lake, [part_id(merged, table.id_prefix)])
    report.rows += rows
    report.files_in += len(files)
    report.partitions.append(str(pdir.relative_to(lake.root)))

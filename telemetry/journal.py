"""The exit journal: a process's last drain written with NumPy alone, published into the lake later.

A process that never published (short-lived: its first publish would be at exit) would import pyarrow at
exit only to write one small part (~100-150 ms, issue 13 allows exit 50 ms). It writes its drained rows
and aggregates here instead (ROOT/journal/<id>.npz, atomically: temp name, then rename) and exits; the
next publish of any process on this lake, every lake reader (Lake.files, Lake.aggregate_files) and
`everypath telemetry ingest` publish the journal first (`settle`). Replays are idempotent: the calls are
a named batch, the aggregates an exclusive part of the same name, so a replayer that dies half-way and
the one after it never count a row twice.

File (np.savez, uncompressed): "meta" (UTF-8 JSON: version, device fields, per piece its sites and
table versions) and per piece i its columns, "c{i}.{column}" for calls, "a{i}.{column}" for aggregates.
"""
from __future__ import annotations

import datetime as dt
import json
import logging
import os
import time
import uuid
import zipfile
from dataclasses import asdict, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from everypath.telemetry.aggregates import AggregateRows
from everypath.telemetry.records import CallSite, RawCalls

if TYPE_CHECKING:
    from everypath.telemetry.lake import Lake

log = logging.getLogger("everypath.telemetry")

VERSION = 1
STALE_CLAIM_S = 600.0  # a claim older than this whose process is gone is taken over
_OPTIONAL = ("inclusion", "third_dim")  # columns a piece may lack (None): written only when present
_RAW = tuple(f.name for f in fields(RawCalls) if f.name not in ("table_version", "aggregates", *_OPTIONAL))
_AGG = tuple(f.name for f in fields(AggregateRows) if f.name not in ("start_ns", "end_ns", "table_version"))


def journal_dir(root: Path) -> Path:
    return Path(root) / "journal"


def _versions(v: Any) -> Any:
    return [None if x is None else str(x) for x in v.tolist()] if isinstance(v, np.ndarray) else v


def write(root: Path, calls: list[tuple[RawCalls, list[CallSite]]],
          aggregates: list[tuple[AggregateRows, list[CallSite]]], device: dict[str, object]) -> Path:
    """Journal drained pieces under root (the lake's folder); returns the file."""
    arrays: dict[str, np.ndarray] = {}
    meta: dict[str, Any] = {"version": VERSION, "device": device, "calls": [], "aggregates": []}
    for i, (raw, sites) in enumerate(calls):
        for name in _RAW:
            arrays[f"c{i}.{name}"] = np.asarray(getattr(raw, name))
        for name in _OPTIONAL:
            if getattr(raw, name) is not None:
                arrays[f"c{i}.{name}"] = np.asarray(getattr(raw, name))
        meta["calls"].append({"sites": [asdict(s) for s in sites], "table_version": _versions(raw.table_version)})
    for i, (agg, sites) in enumerate(aggregates):
        for name in _AGG:
            arrays[f"a{i}.{name}"] = np.asarray(getattr(agg, name))
        meta["aggregates"].append({"sites": [asdict(s) for s in sites], "start_ns": int(agg.start_ns),
                                   "end_ns": int(agg.end_ns), "table_version": agg.table_version})
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    d = journal_dir(root)
    d.mkdir(parents=True, exist_ok=True)
    name = f"{int(time.time())}-{uuid.uuid4().hex[:16]}"
    tmp = d / f".tmp-{name}.npz"
    with open(tmp, "wb") as f:
        np.savez(f, **arrays)
        f.flush()
        os.fsync(f.fileno())
    final = d / f"{name}.npz"
    os.replace(tmp, final)
    return final


def read(path: Path) -> tuple[dict[str, object], list[tuple[RawCalls, list[CallSite]]],
                              list[tuple[AggregateRows, list[CallSite]]]]:
    """A journal's device fields, calls pieces and aggregates pieces (ValueError: not a journal we read)."""
    with np.load(path, allow_pickle=False) as z:
        meta = json.loads(bytes(z["meta"]).decode())
        if meta.get("version") != VERSION:
            raise ValueError(f"{path}: journal version {meta.get('version')!r}, this everypath reads {VERSION}")
        calls = []
        for i, m in enumerate(meta["calls"]):
            cols = {name: z[f"c{i}.{name}"] for name in _RAW}
            opt = {name: z[f"c{i}.{name}"] if f"c{i}.{name}" in z.files else None for name in _OPTIONAL}
            tv = m["table_version"]
            tv = np.array(tv, dtype=object) if isinstance(tv, list) else tv
            calls.append((RawCalls(**cols, **opt, table_version=tv), [_site(s) for s in m["sites"]]))
        aggs = []
        for i, m in enumerate(meta["aggregates"]):
            cols = {name: z[f"a{i}.{name}"] for name in _AGG}
            aggs.append((AggregateRows(m["start_ns"], m["end_ns"], **cols, table_version=m["table_version"]),
                         [_site(s) for s in m["sites"]]))
    return meta["device"], calls, aggs


def _site(d: dict[str, Any]) -> CallSite:
    return CallSite(**{**d, "variants": tuple(d["variants"])})


def pending(root: Path) -> list[Path]:
    d = journal_dir(root)
    return sorted(d.glob("*.npz")) if d.is_dir() else []


def _claim(path: Path) -> Path | None:
    """Rename the journal to a claim of this process (None: another process has it)."""
    claimed = path.with_name(f"{path.stem}.claimed-{os.getpid()}")
    try:
        os.rename(path, claimed)
    except FileNotFoundError:
        return None
    return claimed


def _stale_claims(root: Path) -> list[Path]:
    """Claims whose process is gone and that are old enough: a replayer died half-way."""
    d = journal_dir(root)
    out = []
    for p in d.glob("*.claimed-*") if d.is_dir() else []:
        try:
            pid = int(p.name.rsplit("-", 1)[1])
            os.kill(pid, 0)
            continue  # alive: still working on it
        except (ValueError, ProcessLookupError):
            pass
        except PermissionError:
            continue
        try:
            if time.time() - p.stat().st_mtime >= STALE_CLAIM_S:
                out.append(p)
        except FileNotFoundError:
            pass
    return out


def settle(lake: Lake) -> int:
    """Publish every journal under the lake (idempotently); returns the calls rows published. A lake this
    process cannot write (read-only readers) is left as it is."""
    root = lake.root
    if not journal_dir(root).is_dir():
        return 0
    rows = 0
    for p in [*pending(root), *_stale_claims(root)]:
        claimed = p if ".claimed-" in p.name else _claim(p)
        if claimed is None:
            continue
        try:
            rows += _publish(lake, claimed)
        except (ValueError, KeyError, zipfile.BadZipFile, EOFError) as exc:  # not ours to read: kept aside
            log.error("everypath telemetry: journal %s cannot be published (%s); moved to %s.bad", p, exc, p.name)
            os.replace(claimed, journal_dir(root) / f"{p.name.split('.', 1)[0]}.bad")
            continue
        claimed.unlink(missing_ok=True)
    return rows


def _publish(lake: Lake, path: Path) -> int:
    import pyarrow as pa

    from everypath.telemetry import aggregates, records

    device, calls, aggs = read(path)
    stem = path.name.split(".", 1)[0]
    batch_id = "j" + stem.replace("-", "_")
    day = dt.datetime.fromtimestamp(int(stem.split("-", 1)[0]), dt.timezone.utc).date()  # when it was written
    if aggs and not lake.has_batch(batch_id + "a"):  # the mark outlives compaction; the exclusive name covers a
        table = pa.Table.from_batches([aggregates.to_batch(a, s, device) for a, s in aggs])  # death before it
        lake._mark_batch(batch_id + "a", aggregates.publish(lake, table, date=day, name=batch_id))
    if not calls:
        return 0
    table = pa.Table.from_batches([records.to_batch(r, s, device) for r, s in calls])
    lake.publish(table, name=batch_id, date=day)
    return table.num_rows

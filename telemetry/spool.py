"""Spool files: how a standalone (no Python) runtime records calls, for `everypath telemetry ingest`.

Format (little-endian; docs/telemetry.md, written by variants/include/everypath/telemetry_spool.hpp):
  header   8s magic b"EPSPOOL1", u16 version (2; 1 still read), u16 record size (80; v1: 72), u32 0
  sites    u32 n, then n bytes of UTF-8 JSON: {"runtime": str, "sites": [CallSite dicts],
           optional "table_version": str, optional "device": {DEVICE_FIELDS values}}
  v2       chunks until the end: u32 tag, u32 payload bytes, payload; "RECS": RECORD structs,
           "AGGS": one drain interval's exact aggregates (AGG_HEADER, AGG_ROW x rows, then the
           histograms: int64 counts, int32 bins); unknown tags are skipped (a later writer's)
  v1       RECORD_V1 structs (no `inclusion`) until the end, no aggregates
A crash mid-write leaves one torn piece at the end: the whole records of a torn RECS chunk (or of
a v1 body) are kept, a torn AGGS chunk is dropped (that interval's counts are what a crash loses).
"""
from __future__ import annotations

import hashlib
import json
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from everypath.telemetry.aggregates import AggregateRows
from everypath.telemetry.lake import Lake
from everypath.telemetry.records import MAX_DIMS, CallSite, RawCalls

MAGIC = b"EPSPOOL1"
VERSION = 2
HEADER = struct.Struct("<8sHHI")
CHUNK_LEN = struct.Struct("<I")
CHUNK = struct.Struct("<4sI")  # tag, payload bytes
RECORDS_TAG, AGGREGATES_TAG = b"RECS", b"AGGS"
_FIELDS = [
    ("ts_ns", "<i8"), ("latency_ns", "<i8"), ("site", "<i4"), ("variant", "<i2"), ("ndim", "i1"),
    ("explore", "u1"), ("shape", "<i8", (MAX_DIMS,)), ("n_elements", "<i8"), ("threads", "<i2"),
    ("reserved", "<i2"), ("propensity", "<f4"),
]
# the C++ structs field by field (static_asserts there keep both in step): the shim's ring record
# less its timing and thinning fields, times in UNIX-epoch ns; v2 adds the inclusion probability
RECORD_V1 = np.dtype(_FIELDS)
RECORD = np.dtype([*_FIELDS, ("inclusion", "<f4"), ("reserved2", "<u4")])
AGG_HEADER = np.dtype([("start_ns", "<i8"), ("end_ns", "<i8"), ("rows", "<u4"), ("bins", "<u4"), ("overflow", "<u8")])
AGG_ROW = np.dtype([("site", "<i4"), ("variant", "<i2"), ("size_bucket", "u1"), ("reserved", "u1"),
                    ("nbins", "<u4"), ("reserved2", "<u4"), ("count", "<i8"), ("timed", "<i8"), ("sum_ns", "<i8"),
                    ("min_ns", "<i8"), ("max_ns", "<i8")])
RECORD_SIZES = {1: RECORD_V1.itemsize, 2: RECORD.itemsize}
assert (RECORD_V1.itemsize, RECORD.itemsize, AGG_HEADER.itemsize, AGG_ROW.itemsize) == (72, 80, 32, 56)


class SpoolError(ValueError):
    """Not a spool file this version can read."""


@dataclass(frozen=True)
class Spool:
    """A spool file's contents: its raw records, the exact aggregates of each drain interval (none
    in version 1), the site table, runtime and device block."""

    raw: RawCalls
    aggregates: list[AggregateRows]
    sites: list[CallSite]
    runtime: str
    device: dict[str, object] | None
    version: int


def _site(d: dict[str, object]) -> CallSite:
    return CallSite(function=str(d["function"]), op=str(d["op"]), call_site=str(d["call_site"]),
                    dtype=str(d["dtype"]), variants=tuple(str(v) for v in d["variants"]),  # type: ignore[union-attr]
                    bundle_id=d.get("bundle_id"), bundle_version=d.get("bundle_version"))  # type: ignore[arg-type]


def _aggregates(payload: bytes, table_version: str | None) -> AggregateRows | None:
    """One AGGS chunk, or None when it is torn or inconsistent."""
    if len(payload) < AGG_HEADER.itemsize:
        return None
    h = np.frombuffer(payload, AGG_HEADER, 1)[0]
    rows, bins = int(h["rows"]), int(h["bins"])
    if len(payload) != AGG_HEADER.itemsize + rows * AGG_ROW.itemsize + bins * 12:
        return None
    r = np.frombuffer(payload, AGG_ROW, rows, AGG_HEADER.itemsize)
    at = AGG_HEADER.itemsize + rows * AGG_ROW.itemsize
    counts = np.frombuffer(payload, "<i8", bins, at)
    bin_ids = np.frombuffer(payload, "<i4", bins, at + 8 * bins)
    offsets = np.concatenate([[0], np.cumsum(r["nbins"], dtype=np.int64)])
    if offsets[-1] != bins:
        return None
    return AggregateRows(int(h["start_ns"]), int(h["end_ns"]), r["site"].astype(np.int32),
                         r["variant"].astype(np.int16), r["size_bucket"].astype(np.uint8), r["count"].astype(np.int64),
                         r["timed"].astype(np.int64), r["sum_ns"].astype(np.int64), r["min_ns"].astype(np.int64),
                         r["max_ns"].astype(np.int64), offsets, bin_ids.astype(np.int32), counts.astype(np.int64),
                         table_version)


def _body_v2(data: bytes, pos: int) -> tuple[list[np.ndarray], list[bytes]]:
    """(record arrays, AGGS payloads) of a version-2 body from pos to the end."""
    recs, aggs = [], []
    while pos + CHUNK.size <= len(data):
        tag, n = CHUNK.unpack_from(data, pos)
        pos += CHUNK.size
        payload = data[pos:pos + n]
        pos += n
        if tag == RECORDS_TAG:  # a torn one keeps its whole records
            recs.append(np.frombuffer(payload, RECORD, len(payload) // RECORD.itemsize))
        elif tag == AGGREGATES_TAG and len(payload) == n:
            aggs.append(payload)
    return recs, aggs


def read(path: Path | str) -> Spool:
    """A spool file of version 1 or 2."""
    data = Path(path).read_bytes()
    if len(data) < HEADER.size or data[:8] != MAGIC:
        raise SpoolError(f"{path}: not an everypath spool file (bad magic)")
    _, version, rec_size, _ = HEADER.unpack_from(data)
    if RECORD_SIZES.get(version) != rec_size:
        raise SpoolError(f"{path}: spool version {version} with {rec_size}-byte records; this reader knows "
                         + ", ".join(f"version {v} with {s}-byte records" for v, s in RECORD_SIZES.items()))
    pos = HEADER.size
    if len(data) < pos + CHUNK_LEN.size:
        raise SpoolError(f"{path}: truncated before the site table")
    (n,) = CHUNK_LEN.unpack_from(data, pos)
    pos += CHUNK_LEN.size
    if len(data) < pos + n:
        raise SpoolError(f"{path}: truncated site table ({len(data) - pos} of {n} bytes)")
    try:
        meta = json.loads(data[pos:pos + n].decode())
        sites = [_site(s) for s in meta["sites"]]
        runtime = str(meta["runtime"])
    except (ValueError, KeyError, TypeError) as e:
        raise SpoolError(f"{path}: malformed site table: {e}") from None
    pos += n
    table_version = meta.get("table_version")
    if version == 1:  # records to the end; a torn last one is dropped here
        recs, payloads = [np.frombuffer(data, RECORD_V1, (len(data) - pos) // RECORD_V1.itemsize, pos)], []
    else:
        recs, payloads = _body_v2(data, pos)
    rec = np.concatenate(recs) if recs else np.zeros(0, RECORD)
    count = len(rec)
    raw = RawCalls(
        ts_ns=rec["ts_ns"].astype(np.int64), latency_ns=rec["latency_ns"].astype(np.int64),
        site=rec["site"].astype(np.int32), variant=rec["variant"].astype(np.int16),
        ndim=rec["ndim"].astype(np.int8), shape=rec["shape"].astype(np.int64).reshape(count, MAX_DIMS),
        n_elements=rec["n_elements"].astype(np.int64), threads=rec["threads"].astype(np.int16),
        explore=rec["explore"] != 0, propensity=rec["propensity"].astype(np.float32),
        table_version=table_version,
        inclusion=rec["inclusion"].astype(np.float32) if version >= 2 else None,
    )
    aggs = [a for a in (_aggregates(p, table_version) for p in payloads) if a is not None]
    device = meta.get("device")
    return Spool(raw, aggs, sites, runtime, device if isinstance(device, dict) else None, version)


def read_spool_full(path: Path | str) -> tuple[RawCalls, list[CallSite], str, dict[str, object] | None]:
    """(records, sites, runtime, device block or None) of a spool file."""
    s = read(path)
    return s.raw, s.sites, s.runtime, s.device


def read_spool(path: Path | str) -> tuple[RawCalls, list[CallSite], str]:
    s = read(path)
    return s.raw, s.sites, s.runtime


def write_spool(path: Path | str, raw: RawCalls, sites: list[CallSite], runtime: str,
                aggregates: list[AggregateRows] | None = None, version: int = VERSION) -> None:
    """The Python writer (tests and tools; version 1 for files as older runtimes wrote them); the
    runtime uses the C++ one."""
    meta = {"runtime": runtime, "sites": [{"function": s.function, "op": s.op, "call_site": s.call_site,
                                           "dtype": s.dtype, "variants": list(s.variants),
                                           "bundle_id": s.bundle_id, "bundle_version": s.bundle_version}
                                          for s in sites]}
    if isinstance(raw.table_version, str):  # one table for the whole spool (per-row versions are not kept)
        meta["table_version"] = raw.table_version
    blob = json.dumps(meta).encode()
    rec = np.zeros(len(raw), dtype=RECORD if version >= 2 else RECORD_V1)
    for name in ("ts_ns", "latency_ns", "n_elements", "site", "variant", "ndim", "threads", "propensity"):
        rec[name] = getattr(raw, name)
    rec["shape"] = raw.shape
    rec["explore"] = raw.explore
    with open(path, "wb") as f:
        f.write(HEADER.pack(MAGIC, version, rec.itemsize, 0) + CHUNK_LEN.pack(len(blob)) + blob)
        if version == 1:
            if aggregates:
                raise ValueError("spool version 1 has no aggregates")
            f.write(rec.tobytes())
            return
        rec["inclusion"] = 1.0 if raw.inclusion is None else raw.inclusion
        f.write(CHUNK.pack(RECORDS_TAG, rec.nbytes) + rec.tobytes())
        for a in aggregates or []:
            f.write(_aggs_chunk(a))


def _aggs_chunk(a: AggregateRows) -> bytes:
    h = np.zeros(1, AGG_HEADER)
    h["start_ns"], h["end_ns"], h["rows"], h["bins"] = a.start_ns, a.end_ns, len(a), len(a.hist_bin)
    r = np.zeros(len(a), AGG_ROW)
    for name in ("site", "variant", "size_bucket", "count", "timed", "sum_ns", "min_ns", "max_ns"):
        r[name] = getattr(a, name)
    r["nbins"] = np.diff(a.hist_offsets)
    payload = (h.tobytes() + r.tobytes() + np.asarray(a.hist_count, "<i8").tobytes()
               + np.asarray(a.hist_bin, "<i4").tobytes())
    return CHUNK.pack(AGGREGATES_TAG, len(payload)) + payload


def batch_id(path: Path | str) -> str:
    """The spool's content hash as a batch id: ingesting the same content twice stores it once."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return "spool-" + h.hexdigest()[:48]


def ingest(path: Path | str, lake: Lake) -> tuple[int, bool]:
    """Publish a spool's raw rows and aggregates into the lake and rename it to *.ingested; (rows,
    stored). Both are stored under the spool's batch id (aggregates: a marker that outlives
    compaction), so ingesting the same content again, or again after a crash part-way, stores each once."""
    import os

    import pyarrow as pa

    from everypath.telemetry import aggregates as agg
    from everypath.telemetry.aggregates_ingest import publish_named
    from everypath.telemetry.device import device_fields
    from everypath.telemetry.records import to_batch

    path = Path(path)
    spool = read(path)
    device = spool.device
    if device is None:
        device = device_fields(runtime=spool.runtime, lake_root=lake.root)
    else:
        from everypath.telemetry.device import device_class, salt

        if not device.get("device_id") and device.get("machine_key"):
            # a standalone executable sends a hash of its machine id, never the id: salted with this
            # lake's salt as device_fields salts the id, so lakes never share device ids
            device = {**device, "device_id": hashlib.sha256(salt(lake.root) + str(device["machine_key"]).encode())
                      .hexdigest()}
        if not device.get("device_id"):
            raise SpoolError(f"{path}: the spool's device block has neither device_id nor machine_key")
        device = {**device, "runtime": device.get("runtime") or spool.runtime}
        device.setdefault("device_class", device_class(device))
    name = batch_id(path)
    stored = False
    if spool.aggregates:  # (either order is safe: raw rows of a device with aggregates never count)
        table = pa.Table.from_batches([agg.to_batch(a, spool.sites, device) for a in spool.aggregates])
        stored = publish_named(lake, table, name)
    result = lake.publish_named(to_batch(spool.raw, spool.sites, device), name=name)
    os.replace(path, path.with_name(path.name + ".ingested"))
    return len(spool.raw), result.stored or stored

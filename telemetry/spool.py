"""Spool files: how a standalone (no Python) runtime records calls, for `everypath telemetry ingest`.

Format (little-endian; docs/telemetry.md, written by variants/include/everypath/telemetry_spool.hpp):
  header   8s magic b"EPSPOOL1", u16 version (1), u16 record size (72), u32 reserved (0)
  sites    u32 n, then n bytes of UTF-8 JSON: {"runtime": str, "sites": [CallSite dicts],
           optional "table_version": str, optional "device": {DEVICE_FIELDS values}}
  records  fixed-size RECORD structs appended until the end; a torn last record (the
           writer crashed mid-write) is ignored
"""
from __future__ import annotations

import hashlib
import json
import struct
from pathlib import Path

import numpy as np

from everypath.telemetry.lake import Lake
from everypath.telemetry.records import MAX_DIMS, CallSite, RawCalls

MAGIC = b"EPSPOOL1"
VERSION = 1
HEADER = struct.Struct("<8sHHI")
CHUNK_LEN = struct.Struct("<I")
# the C++ struct ep::tele::Record, field by field (static_asserts there keep both in step)
# (the shim's ring record, ep::tele::Record, less its timing and thinning fields; times in UNIX-epoch ns)
RECORD = np.dtype([
    ("ts_ns", "<i8"), ("latency_ns", "<i8"), ("site", "<i4"), ("variant", "<i2"), ("ndim", "i1"),
    ("explore", "u1"), ("shape", "<i8", (MAX_DIMS,)), ("n_elements", "<i8"), ("threads", "<i2"),
    ("reserved", "<i2"), ("propensity", "<f4"),
])
assert RECORD.itemsize == 72


class SpoolError(ValueError):
    """Not a spool file this version can read."""


def _site(d: dict[str, object]) -> CallSite:
    return CallSite(function=str(d["function"]), op=str(d["op"]), call_site=str(d["call_site"]),
                    dtype=str(d["dtype"]), variants=tuple(str(v) for v in d["variants"]),  # type: ignore[union-attr]
                    bundle_id=d.get("bundle_id"), bundle_version=d.get("bundle_version"))  # type: ignore[arg-type]


def read_spool_full(path: Path | str) -> tuple[RawCalls, list[CallSite], str, dict[str, object] | None]:
    """(records, sites, runtime, device block or None) of a spool file."""
    data = Path(path).read_bytes()
    if len(data) < HEADER.size or data[:8] != MAGIC:
        raise SpoolError(f"{path}: not an everypath spool file (bad magic)")
    _, version, rec_size, _ = HEADER.unpack_from(data)
    if version != VERSION or rec_size != RECORD.itemsize:
        raise SpoolError(f"{path}: spool version {version} with {rec_size}-byte records; this reader knows "
                         f"version {VERSION} with {RECORD.itemsize}-byte records")
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
    count = (len(data) - pos) // RECORD.itemsize  # a torn last record is dropped here
    rec = np.frombuffer(data, dtype=RECORD, count=count, offset=pos)
    raw = RawCalls(
        ts_ns=rec["ts_ns"].astype(np.int64), latency_ns=rec["latency_ns"].astype(np.int64),
        site=rec["site"].astype(np.int32), variant=rec["variant"].astype(np.int16),
        ndim=rec["ndim"].astype(np.int8), shape=rec["shape"].astype(np.int64).reshape(count, MAX_DIMS),
        n_elements=rec["n_elements"].astype(np.int64), threads=rec["threads"].astype(np.int16),
        explore=rec["explore"] != 0, propensity=rec["propensity"].astype(np.float32),
        table_version=meta.get("table_version"),
    )
    device = meta.get("device")
    return raw, sites, runtime, device if isinstance(device, dict) else None


def read_spool(path: Path | str) -> tuple[RawCalls, list[CallSite], str]:
    raw, sites, runtime, _ = read_spool_full(path)
    return raw, sites, runtime


def write_spool(path: Path | str, raw: RawCalls, sites: list[CallSite], runtime: str) -> None:
    """The Python writer (tests and tools); the runtime uses the C++ one."""
    meta = {"runtime": runtime, "sites": [{"function": s.function, "op": s.op, "call_site": s.call_site,
                                           "dtype": s.dtype, "variants": list(s.variants),
                                           "bundle_id": s.bundle_id, "bundle_version": s.bundle_version}
                                          for s in sites]}
    if isinstance(raw.table_version, str):  # one table for the whole spool (per-row versions are not kept)
        meta["table_version"] = raw.table_version
    blob = json.dumps(meta).encode()
    rec = np.zeros(len(raw), dtype=RECORD)
    for name in ("ts_ns", "latency_ns", "n_elements", "site", "variant", "ndim", "threads", "propensity"):
        rec[name] = getattr(raw, name)
    rec["shape"] = raw.shape
    rec["explore"] = raw.explore
    with open(path, "wb") as f:
        f.write(HEADER.pack(MAGIC, VERSION, RECORD.itemsize, 0) + CHUNK_LEN.pack(len(blob)) + blob)
        f.write(rec.tobytes())


def batch_id(path: Path | str) -> str:
    """The spool's content hash as a batch id: ingesting the same content twice stores it once."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return "spool-" + h.hexdigest()[:48]


def ingest(path: Path | str, lake: Lake) -> tuple[int, bool]:
    """Publish a spool into the lake and rename it to *.ingested; (rows, stored)."""
    import os

    from everypath.telemetry.device import device_fields
    from everypath.telemetry.records import to_batch

    path = Path(path)
    raw, sites, runtime, device = read_spool_full(path)
    if device is None:
        device = device_fields(runtime=runtime, lake_root=lake.root)
    else:
        from everypath.telemetry.device import device_class, salt

        if not device.get("device_id") and device.get("machine_key"):
            # a standalone executable sends a hash of its machine id, never the id: salted with this
            # lake's salt as device_fields salts the id, so lakes never share device ids
            device = {**device, "device_id": hashlib.sha256(salt(lake.root) + str(device["machine_key"]).encode())
                      .hexdigest()}
        if not device.get("device_id"):
            raise SpoolError(f"{path}: the spool's device block has neither device_id nor machine_key")
        device = {**device, "runtime": device.get("runtime") or runtime}
        device.setdefault("device_class", device_class(device))
    result = lake.publish_named(to_batch(raw, sites, device), name=batch_id(path))
    os.replace(path, path.with_name(path.name + ".ingested"))
    return len(raw), result.stored

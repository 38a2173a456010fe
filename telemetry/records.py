"""What the runtime shim hands to Python: raw call records in columns, plus the static
description of each call site, and their conversion into Arrow rows of the calls schema.

The C++ side (variants/include/everypath/telemetry.hpp, drained through the runtime module)
fills RawCalls; everything after that (device fields, strings, partitioning) happens here,
off the hot path.

Only to_batch needs pyarrow, and it imports it: draining and buffering records is NumPy alone,
so a process that never publishes never loads pyarrow (issue 13). to_batch builds every column
from buffers, never through pa.array or pa.scalar: those import pandas (~0.4 s) on first use,
and a first publish at exit may not import it (its import registers a threading exit hook,
refused once the interpreter shuts down). The few compute kernels it needs go through
arrow_kernel, which skips pyarrow.compute's Python wrappers (~70 ms to import).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pyarrow as pa

    from everypath.telemetry.aggregates import AggregateRows

MAX_DIMS = 4  # shapes of higher rank keep their first MAX_DIMS - 1 dims and the product of the rest


@dataclass(frozen=True)
class CallSite:
    """One operator call site of one compiled function (static, registered when its module loads)."""

    function: str  # module-qualified Python name
    op: str  # operator key
    call_site: str  # file.py:LINE
    dtype: str  # result dtype name
    variants: tuple[str, ...]  # the variants compiled at this site, in dispatch order
    bundle_id: str | None = None
    bundle_version: str | None = None


@dataclass(frozen=True)
class RawCalls:
    """Columns of drained records (equal lengths). `site` indexes the process's site table,
    `variant` that site's `variants`; `shape` is (n, MAX_DIMS) with `ndim` valid entries."""

    ts_ns: np.ndarray  # int64, UNIX epoch ns (UTC) when the call started
    latency_ns: np.ndarray  # int64
    site: np.ndarray  # int32
    variant: np.ndarray  # int16
    ndim: np.ndarray  # int8
    shape: np.ndarray  # int64 (n, MAX_DIMS)
    n_elements: np.ndarray  # int64
    threads: np.ndarray  # int16
    explore: np.ndarray  # bool
    propensity: np.ndarray  # float32
    # selection table that chose each call: one version for all rows, or per row (object array,
    # None where the built-in thresholds chose)
    table_version: str | None | np.ndarray = None
    inclusion: np.ndarray | None = None  # float32, probability each row was recorded (None: unknown, 1)
    aggregates: AggregateRows | None = None  # the exact aggregates drained with these rows
    third_dim: np.ndarray | None = None  # int64, the schema's third_dim (0: not recorded, null; None: none recorded)

    def __len__(self) -> int:
        return int(self.ts_ns.shape[0])


def site_columns(site: np.ndarray, variant: np.ndarray, sites: Sequence[CallSite], what: str
                 ) -> tuple[Callable[[str], pa.Array], pa.Array]:
    """For rows naming (call site, variant index): a function giving a per-site string column by
    CallSite attribute, and the variant name column, both through one take (no per-row Python).
    Rows naming a site or variant that is not registered raise ValueError (`what` names the rows)."""
    import pyarrow as pa

    n = len(site)
    site_ix = site.astype(np.int64)
    if n and (site_ix.min() < 0 or site_ix.max() >= len(sites)):
        raise ValueError(f"{what} refers to call site {int(site_ix.max())}, but only {len(sites)} are registered")
    site_col = _numbers(site_ix, np.int32, pa.int32())

    def per_site(attr: str) -> pa.Array:
        return arrow_kernel("take", _strings([getattr(s, attr) for s in sites]), site_col)

    # variant names through one dictionary of every (site, variant) pair
    starts = np.zeros(len(sites) + 1, dtype=np.int64)
    np.cumsum([len(s.variants) for s in sites], out=starts[1:])
    var = variant.astype(np.int64)
    if n and (var.min() < 0 or (var >= np.diff(starts)[site_ix]).any()):
        bad = int(np.flatnonzero((var < 0) | (var >= np.diff(starts)[site_ix]))[0])
        raise ValueError(f"{what} {bad} names variant {int(var[bad])} of call site {int(site_ix[bad])}, "
                         f"which has {len(sites[site_ix[bad]].variants)}")
    names = _strings([v for s in sites for v in s.variants])
    return per_site, arrow_kernel("take", names, _numbers(starts[:-1][site_ix] + var, np.int32, pa.int32()))


def to_batch(raw: RawCalls, sites: list[CallSite], device: dict[str, object]) -> pa.RecordBatch:
    """Arrow rows of the calls schema for raw records; device holds the DEVICE_FIELDS values."""
    import pyarrow as pa

    from everypath.telemetry.schema import CALLS_SCHEMA

    n = len(raw)
    per_site, variant_col = site_columns(raw.site, raw.variant, sites, "record")
    dims = np.minimum(raw.ndim.astype(np.int64), MAX_DIMS)
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(dims, out=offsets[1:])
    mask = np.arange(MAX_DIMS)[None, :] < dims[:, None]
    shape = pa.ListArray.from_arrays(_numbers(offsets, np.int32, pa.int32()),
                                     _numbers(raw.shape.reshape(n, MAX_DIMS)[mask], np.int64, pa.int64()))
    tv = raw.table_version
    cols: dict[str, pa.Array] = {
        # straight from the buffer: casting int64 to a tz-aware timestamp costs ~0.2 s per million rows
        "ts": _numbers(raw.ts_ns, np.int64, pa.timestamp("ns", tz="UTC")),
        "function": per_site("function"), "bundle_id": per_site("bundle_id"),
        "bundle_version": per_site("bundle_version"), "op": per_site("op"), "call_site": per_site("call_site"),
        "variant": variant_col, "dtype": per_site("dtype"), "shape": shape,
        "n_elements": _numbers(raw.n_elements, np.int64, pa.int64()),
        "latency_ns": _numbers(raw.latency_ns, np.int64, pa.int64()),
        "threads": _numbers(raw.threads, np.int16, pa.int16()), "explore": _bools(raw.explore),
        "propensity": _numbers(raw.propensity, np.float32, pa.float32()),
        "table_version": _per_row(tv) if isinstance(tv, np.ndarray) else _repeat(tv, pa.string(), n),
        "inclusion": (pa.nulls(n, pa.float32()) if raw.inclusion is None
                      else _numbers(raw.inclusion, np.float32, pa.float32())),
        "third_dim": pa.nulls(n, pa.int64()) if raw.third_dim is None else _positive(raw.third_dim),
    }
    for f in CALLS_SCHEMA:
        if f.name not in cols:  # the same value on every row: one value repeated without Python lists
            cols[f.name] = _repeat(device.get(f.name), f.type, n)
    return pa.RecordBatch.from_arrays([cols[f.name] for f in CALLS_SCHEMA], schema=CALLS_SCHEMA)


# ---- Arrow arrays from buffers (no pa.array / pa.scalar: see the module's doc) ------------------------
def arrow_kernel(name: str, *args: Any) -> Any:
    """An Arrow compute function called by name, without importing pyarrow.compute where the
    kernels' own module has it (pyarrow.compute builds a wrapper for each of ~300 functions)."""
    try:
        from pyarrow._compute import call_function
    except ImportError:  # a pyarrow that moved it: the public module has it too
        from pyarrow.compute import call_function
    return call_function(name, list(args))


def _numbers(values: Any, dtype: Any, type_: pa.DataType) -> pa.Array:
    import pyarrow as pa

    a = np.ascontiguousarray(values, dtype=dtype)
    return pa.Array.from_buffers(type_, len(a), [None, pa.py_buffer(a)])


def _bitmap(flags: np.ndarray) -> pa.Buffer:
    import pyarrow as pa

    return pa.py_buffer(np.packbits(np.asarray(flags, dtype=bool), bitorder="little"))


def _positive(values: np.ndarray) -> pa.Array:
    """int64 values, null where not positive (0: not recorded)."""
    import pyarrow as pa

    a = np.ascontiguousarray(values, dtype=np.int64)
    valid = a > 0
    return pa.Array.from_buffers(pa.int64(), len(a), [_bitmap(valid), pa.py_buffer(a)],
                                 null_count=len(a) - int(valid.sum()))


def _bools(values: Any) -> pa.Array:
    import pyarrow as pa

    return pa.Array.from_buffers(pa.bool_(), len(values), [None, _bitmap(values)])


def _strings(values: Sequence[str | None]) -> pa.Array:
    import pyarrow as pa

    data = [b"" if v is None else v.encode() for v in values]
    offsets = np.zeros(len(data) + 1, dtype=np.int32)
    np.cumsum([len(b) for b in data], out=offsets[1:])
    valid = np.array([v is not None for v in values], dtype=bool)
    nulls = len(values) - int(valid.sum())
    return pa.Array.from_buffers(pa.string(), len(data), [_bitmap(valid) if nulls else None, pa.py_buffer(offsets),
                                                          pa.py_buffer(b"".join(data))], null_count=nulls)


def _per_row(values: np.ndarray) -> pa.Array:
    """Strings (or None) per row, few distinct ones: through a dictionary of the distinct values."""
    import pyarrow as pa

    distinct = list(dict.fromkeys(values.tolist()))
    if len(distinct) <= 16:  # one vectorised comparison per distinct value
        codes = np.zeros(len(values), np.int32)
        for i, v in enumerate(distinct[1:], 1):
            codes[np.equal(values, v)] = i
    else:
        index = {v: i for i, v in enumerate(distinct)}
        codes = np.fromiter((index[v] for v in values), np.int32, len(values))
    return arrow_kernel("take", _strings(distinct), _numbers(codes, np.int32, pa.int32()))


_INTS = {"int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64}


def _repeat(value: object, type_: pa.DataType, n: int) -> pa.Array:
    """`value` on each of n rows (strings through a one-entry dictionary: no per-row Python)."""
    import pyarrow as pa

    if value is None:
        return pa.nulls(n, type_)
    if pa.types.is_string(type_):
        b = str(value).encode()
        if n * len(b) < 2**31:  # int32 offsets
            return pa.Array.from_buffers(type_, n, [None, pa.py_buffer(np.arange(n + 1, dtype=np.int32) * len(b)),
                                                    pa.py_buffer(b * n)])
        return arrow_kernel("take", _strings([str(value)]), _numbers(np.zeros(n, np.int32), np.int32, pa.int32()))
    if str(type_) in _INTS:
        return _numbers(np.full(n, value), _INTS[str(type_)], type_)
    raise TypeError(f"telemetry.records: no repeated column of type {type_} (value {value!r})")

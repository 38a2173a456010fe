"""The telemetry record schema (versioned): one row per recorded operator call.

This module is the single definition of the columns; docs/telemetry.md describes each one
for people, the lake writes exactly this schema, the collector checks uploads against it,
and DuckDB's `calls` view exposes these columns. A change that is not purely additive
bumps SCHEMA_VERSION (the lake keeps the version in every file's metadata); so does a new nullable
column, since a reader checks files of its own version strictly and reads newer ones by name.
"""
from __future__ import annotations

import pyarrow as pa

SCHEMA_VERSION = 2  # 2: third_dim (files of version 1 read with it null)

# device class features (the same for every row a process writes): what the selector learns from
DEVICE_FIELDS: tuple[pa.Field, ...] = (
    pa.field("device_id", pa.string(), nullable=False),     # salted sha256 of the machine id, never a raw serial
    pa.field("device_class", pa.string(), nullable=False),  # short stable hash of the class features below
    pa.field("arch", pa.string()),            # x86_64, aarch64, wasm32
    pa.field("os", pa.string()),              # linux, darwin, windows, wasi
    pa.field("cpu_model", pa.string()),
    pa.field("isa_level", pa.string()),       # x86-64-v1..v4, armv8.x, simd128
    pa.field("isa_flags", pa.string()),       # space-separated: "avx2 avx512f fma" (one value per process)
    pa.field("cores", pa.int16()),
    pa.field("l1d_kib", pa.int32()),
    pa.field("l2_kib", pa.int32()),
    pa.field("l3_kib", pa.int32()),
    pa.field("gpu", pa.string()),             # null when none
    pa.field("runtime", pa.string(), nullable=False),  # cpython-extension | native-executable | wasm | emulated
)

# per call
CALL_FIELDS: tuple[pa.Field, ...] = (
    pa.field("ts", pa.timestamp("ns", tz="UTC"), nullable=False),  # when the call started
    pa.field("function", pa.string(), nullable=False),    # module-qualified Python function, e.g. pkg.mod.kernel
    pa.field("bundle_id", pa.string()),                   # content hash of the build (null: not from a bundle)
    pa.field("bundle_version", pa.string()),              # bundle/compiler version string
    pa.field("op", pa.string(), nullable=False),          # operator key, e.g. numpy.matmul, cv2.GaussianBlur
    pa.field("call_site", pa.string(), nullable=False),   # file.py:LINE of the call in the Python source
    pa.field("variant", pa.string(), nullable=False),     # implementation path that ran: loops, simd, blas, ...
    pa.field("dtype", pa.string(), nullable=False),       # result dtype (NumPy name)
    pa.field("shape", pa.list_(pa.int64()), nullable=False),  # shape of the largest operand
    pa.field("n_elements", pa.int64(), nullable=False),
    pa.field("latency_ns", pa.int64(), nullable=False),
    pa.field("threads", pa.int16(), nullable=False),      # threads the variant could use
    pa.field("explore", pa.bool_(), nullable=False),      # chosen by exploration, not by the table
    pa.field("propensity", pa.float32(), nullable=False),  # probability with which this variant was chosen
    pa.field("table_version", pa.string()),               # selection table that chose (null: built-in defaults)
    # probability this call was recorded (timing share x sample rate x ring thinning; null: 1, older files):
    # 1 / inclusion is the number of calls the row stands for
    pa.field("inclusion", pa.float32()),
    # a size the work depends on that `shape` does not show: for a matrix product, the one of m, k, n
    # missing from the largest operand's shape (FLOPs = 2 * n_elements * third_dim); null elsewhere,
    # where the runtime did not record it, and in files of version 1
    pa.field("third_dim", pa.int64()),
)

CALLS_SCHEMA = pa.schema([*CALL_FIELDS, *DEVICE_FIELDS],
                         metadata={b"everypath.schema": b"calls", b"everypath.schema_version": str(SCHEMA_VERSION).encode()})

# Exact aggregates (telemetry/aggregates.py): one row per drain interval of one process and (call
# site, variant, size bucket), counting every call, sampled or not. Own version: AGGREGATES_VERSION.
AGGREGATES_VERSION = 1
AGGREGATE_FIELDS: tuple[pa.Field, ...] = (
    pa.field("ts", pa.timestamp("ns", tz="UTC"), nullable=False),     # end of the interval (the drain)
    pa.field("start", pa.timestamp("ns", tz="UTC"), nullable=False),  # its start (the previous drain)
    pa.field("function", pa.string(), nullable=False),
    pa.field("bundle_id", pa.string()),
    pa.field("bundle_version", pa.string()),
    pa.field("op", pa.string(), nullable=False),
    pa.field("call_site", pa.string(), nullable=False),
    pa.field("variant", pa.string(), nullable=False),
    pa.field("dtype", pa.string(), nullable=False),
    pa.field("size_bucket", pa.int16(), nullable=False),  # b: n_elements in [2^(b-1), 2^b); 0: n_elements == 0
    pa.field("count", pa.int64(), nullable=False),        # calls (every one, exactly)
    pa.field("timed", pa.int64(), nullable=False),        # calls timed (== count: sum and histogram exact)
    pa.field("sum_ns", pa.int64(), nullable=False),       # total latency (estimated from the timed calls)
    pa.field("min_ns", pa.int64(), nullable=False),       # of the timed calls
    pa.field("max_ns", pa.int64(), nullable=False),
    pa.field("hist_bin", pa.list_(pa.int32()), nullable=False),    # log-linear latency bins (aggregates.py)
    pa.field("hist_count", pa.list_(pa.int64()), nullable=False),  # calls per bin (estimated likewise)
)
AGGREGATES_SCHEMA = pa.schema([*AGGREGATE_FIELDS, *DEVICE_FIELDS],
                              metadata={b"everypath.schema": b"aggregates",
                                        b"everypath.schema_version": str(AGGREGATES_VERSION).encode()})

# `everypath autotune` run summaries (lake/autotune/<run_id>.parquet): one row per function, call
# site, variant and grid size with the median of its recorded calls, or why the variant failed
AUTOTUNE_SCHEMA = pa.schema([
    ("run_id", pa.string()), ("ts", pa.timestamp("ns", tz="UTC")), ("device_id", pa.string()),
    ("device_class", pa.string()), ("function", pa.string()), ("op", pa.string()), ("call_site", pa.string()),
    ("variant", pa.string()), ("size", pa.int64()), ("n_elements", pa.int64()), ("dtype", pa.string()),
    ("repeats", pa.int32()), ("median_ns", pa.float64()), ("status", pa.string()),  # ok | failed | input-error
    ("error", pa.string()),
], metadata={b"everypath.schema": b"autotune", b"everypath.schema_version": str(SCHEMA_VERSION).encode()})

# hive partition columns of the lake (directory names, not stored in the files)
PARTITION_KEYS = ("date", "device_class")


def check_schema(schema: pa.Schema) -> list[str]:
    """What is wrong with a batch's schema for the calls table (empty: fine). Extra columns
    are refused (a typo must not become a silent new column); missing nullable ones are allowed."""
    problems = []
    want = {f.name: f for f in CALLS_SCHEMA}
    for f in schema:
        if f.name not in want:
            problems.append(f"unknown column {f.name!r}")
        elif not f.type.equals(want[f.name].type):
            problems.append(f"column {f.name!r} has type {f.type}, expected {want[f.name].type}")
    for name, f in want.items():
        if not f.nullable and schema.get_field_index(name) < 0:
            problems.append(f"missing required column {name!r}")
    return problems

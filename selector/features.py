"""Model features from telemetry rows (calls schema columns), and the target log(latency_ns).

Per row: the device class (cores, SIMD width from the ISA level, cache sizes, GPU flag, clock parsed
from cpu_model where the model name carries it, runtime), the call (operator, dtype item
size, log2 element count, ndim, log2 of the first two dims), the variant, and per operator
family an estimate of FLOPs and bytes moved from the recorded (largest-operand) shape
(FAMILY_WORK; docs/selector.md), exact for a matrix product whose third dimension was recorded
(the calls schema's third_dim). An operator's family comes from its name for the common
ones and otherwise from the operator registry's family (its typing rule's kind). Categorical
columns are returned as strings: the estimator encodes them.
"""
from __future__ import annotations

import functools
import re

import numpy as np
import pandas as pd

ISA_ORDINAL = {"x86-64-v1": 1, "x86-64-v2": 2, "x86-64-v3": 3, "x86-64-v4": 4,
               "armv8": 2, "armv8.2": 3, "armv9": 4, "simd128": 1}
ITEMSIZE = {"bool": 1, "uint8": 1, "int8": 1, "int16": 2, "uint16": 2, "float16": 2, "int32": 4, "uint32": 4,
            "float32": 4, "int64": 8, "uint64": 8, "float64": 8, "complex64": 8, "complex128": 16}
# SIMD register width in bytes per ISA level: AVX-512 64, AVX2 32, SSE 16; NEON (every armv8/v9
# here) and wasm simd128 are 16 bytes, so an ordinal shared by x86 and ARM would overstate ARM
SIMD_BYTES = {"x86-64-v1": 16, "x86-64-v2": 16, "x86-64-v3": 32, "x86-64-v4": 64,
              "armv8": 16, "armv8.2": 16, "armv9": 16, "simd128": 16}
CATEGORICAL = ("op", "variant", "runtime", "family", "os", "arch")
DEVICE_COLUMNS = ("cores", "isa_level", "l1d_kib", "l2_kib", "l3_kib", "gpu", "cpu_model", "runtime")
GHZ = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*GHz")


MATMUL_NAMES = ("matmul", "imatmul", "dot", "inner", "vdot")
# the operator registry's families -> FAMILY_WORK (linalg splits into products and decompositions)
REGISTRY_FAMILY = {"elementwise": "elementwise", "math": "elementwise", "reduction": "reduction", "scan": "reduction",
                   "sorting": "sort", "imgproc": "filter"}


@functools.lru_cache(maxsize=4096)
def family(op: str) -> str:
    """Which FAMILY_WORK estimate an operator key uses."""
    if op.startswith("fused:") or op in ("numpy.add", "numpy.multiply", "numpy.subtract"):
        return "elementwise"
    if op in ("numpy.sum", "numpy.mean", "numpy.max", "numpy.min", "numpy.prod"):
        return "reduction"
    if op in ("numpy.matmul", "numpy.dot"):
        return "matmul"
    if op in ("numpy.sort", "numpy.argsort"):
        return "sort"
    if op.startswith("cv2."):
        return "filter"
    if op.startswith("numpy.linalg."):
        return "decomposition"
    return _registry_family(op)


def _registry_family(op: str) -> str:
    from everypath.variants.registry import registry

    entry = registry().ops.get(op)
    if entry is None:
        return "other"
    kind = entry.family.value
    if kind == "linalg":
        return "matmul" if op.rsplit(".", 1)[-1] in MATMUL_NAMES else "decomposition"
    return REGISTRY_FAMILY.get(kind, "other")


def family_work(fam: str, n: np.ndarray, d0: np.ndarray, d1: np.ndarray, item: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(flops, bytes) estimates from the largest operand's size (FAMILY_WORK in docs/selector.md)."""
    lg = np.log2(np.maximum(n, 2))
    small = np.minimum(d0, d1)
    if fam == "elementwise":
        return 2 * n, 4 * n * item
    if fam == "reduction":
        return n.astype(float), n * item
    if fam == "matmul":  # (m, k) @ (k, ~min): 2 m k min(m, k)
        return 2 * n * small, 3 * n * item
    if fam == "sort":
        return 3 * n * lg, n * item * lg / 4
    if fam == "filter":  # 5-tap separable kernel
        return 20 * n, 3 * n * item
    if fam == "decomposition":
        return 4 * n * small + 8 * small ** 3, 3 * n * item
    return n.astype(float), n * item


def features(rows: pd.DataFrame) -> pd.DataFrame:
    """One feature row per telemetry row (needs the columns op, variant, dtype, shape, n_elements
    and the DEVICE_COLUMNS)."""
    n = rows["n_elements"].to_numpy(np.float64).clip(1)
    shapes = rows["shape"].tolist()
    d0 = np.array([float(s[0]) if len(s) > 0 else 1.0 for s in shapes])
    d1 = np.array([float(s[1]) if len(s) > 1 else 1.0 for s in shapes])
    item = rows["dtype"].map(ITEMSIZE).fillna(8).to_numpy(np.float64)
    fams = rows["op"].map(family)
    flops, nbytes = np.ones_like(n), np.ones_like(n)
    for fam in fams.unique():
        m = (fams == fam).to_numpy()
        f, b = family_work(fam, n[m], d0[m], d1[m], item[m])
        flops[m], nbytes[m] = f, b
    # a product's recorded third dimension makes its work exact: the recorded operand is two of
    # (m, k, n), the other two operands each pair the third with one of them
    third = third_dims(rows)
    exact = (fams == "matmul").to_numpy() & (third > 0)
    flops[exact] = 2 * n[exact] * third[exact]
    nbytes[exact] = (n[exact] + third[exact] * (d0[exact] + d1[exact])) * item[exact]
    cores = rows["cores"].fillna(1).to_numpy(np.float64)
    ghz = rows["cpu_model"].fillna("").str.extract(GHZ, expand=False).astype(float).to_numpy()
    simd_bytes = rows["isa_level"].map(SIMD_BYTES).to_numpy(np.float64)  # NaN: no ISA level recorded
    out = pd.DataFrame({
        "op": rows["op"].astype(str).to_numpy(), "variant": rows["variant"].astype(str).to_numpy(),
        "runtime": rows["runtime"].astype(str).to_numpy(), "family": fams.to_numpy(),
        "os": _text(rows, "os"), "arch": _text(rows, "arch"),
        "cores": cores, "log2_cores": np.log2(cores), "log2_simd_bytes": np.log2(simd_bytes), "ghz": ghz,
        "l1d_kib": rows["l1d_kib"].to_numpy(np.float64), "l2_kib": rows["l2_kib"].to_numpy(np.float64),
        "l3_kib": rows["l3_kib"].to_numpy(np.float64), "gpu": rows["gpu"].notna().to_numpy(np.float64),
        "itemsize": item, "log2_n": np.log2(n), "ndim": [float(len(s)) for s in shapes],
        "log2_d0": np.log2(np.maximum(d0, 1)), "log2_d1": np.log2(np.maximum(d1, 1)),
        "log2_flops": np.log2(flops), "log2_bytes": np.log2(nbytes),
        "log2_third_dim": np.log2(np.where(third > 0, third, np.nan)),  # NaN: not recorded
        # the roofline's own terms: per-core and per-device compute time, working set vs caches
        "log2_flops_per_core": np.log2(flops) - np.log2(cores),
        "log2_flops_per_lane": np.log2(flops) - np.log2(np.maximum(1, np.nan_to_num(simd_bytes, nan=16) / item)) - np.log2(np.nan_to_num(ghz, nan=3.0)),
        "log2_bytes_over_l2": np.log2(nbytes) - np.log2(rows["l2_kib"].fillna(256).to_numpy(np.float64) * 1024),
        "log2_bytes_over_l3": np.log2(nbytes) - np.log2(rows["l3_kib"].fillna(8192).to_numpy(np.float64) * 1024),
    })
    return out


def third_dims(rows: pd.DataFrame) -> np.ndarray:
    """The calls' third_dim as floats (0 where not recorded: other operators, older lakes)."""
    if "third_dim" not in rows:
        return np.zeros(len(rows))
    return pd.to_numeric(rows["third_dim"], errors="coerce").fillna(0).to_numpy(np.float64)


def _text(rows: pd.DataFrame, col: str) -> np.ndarray:
    """A categorical device column as strings ("" where absent: rows of older lakes lack os/arch)."""
    if col not in rows:
        return np.full(len(rows), "", dtype=object)
    return rows[col].fillna("").astype(str).to_numpy()


def target(rows: pd.DataFrame) -> np.ndarray:
    return np.log(rows["latency_ns"].to_numpy(np.float64).clip(1))


def log_flops(f: pd.DataFrame) -> np.ndarray:
    """ln of the estimated FLOPs of feature rows f: the model's target offset (log time per FLOP)."""
    return f["log2_flops"].to_numpy(np.float64) * np.log(2.0)

"""A synthetic fleet's device profiles and the roofline-style latency model (docs/selector.md).

Every number here is a documented assumption, not a measurement: the simulator exists to test
the selector at scale (many device kinds), and every row it writes is marked `runtime =
"simulated"`, `device_id = "sim-..."`.
"""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass

import numpy as np

ISA_LEVELS = ("x86-64-v2", "x86-64-v3", "x86-64-v4")
SIMD_BYTES = {"x86-64-v2": 16, "x86-64-v3": 32, "x86-64-v4": 64}
ISA_FLAGS = {"x86-64-v2": "sse4_2", "x86-64-v3": "sse4_2 avx avx2 fma f16c bmi2",
             "x86-64-v4": "sse4_2 avx avx2 fma f16c bmi2 avx512f avx512bw avx512vl avx512dq avx512cd"}

# operator -> (variants the simulator models, dtypes drawn); variant names are checked against
# the operator registry in tests (selector/simulate.py takes only those the registry declares)
OPERATORS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "fused:numpy.add": (("loops", "simd", "threads", "cuda"), ("float32", "float64")),
    "numpy.sum": (("loops", "simd", "threads", "cuda"), ("float32", "float64", "int64")),
    "numpy.matmul": (("loops", "threads", "blas", "cuda"), ("float32", "float64")),
    "numpy.sort": (("loops", "threads"), ("float64", "int64")),
    "cv2.GaussianBlur": (("loops", "simd", "opencv"), ("uint8", "float32")),
    "numpy.linalg.svd": (("loops", "blas"), ("float32", "float64")),
}
ITEMSIZE = {"uint8": 1, "int32": 4, "float32": 4, "int64": 8, "float64": 8}


@dataclass(frozen=True)
class Profile:
    """One simulated device. Only the schema's device fields reach the lake (cores, isa, caches,
    gpu, and the clock inside cpu_model as real Intel model names carry it); bandwidth, BLAS
    quality and thread start-up stay hidden, as they would on a real fleet."""

    device_id: str
    cores: int
    ghz: float
    isa_level: str
    l1d_kib: int
    l2_kib: int
    l3_kib: int
    mem_gbs: float  # all-core DRAM bandwidth, GB/s (= bytes/ns)
    blas_quality: float  # share of peak the BLAS reaches
    thread_start_ns: float  # fork/join cost of one parallel region
    gpu: str | None
    gpu_gflops: float  # float32 peak, GFLOP/s (float64: 1/8 of it)
    pcie_gbs: float
    launch_ns: float

    @property
    def simd_bytes(self) -> int:
        return SIMD_BYTES[self.isa_level]

    def device_fields(self) -> dict[str, object]:
        klass = {"isa": self.isa_level, "cores": self.cores, "ghz": round(self.ghz, 2), "l1": self.l1d_kib,
                 "l2": self.l2_kib, "l3": self.l3_kib, "gpu": self.gpu}
        return {"device_id": self.device_id,
                "device_class": hashlib.sha256(json.dumps(klass, sort_keys=True).encode()).hexdigest()[:12],
                "arch": "x86_64", "os": "linux", "cpu_model": f"Simulated CPU {self.isa_level} @ {self.ghz:.2f}GHz",
                "isa_level": self.isa_level, "isa_flags": ISA_FLAGS[self.isa_level], "cores": self.cores,
                "l1d_kib": self.l1d_kib, "l2_kib": self.l2_kib, "l3_kib": self.l3_kib, "gpu": self.gpu,
                "runtime": "simulated"}


def draw_profile(rng: np.random.Generator, index: int, seed: int) -> Profile:
    """One device from the fleet's distributions (docs/selector.md, "Device profiles")."""
    cores = int(rng.choice([2, 4, 8, 16, 32, 64], p=[0.15, 0.25, 0.25, 0.2, 0.1, 0.05]))
    isa = str(rng.choice(ISA_LEVELS, p=[0.2, 0.5, 0.3]))
    has_gpu = bool(rng.random() < 0.3)
    return Profile(
        device_id="sim-" + hashlib.sha256(f"{seed}:{index}".encode()).hexdigest()[:16],
        cores=cores, ghz=float(rng.uniform(2.0, 4.5)), isa_level=isa,
        l1d_kib=int(rng.choice([32, 48])), l2_kib=int(rng.choice([256, 512, 1024, 2048])),
        l3_kib=int(cores * 1024 * rng.uniform(1.5, 4.0)),
        mem_gbs=float(rng.uniform(15, 40) * (1 + cores / 16)),
        blas_quality=float(rng.uniform(0.4, 0.95)),
        thread_start_ns=float(rng.uniform(2000, 8000) * (1 + math.log2(cores) / 4)),
        gpu=str(rng.choice(["Simulated GPU A", "Simulated GPU B"])) if has_gpu else None,
        gpu_gflops=float(rng.uniform(8000, 60000)) if has_gpu else 0.0,
        pcie_gbs=float(rng.uniform(10, 25)), launch_ns=float(rng.uniform(8000, 20000)),
    )


def work(op: str, dtype: str, dims: tuple[int, ...]) -> tuple[float, float]:
    """(flops, bytes) of one call. dims are the simulator's full operand sizes: n for 1-D
    operators, (m, k, n) for matmul, (rows, cols) for blur and svd."""
    s = ITEMSIZE[dtype]
    if op == "fused:numpy.add":  # a * b + c: two flops, three inputs and one output per element
        n = dims[0]
        return 2.0 * n, 4.0 * n * s
    if op == "numpy.sum":
        return float(dims[0]), float(dims[0]) * s
    if op == "numpy.matmul":
        m, k, n = dims
        return 2.0 * m * k * n, float(m * k + k * n + m * n) * s
    if op == "numpy.sort":
        n = dims[0]
        return 3.0 * n * max(1.0, math.log2(n)), float(n) * s * max(1.0, math.log2(n)) / 4
    if op == "cv2.GaussianBlur":  # separable 5-tap kernel: 2 passes x 5 multiply-adds
        h, w = dims
        return 20.0 * h * w, 3.0 * h * w * s
    if op == "numpy.linalg.svd":
        m, n = max(dims), min(dims)
        return 4.0 * m * n * n + 8.0 * n ** 3, float(m * n + n * n * 2) * s
    raise KeyError(op)


def latency_ns(p: Profile, op: str, variant: str, dtype: str, dims: tuple[int, ...]) -> float:
    """Noise-free latency: overhead + max(flops / peak, bytes / bandwidth) of the variant.

    Bandwidth is single-core (capped at 10 + 2 GHz GB/s) for one-thread variants, all-core for
    parallel ones, and 4x (working set <= L2) or 2x (<= L3) where the data fits in cache."""
    flops, nbytes = work(op, dtype, dims)
    s = ITEMSIZE[dtype]
    lanes = max(1.0, p.simd_bytes / s)
    cache = 4.0 if nbytes <= p.l2_kib * 1024 else 2.0 if nbytes <= p.l3_kib * 1024 else 1.0
    bw1, bwn = min(p.mem_gbs, 10 + 2 * p.ghz) * cache, p.mem_gbs * cache
    par = p.cores * 0.85  # parallel efficiency of a fork/join loop
    if variant == "loops":
        # scalar code; a naive triple loop / Jacobi SVD also loses to cache misses past L2
        eff = 1.5 if op in ("fused:numpy.add", "numpy.sum") else 1.0
        if op in ("numpy.matmul", "numpy.linalg.svd"):
            eff = 1.0 if nbytes <= p.l2_kib * 1024 else 0.35
        return 50 + max(flops / (p.ghz * eff), nbytes / bw1)
    if variant == "simd":
        return 80 + max(flops / (p.ghz * lanes * 0.8), nbytes / bw1)
    if variant == "threads":
        vec = lanes * 0.8 if op != "numpy.sort" else 1.0
        return p.thread_start_ns + max(flops / (p.ghz * vec * par), nbytes / bwn)
    if variant == "blas":
        # BLAS uses more threads only as the problem grows (one per ~2 MFLOP)
        used = min(p.cores, max(1.0, flops / 2e6))
        return 1500 + max(flops / (p.ghz * lanes * 2 * used * p.blas_quality), nbytes / bwn)
    if variant == "opencv":
        used = min(p.cores, max(1.0, flops / 1e6))
        return 3000 + max(flops / (p.ghz * lanes * 0.9 * used), nbytes / bwn)
    if variant == "cuda":
        peak = p.gpu_gflops * (1.0 if s <= 4 else 0.125)
        return p.launch_ns + 2 * nbytes / p.pcie_gbs + flops / peak
    raise KeyError(variant)


def available(p: Profile, op: str, registry_variants: tuple[str, ...]) -> tuple[str, ...]:
    """Variants of op this device runs: the registry's, minus cuda without a GPU."""
    return tuple(v for v in OPERATORS[op][0] if v in registry_variants and (v != "cuda" or p.gpu))


def recorded_shape(op: str, dims: tuple[int, ...]) -> tuple[int, ...]:
    """The shape telemetry records: the largest operand's."""
    if op == "numpy.matmul":
        m, k, n = dims
        return (m, k) if m * k >= k * n else (k, n)
    return dims if op in ("cv2.GaussianBlur", "numpy.linalg.svd") else (dims[0],)


def third_dim(op: str, dims: tuple[int, ...]) -> int:
    """The schema's third_dim: of matmul's (m, k, n), the one the recorded shape lacks (0: none)."""
    if op != "numpy.matmul":
        return 0
    m, k, n = dims
    return n if recorded_shape(op, dims) == (m, k) else m


def draw_dims(rng: np.random.Generator, op: str) -> tuple[int, ...]:
    """One workload's operand sizes, log-uniform over each operator's useful range."""
    if op in ("fused:numpy.add", "numpy.sum", "numpy.sort"):
        return (int(2 ** rng.uniform(4, 24 if op != "numpy.sort" else 22)),)
    if op == "numpy.matmul":
        k = int(2 ** rng.uniform(2, 11))
        return (k, k, max(1, int(k * 2 ** rng.uniform(-1, 0))))
    if op == "cv2.GaussianBlur":
        h = int(2 ** rng.uniform(4, 12))
        return (h, max(8, int(h * 2 ** rng.uniform(-0.5, 0.5))))
    k = int(2 ** rng.uniform(2, 9.5))
    return (max(2, int(k * 2 ** rng.uniform(0, 1))), k)

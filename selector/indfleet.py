"""A fleet generator independent of the simulator's assumptions (issue 17), for judging the selector.

selector/fleet.py is the world the selector was developed on: one kind of device (Linux x86-64,
a sweep of every variant per workload, one workload's calls at one shape). This one is written
from what real fleets look like instead, and shares none of its numbers:

- **Device kinds** (`Kind`): servers (Linux x86-64 v3/v4, 16-128 cores, NVIDIA GPU p .5),
  desktops (Linux/Windows x86-64 v2/v3, 4-16 cores, NVIDIA GPU p .3; Macs: darwin arm64,
  8-16 cores, the Apple paths, `gpu` sometimes "Apple M2 ..." as a careless fingerprint would
  write it), phones (Android/iOS arm64 shipped executables: loops, simd, threads) and web
  (wasm32 modules: loops only). A kind mix is drawn per fleet (`FleetSpec.mix`).
- **What each device runs** is decided here per kind (`_paths`), not by selector.availability:
  the property the tests check is that the two agree.
- **Costs**: a roofline per variant, overhead + max(flops / peak, bytes / bandwidth), with
  its own constants (below), × a hidden per-(device, op, variant) efficiency (lognormal σ .15)
  × per-call noise (σ .1); 1 % of calls are outliers (× 5-50: preemption, page faults).
- **Logging**: every call at its own random size (log-uniform per operator; matmul (m, k, n)
  with the largest operand recorded), the built-in thresholds choosing (registry `min_work`)
  (and the dimension it lacks as `third_dim`) and ε-uniform exploration at a per-device ε in [0.02, 0.3],
  propensities recorded (ε/k, and
  1 − ε + ε/k for the default). `sweep(...)` writes a uniform design (propensity 1/k, explore),
  what `everypath autotune` would record on a new device.

Rows go through telemetry.records.to_batch, so they are in the lake's documented `calls`
schema; `truth` gives the noise-free latency the bench scores decisions against.
"""
from __future__ import annotations

import enum
import hashlib
import math
from dataclasses import dataclass, replace

import numpy as np
import pyarrow as pa

from everypath.telemetry.records import MAX_DIMS, CallSite, RawCalls, to_batch


class Kind(str, enum.Enum):
    SERVER = "server"
    DESKTOP = "desktop"
    MAC = "mac"
    PHONE = "phone"
    WEB = "web"


OPS: dict[str, tuple[str, ...]] = {  # operator -> dtypes; variants come from _paths and the registry
    "numpy.matmul": ("float32", "float64"),
    "numpy.sum": ("float32", "float64"),
    "cv2.GaussianBlur": ("uint8", "float32"),
    "numpy.sort": ("float64", "int64"),
    "numpy.linalg.svd": ("float64",),
}
ITEM = {"uint8": 1, "float32": 4, "float64": 8, "int64": 8}
START_NS = 1_767_225_600 * 10**9  # 2026-01-01T00:00Z: a seed gives the same rows


@dataclass(frozen=True)
class FleetSpec:
    devices: int = 120
    calls: int = 1500  # per device
    seed: int = 0
    mix: tuple[float, float, float, float, float] = (0.25, 0.3, 0.15, 0.2, 0.1)  # Kind order
    explore: tuple[float, float] = (0.02, 0.3)
    outliers: float = 0.01


@dataclass(frozen=True)
class Device:
    """One device: its telemetry fields and the hidden numbers its costs use."""

    fields: dict[str, object]
    kind: Kind
    paths: frozenset[str]
    ghz: float
    lanes32: int  # float32 SIMD lanes
    cores: int
    bw: float  # all-core bytes/ns
    bw1: float  # one-core bytes/ns
    thread_ns: float
    gpu_gflops: float  # 0: none usable
    pcie: float
    lib_eff: float  # BLAS / Accelerate / OpenCV share of peak
    explore: float


def _paths(kind: Kind, os_: str, nvidia: bool, runtime: str) -> frozenset[str]:
    if kind is Kind.WEB:
        return frozenset({"loops"})
    if kind is Kind.PHONE or runtime == "native-executable":  # a shipped artifact: no host libraries
        return frozenset({"loops", "simd", "threads"})
    base = {"loops", "simd", "threads", "blas", "opencv"}
    if os_ == "darwin":
        base |= {"accelerate", "vimage", "metal"}
    if nvidia:
        base.add("cuda")
    return frozenset(base)


def _device(rng: np.random.Generator, kind: Kind, seed: int, i: int, explore: tuple[float, float]) -> Device:
    gpu: str | None = None
    nvidia = False
    if kind is Kind.SERVER:
        os_, arch, isa = "linux", "x86_64", str(rng.choice(["x86-64-v3", "x86-64-v4"]))
        cores = int(rng.choice([16, 32, 64, 128]))
        nvidia = bool(rng.random() < 0.5)
        runtime = "cpython-extension"
    elif kind is Kind.DESKTOP:
        os_, arch, isa = str(rng.choice(["linux", "windows"])), "x86_64", str(rng.choice(["x86-64-v2", "x86-64-v3"]))
        cores = int(rng.choice([4, 6, 8, 12, 16]))
        nvidia = bool(rng.random() < 0.3)
        runtime = str(rng.choice(["cpython-extension", "native-executable"], p=[0.7, 0.3]))
    elif kind is Kind.MAC:
        os_, arch, isa, cores = "darwin", "aarch64", str(rng.choice(["armv8.2", "armv9"])), int(rng.choice([8, 10, 12, 16]))
        gpu = "Apple M2 GPU" if rng.random() < 0.5 else None
        runtime = "cpython-extension"
    elif kind is Kind.PHONE:
        os_, arch, isa, cores = str(rng.choice(["linux", "darwin"])), "aarch64", "armv8.2", int(rng.choice([4, 6, 8]))
        runtime = "native-executable"
    else:
        os_, arch, isa, cores, runtime = "wasi", "wasm32", "simd128", int(rng.choice([2, 4, 8])), "wasm"
    if nvidia:
        gpu = str(rng.choice(["NVIDIA A100-SXM4-40GB", "NVIDIA GeForce RTX 4070", "NVIDIA L4"]))
    paths = _paths(kind, os_, nvidia, runtime)
    ghz = float(rng.uniform(1.8, 3.8))
    lanes = {"x86-64-v2": 4, "x86-64-v3": 8, "x86-64-v4": 16}.get(isa, 4)
    bw = float(rng.uniform(20, 200) if kind is Kind.SERVER else rng.uniform(15, 60))
    caches = {Kind.WEB: (None, None, None), Kind.PHONE: (64, 1024, None)}.get(kind, (48, 1280, int(cores * 2048)))
    klass = f"{kind.value}/{os_}/{arch}/{isa}/{cores}/{gpu}/{runtime}/{round(ghz, 1)}/{i % 7}"
    fields: dict[str, object] = {
        "device_id": "ind-" + hashlib.sha256(f"{seed}:{i}".encode()).hexdigest()[:16],
        "device_class": hashlib.sha256(klass.encode()).hexdigest()[:12],
        "arch": arch, "os": os_, "cpu_model": f"{kind.value} cpu @ {ghz:.2f}GHz" if kind is not Kind.WEB else None,
        "isa_level": isa, "isa_flags": "", "cores": cores,
        "l1d_kib": caches[0], "l2_kib": caches[1], "l3_kib": caches[2], "gpu": gpu, "runtime": runtime}
    return Device(fields, kind, paths, ghz, lanes, cores, bw, min(bw, 8 + 3 * ghz), float(rng.uniform(3000, 15000)),
                  float(rng.uniform(10000, 80000)) if nvidia else float(rng.uniform(3000, 12000)) if os_ == "darwin"
                  and kind is Kind.MAC else 0.0, float(rng.uniform(8, 30)), float(rng.uniform(0.5, 0.95)),
                  float(rng.uniform(*explore)))


def devices(spec: FleetSpec) -> list[Device]:
    rng = np.random.default_rng([spec.seed, 17])
    order = list(Kind)
    kinds = rng.choice(len(order), size=spec.devices, p=np.asarray(spec.mix) / sum(spec.mix))
    return [_device(rng, order[int(k)], spec.seed, i, spec.explore) for i, k in enumerate(kinds)]


def variants(d: Device, op: str) -> tuple[str, ...]:
    """The variants of op this device's build has, in the registry's dispatch order."""
    from everypath.variants.registry import registry

    return tuple(v.path for v in registry().ops[op].variants if v.path in d.paths)


def work(op: str, dtype: str, dims: tuple[int, ...]) -> tuple[float, float]:
    s = ITEM[dtype]
    if op == "numpy.matmul":
        m, k, n = dims
        return 2.0 * m * k * n, float(m * k + k * n + m * n) * s
    if op == "numpy.sum":
        return float(dims[0]), float(dims[0]) * s
    if op == "numpy.sort":
        n = dims[0]
        return 4.0 * n * max(1.0, math.log2(n)), 2.0 * n * s * max(1.0, math.log2(n) / 8)
    if op == "cv2.GaussianBlur":
        return 22.0 * dims[0] * dims[1], 2.0 * dims[0] * dims[1] * s
    m, n = max(dims), min(dims)
    return 6.0 * m * n * n, float(m * n) * s * 2


def truth(d: Device, op: str, variant: str, dtype: str, dims: tuple[int, ...]) -> float:
    """Noise-free latency (ns) of one call, the hidden efficiency included."""
    flops, nbytes = work(op, dtype, dims)
    lanes = max(1.0, d.lanes32 * 4 / ITEM[dtype])
    serial = op in ("numpy.sort",)
    if variant == "loops":
        t = 40 + max(flops / (d.ghz * (0.5 if op in ("numpy.matmul", "numpy.linalg.svd") else 1.2)), nbytes / d.bw1)
    elif variant == "simd":
        t = 70 + max(flops / (d.ghz * lanes * 0.6), nbytes / d.bw1)
    elif variant == "threads":
        t = d.thread_ns + max(flops / (d.ghz * (1 if serial else lanes * 0.5) * d.cores * 0.8), nbytes / d.bw)
    elif variant in ("blas", "accelerate", "opencv", "vimage"):
        used = min(d.cores, max(1.0, flops / 4e6))
        boost = 2.0 if variant == "accelerate" else 1.0  # the AMX units
        over = {"blas": 2500, "accelerate": 1200, "opencv": 5000, "vimage": 2000}[variant]
        t = over + max(flops / (d.ghz * lanes * 1.6 * boost * used * d.lib_eff), nbytes / d.bw)
    elif variant == "cuda":
        t = 12000 + 2 * nbytes / d.pcie + flops / (d.gpu_gflops * (1 if ITEM[dtype] <= 4 else 1 / 16))
    elif variant == "metal":
        t = 25000 + flops / (d.gpu_gflops * (1 if ITEM[dtype] <= 4 else 1 / 8)) + nbytes / d.bw
    else:
        raise KeyError(variant)
    return t * _quirk(d, op, variant)


def _quirk(d: Device, op: str, variant: str) -> float:
    h = int.from_bytes(hashlib.sha256(f"{d.fields['device_id']}/{op}/{variant}".encode()).digest()[:8], "little")
    return float(np.exp(0.15 * np.random.default_rng(h).standard_normal()))


def draw_dims(rng: np.random.Generator, op: str) -> tuple[int, ...]:
    if op == "numpy.matmul":
        m, k = (int(2 ** rng.uniform(2, 11)) for _ in range(2))
        return (m, k, int(2 ** rng.uniform(2, 11)))
    if op in ("numpy.sum", "numpy.sort"):
        return (int(2 ** rng.uniform(3, 24 if op == "numpy.sum" else 21)),)
    if op == "cv2.GaussianBlur":
        h = int(2 ** rng.uniform(4, 12))
        return (h, max(8, int(h * 2 ** rng.uniform(-1, 1))))
    return (int(2 ** rng.uniform(2, 10)), int(2 ** rng.uniform(2, 9)))


def recorded(op: str, dims: tuple[int, ...]) -> tuple[int, ...]:
    """The shape telemetry records: the largest operand's."""
    if op == "numpy.matmul":
        m, k, n = dims
        return max(((m, k), (k, n), (m, n)), key=lambda s: (s[0] * s[1], s))
    return dims


def third(op: str, dims: tuple[int, ...]) -> int:
    """The schema's third_dim: of matmul's (m, k, n), the one the recorded shape lacks (0: none)."""
    if op != "numpy.matmul":
        return 0
    m, k, n = dims
    return {(m, k): n, (k, n): m, (m, n): k}[recorded(op, dims)]


def _builtin(op: str, n: int, vs: tuple[str, ...]) -> int:
    from everypath.variants.registry import registry

    mw = {v.path: v.min_work for v in registry().ops[op].variants}
    return max([i for i, v in enumerate(vs) if n >= mw.get(v, 0)] or [0])


@dataclass(frozen=True)
class Calls:
    """One device's drawn calls: the workload and what ran (for scoring against `truth`)."""

    op: list[str]
    dtype: list[str]
    dims: list[tuple[int, ...]]


def draw_calls(d: Device, rng: np.random.Generator, n: int) -> Calls:
    ops = list(OPS)
    w = rng.dirichlet(np.ones(len(ops)))  # each device its own operator mix
    picks = rng.choice(len(ops), size=n, p=w)
    op = [ops[i] for i in picks]
    dtype = [str(rng.choice(OPS[o])) for o in op]
    return Calls(op, dtype, [draw_dims(rng, o) for o in op])


def batch(d: Device, calls: Calls, rng: np.random.Generator, explore: float | None, outliers: float,
          t0_ns: int) -> pa.RecordBatch:
    """The calls as the shim records them: explore=None is a uniform sweep (propensity 1/k)."""
    sites: list[CallSite] = []
    site_ix: dict[tuple[str, str], int] = {}
    n = len(calls.op)
    lat, site, var = np.zeros(n, np.int64), np.zeros(n, np.int32), np.zeros(n, np.int16)
    shape, nel = np.zeros((n, MAX_DIMS), np.int64), np.zeros(n, np.int64)
    exp, prop, ndim, thr = np.zeros(n, bool), np.zeros(n, np.float32), np.zeros(n, np.int8), np.ones(n, np.int16)
    thd = np.zeros(n, np.int64)
    built = {op: variants(d, op) for op in OPS}
    for i, (op, dt, dims) in enumerate(zip(calls.op, calls.dtype, calls.dims)):
        vs = built[op]
        if (op, dt) not in site_ix:
            site_ix[(op, dt)] = len(sites)
            sites.append(CallSite(f"app.kernels.{op.split('.')[-1]}_{dt}", op, f"kernels.py:{10 + len(sites)}", dt, vs))
        rec = recorded(op, dims)
        k, default = len(vs), _builtin(op, int(np.prod(rec)), vs)
        if explore is None:
            v, e, p = int(rng.integers(k)), True, 1.0 / k
        elif rng.random() < explore:
            v = int(rng.integers(k))
            e, p = v != default, explore / k + (1 - explore if v == default else 0.0)
        else:
            v, e, p = default, False, explore / k + 1 - explore
        t = truth(d, op, vs[v], dt, dims) * rng.lognormal(0, 0.1)
        if rng.random() < outliers:
            t *= rng.uniform(5, 50)
        lat[i], site[i], var[i], exp[i], prop[i] = max(1, int(t)), site_ix[(op, dt)], v, e, p
        shape[i, : len(rec)], ndim[i], nel[i], thd[i] = rec, len(rec), int(np.prod(rec)), third(op, dims)
        thr[i] = d.cores if vs[v] in ("threads", "blas", "opencv", "accelerate") else 1
    raw = RawCalls(t0_ns + np.arange(n, dtype=np.int64) * 1000, lat, site, var, ndim, shape, nel, thr, exp, prop, None,
                   third_dim=thd)
    return to_batch(raw, sites, d.fields)


def fleet(spec: FleetSpec) -> tuple[list[Device], list[Calls], list[pa.RecordBatch]]:
    """The fleet's devices, their drawn calls and those calls as recorded, one batch per device."""
    devs = devices(spec)
    calls, out = [], []
    for i, d in enumerate(devs):
        rng = np.random.default_rng([spec.seed, i, 3])
        calls.append(draw_calls(d, rng, spec.calls))
        out.append(batch(d, calls[-1], rng, d.explore, spec.outliers, START_NS + i * 10**12))
    return devs, calls, out


def sweep(d: Device, calls: int, seed: int) -> pa.RecordBatch:
    """A new device's autotune-like sweep: `calls` calls at random sizes, variants uniform."""
    rng = np.random.default_rng([seed, int(str(d.fields["device_id"])[4:12], 16), 5])
    return batch(d, draw_calls(d, rng, calls), rng, None, 0.0, START_NS + 10**15)


def with_mix(spec: FleetSpec, **kinds: float) -> FleetSpec:
    """spec with a kind mix given by name (server=..., desktop=..., ...); unnamed kinds get 0."""
    return replace(spec, mix=tuple(float(kinds.get(k.value, 0.0)) for k in Kind))  # type: ignore[arg-type]

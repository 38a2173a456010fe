"""`everypath telemetry simulate`: a synthetic fleet's calls, written through the real schema.

Per device, workloads (operator, dtype, operand sizes) are drawn; each is first swept over
every available variant (3 calls each, explore=True, propensity 1/k: what `autotune` would
record), then called in production a log-normal number of times, with the built-in threshold
policy choosing and epsilon-greedy exploration (propensity = eps/k, + 1 - eps for the policy's
choice; the shim's rule). Latency: selector.fleet's roofline model x a hidden per-device,
per-variant quirk (lognormal, sigma 0.1) x per-call lognormal noise (sigma 0.08).
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from everypath.selector.fleet import (OPERATORS, Profile, available, draw_dims, draw_profile, latency_ns,
                                      recorded_shape, third_dim)
from everypath.telemetry.records import MAX_DIMS, CallSite, RawCalls, to_batch

START = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)  # fixed: a seed gives the same rows
SWEEP_REPEATS = 3


@dataclass(frozen=True)
class SimConfig:
    devices: int = 40
    rows: int = 200_000
    seed: int = 0
    explore: float = 0.1


def registry_variants() -> dict[str, tuple[str, ...]]:
    """Each simulated operator's variants as the operator registry declares them."""
    from everypath.variants.registry import registry

    ops = registry().ops
    return {op: tuple(v.path for v in ops[op.removeprefix("fused:")].variants) for op in OPERATORS}


def builtin_choice(op: str, n: int, variants: tuple[str, ...]) -> int:
    """The shim's default without a table: the last variant whose min_work n reaches."""
    from everypath.variants.registry import registry

    min_work = {v.path: v.min_work for v in registry().ops[op.removeprefix("fused:")].variants}
    best = 0
    for i, v in enumerate(variants):
        if n >= min_work.get(v, 0):
            best = i
    return best


def _device_rows(p: Profile, rng: np.random.Generator, n_rows: int, cfg: SimConfig,
                 reg: dict[str, tuple[str, ...]], t0_ns: int) -> pa.RecordBatch:
    sites: list[CallSite] = []
    site_ix: dict[tuple[str, str], int] = {}
    cols: dict[str, list[np.ndarray]] = {k: [] for k in ("lat", "site", "var", "ndim", "shape", "n", "thr", "exp", "prop", "third")}
    ops = list(OPERATORS)
    made = 0
    while made < n_rows:
        op = ops[int(rng.integers(len(ops)))]
        dtype = str(rng.choice(OPERATORS[op][1]))
        variants = available(p, op, reg[op])
        if (op, dtype) not in site_ix:
            site_ix[(op, dtype)] = len(sites)
            sites.append(CallSite(f"sim.kernels.{op.split('.')[-1]}_{dtype}", op,
                                  f"sim_kernels.py:{10 + len(sites)}", dtype, variants))
        dims = draw_dims(rng, op)
        shape = recorded_shape(op, dims)
        k = len(variants)
        calls = int(min(200, rng.lognormal(2.0, 1.0)))
        default = builtin_choice(op, int(np.prod(shape)), variants)
        prod = np.where(rng.random(calls) < cfg.explore, rng.integers(0, k, calls), default)
        var = np.concatenate([np.repeat(np.arange(k), SWEEP_REPEATS), prod]).astype(np.int16)
        explore = np.concatenate([np.ones(k * SWEEP_REPEATS, bool), prod != default])
        prop = np.where(var == default, cfg.explore / k + 1 - cfg.explore, cfg.explore / k)
        prop[: k * SWEEP_REPEATS] = 1.0 / k
        base = np.array([latency_ns(p, op, v, dtype, dims) * quirk(p, op, v) for v in variants])
        lat = base[var] * rng.lognormal(0.0, 0.08, var.size)
        m = var.size
        padded = np.zeros((m, MAX_DIMS), np.int64)
        padded[:, : len(shape)] = shape
        threads = np.array([p.cores if v in ("threads", "blas", "opencv") else 1 for v in variants], np.int16)
        for key, val in (("lat", np.maximum(1, lat).astype(np.int64)), ("site", np.full(m, site_ix[(op, dtype)], np.int32)),
                         ("var", var), ("ndim", np.full(m, len(shape), np.int8)), ("shape", padded),
                         ("n", np.full(m, int(np.prod(shape)), np.int64)), ("thr", threads[var]),
                         ("exp", explore), ("prop", prop.astype(np.float32)), ("third", np.full(m, third_dim(op, dims)))):
            cols[key].append(val)
        made += m
    n = sum(a.size for a in cols["lat"])
    ts = t0_ns + np.arange(n, dtype=np.int64) * 1000
    raw = RawCalls(ts, np.concatenate(cols["lat"]), np.concatenate(cols["site"]), np.concatenate(cols["var"]),
                   np.concatenate(cols["ndim"]), np.concatenate(cols["shape"]), np.concatenate(cols["n"]),
                   np.concatenate(cols["thr"]), np.concatenate(cols["exp"]), np.concatenate(cols["prop"]), None,
                   third_dim=np.concatenate(cols["third"]))
    return to_batch(raw, sites, p.device_fields())


def quirk(p: Profile, op: str, variant: str) -> float:
    """A fixed hidden factor per (device, op, variant): what no roofline captures."""
    import hashlib

    h = int.from_bytes(hashlib.sha256(f"{p.device_id}/{op}/{variant}".encode()).digest()[:8], "little")
    return float(np.exp(0.1 * np.random.default_rng(h).standard_normal()))


def profiles(cfg: SimConfig) -> list[Profile]:
    rng = np.random.default_rng(cfg.seed)
    return [draw_profile(rng, i, cfg.seed) for i in range(cfg.devices)]


def simulate(cfg: SimConfig) -> list[pa.RecordBatch]:
    """The fleet's rows, one batch per device (deterministic for a seed)."""
    reg = registry_variants()
    per = max(1, cfg.rows // max(1, cfg.devices))
    t0 = int(START.timestamp() * 1e9)
    out = []
    for i, p in enumerate(profiles(cfg)):
        rng = np.random.default_rng([cfg.seed, i, 1])
        out.append(_device_rows(p, rng, per, cfg, reg, t0 + i * 10**12))
    return out


def simulate_into(lake_dir: Path, cfg: SimConfig) -> int:
    """Write the fleet into a lake as one idempotent batch per device; returns rows stored."""
    from everypath.telemetry.lake import Lake

    lake = Lake(lake_dir)
    rows = 0
    for i, batch in enumerate(simulate(cfg)):
        pub = lake.publish_named(batch, f"sim-{cfg.seed}-{cfg.devices}-{cfg.rows}-{i}")
        rows += pub.rows if pub.stored else 0
    return rows

"""Gravitational N-body time steps (symplectic Euler) with pairwise force loops, updating positions and velocities in place with +=; returns the kinetic energy (Computer Language Benchmarks Game n-body)."""
import math

import numpy as np

CATEGORY = "mixed"

G = 4.0 * math.pi * math.pi  # AU^3 / (solar mass * year^2)
SOFTENING2 = 1e-4

Vec = np.ndarray[tuple[int], np.dtype[np.float64]]
Vecs3 = np.ndarray[tuple[int, int], np.dtype[np.float64]]


def nbody_step(pos: Vecs3, vel: Vecs3, mass: Vec, dt: float = 0.001, steps: int = 1) -> float:
    n = pos.shape[0]
    acc = np.zeros_like(pos)
    for _ in range(steps):
        acc[:, :] = 0.0
        for i in range(n):
            for j in range(i + 1, n):
                dx = pos[j, 0] - pos[i, 0]
                dy = pos[j, 1] - pos[i, 1]
                dz = pos[j, 2] - pos[i, 2]
                r2 = dx * dx + dy * dy + dz * dz + SOFTENING2
                inv_r3 = 1.0 / (r2 * math.sqrt(r2))
                si = G * mass[j] * inv_r3
                sj = G * mass[i] * inv_r3
                acc[i, 0] += si * dx
                acc[i, 1] += si * dy
                acc[i, 2] += si * dz
                acc[j, 0] -= sj * dx
                acc[j, 1] -= sj * dy
                acc[j, 2] -= sj * dz
        vel += dt * acc
        pos += dt * vel
    kinetic = 0.0
    for i in range(n):
        kinetic += 0.5 * mass[i] * (vel[i, 0] ** 2 + vel[i, 1] ** 2 + vel[i, 2] ** 2)
    return float(kinetic)


ENTRY = "nbody_step"
MUTATES = (0, 1)


def _system(rng, n):
    return rng.standard_normal((n, 3)) * 5.0, rng.standard_normal((n, 3)) * 0.5, rng.random(n) * 1e-3 + 1e-4


def cases(rng: np.random.Generator) -> list[tuple]:
    return [
        (*_system(rng, 0),),
        (*_system(rng, 1), 0.01, 3),
        (*_system(rng, 2), 0.01, 10),
        (*_system(rng, 7),),
        (*_system(rng, 31), 0.001, 5),
        (*_system(rng, 101), 0.0005, 2),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (*_system(rng, 100), 0.001, 5)

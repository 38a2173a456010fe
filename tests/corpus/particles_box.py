"""Particles bouncing elastically inside the unit box: time stepping in a while loop with boolean-mask reflections written in place into the float32 state (game / physics demos)."""
import numpy as np

CATEGORY = "mixed"

State = np.ndarray[tuple[int, int], np.dtype[np.float32]]


def particles_box(pos: State, vel: State, dt: np.float32, t_end: float) -> int:
    t = 0.0
    bounces = 0
    while t < t_end:
        pos += vel * dt
        low = pos < 0.0
        high = pos > 1.0
        pos[low] = -pos[low]
        pos[high] = 2.0 - pos[high]
        hit = low | high
        vel[hit] = -vel[hit]
        bounces += int(np.sum(hit))
        t += float(dt)
    return bounces


ENTRY = "particles_box"
MUTATES = (0, 1)


def _state(rng, n, d=2):
    return rng.random((n, d)).astype(np.float32), (rng.random((n, d)) - 0.5).astype(np.float32)


def cases(rng: np.random.Generator) -> list[tuple]:
    f32 = np.float32
    return [
        (*_state(rng, 0), f32(0.1), 1.0),
        (*_state(rng, 1), f32(0.1), 1.0),
        (*_state(rng, 7, 3), f32(0.05), 2.0),
        (*_state(rng, 101), f32(0.01), 0.5),
        (*_state(rng, 997), f32(0.02), 1.0),
        (*_state(rng, 5), f32(0.5), 0.0),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (*_state(rng, 100_000), np.float32(0.01), 0.1)

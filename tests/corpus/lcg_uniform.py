"""Park-Miller 'minimal standard' linear congruential generator (a = 16807, m = 2**31 - 1) producing uniforms in (0, 1); products stay below 2**46 so int64 never wraps."""
import numpy as np

CATEGORY = "loop"

LCG_A = 16807
LCG_M = 2147483647


def lcg_uniform(seed: int, n: int) -> tuple[np.ndarray[tuple[int], np.dtype[np.float64]], int]:
    if seed <= 0 or seed >= LCG_M:
        raise ValueError("lcg_uniform: seed must be in [1, 2**31 - 2]")
    out = np.empty(n, dtype=np.float64)
    state = seed
    for i in range(n):
        state = (LCG_A * state) % LCG_M
        out[i] = state / LCG_M
    return out, state


ENTRY = "lcg_uniform"


def cases(rng: np.random.Generator) -> list[tuple]:
    return [
        (1, 0),
        (1, 1),
        (42, 7),
        (LCG_M - 1, 13),
        (int(rng.integers(1, LCG_M - 1)), 997),
        (int(rng.integers(1, LCG_M - 1)), 5000),
        (0, 10),  # invalid seed: raises ValueError
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (12345, 200_000)

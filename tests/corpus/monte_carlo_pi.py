"""Monte-Carlo estimate of pi and its standard error from precomputed uniform samples (the 'hello world' of parallel computing)."""
import numpy as np

CATEGORY = "array"


def monte_carlo_pi(x: np.ndarray[tuple[int], np.dtype[np.float64]],
                   y: np.ndarray[tuple[int], np.dtype[np.float64]]) -> tuple[float, float]:
    n = x.shape[0]
    if n == 0:
        return 0.0, 0.0
    inside = (x * x + y * y) <= 1.0
    p = np.sum(inside) / n
    estimate = 4.0 * p
    stderr = 4.0 * np.sqrt(p * (1.0 - p) / n)
    return float(estimate), float(stderr)


ENTRY = "monte_carlo_pi"


def cases(rng: np.random.Generator) -> list[tuple]:
    return [
        (np.zeros(0), np.zeros(0)),
        (np.array([0.5]), np.array([0.5])),
        (np.array([0.9]), np.array([0.9])),
        (rng.random(7), rng.random(7)),
        (rng.random(997), rng.random(997)),
        (rng.random(10_000), rng.random(10_000)),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.random(1_000_000), rng.random(1_000_000))

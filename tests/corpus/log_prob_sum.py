"""Total log-likelihood of independent event probabilities, dropping those at or below a floor through a boolean mask and reporting how many were dropped (naive-Bayes style scoring)."""
import numpy as np

CATEGORY = "array"


def log_prob_sum(p: np.ndarray[tuple[int], np.dtype[np.float64]], floor: float = 0.0) -> tuple[float, int]:
    mask = p > floor
    kept = p[mask]
    total = np.sum(np.log(kept))
    dropped = p.shape[0] - kept.shape[0]
    return float(total), dropped


ENTRY = "log_prob_sum"


def cases(rng: np.random.Generator) -> list[tuple]:
    with_zeros = rng.random(101)
    with_zeros[::7] = 0.0
    return [
        (np.zeros(0),),
        (np.array([0.5]),),
        (np.array([0.0]),),
        (rng.random(7), 0.3),
        (with_zeros,),
        (rng.beta(0.5, 0.5, 9973), 1e-3),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    p = rng.random(1_000_000)
    p[::10] = 0.0
    return (p,)

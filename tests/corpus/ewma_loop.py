"""Exponentially weighted moving average y[i] = a*x[i] + (1-a)*y[i-1] (pandas Series.ewm(alpha=a, adjust=False).mean()) by a loop."""
import numpy as np

CATEGORY = "loop"


def ewma(x: np.ndarray[tuple[int], np.dtype[np.float64]], alpha: float = 0.3) -> np.ndarray[tuple[int], np.dtype[np.float64]]:
    if not 0.0 < alpha <= 1.0:
        raise ValueError("ewma: alpha must be in (0, 1]")
    out = np.empty_like(x)
    if x.shape[0] == 0:
        return out
    out[0] = x[0]
    for i in range(1, x.shape[0]):
        out[i] = alpha * x[i] + (1.0 - alpha) * out[i - 1]
    return out


ENTRY = "ewma"


def cases(rng: np.random.Generator) -> list[tuple]:
    return [
        (np.zeros(0),),
        (np.array([4.0]),),
        (rng.standard_normal(7), 1.0),
        (np.cumsum(rng.standard_normal(101)), 0.05),
        (rng.standard_normal(997),),
        (rng.standard_normal(10), 0.0),  # alpha out of range: raises ValueError
        (rng.standard_normal(10), 1.5),  # alpha out of range: raises ValueError
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (np.cumsum(rng.standard_normal(200_000)), 0.1)

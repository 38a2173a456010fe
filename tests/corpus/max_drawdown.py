"""Maximum drawdown of an equity curve compounded from periodic returns with np.cumprod, scanned with enumerate (quantitative finance / empyrical)."""
import numpy as np

CATEGORY = "mixed"


def max_drawdown(returns: np.ndarray[tuple[int], np.dtype[np.float64]]) -> tuple[float, int, int]:
    equity = np.cumprod(1.0 + returns)
    peak = 1.0
    peak_i = -1  # -1: the initial capital, before the first period
    worst = 0.0
    start = -1
    end = -1
    for i, v in enumerate(equity):
        if v > peak:
            peak = v
            peak_i = i
        dd = (peak - v) / peak
        if dd > worst:
            worst = dd
            start = peak_i
            end = i
    return float(worst), start, end


ENTRY = "max_drawdown"


def cases(rng: np.random.Generator) -> list[tuple]:
    return [
        (np.zeros(0),),
        (np.array([-0.1]),),
        (np.array([0.1, 0.2, 0.05]),),
        (np.array([0.1, -0.2, 0.05, -0.3, 0.5, 0.1, -0.05]),),
        (rng.normal(0.0005, 0.01, 101),),
        (rng.normal(0.0003, 0.02, 2521),),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.normal(0.0003, 0.02, 250_000),)

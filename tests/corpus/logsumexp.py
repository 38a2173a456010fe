"""log(sum(exp(x))) computed stably by shifting by the maximum (scipy.special.logsumexp); -inf for empty input."""
import math

import numpy as np

CATEGORY = "array"


def logsumexp(x: np.ndarray[tuple[int], np.dtype[np.float64]]) -> float:
    if x.shape[0] == 0:
        return -math.inf
    m = np.max(x)
    return float(m + np.log(np.sum(np.exp(x - m))))


ENTRY = "logsumexp"


def cases(rng: np.random.Generator) -> list[tuple]:
    return [
        (np.zeros(0),),
        (np.array([-3.5]),),
        (np.array([1000.0, 1000.0, 999.0]),),
        (rng.standard_normal(7) * 50.0,),
        (rng.standard_normal(101),),
        (-rng.exponential(100.0, 9973),),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.standard_normal(1_000_000) * 10.0,)

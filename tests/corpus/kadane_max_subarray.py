"""Kadane's maximum-sum contiguous subarray returning (best sum, start, stop) (classic dynamic-programming / interview kernel)."""
import numpy as np

CATEGORY = "loop"


def max_subarray(x: np.ndarray[tuple[int], np.dtype[np.float64]]) -> tuple[float, int, int]:
    n = x.shape[0]
    if n == 0:
        raise ValueError("max_subarray: empty input")
    best = float(x[0])
    best_start = 0
    best_stop = 1
    cur = float(x[0])
    cur_start = 0
    for i in range(1, n):
        v = float(x[i])
        if cur < 0.0:
            cur = v
            cur_start = i
        else:
            cur += v
        if cur > best:
            best = cur
            best_start = cur_start
            best_stop = i + 1
    return best, best_start, best_stop


ENTRY = "max_subarray"


def cases(rng: np.random.Generator) -> list[tuple]:
    return [
        (np.zeros(0),),  # empty: raises ValueError (the maximum subarray is undefined)
        (np.array([-2.0]),),
        (np.array([-2.0, 1.0, -3.0, 4.0, -1.0, 2.0, 1.0, -5.0, 4.0]),),
        (-rng.random(7),),
        (rng.standard_normal(101),),
        (rng.standard_normal(4999) + 0.01,),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.standard_normal(300_000),)

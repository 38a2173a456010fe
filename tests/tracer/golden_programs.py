"""Small programs whose IR is kept as golden files (tests/tracer/golden/*.ir)."""
import math

import numpy as np

Vec = np.ndarray[tuple[int], np.dtype[np.float64]]
SCALE = 2.0


def loops_and_branches(x: Vec, k: int) -> float:
    s = 0.0
    for i in range(len(x)):
        if x[i] > k and i % 2 == 0:
            s += x[i] * SCALE
        elif x[i] < -k:
            continue
        else:
            break
    while k > 0:
        k -= 1
    return s


def comprehension_and_closure(x: Vec) -> float:
    def sq(v):
        return v * v

    vals = [sq(v) for v in x if v > 0]
    return sum(vals) + math.pi


def views_and_masks(x: Vec) -> Vec:
    y = x[1:-1:2]
    y[0] = 1.0
    x[x < 0] = 0.0
    assert len(x) > 0, "empty"
    return x[::-1]

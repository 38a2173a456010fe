"""k-means assignment step by loops: nearest centre of every point (iterating over the rows of the point matrix) and the total inertia (scikit-learn's Lloyd inner loop)."""
import math

import numpy as np

CATEGORY = "loop"

Mat = np.ndarray[tuple[int, int], np.dtype[np.float64]]


def kmeans_assign(points: Mat, centers: Mat) -> tuple[np.ndarray[tuple[int], np.dtype[np.int64]], float]:
    n, d = points.shape
    k = centers.shape[0]
    assert k > 0, "kmeans_assign: need at least one centre"
    labels = np.empty(n, dtype=np.int64)
    inertia = 0.0
    for i, p in enumerate(points):
        best = math.inf
        best_j = -1
        for j in range(k):
            c = centers[j]
            dist = 0.0
            for t in range(d):
                diff = p[t] - c[t]
                dist += diff * diff
            if dist < best:
                best = dist
                best_j = j
        labels[i] = best_j
        inertia += best
    return labels, float(inertia)


ENTRY = "kmeans_assign"


def cases(rng: np.random.Generator) -> list[tuple]:
    def pts(n, d):
        return rng.standard_normal((n, d))

    return [
        (pts(0, 2), pts(3, 2)),
        (pts(1, 1), pts(1, 1)),
        (pts(4, 0), pts(2, 0)),
        (pts(7, 3), pts(2, 3)),
        (pts(101, 2), pts(5, 2)),
        (pts(997, 4), pts(8, 4)),
        (pts(5, 2), pts(0, 2)),  # no centres: fails the assert
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.standard_normal((5000, 3)), rng.standard_normal((8, 3)))

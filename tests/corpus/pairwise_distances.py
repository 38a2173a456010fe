"""Euclidean distance matrix between two point sets by broadcasting with None / np.newaxis (scipy.spatial.distance.cdist, metric='euclidean')."""
import numpy as np

CATEGORY = "array"

Points = np.ndarray[tuple[int, int], np.dtype[np.float64]]


def pairwise_distances(x: Points, y: Points):
    diff = x[:, None, :] - y[np.newaxis, :, :]
    return np.sqrt(np.sum(diff * diff, axis=-1))


ENTRY = "pairwise_distances"


def cases(rng: np.random.Generator) -> list[tuple]:
    def pts(n, d):
        return rng.standard_normal((n, d))

    return [
        (pts(0, 3), pts(0, 3)),
        (pts(0, 3), pts(4, 3)),
        (pts(1, 1), pts(1, 1)),
        (pts(3, 0), pts(2, 0)),
        (pts(7, 2), pts(13, 2)),
        (pts(101, 3), pts(31, 3)),
        (pts(50, 40), pts(50, 40)),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.standard_normal((1000, 3)), rng.standard_normal((333, 3)))

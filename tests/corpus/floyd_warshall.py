"""Floyd-Warshall all-pairs shortest paths, relaxing the distance matrix in place (math.inf marks a missing edge; graph textbooks, scipy.sparse.csgraph)."""
import math

import numpy as np

CATEGORY = "loop"


def floyd_warshall(dist: np.ndarray[tuple[int, int], np.dtype[np.float64]]):
    n = dist.shape[0]
    for k in range(n):
        for i in range(n):
            dik = dist[i, k]
            if dik == math.inf:
                continue
            for j in range(n):
                nd = dik + dist[k, j]
                if nd < dist[i, j]:
                    dist[i, j] = nd


ENTRY = "floyd_warshall"
MUTATES = (0,)


def _graph(rng, n, p):
    d = rng.random((n, n)) * 10.0
    d[rng.random((n, n)) > p] = math.inf
    for i in range(n):
        d[i, i] = 0.0
    return d


def cases(rng: np.random.Generator) -> list[tuple]:
    return [
        (np.zeros((0, 0)),),
        (np.zeros((1, 1)),),
        (_graph(rng, 2, 0.5),),
        (_graph(rng, 7, 0.3),),
        (_graph(rng, 13, 0.15),),
        (_graph(rng, 40, 0.1),),
        (_graph(rng, 23, 1.0),),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (_graph(rng, 60, 0.2),)

"""PageRank by power iteration on a dense adjacency matrix, with dangling nodes picked by a boolean mask and an L1 convergence test (networkx.pagerank)."""
import numpy as np

CATEGORY = "mixed"


def pagerank(adj: np.ndarray[tuple[int, int], np.dtype[np.float64]], damping: float = 0.85, tol: float = 1e-10,
             max_iter: int = 200) -> tuple[np.ndarray[tuple[int], np.dtype[np.float64]], int]:
    n = adj.shape[0]
    if n == 0:
        return np.zeros(0), 0
    out_deg = np.sum(adj, axis=1)
    dangling = out_deg == 0.0
    safe = np.where(dangling, 1.0, out_deg)
    p = adj / safe[:, None]
    r = np.full(n, 1.0 / n)
    it = 0
    while it < max_iter:
        dangling_mass = np.sum(r[dangling])
        new = damping * (r @ p) + (damping * dangling_mass + 1.0 - damping) / n
        err = np.sum(np.abs(new - r))
        r = new
        it += 1
        if err < n * tol:
            break
    return r, it


ENTRY = "pagerank"


def _graph(rng, n, p):
    a = (rng.random((n, n)) < p).astype(np.float64)
    for i in range(n):
        a[i, i] = 0.0
    return a


def cases(rng: np.random.Generator) -> list[tuple]:
    dangling = _graph(rng, 9, 0.3)
    dangling[2] = 0.0
    dangling[5] = 0.0
    weighted = _graph(rng, 31, 0.2) * rng.random((31, 31))
    return [
        (np.zeros((0, 0)),),
        (np.zeros((1, 1)),),
        (_graph(rng, 2, 1.0),),
        (dangling,),
        (_graph(rng, 7, 0.5), 0.5),
        (weighted, 0.9, 1e-12, 500),
        (_graph(rng, 97, 0.05),),
        (_graph(rng, 13, 0.3), 0.85, 1e-10, 3),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (_graph(rng, 1000, 0.01), 0.85, 1e-12, 100)

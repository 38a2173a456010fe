"""Cosine similarity between the rows of two matrices from row norms (np.linalg.norm, axis=1) and a matrix product with a transpose; all-zero rows give 0 (sklearn.metrics.pairwise.cosine_similarity)."""
import numpy as np

CATEGORY = "array"

Mat = np.ndarray[tuple[int, int], np.dtype[np.float64]]


def cosine_similarity(a: Mat, b: Mat, eps: float = 1e-12) -> Mat:
    na = np.linalg.norm(a, axis=1)
    nb = np.linalg.norm(b, axis=1)
    denom = np.maximum(na[:, None] * nb[None, :], eps)
    return (a @ b.T) / denom


ENTRY = "cosine_similarity"
# the matrix product may be summed in another order (BLAS); near-orthogonal rows lose relative digits
RTOL = 1e-6


def cases(rng: np.random.Generator) -> list[tuple]:
    zero_row = rng.standard_normal((4, 6))
    zero_row[1] = 0.0
    return [
        (rng.standard_normal((0, 3)), rng.standard_normal((0, 3))),
        (rng.standard_normal((1, 1)), rng.standard_normal((1, 1))),
        (zero_row, rng.standard_normal((3, 6))),
        (rng.standard_normal((7, 13)), rng.standard_normal((5, 13))),
        (rng.random((101, 31)), rng.random((53, 31)), 1e-8),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.standard_normal((1000, 64)), rng.standard_normal((1000, 64)))

"""Matrix product C = A @ B by the textbook triple loop in i-k-j order (teaching / Numba tutorial classic)."""
import numpy as np

CATEGORY = "loop"

Mat = np.ndarray[tuple[int, int], np.dtype[np.float64]]


def matmul_triple_loop(a: Mat, b: Mat) -> Mat:
    n, k = a.shape
    k2, m = b.shape
    assert k == k2, "matmul_triple_loop: inner dimensions must agree"
    c = np.zeros((n, m))
    for i in range(n):
        for p in range(k):
            aip = a[i, p]
            for j in range(m):
                c[i, j] += aip * b[p, j]
    return c


ENTRY = "matmul_triple_loop"


def cases(rng: np.random.Generator) -> list[tuple]:
    out = []
    for n, k, m in [(0, 0, 0), (0, 3, 2), (2, 0, 3), (1, 1, 1), (3, 5, 7), (7, 1, 4), (13, 11, 5), (17, 9, 23)]:
        out.append((rng.standard_normal((n, k)), rng.standard_normal((k, m))))
    # inner dimensions disagree: triggers the assert
    out.append((rng.standard_normal((3, 4)), rng.standard_normal((5, 2))))
    return out


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.standard_normal((60, 60)), rng.standard_normal((60, 60)))

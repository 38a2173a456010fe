"""Modified Gram-Schmidt QR factorisation of a tall float64 matrix: loop over columns with vector operations on column views (numerical linear algebra course)."""
import numpy as np

CATEGORY = "mixed"

Mat = np.ndarray[tuple[int, int], np.dtype[np.float64]]


def gram_schmidt(a: Mat) -> tuple[Mat, Mat]:
    m, n = a.shape
    if n > m:
        raise ValueError("gram_schmidt: need at least as many rows as columns")
    q = a.copy()
    r = np.zeros((n, n))
    for j in range(n):
        for i in range(j):
            r[i, j] = np.dot(q[:, i], q[:, j])
            q[:, j] -= r[i, j] * q[:, i]
        nrm = np.linalg.norm(q[:, j])
        if nrm < 1e-10:
            raise ValueError("gram_schmidt: columns are linearly dependent")
        r[j, j] = nrm
        q[:, j] /= nrm
    return q, r


ENTRY = "gram_schmidt"
# dot products may be summed in another order (BLAS, SIMD); the orthogonalisation amplifies that a little
RTOL = 1e-6


def cases(rng: np.random.Generator) -> list[tuple]:
    dependent = rng.standard_normal((6, 3))
    dependent[:, 2] = 2.0 * dependent[:, 0] - dependent[:, 1]
    return [
        (np.zeros((0, 0)),),
        (np.zeros((3, 0)),),
        (np.array([[3.0]]),),
        (rng.standard_normal((5, 1)),),
        (rng.standard_normal((7, 7)) + 7.0 * np.eye(7),),
        (rng.standard_normal((101, 13)),),
        (rng.standard_normal((2, 3)),),  # wide: raises ValueError
        (dependent,),  # rank deficient: raises ValueError
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.standard_normal((2000, 60)),)

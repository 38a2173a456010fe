"""7-point Laplacian of a 3-D float64 field, visiting every voxel with np.ndindex and skipping the boundary with continue (finite-difference / finite-volume codes)."""
import numpy as np

CATEGORY = "mixed"

Field3 = np.ndarray[tuple[int, int, int], np.dtype[np.float64]]


def laplacian_3d(u: Field3, h: float = 1.0) -> Field3:
    nx, ny, nz = u.shape
    out = np.zeros_like(u)
    inv_h2 = 1.0 / (h * h)
    for i, j, k in np.ndindex(u.shape):
        if i == 0 or j == 0 or k == 0 or i == nx - 1 or j == ny - 1 or k == nz - 1:
            continue
        out[i, j, k] = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
                        + u[i, j, k - 1] + u[i, j, k + 1] - 6.0 * u[i, j, k]) * inv_h2
    return out


ENTRY = "laplacian_3d"


def cases(rng: np.random.Generator) -> list[tuple]:
    return [
        (np.zeros((0, 0, 0)),),
        (np.ones((1, 1, 1)),),
        (rng.random((3, 3, 3)),),
        (rng.random((2, 5, 7)),),
        (rng.random((7, 5, 3)), 0.5),
        (rng.standard_normal((13, 11, 17)), 0.1),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.standard_normal((40, 40, 40)), 0.25)

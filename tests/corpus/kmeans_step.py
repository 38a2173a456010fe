"""One Lloyd iteration of k-means in NumPy: squared distances by broadcasting with np.newaxis, argmin labels, then a loop over clusters averaging the points picked by a boolean mask (empty clusters keep their centre)."""
import numpy as np

CATEGORY = "mixed"

Mat = np.ndarray[tuple[int, int], np.dtype[np.float64]]


def kmeans_step(points: Mat, centers: Mat) -> tuple[Mat, np.ndarray[tuple[int], np.dtype[np.int64]], float]:
    assert centers.shape[0] > 0, "kmeans_step: need at least one centre"
    d2 = np.sum((points[:, np.newaxis, :] - centers[np.newaxis, :, :]) ** 2, axis=2)
    labels = np.argmin(d2, axis=1)
    new_centers = centers.copy()
    for j in range(centers.shape[0]):
        mask = labels == j
        cnt = np.sum(mask)
        if cnt > 0:
            new_centers[j] = np.sum(points[mask], axis=0) / cnt
    inertia = float(np.sum(d2[np.arange(points.shape[0]), labels]))
    return new_centers, labels, inertia


ENTRY = "kmeans_step"


def cases(rng: np.random.Generator) -> list[tuple]:
    def blobs(n, d, k):
        c = rng.standard_normal((k, d)) * 5.0
        return c[rng.integers(0, k, size=n)] + rng.standard_normal((n, d)), c + rng.standard_normal((k, d))

    far = rng.standard_normal((3, 2))
    far[2] = 1000.0  # a centre nobody is closest to: stays where it is
    return [
        (rng.standard_normal((0, 2)), rng.standard_normal((3, 2))),
        (rng.standard_normal((1, 1)), rng.standard_normal((1, 1))),
        (rng.standard_normal((7, 2)), far),
        blobs(101, 3, 4),
        blobs(997, 2, 7),
        (rng.standard_normal((5, 2)), rng.standard_normal((0, 2))),  # no centres: fails the assert
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.standard_normal((100_000, 3)), rng.standard_normal((8, 3)))

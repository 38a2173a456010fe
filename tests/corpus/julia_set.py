"""Julia-set escape times computed on a whole complex128 grid at once: points are updated only where still bounded (boolean-mask read/write), with an early exit when all have escaped."""
import numpy as np

CATEGORY = "mixed"


def julia(z0: np.ndarray[tuple[int, int], np.dtype[np.complex128]], c: complex, maxiter: int = 40):
    z = z0.copy()
    counts = np.zeros(z.shape, dtype=np.int32)
    active = np.abs(z) <= 2.0
    for _ in range(maxiter):
        z[active] = z[active] * z[active] + c
        active = active & (np.abs(z) <= 2.0)
        counts[active] += 1
        if np.sum(active) == 0:
            break
    return counts


ENTRY = "julia"


def _grid(h, w, r=1.6):
    ys, xs = np.mgrid[-r:r:h * 1j, -r:r:w * 1j]
    return (xs + 1j * ys).astype(np.complex128)


def cases(rng: np.random.Generator) -> list[tuple]:
    return [
        (_grid(0, 0), -0.8 + 0.156j),
        (_grid(1, 1), 0.0j),
        (_grid(7, 5), -0.4 + 0.6j, 10),
        (_grid(31, 41), 0.285 + 0.01j),
        (_grid(40, 40, 3.0), 1.0 + 1.0j, 100),
        (_grid(64, 64), -0.7269 + 0.1889j, 60),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (_grid(300, 400), -0.8 + 0.156j, 60)

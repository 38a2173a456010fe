"""Mandelbrot escape-time counts on a grid with complex arithmetic and an early break (the classic Numba/Pythran/Cython benchmark)."""
import numpy as np

CATEGORY = "loop"

ESCAPE_RADIUS = 2.0


def mandelbrot(shape: tuple[int, int], xmin: float = -2.0, xmax: float = 0.5, ymin: float = -1.25,
               ymax: float = 1.25, maxiter: int = 50) -> np.ndarray[tuple[int, int], np.dtype[np.int32]]:
    h, w = shape
    out = np.zeros((h, w), dtype=np.int32)
    dx = (xmax - xmin) / max(w - 1, 1)
    dy = (ymax - ymin) / max(h - 1, 1)
    for i in range(h):
        y = ymin + i * dy
        for j in range(w):
            c = (xmin + j * dx) + y * 1j
            z = 0j
            n = 0
            while n < maxiter:
                z = z * z + c
                if abs(z) > ESCAPE_RADIUS:
                    break
                n += 1
            out[i, j] = n
    return out


ENTRY = "mandelbrot"


def cases(rng: np.random.Generator) -> list[tuple]:
    return [
        ((0, 0),),
        ((0, 5),),
        ((1, 1),),
        ((7, 13),),
        ((31, 41), -0.8, -0.6, 0.2, 0.4, 100),
        ((20, 20), -2.0, 2.0, -2.0, 2.0, 1),
        ((50, 60),),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return ((100, 150), -2.0, 0.5, -1.25, 1.25, 60)

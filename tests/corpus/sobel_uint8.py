"""Sobel gradient magnitude of a uint8 grey image by explicit 3x3 neighbourhood loops, border pixels left at 0 (OpenCV / scikit-image tutorials)."""
import math

import numpy as np

CATEGORY = "loop"


def sobel(img: np.ndarray[tuple[int, int], np.dtype[np.uint8]]) -> np.ndarray[tuple[int, int], np.dtype[np.float32]]:
    h, w = img.shape
    out = np.zeros((h, w), dtype=np.float32)
    for i in range(1, h - 1):
        for j in range(1, w - 1):
            # widen to Python ints first: uint8 arithmetic would wrap around
            p00 = int(img[i - 1, j - 1])
            p01 = int(img[i - 1, j])
            p02 = int(img[i - 1, j + 1])
            p10 = int(img[i, j - 1])
            p12 = int(img[i, j + 1])
            p20 = int(img[i + 1, j - 1])
            p21 = int(img[i + 1, j])
            p22 = int(img[i + 1, j + 1])
            gx = (p02 + 2 * p12 + p22) - (p00 + 2 * p10 + p20)
            gy = (p20 + 2 * p21 + p22) - (p00 + 2 * p01 + p02)
            out[i, j] = math.sqrt(gx * gx + gy * gy)
    return out


ENTRY = "sobel"


def _img(rng, h, w):
    return rng.integers(0, 256, size=(h, w)).astype(np.uint8)


def cases(rng: np.random.Generator) -> list[tuple]:
    step = np.zeros((9, 12), dtype=np.uint8)
    step[:, 6:] = 255
    return [
        (_img(rng, 0, 0),),
        (_img(rng, 1, 1),),
        (_img(rng, 2, 5),),
        (_img(rng, 3, 3),),
        (_img(rng, 7, 11),),
        (step,),
        (_img(rng, 64, 97),),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (_img(rng, 160, 200),)

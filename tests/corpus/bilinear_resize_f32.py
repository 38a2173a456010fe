"""Bilinear resize of a float32 image to (height, width) with corner pixels aligned, one output row at a time using integer-array (fancy) indexing for the column lookups (cv2.resize / skimage.transform.resize, order=1)."""
import math

import numpy as np

CATEGORY = "mixed"

Image32 = np.ndarray[tuple[int, int], np.dtype[np.float32]]


def bilinear_resize(img: Image32, out_shape: tuple[int, int]) -> Image32:
    h, w = img.shape
    oh, ow = out_shape
    if h == 0 or w == 0:
        raise ValueError("bilinear_resize: cannot resize an empty image")
    out = np.zeros((oh, ow), dtype=np.float32)
    sx = (w - 1) / max(ow - 1, 1)
    sy = (h - 1) / max(oh - 1, 1)
    xs = np.arange(ow) * sx
    x0 = np.minimum(np.floor(xs).astype(np.int64), w - 1)
    x1 = np.minimum(x0 + 1, w - 1)
    fx = (xs - x0).astype(np.float32)
    for i in range(oh):
        y = i * sy
        y0 = min(int(math.floor(y)), h - 1)
        y1 = min(y0 + 1, h - 1)
        fy = y - y0
        top = img[y0][x0] * (1.0 - fx) + img[y0][x1] * fx
        bottom = img[y1][x0] * (1.0 - fx) + img[y1][x1] * fx
        out[i] = top * (1.0 - fy) + bottom * fy
    return out


ENTRY = "bilinear_resize"


def cases(rng: np.random.Generator) -> list[tuple]:
    def im(h, w):
        return rng.random((h, w)).astype(np.float32)

    return [
        (im(1, 1), (0, 0)),
        (im(1, 1), (3, 5)),
        (im(2, 2), (1, 1)),
        (im(4, 6), (7, 11)),
        (im(13, 17), (5, 3)),
        (im(31, 29), (64, 80)),
        (im(0, 4), (2, 2)),  # empty image: raises ValueError
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.random((480, 640)).astype(np.float32), (960, 1280))

"""Histogram equalisation of a uint8 grey image: histogram by a loop over the flattened pixels, the CDF with np.cumsum, and a lookup table applied by fancy indexing (cv2.equalizeHist)."""
import numpy as np

CATEGORY = "mixed"

Image8 = np.ndarray[tuple[int, int], np.dtype[np.uint8]]


def equalize_hist(img: Image8) -> Image8:
    flat = img.reshape(-1)
    n = flat.shape[0]
    if n == 0:
        return img.copy()
    hist = np.zeros(256, dtype=np.int64)
    for v in flat:
        hist[v] += 1
    cdf = np.cumsum(hist)
    cdf_min = cdf[hist > 0][0]
    if cdf_min == n:
        return img.copy()  # constant image
    lut = np.floor((cdf - cdf_min) * 255.0 / (n - cdf_min) + 0.5)
    lut = np.clip(lut, 0, 255).astype(np.uint8)
    return lut[img]


ENTRY = "equalize_hist"


def cases(rng: np.random.Generator) -> list[tuple]:
    def im(h, w, lo=0, hi=256):
        return rng.integers(lo, hi, size=(h, w)).astype(np.uint8)

    return [
        (im(0, 0),),
        (im(1, 1),),
        (np.full((3, 5), 77, dtype=np.uint8),),
        (im(7, 11, 100, 140),),
        (im(31, 37, 0, 40),),
        ((rng.normal(120.0, 20.0, (64, 97)).clip(0, 255)).astype(np.uint8),),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return ((rng.normal(120.0, 30.0, (400, 400)).clip(0, 255)).astype(np.uint8),)

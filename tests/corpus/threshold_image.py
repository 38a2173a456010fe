"""Binary thresholding of a uint8 image with boolean masks written in place into a copy (cv2.threshold THRESH_BINARY / THRESH_BINARY_INV), returning the image and the foreground pixel count."""
import numpy as np

CATEGORY = "array"

Image8 = np.ndarray[tuple[int, int], np.dtype[np.uint8]]


def threshold(img: Image8, t: int, invert: bool = False) -> tuple[Image8, int]:
    out = np.copy(img)
    mask = img > t
    if invert:
        mask = ~mask
    out[mask] = 255
    out[~mask] = 0
    return out, int(np.sum(mask))


ENTRY = "threshold"


def cases(rng: np.random.Generator) -> list[tuple]:
    def im(h, w):
        return rng.integers(0, 256, size=(h, w)).astype(np.uint8)

    return [
        (im(0, 0), 128),
        (im(1, 1), 0),
        (im(3, 7), 255),
        (im(13, 11), 100, True),
        (im(64, 97), 128),
        (im(5, 5), 0, True),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.integers(0, 256, size=(1000, 1000)).astype(np.uint8), 127)

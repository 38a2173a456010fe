"""RGB (or BGR) to grey luma with ITU-R BT.601 weights in integer fixed point, L = (299 R + 587 G + 114 B + 500) // 1000, on a uint8 H x W x 3 image (PIL Image.convert('L'))."""
import numpy as np

CATEGORY = "array"

# weights in thousandths: integer arithmetic avoids float rounding ties at .5
R_WEIGHT = 299
G_WEIGHT = 587
B_WEIGHT = 114


def rgb_to_grey(img: np.ndarray[tuple[int, int, int], np.dtype[np.uint8]],
                bgr: bool = False) -> np.ndarray[tuple[int, int], np.dtype[np.uint8]]:
    if img.shape[2] != 3:
        raise ValueError("rgb_to_grey: expected an H x W x 3 image")
    if bgr:
        img = img[:, :, ::-1]
    wide = img.astype(np.int32)  # uint8 products would wrap around
    y = (R_WEIGHT * wide[:, :, 0] + G_WEIGHT * wide[:, :, 1] + B_WEIGHT * wide[:, :, 2] + 500) // 1000
    return np.clip(y, 0, 255).astype(np.uint8)


ENTRY = "rgb_to_grey"


def cases(rng: np.random.Generator) -> list[tuple]:
    def im(h, w, c=3):
        return rng.integers(0, 256, size=(h, w, c)).astype(np.uint8)

    return [
        (im(0, 0),),
        (im(1, 1),),
        (np.full((2, 3, 3), 255, dtype=np.uint8),),
        (im(7, 5), True),
        (im(31, 37),),
        (im(50, 64), True),
        (im(4, 4, 4),),  # four channels: raises ValueError
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.integers(0, 256, size=(600, 600, 3)).astype(np.uint8),)

"""'Valid' 2-D cross-correlation of a float32 image with a 3x3 float32 filter by four nested loops (what a CNN conv layer or scipy.signal.correlate2d computes)."""
import numpy as np

CATEGORY = "loop"

Image32 = np.ndarray[tuple[int, int], np.dtype[np.float32]]


def conv3x3(img: Image32, k: Image32) -> Image32:
    if k.shape[0] != 3 or k.shape[1] != 3:
        raise ValueError("conv3x3: the filter must be 3x3")
    h, w = img.shape
    oh = max(h - 2, 0)
    ow = max(w - 2, 0)
    out = np.zeros((oh, ow), dtype=np.float32)
    for i in range(oh):
        for j in range(ow):
            acc = 0.0
            for di in range(3):
                for dj in range(3):
                    acc += img[i + di, j + dj] * k[di, dj]
            out[i, j] = acc
    return out


ENTRY = "conv3x3"


def cases(rng: np.random.Generator) -> list[tuple]:
    def im(h, w):
        return rng.standard_normal((h, w)).astype(np.float32)

    blur = np.full((3, 3), 1.0 / 9.0, dtype=np.float32)
    return [
        (im(0, 0), blur),
        (im(1, 1), blur),
        (im(3, 3), im(3, 3)),
        (im(5, 2), blur),
        (im(7, 11), im(3, 3)),
        (im(61, 53), im(3, 3)),
        (im(5, 5), im(2, 3)),  # wrong filter shape: raises ValueError
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.standard_normal((130, 130)).astype(np.float32), rng.standard_normal((3, 3)).astype(np.float32))

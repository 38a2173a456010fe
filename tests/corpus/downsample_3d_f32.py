"""2x2x2 average-pool downsampling of a float32 3-D volume with strided slices (v[0::2, 1::2, ...]), odd edges dropped (microscopy / medical-imaging pyramids)."""
import numpy as np

CATEGORY = "array"

Volume = np.ndarray[tuple[int, int, int], np.dtype[np.float32]]


def downsample2(v: Volume) -> Volume:
    nx, ny, nz = v.shape
    c = v[:nx - nx % 2, :ny - ny % 2, :nz - nz % 2]
    s = (c[0::2, 0::2, 0::2] + c[1::2, 0::2, 0::2] + c[0::2, 1::2, 0::2] + c[0::2, 0::2, 1::2]
         + c[1::2, 1::2, 0::2] + c[1::2, 0::2, 1::2] + c[0::2, 1::2, 1::2] + c[1::2, 1::2, 1::2])
    return s * 0.125


ENTRY = "downsample2"


def cases(rng: np.random.Generator) -> list[tuple]:
    def vol(*shape):
        return rng.random(shape).astype(np.float32)

    return [(vol(0, 0, 0),), (vol(1, 1, 1),), (vol(2, 2, 2),), (vol(3, 5, 7),), (vol(8, 6, 4),),
            (vol(13, 17, 11),), (vol(20, 21, 22),)]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.random((100, 100, 100)).astype(np.float32),)

"""Clip a float32 array of any rank to [lo, hi] and rescale it to [0, 1] (image / audio preprocessing), with rank-open npt.NDArray annotations and float32 scalar bounds."""
import numpy as np
import numpy.typing as npt

CATEGORY = "array"


def clip_normalize(x: npt.NDArray[np.float32], lo: np.float32, hi: np.float32) -> npt.NDArray[np.float32]:
    if not hi > lo:
        raise ValueError("clip_normalize: hi must be greater than lo")
    y = np.clip(x, lo, hi)
    return (y - lo) / (hi - lo)


ENTRY = "clip_normalize"


def cases(rng: np.random.Generator) -> list[tuple]:
    f32 = np.float32

    def arr(*shape):
        return (rng.standard_normal(shape) * 2.0).astype(f32)

    return [
        (arr(0), f32(-1.0), f32(1.0)),
        (arr(1), f32(0.0), f32(0.5)),
        (arr(7), f32(-1.0), f32(1.0)),
        (arr(13, 11), f32(-0.5), f32(2.0)),
        (arr(5, 7, 3), f32(0.0), f32(1.0)),
        (arr(4, 4), f32(1.0), f32(1.0)),  # empty range: raises ValueError
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return ((rng.standard_normal((1000, 1000)) * 2.0).astype(np.float32), np.float32(-1.0), np.float32(1.0))

"""Summary statistics of an int32 data cube (time x rows x cols): sums, argmax/argmin over time, keepdims maxima, transposes, reshapes, means and products of signs (sensor / remote-sensing reductions)."""
import numpy as np

CATEGORY = "array"

Cube = np.ndarray[tuple[int, int, int], np.dtype[np.int32]]


def cube_stats(cube: Cube):
    t, h, w = cube.shape
    total = np.sum(cube, axis=0)                      # int32 sums promote to int64
    peak_time = np.argmax(cube, axis=0)
    low_time = cube.argmin(axis=0)
    row_max = cube.max(axis=2, keepdims=True)
    below_max = (row_max - cube).T                    # int32, axes reversed
    flat = np.reshape(cube, (t, h * w))
    frame_min = flat.min(axis=1)
    frame_mean = np.mean(flat, axis=1)
    sign_prod = np.prod(np.where(cube >= 0, 1, -1), axis=0)
    grand_max = np.max(cube)
    return total, peak_time, low_time, below_max, frame_min, frame_mean, sign_prod, grand_max


ENTRY = "cube_stats"


def cases(rng: np.random.Generator) -> list[tuple]:
    # not defined for empty input: argmax/min/max over an empty axis raise ValueError in NumPy
    def cube(*shape):
        return rng.integers(-1000, 1000, size=shape).astype(np.int32)

    return [(cube(1, 1, 1),), (cube(2, 3, 1),), (cube(3, 5, 7),), (cube(7, 13, 11),), (cube(11, 31, 29),)]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.integers(-1000, 1000, size=(50, 150, 150)).astype(np.int32),)

"""Per-column min-max scaling to [lo, hi] with a nested helper closing over the column statistics and a clipping lambda (sklearn MinMaxScaler(clip=True))."""
import numpy as np

CATEGORY = "mixed"


def minmax_scale(x: np.ndarray[tuple[int, int], np.dtype[np.float64]], lo: float = 0.0, hi: float = 1.0,
                 clip: bool = True):
    out = np.empty_like(x)
    if x.shape[0] == 0:
        return out
    span_out = hi - lo
    clamp = lambda v: np.clip(v, lo, hi)
    for j in range(x.shape[1]):
        col = x[:, j]
        cmin = np.min(col)
        width = np.max(col) - cmin

        def scale(v):
            # reads cmin, width (this column) and lo, span_out (enclosing function)
            if width == 0.0:
                return np.ones_like(v) * lo
            return lo + (v - cmin) / width * span_out

        y = scale(col)
        out[:, j] = clamp(y) if clip else y
    return out


ENTRY = "minmax_scale"


def cases(rng: np.random.Generator) -> list[tuple]:
    const = rng.standard_normal((6, 3))
    const[:, 1] = 2.5
    return [
        (np.zeros((0, 3)),),
        (np.zeros((4, 0)),),
        (np.array([[7.0]]),),
        (const, -1.0, 1.0),
        (rng.standard_normal((7, 2)), 0.2, 0.8, False),
        (rng.standard_normal((101, 5)) * 10.0, 0.0, 255.0),
        (rng.exponential(1.0, (997, 3)), 1.0, 0.0),
        (rng.exponential(1.0, (13, 3)), 1.0, 0.0, False),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.standard_normal((50_000, 20)),)

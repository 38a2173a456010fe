"""Forward pass of a two-layer perceptron in float32: np.matmul / @, bias broadcasting, ReLU with np.maximum and a tanh output (a typical inference kernel)."""
import numpy as np

CATEGORY = "array"

Mat32 = np.ndarray[tuple[int, int], np.dtype[np.float32]]
Vec32 = np.ndarray[tuple[int], np.dtype[np.float32]]


def mlp_forward(x: Mat32, w1: Mat32, b1: Vec32, w2: Mat32, b2: Vec32):
    h = np.maximum(np.matmul(x, w1) + b1, 0.0)
    return np.tanh(h @ w2 + b2)


ENTRY = "mlp_forward"


def _net(rng, n, d, hidden, out):
    f32 = np.float32
    return (rng.standard_normal((n, d)).astype(f32),
            (rng.standard_normal((d, hidden)) / np.sqrt(max(d, 1))).astype(f32),
            (rng.standard_normal(hidden) * 0.1).astype(f32),
            (rng.standard_normal((hidden, out)) / np.sqrt(hidden)).astype(f32),
            (rng.standard_normal(out) * 0.1).astype(f32))


def cases(rng: np.random.Generator) -> list[tuple]:
    return [_net(rng, 0, 4, 8, 2), _net(rng, 1, 1, 1, 1), _net(rng, 7, 3, 5, 2), _net(rng, 13, 0, 4, 3),
            _net(rng, 101, 16, 32, 4), _net(rng, 64, 31, 17, 10)]


def bench_args(rng: np.random.Generator) -> tuple:
    return _net(rng, 20_000, 50, 64, 10)

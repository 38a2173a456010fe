"""Layer normalisation over the last axis followed by the tanh-approximated GELU, in float32 (a transformer MLP block as in BERT / GPT-2)."""
import math

import numpy as np

CATEGORY = "array"

GELU_C = math.sqrt(2.0 / math.pi)

Mat32 = np.ndarray[tuple[int, int], np.dtype[np.float32]]
Vec32 = np.ndarray[tuple[int], np.dtype[np.float32]]


def layernorm_gelu(x: Mat32, gamma: Vec32, beta: Vec32, eps: float = 1e-5) -> Mat32:
    mu = np.mean(x, axis=-1, keepdims=True)
    xc = x - mu
    var = np.mean(xc * xc, axis=-1, keepdims=True)
    y = xc / np.sqrt(var + eps) * gamma + beta
    return 0.5 * y * (1.0 + np.tanh(GELU_C * (y + 0.044715 * y * y * y)))


ENTRY = "layernorm_gelu"


def cases(rng: np.random.Generator) -> list[tuple]:
    # rows must be non-empty: the mean of an empty row is NaN with a RuntimeWarning
    def data(n, d):
        f32 = np.float32
        return (rng.standard_normal((n, d)).astype(f32) * f32(3.0) + f32(1.0),
                (1.0 + 0.1 * rng.standard_normal(d)).astype(f32), (0.1 * rng.standard_normal(d)).astype(f32))

    return [data(0, 8), data(1, 1), data(3, 7), (*data(13, 64), 1e-6), data(101, 31)]


def bench_args(rng: np.random.Generator) -> tuple:
    f32 = np.float32
    return (rng.standard_normal((4096, 256)).astype(f32), np.ones(256, dtype=f32), np.zeros(256, dtype=f32))

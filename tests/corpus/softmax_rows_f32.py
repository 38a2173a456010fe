"""Numerically stable row-wise softmax of float32 logits with temperature, using keepdims reductions (every neural-network framework)."""
import numpy as np

CATEGORY = "array"

Logits = np.ndarray[tuple[int, int], np.dtype[np.float32]]


def softmax(x: Logits, temperature: float = 1.0) -> Logits:
    z = x / temperature
    z = z - np.max(z, axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


ENTRY = "softmax"


def cases(rng: np.random.Generator) -> list[tuple]:
    # rows must be non-empty: the max over an empty row is undefined (NumPy raises ValueError)
    def logits(n, k, scale=1.0):
        return (rng.standard_normal((n, k)) * scale).astype(np.float32)

    return [
        (logits(0, 5),),
        (logits(1, 1),),
        (logits(3, 7), 0.5),
        (logits(13, 11, 30.0),),
        (logits(101, 10), 2.0),
        (logits(64, 97, 5.0), 0.1),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return ((rng.standard_normal((10_000, 100)) * 3.0).astype(np.float32),)

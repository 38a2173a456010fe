"""One-hot encoding of integer class labels with the fancy-index write out[np.arange(n), labels] = 1 (keras.utils.to_categorical), plus per-class counts."""
import numpy as np

CATEGORY = "array"


def one_hot(labels: np.ndarray[tuple[int], np.dtype[np.int64]],
            num_classes: int) -> tuple[np.ndarray[tuple[int, int], np.dtype[np.float32]], np.ndarray[tuple[int], np.dtype[np.float32]]]:
    n = labels.shape[0]
    if n > 0 and (np.max(labels) >= num_classes or np.min(labels) < 0):
        raise ValueError("one_hot: label out of range")
    out = np.zeros((n, num_classes), dtype=np.float32)
    out[np.arange(n), labels] = 1.0
    return out, np.sum(out, axis=0)


ENTRY = "one_hot"


def cases(rng: np.random.Generator) -> list[tuple]:
    def labels(n, k):
        return rng.integers(0, k, size=n).astype(np.int64)

    return [
        (labels(0, 3), 3),
        (labels(1, 1), 1),
        (labels(7, 5), 5),
        (labels(101, 10), 13),
        (labels(997, 7), 7),
        (np.array([0, 3, 1], dtype=np.int64), 3),  # label 3 >= 3 classes: raises ValueError
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.integers(0, 10, size=100_000).astype(np.int64), 10)

"""Mean binary cross-entropy from logits computed stably (PyTorch BCEWithLogitsLoss with pos_weight) and the accuracy of the thresholded sigmoid, labels given as int32."""
import numpy as np

CATEGORY = "array"


def bce_with_logits(logits: np.ndarray[tuple[int], np.dtype[np.float64]],
                    labels: np.ndarray[tuple[int], np.dtype[np.int32]], pos_weight: float = 1.0) -> tuple[float, float]:
    n = logits.shape[0]
    if n == 0:
        return 0.0, 0.0
    y = labels.astype(np.float64)
    log_w = 1.0 + (pos_weight - 1.0) * y
    softplus_neg = np.log(1.0 + np.exp(-np.abs(logits))) + np.maximum(-logits, 0.0)
    loss = (1.0 - y) * logits + log_w * softplus_neg
    prob = np.where(logits >= 0.0, 1.0 / (1.0 + np.exp(-np.abs(logits))),
                    np.exp(-np.abs(logits)) / (1.0 + np.exp(-np.abs(logits))))
    correct = (prob > 0.5) == (labels == 1)
    return float(np.mean(loss)), float(np.sum(correct) / n)


ENTRY = "bce_with_logits"


def cases(rng: np.random.Generator) -> list[tuple]:
    def data(n, scale=2.0):
        return rng.standard_normal(n) * scale, rng.integers(0, 2, size=n).astype(np.int32)

    return [
        data(0),
        data(1),
        (np.array([-800.0, 0.0, 800.0]), np.array([0, 1, 1], dtype=np.int32)),
        (*data(7), 3.0),
        data(101, 10.0),
        (*data(9973), 0.5),
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.standard_normal(1_000_000) * 3.0, rng.integers(0, 2, size=1_000_000).astype(np.int32))

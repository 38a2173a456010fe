"""Agreement between two boolean segmentation masks: intersection, union, symmetric difference, true negatives and IoU via & | ^ ~ and np.logical_and/or/not (segmentation evaluation)."""
import numpy as np

CATEGORY = "array"

Mask = np.ndarray[tuple[int, int], np.dtype[np.bool_]]


def mask_agreement(a: Mask, b: Mask) -> tuple[int, int, int, int, float]:
    assert a.shape == b.shape, "mask_agreement: masks must have the same shape"
    inter = np.logical_and(a, b)
    union = a | b
    xor = a ^ b
    both_off = ~a & ~b
    agree = np.logical_not(xor)
    also_union = np.logical_or(inter, xor)
    n_inter = int(np.sum(inter))
    n_union = int(np.sum(union))
    iou = n_inter / n_union if n_union > 0 else 1.0
    return n_inter, int(np.sum(also_union)), int(np.sum(xor)), int(np.sum(both_off & agree)), iou


ENTRY = "mask_agreement"


def cases(rng: np.random.Generator) -> list[tuple]:
    def m(h, w, p=0.5):
        return rng.random((h, w)) < p

    a = m(31, 37)
    return [
        (m(0, 0), m(0, 0)),
        (m(1, 1), m(1, 1)),
        (np.zeros((3, 5), dtype=bool), np.zeros((3, 5), dtype=bool)),
        (m(7, 11, 0.3), m(7, 11, 0.6)),
        (a, a.copy()),
        (m(64, 97), m(64, 97)),
        (m(3, 4), m(4, 3)),  # shapes differ: fails the assert
    ]


def bench_args(rng: np.random.Generator) -> tuple:
    return (rng.random((1000, 1000)) < 0.4, rng.random((1000, 1000)) < 0.5)

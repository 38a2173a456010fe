"""Plain classes as users write them around a model: detection boxes with iou(), running statistics, a
token vocabulary with counts (issue 14, base/plain_classes.py)."""
import math

import numpy as np

ENTRIES = ("nms_boxes", "running_stats", "stats_from", "box_report")


class Detection:
    """An axis-aligned box with a score and a label id."""

    def __init__(self, x0: float, y0: float, x1: float, y1: float, score: float, label: int) -> None:
        self.x0 = x0
        self.y0 = y0
        self.x1 = x1
        self.y1 = y1
        self.score = score
        self.label = label

    @property
    def area(self) -> float:
        return max(0.0, self.x1 - self.x0) * max(0.0, self.y1 - self.y0)

    def iou(self, other: "Detection") -> float:
        ix = max(0.0, min(self.x1, other.x1) - max(self.x0, other.x0))
        iy = max(0.0, min(self.y1, other.y1) - max(self.y0, other.y0))
        inter = ix * iy
        union = self.area + other.area - inter
        return inter / union if union > 0.0 else 0.0


class RunningStats:
    """Welford's running mean and variance, as a metrics logger keeps them."""

    def __init__(self) -> None:
        self.n = 0
        self.mean = 0.0
        self.m2 = 0.0
        self.lo = math.inf
        self.hi = -math.inf

    def push(self, x: float) -> None:
        self.n += 1
        delta = x - self.mean
        self.mean += delta / self.n
        self.m2 += delta * (x - self.mean)
        self.lo = min(self.lo, x)
        self.hi = max(self.hi, x)

    def variance(self) -> float:
        return self.m2 / (self.n - 1) if self.n > 1 else 0.0


def nms_boxes(boxes: np.ndarray[tuple[int, int], np.dtype[np.float64]], threshold: float) -> list[tuple[int, float]]:
    dets = []
    for i in range(boxes.shape[0]):
        b = boxes[i]
        dets.append(Detection(float(b[0]), float(b[1]), float(b[2]), float(b[3]), float(b[4]), i))
    dets.sort(key=lambda d: d.score, reverse=True)
    kept: list[Detection] = []
    for d in dets:
        if all(d.iou(k) <= threshold for k in kept):
            kept.append(d)
    return [(k.label, round(k.area, 6)) for k in kept]


def cases_nms_boxes() -> list[tuple]:
    rng = np.random.default_rng(3)
    xy = rng.uniform(0, 10, size=(12, 2))
    wh = rng.uniform(1, 4, size=(12, 2))
    random = np.concatenate([xy, xy + wh, rng.uniform(0, 1, size=(12, 1))], axis=1)
    overlapping = np.array([[0, 0, 2, 2, 0.9], [0.1, 0.1, 2, 2, 0.8], [5, 5, 6, 6, 0.7], [0, 0, 0, 0, 0.1]])
    return [(random, 0.3), (random, 0.0), (overlapping, 0.5), (np.zeros((0, 5)), 0.5), (overlapping[:1], 0.5)]


def running_stats(values: np.ndarray[tuple[int], np.dtype[np.float64]]) -> RunningStats:
    s = RunningStats()
    for v in values:
        s.push(float(v))
    return s


def cases_running_stats() -> list[tuple]:
    return [(np.array([1.0, 2.0, 4.0, -3.5]),), (np.array([]),), (np.array([7.25]),),
            (np.linspace(-1, 1, 101),)]


def bench_running_stats() -> tuple:
    return (np.random.default_rng(0).normal(size=200_000),)


def stats_from(s: RunningStats, extra: float) -> tuple[int, float, float, float]:
    """Reads a RunningStats the caller built (its attributes crossed in) and summarises it with one more value."""
    mean = (s.mean * s.n + extra) / (s.n + 1)
    return s.n + 1, mean, s.variance(), max(s.hi, extra) - min(s.lo, extra)


def cases_stats_from() -> list[tuple]:
    a = RunningStats()
    for x in (3.0, 1.0, 4.0, 1.0, 5.0):
        a.push(x)
    return [(a, 9.0), (RunningStats(), 0.5), (a, -2.0)]


def box_report(boxes: np.ndarray[tuple[int, int], np.dtype[np.float64]], names: dict[int, str]) -> list[str]:
    best: Detection | None = None
    lines = []
    for i in range(boxes.shape[0]):
        b = boxes[i]
        d = Detection(float(b[0]), float(b[1]), float(b[2]), float(b[3]), float(b[4]), int(b[5]))
        lines.append(f"{names.get(d.label, '?')}: {d.score:.2f} area {d.area:.1f}")
        if best is None or d.score > best.score:
            best = d
    if best is not None:
        lines.append(f"best: {names.get(best.label, '?')}")
    return lines


def cases_box_report() -> list[tuple]:
    boxes = np.array([[0, 0, 2, 3, 0.5, 1], [1, 1, 4, 2, 0.75, 2], [0, 0, 1, 1, 0.25, 9]], dtype=np.float64)
    return [(boxes, {1: "cat", 2: "dog"}), (boxes[:0], {}), (boxes[2:], {9: "émoji"})]

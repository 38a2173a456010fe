"""Functions that use features other helpers are building (issue 14): generators, records, Literal, Enum, PIL."""
import dataclasses
import enum
from typing import Literal, NamedTuple

import numpy as np
from PIL import Image

ENTRIES = ("detections_above", "iter_tokens", "sliding_windows", "batched_ids", "first_match", "text_stats",
           "parse_detection", "config_from_text", "best_detection", "resize", "normalise_case", "split_counts",
           "split_sizes", "priority_of", "grey_thumbnail", "image_histogram", "invert_image")
REQUIRES = {"detections_above": "generators", "iter_tokens": "generators", "sliding_windows": "generators",
            "batched_ids": "generators", "first_match": "generators", "text_stats": "records",
            "parse_detection": "records", "config_from_text": "records", "best_detection": "records",
            "resize": "literal", "normalise_case": "literal", "split_counts": "enum", "split_sizes": "enum", "priority_of": "enum",
            "grey_thumbnail": "pil", "image_histogram": "pil", "invert_image": "pil"}
# gaps beyond the awaited feature that these functions hit first (the test expects exactly that text)
KNOWN = {"grey_thumbnail": "PIL.Image.Image.convert() is not supported in compiled code",
         "split_counts": "a dict keeps one value type",
         "image_histogram": "PIL.Image.Image.convert() is not supported in compiled code"}

F1 = np.ndarray[tuple[int], np.dtype[np.float64]]
U8_2 = np.ndarray[tuple[int, int], np.dtype[np.uint8]]


def detections_above(scores: F1, threshold: float):
    for i, s in enumerate(scores):
        if s >= threshold:
            yield i, float(s)


def cases_detections_above() -> list[tuple]:
    return [(np.array([0.1, 0.9, 0.5, 0.7]), 0.5), (np.zeros(0), 0.5), (np.array([0.2]), 0.9)]


def iter_tokens(text: str):
    for w in text.split():
        w = w.strip(".,!?").lower()
        if not w:
            continue
        if w == "stop":
            return
        yield w


def cases_iter_tokens() -> list[tuple]:
    return [("Hello, world! Again.",), ("",), ("a b stop c d",), ("... !!",)]


def sliding_windows(text: str, n: int):
    words = text.split()
    if n <= 0:
        raise ValueError("n must be positive")
    for i in range(len(words) - n + 1):
        yield " ".join(words[i:i + n])


def cases_sliding_windows() -> list[tuple]:
    return [("a b c d", 2), ("a b", 3), ("", 1), ("x y", 0)]


def batched_ids(ids: np.ndarray[tuple[int], np.dtype[np.int64]], size: int):
    for start in range(0, len(ids), size):
        yield from ids[start:start + size].tolist()


def cases_batched_ids() -> list[tuple]:
    return [(np.arange(7), 3), (np.zeros(0, np.int64), 2)]


def first_match(text: str, prefix: str) -> str:
    return next((w for w in text.split() if w.startswith(prefix)), "")


def cases_first_match() -> list[tuple]:
    return [("apple banana avocado", "av"), ("apple", "z"), ("", "")]


@dataclasses.dataclass(frozen=True)
class TextStats:
    words: int
    chars: int
    longest: str
    mean_length: float


def text_stats(text: str) -> TextStats:
    words = text.split()
    longest = max(words, key=len) if words else ""
    mean = sum(len(w) for w in words) / len(words) if words else 0.0
    return TextStats(len(words), len(text), longest, mean)


def cases_text_stats() -> list[tuple]:
    return [("the quick brown fox",), ("",), ("héllo",)]


class Detection(NamedTuple):
    label: str
    score: float
    box: tuple[int, int, int, int]


def parse_detection(line: str) -> Detection:
    label, score, box = line.split(";")
    x0, y0, x1, y1 = (int(v) for v in box.split(","))
    return Detection(label.strip(), float(score), (x0, y0, x1, y1))


def cases_parse_detection() -> list[tuple]:
    return [("cat; 0.9; 1,2,3,4",), ("dog;x;1,2,3,4",), ("a;0.5",)]


@dataclasses.dataclass
class Config:
    lr: float = 0.001
    epochs: int = 10
    name: str = "run"


def config_from_text(text: str) -> Config:
    cfg = Config()
    for part in text.split(","):
        key, _, value = part.partition("=")
        key = key.strip()
        if key == "lr":
            cfg.lr = float(value)
        elif key == "epochs":
            cfg.epochs = int(value)
        elif key == "name":
            cfg.name = value.strip()
        elif key:
            raise KeyError(key)
    return cfg


def cases_config_from_text() -> list[tuple]:
    return [("lr=0.1, epochs=3",), ("",), ("name= exp1 ",), ("momentum=0.9",)]


def best_detection(scores: F1, labels: str) -> Detection:
    names = labels.split(",")
    i = int(np.argmax(scores))
    return Detection(names[i], float(scores[i]), (0, 0, 0, 0))


def cases_best_detection() -> list[tuple]:
    return [(np.array([0.1, 0.8, 0.3]), "a,b,c"), (np.array([0.5]), "only")]


def resize(img: U8_2, h: int, w: int, mode: Literal["bilinear", "nearest"]) -> U8_2:
    ys = np.arange(h) * (img.shape[0] / h)
    xs = np.arange(w) * (img.shape[1] / w)
    if mode == "nearest":
        return img[ys.astype(np.int64)][:, xs.astype(np.int64)]
    y0 = np.minimum(ys.astype(np.int64), img.shape[0] - 1)
    x0 = np.minimum(xs.astype(np.int64), img.shape[1] - 1)
    y1 = np.minimum(y0 + 1, img.shape[0] - 1)
    x1 = np.minimum(x0 + 1, img.shape[1] - 1)
    fy = (ys - y0)[:, None]
    fx = (xs - x0)[None, :]
    f = img.astype(np.float64)
    top = f[y0][:, x0] * (1 - fx) + f[y0][:, x1] * fx
    bottom = f[y1][:, x0] * (1 - fx) + f[y1][:, x1] * fx
    return np.clip(top * (1 - fy) + bottom * fy + 0.5, 0, 255).astype(np.uint8)


def cases_resize() -> list[tuple]:
    img = (np.arange(48, dtype=np.uint8) * 5).reshape(6, 8)
    # no case outside the Literal: CPython does not check it, compiled code raises ValueError (issue 14's choice)
    return [(img, 3, 4, "nearest"), (img, 12, 5, "bilinear")]


def normalise_case(text: str, case: Literal["lower", "upper", "keep"] = "lower") -> str:
    words = text.split()
    if case == "lower":
        return " ".join(words).lower()
    if case == "upper":
        return " ".join(words).upper()
    return " ".join(words)


def cases_normalise_case() -> list[tuple]:
    return [("  Hello  World ",), ("Straße", "upper"), ("a  B", "keep")]


class Split(enum.Enum):
    TRAIN = "train"
    VAL = "val"
    TEST = "test"


def split_counts(ids: np.ndarray[tuple[int], np.dtype[np.int64]], split: Split) -> dict[str, int]:
    fraction = {Split.TRAIN: 0.8, Split.VAL: 0.1, Split.TEST: 0.1}[split]
    n = int(len(ids) * fraction)
    return {"split": split.value, "n": n}


def cases_split_counts() -> list[tuple]:
    return [(np.arange(10), Split.TRAIN), (np.arange(3), Split.TEST)]


def split_sizes(n: int, held_out: Split) -> tuple[dict[Split, int], bool]:
    """Rows per split (the remainder to TRAIN), keyed by member, and whether the held-out split gets any."""
    fractions = {Split.TRAIN: 0.8, Split.VAL: 0.1, Split.TEST: 0.1}
    sizes = {s: int(n * f) for s, f in fractions.items()}
    sizes[Split.TRAIN] += n - sum(sizes.values())
    if held_out in sizes and sizes[held_out] == 0:
        del sizes[held_out]
    return sizes, held_out in sizes


def cases_split_sizes() -> list[tuple]:
    return [(10, Split.VAL), (0, Split.TEST), (7, Split.TEST), (1, Split.TRAIN), (1005, Split.VAL)]


class Priority(enum.IntEnum):
    LOW = 1
    MEDIUM = 2
    HIGH = 3


def priority_of(text: str) -> Priority:
    t = text.lower()
    if "urgent" in t or "asap" in t:
        return Priority.HIGH
    return Priority.MEDIUM if "soon" in t else Priority.LOW


def cases_priority_of() -> list[tuple]:
    return [("URGENT: fix",), ("do it soon",), ("whenever",), ("",)]


def grey_thumbnail(img: Image.Image, size: int) -> Image.Image:
    a = np.asarray(img.convert("RGB")).astype(np.float64)
    grey = (a[..., 0] * 0.299 + a[..., 1] * 0.587 + a[..., 2] * 0.114).astype(np.uint8)
    step = max(1, grey.shape[0] // size)
    return Image.fromarray(grey[::step, ::step])


def _rgb(h: int, w: int) -> Image.Image:
    return Image.fromarray((np.arange(h * w * 3) % 251).astype(np.uint8).reshape(h, w, 3))


def cases_grey_thumbnail() -> list[tuple]:
    return [(_rgb(16, 12), 4), (_rgb(1, 1), 8)]


def image_histogram(img: Image.Image) -> dict[int, int]:
    a = np.asarray(img.convert("L"))
    counts = {}
    for v in a.ravel():
        counts[int(v) // 32] = counts.get(int(v) // 32, 0) + 1
    return counts


def cases_image_histogram() -> list[tuple]:
    return [(_rgb(8, 8),), (_rgb(1, 3),)]


def invert_image(img: Image.Image) -> Image.Image:
    if img.mode != "L":
        raise ValueError(f"expected a greyscale image, got mode {img.mode!r}")
    return Image.fromarray(255 - np.asarray(img))


def cases_invert_image() -> list[tuple]:
    return [(_rgb(4, 4).convert("L"),), (_rgb(2, 2),)]

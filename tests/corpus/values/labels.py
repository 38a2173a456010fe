"""Post-processing as classifiers and tokenisers write it: label maps, vocabularies, top-k, counts per class."""
import numpy as np

ENTRIES = ("build_label_map", "invert_labels", "group_by_value", "top_k_labels", "argmax_labels", "class_counts",
           "named_counts", "encode_tokens", "build_vocab", "dedupe_words", "confusion_pairs", "precision_recall",
           "softmax_by_label", "labels_above", "merge_counts", "label_of", "one_hot_from_names", "histogram_labels",
           "vote", "rename_keys", "label_lookup", "to_json_rows")
# compiler gaps these functions found (the located error they fail with today; the test expects exactly that)
KNOWN: dict[str, str] = {}

F1 = np.ndarray[tuple[int], np.dtype[np.float64]]
F2 = np.ndarray[tuple[int, int], np.dtype[np.float64]]
I1 = np.ndarray[tuple[int], np.dtype[np.int64]]
I2 = np.ndarray[tuple[int, int], np.dtype[np.int64]]
F32_2 = np.ndarray[tuple[int, int], np.dtype[np.float32]]

NAMES = {0: "cat", 1: "dog", 2: "bird", 3: "fish", 4: "horse"}


def _rng() -> np.random.Generator:
    return np.random.default_rng(14)


def build_label_map(labels: str) -> dict[str, int]:
    mapping = {}
    for name in labels.split(","):
        name = name.strip()
        if name and name not in mapping:
            mapping[name] = len(mapping)
    return mapping


def cases_build_label_map() -> list[tuple]:
    return [("cat, dog,bird , dog, cat",), ("",), (",,",), ("é,e,É",)]


def bench_build_label_map() -> tuple:
    return (",".join(f"label{i % 997}" for i in range(60000)),)


def invert_labels(mapping: dict[str, int]) -> dict[int, str]:
    return {v: k for k, v in mapping.items()}


def cases_invert_labels() -> list[tuple]:
    return [({"cat": 0, "dog": 1},), ({},), ({"a": 1, "b": 1},), ({"ü": -5, "x": 2 ** 40},)]


def bench_invert_labels() -> tuple:
    return ({f"label{i}": i for i in range(50000)},)


def group_by_value(mapping: dict[str, str]) -> dict[str, list[str]]:
    groups = {}
    for k, v in mapping.items():
        if v not in groups:
            groups[v] = []
        groups[v].append(k)
    return groups


def cases_group_by_value() -> list[tuple]:
    return [({"apple": "fruit", "carrot": "veg", "pear": "fruit"},), ({},), ({"x": ""},)]


def bench_group_by_value() -> tuple:
    return ({f"item{i}": f"group{i % 37}" for i in range(50000)},)


def top_k_labels(scores: F1, names: dict[int, str], k: int) -> list[tuple[str, float]]:
    order = np.argsort(scores)[::-1][:k]
    return [(names.get(int(i), f"class_{int(i)}"), float(scores[i])) for i in order]


def cases_top_k_labels() -> list[tuple]:
    return [(np.array([0.1, 0.7, 0.05, 0.15]), NAMES, 2), (np.array([0.3, 0.2, 0.5, 0.0, 0.0, 0.9, 0.1]), NAMES, 3),
            (np.zeros(0), NAMES, 3), (np.array([1.0]), {}, 1), (np.array([0.2, 0.8]), NAMES, 0)]


def bench_top_k_labels() -> tuple:
    return (_rng().random(200000), NAMES, 5)


def argmax_labels(probs: F2, names: dict[int, str]) -> list[str]:
    out = []
    for row in probs:
        out.append(names[int(np.argmax(row))])
    return out


def cases_argmax_labels() -> list[tuple]:
    rng = _rng()
    return [(rng.random((6, 5)), NAMES), (np.zeros((0, 5)), NAMES), (rng.random((3, 7)), NAMES),
            (np.array([[0.0, 1.0]]), {1: "one"})]


def bench_argmax_labels() -> tuple:
    return (_rng().random((50000, 5)), NAMES)


def class_counts(ids: I1) -> dict[int, int]:
    counts = {}
    for c in ids:
        counts[int(c)] = counts.get(int(c), 0) + 1
    return counts


def cases_class_counts() -> list[tuple]:
    return [(np.array([2, 0, 2, 1, 2, 0]),), (np.zeros(0, np.int64),), (np.array([-1, 2 ** 40, -1]),)]


def bench_class_counts() -> tuple:
    return (_rng().integers(0, 50, 200000),)


def named_counts(ids: I1, names: dict[int, str]) -> dict[str, int]:
    counts = {name: 0 for name in names.values()}
    for c in ids:
        name = names.get(int(c), "unknown")
        counts[name] = counts.get(name, 0) + 1
    return counts


def cases_named_counts() -> list[tuple]:
    return [(np.array([1, 1, 4, 9]), NAMES), (np.zeros(0, np.int64), NAMES), (np.array([0, 0]), {})]


def bench_named_counts() -> tuple:
    return (_rng().integers(0, 6, 200000), NAMES)


def encode_tokens(text: str, vocab: dict[str, int], unk: int) -> list[int]:
    return [vocab.get(tok, unk) for tok in text.lower().split()]


def cases_encode_tokens() -> list[tuple]:
    vocab = {"the": 2, "cat": 3, "sat": 4}
    return [("The cat sat on the mat", vocab, 1), ("", vocab, 1), ("unknown words only", {}, 0), ("É é", {"é": 7}, 0)]


def bench_encode_tokens() -> tuple:
    return (" ".join(["the", "cat", "sat", "on", "mat"] * 30000), {"the": 2, "cat": 3, "sat": 4}, 1)


def build_vocab(text: str, min_count: int) -> dict[str, int]:
    counts = {}
    for w in text.lower().split():
        counts[w] = counts.get(w, 0) + 1
    vocab = {"<pad>": 0, "<unk>": 1}
    for w, n in counts.items():
        if n >= min_count:
            vocab[w] = len(vocab)
    return vocab


def cases_build_vocab() -> list[tuple]:
    return [("a b a c a b d", 2), ("", 1), ("x", 0), ("<pad> <pad> <unk>", 1), ("Ü ü ü", 2)]


def bench_build_vocab() -> tuple:
    return (" ".join(f"w{i % 3000}" for i in range(100000)), 3)


def dedupe_words(text: str) -> list[str]:
    seen = set()
    out = []
    for w in text.split():
        key = w.lower()
        if key not in seen:
            seen.add(key)
            out.append(w)
    return out


def cases_dedupe_words() -> list[tuple]:
    return [("The the THE cat Cat dog",), ("",), ("ß SS ss",), ("a b c",)]


def bench_dedupe_words() -> tuple:
    return (" ".join(f"Word{i % 5000}" for i in range(100000)),)


def confusion_pairs(y_true: I1, y_pred: I1) -> dict[tuple[int, int], int]:
    if len(y_true) != len(y_pred):
        raise ValueError(f"length mismatch: {len(y_true)} != {len(y_pred)}")
    pairs = {}
    for t, p in zip(y_true, y_pred):
        key = (int(t), int(p))
        pairs[key] = pairs.get(key, 0) + 1
    return pairs


def cases_confusion_pairs() -> list[tuple]:
    return [(np.array([0, 1, 1, 2]), np.array([0, 2, 1, 2])), (np.zeros(0, np.int64), np.zeros(0, np.int64)),
            (np.array([1, 2]), np.array([1]))]


def bench_confusion_pairs() -> tuple:
    rng = _rng()
    return (rng.integers(0, 5, 100000), rng.integers(0, 5, 100000))


def precision_recall(y_true: I1, y_pred: I1, names: dict[int, str]) -> dict[str, tuple[float, float]]:
    out = {}
    for c, name in names.items():
        tp = int(np.sum((y_true == c) & (y_pred == c)))
        fp = int(np.sum((y_true != c) & (y_pred == c)))
        fn = int(np.sum((y_true == c) & (y_pred != c)))
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
        out[name] = (precision, recall)
    return out


def cases_precision_recall() -> list[tuple]:
    return [(np.array([0, 1, 1, 2, 3]), np.array([0, 2, 1, 2, 0]), NAMES),
            (np.zeros(0, np.int64), np.zeros(0, np.int64), {0: "a"}), (np.array([1]), np.array([1]), {})]


def bench_precision_recall() -> tuple:
    rng = _rng()
    return (rng.integers(0, 5, 100000), rng.integers(0, 5, 100000), NAMES)


def softmax_by_label(logits: F1, names: dict[int, str]) -> dict[str, float]:
    if len(logits) != len(names):
        raise ValueError(f"{len(logits)} logits for {len(names)} labels")
    z = np.exp(logits - logits.max())
    p = z / z.sum()
    return {names[i]: float(p[i]) for i in range(len(p))}


def cases_softmax_by_label() -> list[tuple]:
    return [(np.array([1.0, 2.0, 0.5, -1.0, 3.0]), NAMES), (np.array([0.0]), {0: "only"}), (np.array([1.0, 2.0]), NAMES)]


RTOL = {"softmax_by_label": 1e-12}  # np.sum's pairwise order in NumPy vs the compiled reduction


def labels_above(scores: F1, names: dict[int, str], threshold: float) -> list[str]:
    return [f"{names[i]}:{scores[i]:.2f}" for i in range(len(scores)) if scores[i] >= threshold]


def cases_labels_above() -> list[tuple]:
    return [(np.array([0.9, 0.1, 0.55, 0.5, 0.7]), NAMES, 0.5), (np.zeros(0), NAMES, 0.5),
            (np.array([0.1, 0.9]), {0: "a"}, 0.5)]


def bench_labels_above() -> tuple:
    return (_rng().random(5), NAMES, 0.3)


def merge_counts(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
    merged = dict(a)
    for k, v in b.items():
        merged[k] = merged.get(k, 0) + v
    return merged


def cases_merge_counts() -> list[tuple]:
    return [({"a": 1, "b": 2}, {"b": 3, "c": 4}), ({}, {}), ({}, {"x": 1}), ({"é": -1}, {"é": 1})]


def bench_merge_counts() -> tuple:
    return ({f"k{i}": i for i in range(30000)}, {f"k{i}": 1 for i in range(15000, 45000)})


def label_of(names: dict[int, str], class_id: int) -> str:
    return names[class_id].upper()


def cases_label_of() -> list[tuple]:
    return [(NAMES, 1), (NAMES, 7), ({}, 0), (NAMES, -1)]


def one_hot_from_names(labels: str, classes: str) -> F32_2:
    index = {c: i for i, c in enumerate(classes.split(","))}
    names = labels.split(",") if labels else []
    out = np.zeros((len(names), len(index)), np.float32)
    for row, name in enumerate(names):
        out[row, index[name]] = 1.0
    return out


def cases_one_hot_from_names() -> list[tuple]:
    return [("dog,cat,dog", "cat,dog,bird"), ("", "cat,dog"), ("cow", "cat,dog")]


def bench_one_hot_from_names() -> tuple:
    return (",".join(["cat", "dog", "bird"] * 20000), "cat,dog,bird")


def histogram_labels(values: F1, n_bins: int) -> dict[str, int]:
    if n_bins <= 0:
        raise ValueError("n_bins must be positive")
    lo, hi = float(values.min()), float(values.max())
    width = (hi - lo) / n_bins or 1.0
    counts = {}
    for i in range(n_bins):
        counts[f"[{lo + i * width:.2f}, {lo + (i + 1) * width:.2f})"] = 0
    keys = list(counts)
    for v in values:
        b = min(int((float(v) - lo) / width), n_bins - 1)
        counts[keys[b]] += 1
    return counts


def cases_histogram_labels() -> list[tuple]:
    rng = _rng()
    return [(rng.normal(size=50), 4), (np.array([1.0, 1.0]), 3), (np.array([0.5]), 0), (rng.random(7), 1)]


def bench_histogram_labels() -> tuple:
    return (_rng().normal(size=200000), 10)


def vote(predictions: str) -> tuple[str, int]:
    """Majority vote over 'cat dog cat ...'; ties go to the label seen first."""
    counts = {}
    for p in predictions.split():
        counts[p] = counts.get(p, 0) + 1
    if not counts:
        raise ValueError("no predictions")
    best = max(counts, key=counts.get)
    return best, counts[best]


def cases_vote() -> list[tuple]:
    return [("cat dog cat bird dog cat",), ("a b",), ("",), ("ü ü x",)]


def bench_vote() -> tuple:
    return (" ".join(f"c{i % 7}" for i in range(100000)),)


def rename_keys(d: dict[str, float], prefix: str) -> dict[str, float]:
    return {prefix + k.replace(" ", "_"): v for k, v in d.items() if not k.startswith("_")}


def cases_rename_keys() -> list[tuple]:
    return [({"loss": 0.5, "val acc": 0.9, "_hidden": 1.0}, "train/"), ({}, "x"), ({"a b": -0.0}, "")]


def bench_rename_keys() -> tuple:
    return ({f"metric {i}": i * 0.5 for i in range(50000)}, "eval/")


def label_lookup(names: str, scores: F1, ids: I1) -> tuple[dict[str, float], dict[int, str], dict[str, int], dict[int, int]]:
    """The lookups a classifier's post-processing builds from its label file: name -> score, id -> name (from 1),
    name -> rank in sorted order, and class id -> count of that id from a list of (id, count) pairs."""
    labels = [n.strip() for n in names.split(",")]
    by_name = dict(zip(labels, [float(s) for s in scores]))
    by_id = dict(enumerate(labels, 1))
    rank = dict((name, i) for i, name in enumerate(sorted(labels)))
    counts = dict([(int(i), int(n)) for i, n in zip(ids, np.bincount(ids)[ids])])
    return by_name, by_id, rank, counts


def cases_label_lookup() -> list[tuple]:
    return [("cat, dog,bird", np.array([0.5, 0.25, 0.125]), np.array([2, 0, 2])),
            ("", np.zeros(0), np.zeros(0, np.int64)),  # "".split(",") is [""]: one empty label
            ("a,b,a", np.array([1.0, -2.0, 3.0]), np.array([1])),  # a repeated name keeps its first place, last score
            ("x,y", np.array([7.0]), np.array([0, 0, 5, 5, 5])),  # zip stops at the shorter input
            ("é,ü", np.array([np.inf, np.nan]), np.array([3]))]


def to_json_rows(probs: F2, labels: str, boxes: I2) -> tuple[list[dict[str, float]], list[list[int]]]:
    """Model outputs made JSON-ready: one {label: probability} dict per row, and the boxes as plain lists."""
    names = labels.split(",")
    rows = [dict(zip(names, row.tolist())) for row in probs]
    return rows, boxes.tolist()


def cases_to_json_rows() -> list[tuple]:
    return [(np.array([[0.1, 0.9], [0.5, 0.5]]), "cat,dog", np.array([[1, 2, 3, 4]])),
            (np.zeros((0, 2)), "a,b", np.zeros((0, 4), np.int64)),
            (np.ones((1, 3)) / 3, "x", np.arange(8).reshape(2, 4)[:, ::-1]),  # fewer names: zip stops; a reversed view
            (np.array([[np.nan, -0.0]]).T, "p,q", np.zeros((2, 0), np.int64))]  # a transposed column; empty rows

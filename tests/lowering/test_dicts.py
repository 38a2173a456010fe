"""Python dict in compiled code, written the way pre- and post-processing code uses it (word counts, label
maps, grouping, histograms, config defaults, ...), every result compared with CPython's own: value, exact
type of every key and value, key order, and exception type and message. Helpers are grouped under a few
entry points so that one build compiles many functions."""
from __future__ import annotations

import numpy as np
import pytest

import everypath as ep
from everypath.errors import CompileError
from tests.corpus.values._compare import assert_same

F1 = np.ndarray[tuple[int], np.dtype[np.float64]]
I1 = np.ndarray[tuple[int], np.dtype[np.int64]]


# ---- helpers: each one a small function a user would write --------------------------------
def word_counts(text: str) -> dict[str, int]:
    counts = {}
    for w in text.lower().split():
        counts[w] = counts.get(w, 0) + 1
    return counts


def id_to_name(names: str) -> dict[int, str]:
    out = {}
    for i, name in enumerate(names.split(",")):
        out[i] = name.strip()
    return out


def name_to_id(names: str) -> dict[str, int]:
    return {name.strip(): i for i, name in enumerate(names.split(","))}


def invert(d: dict[str, int]) -> dict[int, str]:
    return {v: k for k, v in d.items()}


def group_by_initial(text: str) -> dict[str, list[str]]:
    groups = {}
    for w in text.split():
        groups.setdefault(w[0], []).append(w)
    return groups


def lengths_by_word(text: str) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for w in text.split():
        if w not in out:
            out[w] = []
        out[w].append(len(w))
    return out


def most_common(counts: dict[str, int]) -> tuple[str, int]:
    best, n = "", -1
    for w in sorted(counts):
        if counts[w] > n:
            best, n = w, counts[w]
    return best, n


def text_report(text: str, names: str):
    counts = word_counts(text)
    labels = id_to_name(names)
    ids = name_to_id(names)
    return (counts, labels, ids, invert(ids), group_by_initial(text), lengths_by_word(text), most_common(counts),
            sorted(counts), sorted(counts, reverse=True), list(counts), len(counts), "the" in counts,
            "zebra" not in counts, sum(counts.values()), list(ids.values()), list(labels.keys()))


def histogram(a: I1) -> dict[int, int]:
    h = {}
    for x in a:
        k = int(x)
        h[k] = h.get(k, 0) + 1
    return h


def grid_counts(xs: I1, ys: I1) -> dict[tuple[int, int], int]:
    cells: dict[tuple[int, int], int] = {}
    for i in range(len(xs)):
        key = (int(xs[i]) // 2, int(ys[i]) // 2)
        cells[key] = cells.get(key, 0) + 1
    return cells


def mean_by_label(labels: I1, values: F1) -> dict[int, float]:
    total: dict[int, float] = {}
    count: dict[int, int] = {}
    for i in range(len(labels)):
        k = int(labels[i])
        total[k] = total.get(k, 0.0) + float(values[i])
        count[k] = count.get(k, 0) + 1
    return {k: total[k] / count[k] for k in total}


def stats_arrays(values: F1) -> dict[str, F1]:
    return {"centered": values - values.mean(), "scaled": values / values.max(), "raw": values}


def weighted_total(weights: dict[str, float], counts: dict[str, int]) -> float:
    s = 0.0
    for name, w in weights.items():
        s += w * counts.get(name, 0)
    return s


def numeric(a: I1, values: F1):
    h = histogram(a)
    weights = {"x": 0.5, "y": 2.0}
    return (h, sorted(h), grid_counts(a, a[::-1]), mean_by_label(a, values), stats_arrays(values),
            weighted_total(weights, {"x": 4, "z": 1}), max(h.values()), len(h))


def merge_config(lr: float, overrides_lr: bool) -> dict[str, float]:
    defaults = {"lr": 0.1, "momentum": 0.9, "decay": 0.0}
    cfg = dict(defaults)
    user = {"decay": 1e-4}
    if overrides_lr:
        user["lr"] = lr
    cfg.update(user)
    return cfg


def edit_order() -> tuple[dict[str, int], list[str], int, int, int]:
    d = {"a": 1, "b": 2, "c": 3}
    del d["a"]
    d["a"] = 10  # a re-inserted key goes last
    d["b"] = 20  # an existing key keeps its place
    x = d.pop("c")
    y = d.pop("zz", -1)
    d.setdefault("e", 5)
    z = d.setdefault("b", 99)
    return d, list(d), x, y, z


def churn(n: int) -> tuple[dict[int, int], int, int]:
    d = {}
    for i in range(n):
        d[i] = i * i
    for i in range(0, n, 2):
        del d[i]
    for i in range(0, n, 3):
        d[i] = -i
    s = 0
    for k in d:
        s += k
    return d, len(d), s


def aliasing() -> tuple[dict[str, int], dict[str, int], bool, bool, bool, bool]:
    d = {"x": 1}
    e = d  # the same dict
    c = d.copy()  # another dict
    e["y"] = 2
    same = c == {"x": 1}
    c["x"] = 5
    return d, c, d == e, same, d != c, bool(d)


def number_keys() -> tuple[bool, str, str, bool, str, str, int, bool]:
    by_float = {0.5: "half", 1.0: "one"}
    by_int = {1: "one", 2: "two"}
    empty: dict[int, int] = {}
    empty[3] = 4
    empty.clear()
    return (1 in by_float, by_float[1], by_int[True], 2.0 in by_int, by_float.get(2, "none"),
            by_int.get(2, "?"), len(empty), not empty)


def nested_config() -> dict[str, dict[str, int]]:
    out = {"train": {"epochs": 3}, "eval": {}}
    out["eval"]["every"] = 2
    out["train"]["batch"] = 32
    return out


def pairs_first(text: str) -> tuple[int, str, int]:
    pairs = list(word_counts(text).items())
    k, v = pairs[0]
    return len(pairs), k, v


def misc(text: str, n: int, lr: float):
    return (merge_config(lr, True), merge_config(lr, False), edit_order(), churn(n), aliasing(), number_keys(),
            nested_config(), pairs_first(text))


def missing_word(text: str, key: str) -> int:
    return word_counts(text)[key]


def missing_int(n: int) -> int:
    return {i: i for i in range(n)}[n]


def missing_tuple(n: int) -> int:
    d = {(0, "a"): 1}
    return d[(n, "b")]


def missing_pop(n: int) -> int:
    d = {1.5: 1}
    return d.pop(float(n))


def missing_del(key: str) -> int:
    d = {"it's": 1}
    del d[key]
    return len(d)


def grow_while_iterating(n: int) -> int:
    d = {0: 0}
    for k in d:
        if k < n:
            d[k + 1] = k
    return len(d)


def swap_while_iterating(n: int) -> int:
    d = {0: 0, 1: 1}
    for k, v in d.items():
        del d[k]
        d[k + n] = v
    return len(d)


def remove_missing(n: int) -> int:
    s = {1, 2}
    s.remove(n)
    return len(s)


def failing(text: str, key: str, n: int, which: int) -> int:
    if which == 7:
        return remove_missing(n)
    if which == 5:
        return grow_while_iterating(n)
    if which == 6:
        return swap_while_iterating(n)
    if which == 0:
        return missing_word(text, key)
    if which == 1:
        return missing_int(n)
    if which == 2:
        return missing_tuple(n)
    if which == 3:
        return missing_pop(n)
    return missing_del(key)


# ---- tests ------------------------------------------------------------------------------------
def same(got: object, want: object) -> None:
    """Value and exact type at every level (tests/corpus/values/_compare.py, shared with the values corpus)."""
    assert_same(want, got)


TEXT = "the cat and the hat and the bat sat on a mat"
NAMES = "cat, dog , bird,fish"


def test_text_dicts_match_cpython() -> None:
    fn = ep.compile(text_report)
    for text in (TEXT, "x", "b a b c a b"):
        same(fn(text, NAMES), text_report(text, NAMES))


def test_numeric_dicts_match_cpython() -> None:
    a = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5], np.int64)
    v = np.linspace(-1.0, 2.0, a.size)
    same(ep.compile(numeric)(a, v), numeric(a, v))


def test_dict_methods_order_and_aliasing_match_cpython() -> None:
    fn = ep.compile(misc)
    for n in (0, 7, 40):
        same(fn("b a b", n, 0.5), misc("b a b", n, 0.5))


@pytest.mark.parametrize("which", range(8))
def test_missing_keys_and_changes_while_iterating_raise_as_cpython(which: int) -> None:
    fn = ep.compile(failing)
    args = ("a b", "it is", 3, which)
    with pytest.raises((KeyError, RuntimeError)) as want:
        failing(*args)
    with pytest.raises((KeyError, RuntimeError)) as got:
        fn(*args)
    assert type(got.value) is type(want.value)
    assert str(got.value) == str(want.value) and got.value.args == want.value.args


def popitem(n: int) -> int:
    d = {n: 1}
    return d.popitem()[0]


def mixed_keys(n: int) -> int:
    d = {1: "a", "b": "c"}
    return len(d)


def int_into_floats(n: int) -> float:
    d = {"a": 1.5}
    d["b"] = n
    return d["a"]


def get_without_default(n: int) -> int:
    d = {n: 1}
    return d.get(n)


def list_key(n: int) -> int:
    d = {}
    d[[n]] = 1
    return len(d)


def set_loop(n: int) -> int:
    total = 0
    for x in {n, 2}:
        total += x
    return total


def set_as_list(n: int) -> list[int]:
    return list({n, 2})


@pytest.mark.parametrize(("fn", "message"), [
    (popitem, "dict.popitem() is not supported"),
    (mixed_keys, "a dict keeps one key type"),
    (int_into_floats, "a dict keeps one value type"),
    (get_without_default, "d.get(key) without a default"),
    (list_key, "unhashable type: 'list'"),
    (set_loop, "iterating over a set is not supported: CPython's order is its hash order"),
    (set_as_list, "list(s) of a set is not supported"),
])
def test_unsupported_dict_code_is_a_located_compile_error(fn, message: str) -> None:  # noqa: ANN001
    with pytest.raises(CompileError) as err:
        ep.compile(fn)(1)
    text = str(err.value)
    assert message in text and __file__.split("/")[-1] in text


# ---- dict parameters: converted in, read-only ---------------------------------------------------
def score(weights: dict[str, float], text: str) -> float:
    total = 0.0
    for w in text.split():
        total += weights.get(w, 0.0)
    return total


def params_entry(weights: dict[str, float], names: dict[int, str], text: str, ids: I1):
    labels = [names[int(i)] for i in ids if int(i) in names]
    return (score(weights, text), labels, weighted_total(weights, word_counts(text)), sorted(names), len(weights),
            {v: k for k, v in names.items()}, dict(weights))


def test_dict_parameters_are_converted_in() -> None:
    fn = ep.compile(params_entry)
    weights, names, ids = {"the": 0.5, "cat": 2.0, "zebra": -1.0}, {3: "c", 1: "a", 2: "b"}, np.array([1, 3, 7, 2])
    same(fn(weights, names, TEXT, ids), params_entry(weights, names, TEXT, ids))
    same(fn({}, {}, "", ids), params_entry({}, {}, "", ids))
    with pytest.raises(TypeError, match=r"params_entry\(\) argument 'names': expected dict\[int, str\], got a dict "
                                        r"with a key '3' of type str \(keys must be int\)"):
        fn(weights, {"3": "c"}, TEXT, ids)
    with pytest.raises(TypeError, match=r"got a dict with a value '1' of type str \(values must be float\)"):
        fn({"a": "1"}, names, TEXT, ids)
    with pytest.raises(TypeError, match=r"argument 'weights': expected dict\[str, float\]"):
        fn([("a", 1.0)], names, TEXT, ids)


def bump(counts: dict[str, int], w: str) -> int:
    counts[w] = 1
    return len(counts)


def reset(d: dict[str, int]) -> None:
    d.clear()


def reset_via_helper(counts: dict[str, int], w: str) -> int:
    reset(counts)
    return len(counts)


def in_closure(counts: dict[str, int], w: str) -> int:
    take = lambda: counts.pop(w, 0)  # noqa: E731  # a closure that only reads it is fine (test_values_gaps.py)
    return take()


@pytest.mark.parametrize("fn", [bump, reset_via_helper, in_closure])
def test_mutating_a_dict_parameter_is_refused(fn) -> None:  # noqa: ANN001
    with pytest.raises(CompileError, match="is a dict given by the caller") as err:
        ep.compile(fn)({"a": 1}, "b")
    assert "mine = dict(" in str(err.value) and "test_dicts.py" in str(err.value)


# ---- sets ---------------------------------------------------------------------------------------
def vocabulary(text: str) -> set[str]:
    seen = set()
    for w in text.lower().split():
        seen.add(w.strip(".,"))
    return seen


def duplicates(text: str) -> list[str]:
    seen: set[str] = set()
    out = []
    for w in text.split():
        if w in seen and w not in out:
            out.append(w)
        seen.add(w)
    return out


def shared_letters(a: str, b: str) -> list[str]:
    return sorted({ch for ch in a} & {ch for ch in b})


def set_report(text: str, other: str, n: int):
    va, vb = vocabulary(text), vocabulary(other)
    evens = {i for i in range(n) if i % 2 == 0}
    squares = set([i * i for i in range(n)])
    squares.discard(0)
    counts = dict()
    counts["n"] = len(evens | squares)
    return (va, sorted(va - vb), sorted(va & vb, reverse=True), va | vb, duplicates(text), shared_letters(text, other),
            evens & squares, evens - squares, len(va), "cat" in va, "dog" not in vb, va == vb, bool(evens),
            counts, {(i, str(i)) for i in range(3)})


def test_sets_match_cpython() -> None:
    fn = ep.compile(set_report)
    for args in ((TEXT, "The dog and the cat.", 10), ("a a", "b", 0)):
        same(fn(*args), set_report(*args))


def display_lookup(s: str) -> tuple[int, bool]:
    # displays used in place: the generated code names only ep::make_dict / ep::make_set, not the types
    return {"a": 1, "b": 2}.get(s, 0) + {"a": 10, "b": 20, "c": 30}[s], len(s) in {1, 3}


@pytest.mark.parametrize("s", ["a", "c", "zz"])
def test_displays_used_in_place_build_and_match_cpython(s: str) -> None:
    try:
        want = display_lookup(s)
    except KeyError as exc:
        with pytest.raises(KeyError) as got:
            ep.compile(display_lookup)(s)
        assert got.value.args == exc.args
        return
    same(ep.compile(display_lookup)(s), want)

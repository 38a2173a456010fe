"""Values-corpus gaps closed for issue 14, compared with CPython (value, exact type at every level, exception
type and args): key= functions (sorted / list.sort / max / min with a lambda, a builtin, a helper or d.get;
lowering/key_calls.py, tracer/key_functions.py) and module-global tables (a dict, set, frozenset or list of
constants captured at compile time; base/const_tables.py, lowering/const_tables.py)."""
from __future__ import annotations

import numpy as np
import pytest

import everypath as ep
from everypath.errors import CompileError
from tests.lowering.test_values_fixes import _compiled, same

F1 = np.ndarray[tuple[int], np.dtype[np.float64]]


# ---- key= ------------------------------------------------------------------------------------------
def by_length_then_text(text: str) -> list[str]:
    return sorted(text.split(), key=lambda w: (len(w), w))


def by_length_reversed(text: str) -> list[str]:
    return sorted(text.split(), key=len, reverse=True)  # equal lengths keep their order, as CPython's


def ranked_counts(counts: dict[str, int]) -> list[tuple[str, int]]:
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def majority(text: str) -> tuple[str, int]:
    counts = {}
    for w in text.split():
        counts[w] = counts.get(w, 0) + 1
    best = max(counts, key=counts.get)  # ties: the first key seen
    return best, counts[best]


def shortest(text: str) -> str:
    return min(text.split(), key=len)


def shortest_or(text: str) -> str:
    return min(text.split(), key=len, default="none")


def _distance(x: float) -> float:
    return abs(x - 0.5)


def closest(xs: F1) -> float:
    return float(min(xs, key=_distance))


def sort_in_place(a: int, b: int, c: int) -> list[int]:
    xs = [a, b, c, -a]
    xs.sort(key=lambda v: v * v)
    return xs


def keys_by_value(d: dict[str, float]) -> list[str]:
    return sorted(d, key=lambda k: d[k], reverse=True)


def nan_tuple_key(x: float) -> tuple[float, int]:
    pairs = [(x, 2), (1.0, 1), (x, 0)]
    return max(pairs, key=lambda p: (p[0], p[1]))


@pytest.mark.parametrize("text", ["b aa c ddd ee", "", "one", "x y x z y x", "été à ou é"])
def test_sorted_with_key(text: str) -> None:
    same(by_length_then_text, text)
    same(by_length_reversed, text)
    same(shortest, text)  # "" raises ValueError('min() arg is an empty sequence')
    same(shortest_or, text)
    if text:
        same(majority, text)


@pytest.mark.parametrize("counts", [{}, {"a": 3}, {"a": 1, "b": 3, "c": 3, "d": 0}, {"é": 2, "e": 2}])
def test_key_over_dict_items_and_keys(counts: dict[str, int]) -> None:
    same(ranked_counts, counts)
    same(keys_by_value, {k: float(v) for k, v in counts.items()})


def test_key_helper_and_array_source() -> None:
    same(closest, np.array([0.1, 0.9, 0.45, 0.55, -3.0]))
    same(closest, np.array([], dtype=np.float64))  # ValueError as CPython's
    for args in [(3, -1, 2), (0, 0, 0), (-2, 2, 1)]:
        same(sort_in_place, *args)
    for x in (2.0, 0.5):
        same(nan_tuple_key, x)
    nan = float("nan")  # NaN inside a tuple key compares as CPython's tuples do (NaN != NaN: compared by repr)
    assert repr(_compiled(nan_tuple_key)(nan)) == repr(nan_tuple_key(nan)) == "(nan, 2)"


def sort_by_nan(x: float) -> list[float]:
    return sorted([1.0, x, 0.5], key=lambda v: v)


def test_nan_sort_key_is_loud() -> None:
    assert _compiled(sort_by_nan)(2.0) == sort_by_nan(2.0)
    with pytest.raises(ValueError, match="NaN"):
        _compiled(sort_by_nan)(float("nan"))


def key_gives_list(text: str) -> list[str]:
    return sorted(text.split(), key=lambda w: [w])


def test_unorderable_key_is_located() -> None:
    with pytest.raises(CompileError, match=r"the key gives list\[str\], which compiled code cannot order") as info:
        ep.compile(key_gives_list)("a b")
    assert info.value.lineno > 0 and info.value.filename == __file__


# ---- module-global tables ------------------------------------------------------------------------
UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
VOWELS = frozenset("aeiouy")
STOP = {"the", "a", "of"}
ORDER = ["low", "mid", "high"]
CLOSE = {")": "(", "]": "[", "}": "{"}
SCALE = {1: 0.5, 2: 0.25}


def seconds(s: str) -> int:
    total, num = 0, ""
    for ch in s:
        if ch.isdigit():
            num += ch
        elif ch in UNITS:
            total += int(num) * UNITS[ch]
            num = ""
        else:
            raise ValueError(f"unknown unit {ch!r}")
    return total


def vowels_and_stops(text: str) -> tuple[int, list[str], int]:
    n = sum(1 for ch in text.lower() if ch in VOWELS)
    kept = [w for w in text.split() if w.lower() not in STOP]
    return n, kept, ORDER.index("high") + len(ORDER)


def balanced(s: str) -> bool:
    stack = []
    for ch in s:
        if ch in "([{":
            stack.append(ch)
        elif ch in CLOSE:
            if not stack or stack.pop() != CLOSE[ch]:
                return False
    return not stack


def scaled(k: int) -> float:
    return SCALE.get(k, 1.0) * sorted(SCALE)[-1]


def test_tables_read_like_cpython() -> None:
    for s in ("1h30m", "", "2d", "5x", "10s5s"):
        same(seconds, s)
    for text in ("The cat of the Year", "", "AEIOU yes"):
        same(vowels_and_stops, text)
    for s in ("([]{})", "(]", "", "((", "}"):
        same(balanced, s)
    for k in (1, 2, 3):
        same(scaled, k)


def rate() -> int:
    return UNITS["m"]


def test_rebinding_a_table_is_seen() -> None:
    global UNITS
    f = ep.compile(rate)
    saved = UNITS
    try:
        assert f() == 60
        UNITS = {"s": 1, "m": 61, "h": 3600, "d": 86400}
        assert f() == 61
        UNITS = {"m": 7}  # fewer entries: a new build too
        assert f() == 7 and type(f()) is int
        UNITS = {"m": 7}  # re-bound to an equal table: the same digest keeps the build
        assert f() == 7
    finally:
        UNITS = saved


def store_into() -> int:
    UNITS["w"] = 604800
    return 0


def append_alias(x: str) -> int:
    t = ORDER
    t.append(x)
    return len(t)


def hand_out() -> dict[str, int]:
    return UNITS


def copy_then_store(x: str) -> dict[str, int]:
    mine = dict(UNITS)
    mine[x] = 7
    return mine


@pytest.mark.parametrize(("fn", "args", "why"), [
    (store_into, (), r"module global 'UNITS' is a dict captured at compile time, which compiled code may only read "
                     r"\(storing into it is not supported\); work on a copy: mine = dict\(UNITS\)"),
    (append_alias, ("x",), r"'ORDER' is a list .* \(calling \.append\(\) on it is not supported\)"),
    (hand_out, (), r"returning it \(CPython returns the module's own object\)"),
])
def test_changing_a_table_is_refused(fn, args: tuple, why: str) -> None:  # noqa: ANN001
    with pytest.raises(CompileError, match=why) as info:
        ep.compile(fn)(*args)
    assert info.value.filename == __file__ and info.value.lineno > 0


def test_a_copy_may_change() -> None:
    same(copy_then_store, "x")
    same(copy_then_store, "s")
    assert UNITS == {"s": 1, "m": 60, "h": 3600, "d": 86400}


MIXED = {"a": 1, "b": "two"}
EMPTY: dict[str, int] = {}


def reads_mixed() -> int:
    return len(MIXED)


def reads_empty(k: str) -> bool:
    return k in EMPTY


def test_tables_one_type_cannot_hold_are_located() -> None:
    with pytest.raises(CompileError, match=r"module global 'MIXED' mixes value types \(1 is int, 'two' is str\)"):
        ep.compile(reads_mixed)()
    with pytest.raises(CompileError, match=r"module global 'EMPTY' is an empty dict: its item types are unknown"):
        ep.compile(reads_empty)("a")


# ---- a table changed in place after the first call: the guard sees it (issue 12) ----------------------------------
PRICES = {"tea": 2, "cake": 5}
SIZES = ["s", "m"]
SEEN = {3, 5}


def bill(items: str) -> int:
    return sum(PRICES.get(w, 0) for w in items.split())


def size_rank(s: str) -> int:
    return SIZES.index(s) if s in SIZES else -1


def seen_count(text: str) -> int:
    return sum(1 for w in text.split() if int(w) in SEEN)


def test_changing_a_table_in_place_is_seen() -> None:
    f, g, h = ep.compile(bill), ep.compile(size_rank), ep.compile(seen_count)
    saved = (dict(PRICES), list(SIZES), set(SEEN))
    try:
        assert f("tea cake tea") == 9 and g("m") == 1 and h("3 4 5 5") == 3
        PRICES["tea"] = 3  # a value changed: a new build
        PRICES["pie"] = 4  # a key added
        assert f("tea cake pie") == bill("tea cake pie") == 12
        del PRICES["cake"]
        assert f("tea cake") == bill("tea cake") == 3
        PRICES["tea"] = -1  # hash(-1) == hash(-2) in CPython: the guard compares objects, not hashes
        assert f("tea") == -1
        PRICES["tea"] = -2
        assert f("tea") == -2
        SIZES.append("l")
        SIZES.reverse()
        assert g("l") == size_rank("l") == 0 and g("s") == 2
        SEEN.add(4)
        SEEN.discard(3)
        assert h("3 4 5 5") == seen_count("3 4 5 5") == 3
        native = f._native
        PRICES["tea"] = -1
        PRICES["tea"] = int("-2")  # changed back to an equal value (another object): the build is kept
        assert f("tea") == -2 and f._native is native
    finally:
        PRICES.clear()
        PRICES.update(saved[0])
        SIZES[:] = saved[1]
        SEEN.clear()
        SEEN.update(saved[2])


def test_a_helper_modules_table_changed_in_place_is_seen(tmp_path) -> None:  # noqa: ANN001
    import importlib.util
    import sys
    import textwrap

    (tmp_path / "ep_rates_cfg.py").write_text("RATES = {'eur': 1.0, 'usd': 1.25}\nCODES = ['eur', 'usd']\n")
    (tmp_path / "ep_rates_app.py").write_text(textwrap.dedent("""
        import ep_rates_cfg as cfg


        def convert(amount: float, code: str) -> float:
            if code not in cfg.CODES:
                return -1.0
            return amount * cfg.RATES[code]
    """))
    sys.path.insert(0, str(tmp_path))
    try:
        spec = importlib.util.spec_from_file_location("ep_rates_app", tmp_path / "ep_rates_app.py")
        assert spec is not None and spec.loader is not None
        app = importlib.util.module_from_spec(spec)
        sys.modules["ep_rates_app"] = app
        spec.loader.exec_module(app)
        f = ep.compile(app.convert)
        assert f(2.0, "usd") == 2.5
        cfg = sys.modules["ep_rates_cfg"]
        cfg.RATES["usd"] = 1.5
        cfg.RATES["gbp"] = 0.8
        cfg.CODES.append("gbp")
        for args in ((2.0, "usd"), (10.0, "gbp"), (1.0, "jpy")):
            assert f(*args) == app.convert(*args)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("ep_rates_app", None)
        sys.modules.pop("ep_rates_cfg", None)


# ---- reversed() of a str: its code points from the last -----------------------------------------------------------
def mirrored(s: str) -> str:
    out, i = "", 0
    for ch in reversed(s.upper()):
        out += ch if i % 2 == 0 else ch.lower()
        i += 1
    return out


def last_digit_run(s: str) -> int:
    n = 0
    for ch in reversed(s):
        if not ch.isdigit():
            break
        n += 1
    return n


@pytest.mark.parametrize("s", ["", "a", "abc", "héllo wörld", "emoji 👋🌍 x", "abc123", "9"])
def test_reversed_str(s: str) -> None:
    same(mirrored, s)
    same(last_digit_run, s)


def _enumerate_reversed(s: str) -> int:
    t = 0
    for i, ch in enumerate(reversed(s)):
        t += i * ord(ch)
    return t


def test_reversed_inside_another_iterator_is_a_located_refusal() -> None:
    with pytest.raises(CompileError) as err:
        ep.compile(_enumerate_reversed)("abc")
    text = str(err.value)
    assert "reversed(...) is supported only as the iterable of a for loop" in text and "internal error" not in text
    assert "test_values_gaps.py" in text and "enumerate(reversed(s))" in text

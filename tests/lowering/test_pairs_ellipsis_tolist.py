"""Issue 14's values gaps, compared with CPython and NumPy: int()/float() of text in any script, dict() of pairs
made on the fly, enum members as dict keys, empty dicts typed by nested stores, `...` in an index, a.tolist()."""
from __future__ import annotations

import enum
import functools
import unicodedata

import numpy as np
import pytest

import everypath as ep
from everypath.errors import CompileError
from everypath.variants import unicode_tables
from tests.corpus.values._compare import assert_same

F1 = np.ndarray[tuple[int], np.dtype[np.float64]]
F3 = np.ndarray[tuple[int, int, int], np.dtype[np.float64]]
I2 = np.ndarray[tuple[int, int], np.dtype[np.int64]]


class Split(enum.Enum):
    TRAIN = "train"
    TEST = "test"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 5


def digit_values(text: str) -> list[int]:
    out = []
    for ch in text:
        try:
            out.append(int(ch))
        except ValueError:
            out.append(-1)
    return out


def parse_both(s: str) -> tuple[int, float]:
    return int(s), float(s + ".5")


def pairs(keys: str, xs: F1) -> tuple[dict[str, float], dict[int, str], dict[str, int], dict[str, str]]:
    ks = keys.split(",")
    return (dict(zip(ks, xs)), dict(enumerate(ks, start=10)), dict((k, len(k)) for k in ks if k),
            dict([(k, k.upper()) for k in ks]))


def by_member(names: str) -> tuple[dict[Split, int], bool, dict[Level, str]]:
    counts = {}
    for n in names.split(","):
        s = Split.TRAIN if n == "train" else Split.TEST
        counts[s] = counts.get(s, 0) + 1
    levels = {Level.HIGH: "high"}
    levels[Level.LOW] = "low"
    return counts, Split.TEST in counts, levels


def nested(text: str) -> dict[str, dict[str, dict[str, int]]]:
    if not text:
        return {}
    out = {}
    for i, w in enumerate(text.split()):
        out.setdefault(w[:1], {}).setdefault(w[-1:], {})[w] = i
    return out


def ellipsis_views(x: F3):  # noqa: ANN201 - a tuple of arrays of several ranks
    y = x.copy()
    y[..., 0] = -1.0
    y[1, ...] *= 2
    return x[..., 0], x[..., ::2], x[1, ...], x[...], x[0, ..., None, 1], y


def ellipsis_1d(x: F1) -> np.ndarray[tuple[()], np.dtype[np.float64]]:
    return x[..., 0]


def lists(a: I2, f: F1) -> tuple[list[list[int]], list[float], int]:
    rows = a.tolist()
    return rows, f[::-1].tolist(), sum(len(r) for r in rows)


@functools.cache
def compiled(fn):  # noqa: ANN001, ANN201
    return ep.compile(fn)


def run_both(fn, *args) -> None:  # noqa: ANN001
    try:
        want = fn(*args)
    except Exception as exc:  # noqa: BLE001 - the compiled call must raise the same
        with pytest.raises(type(exc)) as got:
            compiled(fn)(*args)
        assert str(got.value) == str(exc)
        return
    assert_same(want, compiled(fn)(*args))


def test_int_of_every_decimal_digit_and_space_matches_cpython() -> None:
    if not unicode_tables.current():
        pytest.skip(f"the compiled tables are not this Python's Unicode {unicodedata.unidata_version}")
    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF and (
        c < 0x100 or chr(c).isdecimal() or chr(c).isdigit() or chr(c).isnumeric() or chr(c).isspace())]
    run_both(digit_values, "".join(chars))


@pytest.mark.parametrize("s", ["١٢٣", "１２", "\u3000 -42\u2003", "\xa0+٧_٠\x85", "𝟗𝟖", "²", "\x1c5", "5\x7f", "1 2",
                               "x" * 250, "١x", "", " ", "-", "٣_", "0_0", "+-1"])
def test_int_and_float_of_text_match_cpython(s: str) -> None:
    run_both(parse_both, s)


@pytest.mark.parametrize(("keys", "xs"), [("a,b,a", [1.0, 2.0, 3.0]), ("", []), ("x,y,z", [0.5]), ("é", [np.nan])])
def test_dict_of_pairs_matches_cpython(keys: str, xs: list[float]) -> None:
    run_both(pairs, keys, np.array(xs, dtype=np.float64))


@pytest.mark.parametrize("names", ["train,test,train", "test", ""])
def test_enum_members_as_dict_keys_match_cpython(names: str) -> None:
    run_both(by_member, names)


@pytest.mark.parametrize("text", ["ab ac b ab", "", "x"])
def test_empty_dict_typed_by_nested_setdefault(text: str) -> None:
    run_both(nested, text)


@pytest.mark.parametrize("x", [np.arange(24.0).reshape(2, 3, 4), np.arange(24.0).reshape(2, 3, 4)[:, ::-1, 1:],
                               np.zeros((2, 0, 3))])
def test_ellipsis_indexing_matches_numpy(x: np.ndarray) -> None:
    run_both(ellipsis_views, x)
    run_both(ellipsis_1d, np.array([7.0, 8.0]))


@pytest.mark.parametrize(("a", "f"), [(np.arange(6).reshape(2, 3), np.array([0.1, 2.0])),
                                      (np.zeros((0, 3), np.int64), np.zeros(0)),
                                      (np.arange(12).reshape(3, 4).T, np.array([np.inf, -0.0, 1e300]))])
def test_tolist_matches_numpy(a: np.ndarray, f: np.ndarray) -> None:
    run_both(lists, a, f)


def _two_ellipses(x: F3) -> np.ndarray:
    return x[..., ..., 0]


def _ellipsis_value(x: F1) -> int:
    y = ...
    return 0 if y else 1


def _enum_lookup_by_int(k: int) -> bool:
    return k in {Split.TRAIN: 1}


def _sorted_members() -> list[Split]:
    return sorted({Split.TEST: 1, Split.TRAIN: 2})


@pytest.mark.parametrize(("fn", "message"), [
    (_two_ellipses, "an index can only have a single ellipsis ('...')"),
    (_ellipsis_value, "constant Ellipsis is not supported outside an index"),
    (_enum_lookup_by_int, "looking up a key of type int among keys of type Split: CPython finds nothing"),
    (_sorted_members, "sorted() of Split items: CPython raises TypeError"),
])
def test_refusals_are_located(fn, message: str) -> None:  # noqa: ANN001
    args = {_two_ellipses: (np.zeros((1, 1, 1)),), _ellipsis_value: (np.zeros(1),)}.get(fn, (0,) if
                                                                                         fn is _enum_lookup_by_int else ())
    with pytest.raises(CompileError) as err:
        ep.compile(fn)(*args)
    text = str(err.value)
    assert message in text
    assert "test_pairs_ellipsis_tolist.py:" in text.splitlines()[0]

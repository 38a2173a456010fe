"""Gaps the values corpus found (issue 14), each fixed at its root and compared with CPython: `and`/`or` between
a str and a bool in a condition, truthiness of lists, list methods and operators (value, exact type, and
CPython's exception type and message)."""
from __future__ import annotations

import functools

import pytest

import everypath as ep
from everypath.errors import CompileError


def _outcome(fn, args: tuple):  # noqa: ANN001, ANN202
    try:
        return "ok", fn(*args)
    except Exception as exc:  # noqa: BLE001 - the exception is the result being compared
        return "raised", exc


def _deep_type(v: object) -> object:
    if isinstance(v, (list, tuple)):
        return type(v), tuple(_deep_type(x) for x in v)
    if isinstance(v, dict):
        return dict, tuple((_deep_type(k), _deep_type(x)) for k, x in v.items())
    return type(v)


@functools.cache
def _compiled(fn):  # noqa: ANN001, ANN202
    return ep.compile(fn)


def same(fn, *args: object) -> None:  # noqa: ANN001
    want, got = _outcome(fn, args), _outcome(_compiled(fn), args)
    if isinstance(got[1], CompileError):
        raise got[1]
    assert want[0] == got[0], (want, got)
    if want[0] == "raised":
        assert type(got[1]) is type(want[1]) and got[1].args == want[1].args, (want[1], got[1])
    else:
        assert got[1] == want[1] and _deep_type(got[1]) == _deep_type(want[1]), (want[1], got[1])


# ---- and/or in a condition: each operand's truth, whatever its type --------------------------------------------
def label_map(labels: str) -> dict[str, int]:
    mapping = {}
    for name in labels.split(","):
        name = name.strip()
        if name and name not in mapping:
            mapping[name] = len(mapping)
    return mapping


def mixed_tests(s: str, n: int) -> list[int]:
    out = []
    words = s.split()
    if not (words and n) or n > 5:
        out.append(1)
    while n and words:
        words.pop()
        n -= 1
    out.append(n)
    out.append(2 if s or n else 3)
    out.append(len([w for w in s.split() if w and (w.isdigit() or w == "x")]))
    return out


def and_value(s: str, flag: bool) -> bool:
    return s and flag  # the value is a str or a bool: refused


@pytest.mark.parametrize("text", ["cat, dog,bird , dog, cat", "", ",,", "é,e,É"])
def test_and_of_str_and_bool_in_if(text: str) -> None:
    same(label_map, text)


@pytest.mark.parametrize("args", [("a b c", 2), ("", 0), ("x 1 y", 9), ("q", 0), ("", 3)])
def test_and_or_not_in_conditions(args: tuple) -> None:
    same(mixed_tests, *args)


def test_and_value_of_two_types_is_refused_located() -> None:
    with pytest.raises(CompileError) as info:
        ep.compile(and_value)("a", True)
    err = info.value
    assert err.filename == __file__ and err.lineno == and_value.__code__.co_firstlineno + 1
    assert "the value of this 'and'/'or' is one of its operands, which are str and bool" in err.message


# ---- truthiness of containers -------------------------------------------------------------------------------
def first_word(text: str) -> str:
    words = text.split()
    if not words:
        return ""
    return words[0] if bool(words) else "?"


@pytest.mark.parametrize("text", ["", "  ", "hello world"])
def test_not_of_list(text: str) -> None:
    same(first_word, text)


# ---- list methods and operators --------------------------------------------------------------------------------
def pops(s: str, i: int) -> tuple[str, str, list[str]]:
    w = s.split()
    last = w.pop()
    at = w.pop(i)
    return last, at, w


def growth(s: str, n: int) -> tuple[list[str], list[int], list[float], bool, bool]:
    w = s.split()
    w.extend(["z", "y"])
    w += ["q"]
    both = w + s.split()
    nums = []
    nums.extend(range(n))
    nums.insert(1, 42)
    nums.insert(-100, -1)
    nums.insert(100, 7)
    fl = [0.5] * n + [1.5]
    return both, nums * 2, fl, w == w[::-1], nums != [0]


def searching(s: str, x: str) -> tuple[int, int, bool]:
    w = s.split()
    return w.count(x), w.index(x), x in w


def int_index(n: int, x: int) -> int:
    xs = [i * 2 for i in range(n)]
    return xs.index(x)


def removing(s: str, x: str) -> list[str]:
    w = s.split()
    w.remove(x)
    w.reverse()
    return w


def sorting(s: str, rev: bool) -> tuple[list[str], list[int], list[str]]:
    w = s.split()
    c = w.copy()
    w.sort()
    lens = [len(x) for x in c]
    lens.sort(reverse=rev)
    c.clear()
    c.append("only")
    return w, lens, c


def compare_lists(a: str, b: str) -> tuple[bool, bool, bool, bool]:
    x, y = a.split(), b.split()
    return x < y, x <= y, x > y, x >= y


def aliasing(s: str) -> tuple[list[str], list[str]]:
    a = s.split()
    b = a
    b += ["end"]
    a.sort()
    return a, b


@pytest.mark.parametrize("args", [("a b c d", 0), ("a b c d", -1), ("a b", 5), ("a", 0), ("", 0)])
def test_pop(args: tuple) -> None:
    same(pops, *args)


@pytest.mark.parametrize("args", [("a b", 3), ("", 0), ("x y x", 1)])
def test_extend_insert_add_mul(args: tuple) -> None:
    same(growth, *args)


@pytest.mark.parametrize("args", [("a b a", "a"), ("a b a", "b"), ("a b", "c"), ("", "it's")])
def test_index_count(args: tuple) -> None:
    same(searching, *args)


@pytest.mark.parametrize("args", [(4, 6), (4, 5), (0, -3)])
def test_index_of_int(args: tuple) -> None:
    same(int_index, *args)


@pytest.mark.parametrize("args", [("b a c a", "a"), ("b", "x"), ("é ü", "ü")])
def test_remove_reverse(args: tuple) -> None:
    same(removing, *args)


@pytest.mark.parametrize("args", [("pear fig apple Äpfel fig", False), ("b aa ccc a", True), ("", True)])
def test_sort_copy_clear(args: tuple) -> None:
    same(sorting, *args)


@pytest.mark.parametrize("args", [("a b", "a b"), ("a b", "a c"), ("a", "a b"), ("", "a"), ("b", "a z")])
def test_list_comparisons(args: tuple) -> None:
    same(compare_lists, *args)


def test_iadd_extends_in_place() -> None:
    same(aliasing, "c b a")


# ---- sorted() of str / list[str] / tuples, tuple ordering, repr() --------------------------------------------
def sorted_things(s: str, rev: bool) -> tuple[str, list[str], list[str], list[str]]:
    w = s.split()
    pairs = [(len(x), x) for x in w]  # a list of tuples is not returned (the ABI has no such result yet)
    by_len = [p[1] + str(p[0]) for p in sorted(pairs, reverse=rev)]
    return "".join(sorted(s)), sorted(w, reverse=rev), by_len, sorted(s, reverse=True)


def tuple_order(a: int, b: int, s: str) -> tuple[bool, bool, bool, bool, bool, bool]:
    x, y = (a, b, s), (b, a, s)
    return x < y, x <= y, x > y, x >= y, (a, s) < (a, s), (a, b) < (a, b, 0)


def float_tuple_order(a: float, b: float) -> tuple[bool, bool]:
    return (a, 1) < (b, 2), (a, "x") >= (b, "y")


def reprs(s: str, x: float, i: int, flag: bool) -> str:
    return repr(s) + "|" + repr(x) + "|" + repr(i) + "|" + repr(flag)


@pytest.mark.parametrize("args", [("banana apple Äpfel été fig", False), ("b a b a", True), ("", False)])
def test_sorted_str_list_tuples(args: tuple) -> None:
    same(sorted_things, *args)


@pytest.mark.parametrize("args", [(1, 2, "x"), (2, 1, ""), (3, 3, "é")])
def test_tuple_ordering(args: tuple) -> None:
    same(tuple_order, *args)


@pytest.mark.parametrize("args", [(1.0, 2.0), (float("nan"), float("nan")), (0.0, -0.0), (2.5, 1.0)])
def test_tuple_ordering_floats(args: tuple) -> None:
    same(float_tuple_order, *args)


@pytest.mark.parametrize("args", [("it's", 0.1, 3, True), ('say "hi"', 1e22, -7, False), ("both ' \"", 1.0, 0, False),
                                  ("tab\t\né\x00", float("inf"), 2 ** 40, True), ("", -0.0, 0, True)])
def test_repr(args: tuple) -> None:
    same(reprs, *args)

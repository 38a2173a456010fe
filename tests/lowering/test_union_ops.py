"""Operations on union values (a switch over the tag: lowering/union_dispatch.py), results that keep each path's
own kind (`-> float` returning 0 gives the int 0), and list displays mixing kinds (issue 14): compiled results
against CPython, value and exact type, exceptions by type and message."""
from __future__ import annotations

import functools

import numpy as np
import pytest

import everypath
from tests.corpus.values._compare import assert_like_cpython

F1 = np.ndarray[tuple[int], np.dtype[np.float64]]


def add_one(x: int | float):
    return x + 1


def mixed_arith(x: int | float, y: int | float):
    return x * y - 1, x / 2, x // 2, -x, abs(x), x ** 2


def compare(x: int | float | str, y: int) -> bool:
    if isinstance(x, str):
        return len(x) < y
    return x < y and x != y


def equality(x: int | str | None, y: int | None):
    return x == y, x != y, x == 3, x == "a", x == None  # noqa: E711 - CPython's == on None, on purpose


def as_text(x: int | float | str | None) -> str:
    return str(x) + "|" + repr(x) + "|" + f"{x}" + "|" + f"{x!r}"


def str_plus(x: int | str):
    return x + 1


def none_plus(x: int | float | None):
    return x * 2


def local_union(x: int | float):
    y = x + 1  # y holds what the branch computed: an int or a float
    z = y * 2
    return z, y > 1


def accumulate(a: F1, every: int):
    total = 0.0
    for i in range(len(a)):
        v = a[i] if i % every else i
        total += v
    return total


def float_zero(x: float) -> float:
    if x <= 0:
        return 0
    return x / 2


def bool_or_int(n: int):
    if n < 0:
        return False
    return n


def _half(x: float) -> float:
    if x == 0:
        return 0
    return x / 2


def via_helper(x: float):
    r = _half(x)
    return r, r + 1


def numpy_or_python(a: F1):
    if len(a) == 0:
        return 0.0
    return a[0]


def mixed_list(n: int):
    return [n, "a", None, n * 0.5]


def mixed_list_loop(n: int):
    out = []
    for i in range(n):
        out.append(i if i % 2 else str(i))
    return out


CASES = [
    (add_one, (1,)), (add_one, (2.5,)), (add_one, (-1,)),
    (mixed_arith, (3, 2)), (mixed_arith, (3, 0.5)), (mixed_arith, (-7.5, 2)), (mixed_arith, (-7, -3)),
    (compare, (1, 2)), (compare, (2.0, 2)), (compare, ("abc", 2)), (compare, ("", 1)),
    (equality, (None, None)), (equality, (3, 3)), (equality, ("a", None)), (equality, (None, 3)), (equality, (3, None)),
    (as_text, (1,)), (as_text, (0.1,)), (as_text, ("é",)), (as_text, (None,)), (as_text, (-0.0,)),
    (str_plus, (1,)), (str_plus, ("s",)),
    (none_plus, (2,)), (none_plus, (0.5,)), (none_plus, (None,)),
    (local_union, (3,)), (local_union, (0.25,)), (local_union, (0,)),
    # (a loop that never adds an np.float64 returns one of equal value: the weak-locals deviation, semantics.md)
    (accumulate, (np.array([0.5, 1.5, -2.0, 4.0]), 2)), (accumulate, (np.array([1.0, 2.0, 3.0]), 3)),
    (float_zero, (-1.0,)), (float_zero, (3.0,)), (float_zero, (0.0,)),
    (bool_or_int, (-1,)), (bool_or_int, (0,)), (bool_or_int, (5,)),
    (via_helper, (0.0,)), (via_helper, (3.0,)),
    (numpy_or_python, (np.zeros(0),)), (numpy_or_python, (np.array([2.5]),)),
    (mixed_list, (2,)), (mixed_list, (0,)),
    (mixed_list_loop, (0,)), (mixed_list_loop, (5,)),
]


@functools.cache
def _compiled(fn):  # noqa: ANN001, ANN202 - one build per function
    return everypath.compile(fn)


@pytest.mark.parametrize("fn, args", CASES, ids=[f"{f.__name__}-{i}" for i, (f, _) in enumerate(CASES)])
def test_matches_cpython(fn, args) -> None:  # noqa: ANN001
    assert_like_cpython(fn, _compiled(fn), args)

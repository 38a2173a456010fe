"""Union values and Optional (issue 14, lowering/unions.py): compiled results against CPython, value and exact
type, exceptions by type and message; refusals located at the user's line."""
from __future__ import annotations

import functools
import inspect

import numpy as np
import pytest

import everypath
from everypath.errors import CompileError
from tests.corpus.values._compare import assert_like_cpython

F1 = np.ndarray[tuple[int], np.dtype[np.float64]]


def last_third(n: int, s: str):
    best = None
    for i in range(n):
        if i % 3 == 2:
            best = (i, s)
    return best


def argmax_positive(a: F1):
    best = None
    for i in range(len(a)):
        if a[i] > 0 and (best is None or a[i] > a[best]):
            best = i
    return best


def guard_clause(n: int) -> int:
    best = None
    for i in range(n):
        if best is None or i > best:
            best = i
    if best is None:
        return -1
    return best * 2


def unwrap_add(n: int) -> int:
    best = None
    if n > 2:
        best = n
    return best + 1


def unwrap_compare(n: int) -> bool:
    best = None
    if n > 2:
        best = n
    return 3 < best


def unwrap_unpack(n: int, s: str) -> str:
    best = None
    if n > 0:
        best = (s, n)
    a, b = best
    return a * b


def int_or_str(n: int):
    if n > 0:
        r = n
    else:
        r = "non-positive"
    return r


def float_or_str(x: float):
    return x * 2 if x >= 0 else "negative"


def in_tuple(n: int):
    best = None
    count = 0
    for i in range(n):
        if i * i > n:
            best = i
            break
        count += 1
    return best, count


def truthy(n: int) -> int:
    best = None
    if n > 1:
        best = n - 2
    if best:
        return 1
    if best is None:
        return -1
    return 0


def loop_narrowing(n: int):
    total = 0
    last = None
    for i in range(n):
        if last is not None:
            total += last * i
        last = i
    return total, last


def with_none_items(n: int):
    out = []
    for i in range(n):
        out.append(i if i % 2 else None)
    return out


def _find(a: F1, v: float):
    for i in range(len(a)):
        if a[i] == v:
            return i
    return None


def helper_optional(a: F1, v: float) -> int:
    r = _find(a, v)
    if r is None:
        return -1
    return r + 10


def returns_helper_optional(a: F1, v: float):
    return _find(a, v)


def not_none_and(n: int) -> int:
    best = None
    if n % 2:
        best = n
    if best is not None and best > 4:
        return best
    return 0


def add_several_kinds(n: int):
    x = n if n > 0 else "s"
    return x + 1


def compared_with_eq(n: int) -> bool:
    x = None
    if n:
        x = n
    return x == 3


A = np.array([0.5, -1.0, 3.0, 3.0, 2.0])
CASES = [
    (last_third, (0, "a")), (last_third, (3, "b")), (last_third, (9, "é")),
    (argmax_positive, (np.zeros(0),)), (argmax_positive, (np.array([-1.0, -2.0]),)), (argmax_positive, (A,)),
    (argmax_positive, (A[::-1],)), (argmax_positive, (np.array([7.0]),)),
    (guard_clause, (0,)), (guard_clause, (1,)), (guard_clause, (5,)),
    (unwrap_add, (3,)), (unwrap_add, (1,)),
    (unwrap_compare, (5,)), (unwrap_compare, (0,)),
    (unwrap_unpack, (2, "ab")), (unwrap_unpack, (0, "ab")),
    (int_or_str, (4,)), (int_or_str, (0,)), (int_or_str, (-3,)),
    (float_or_str, (1.25,)), (float_or_str, (-0.5,)), (float_or_str, (-0.0,)),
    (in_tuple, (0,)), (in_tuple, (10,)),
    (truthy, (0,)), (truthy, (2,)), (truthy, (5,)),
    (loop_narrowing, (0,)), (loop_narrowing, (1,)), (loop_narrowing, (6,)),
    (with_none_items, (0,)), (with_none_items, (5,)),
    (helper_optional, (A, 3.0)), (helper_optional, (A, 9.0)), (helper_optional, (np.zeros(0), 0.0)),
    (returns_helper_optional, (A, 2.0)), (returns_helper_optional, (A, 4.0)),
    (not_none_and, (2,)), (not_none_and, (3,)), (not_none_and, (7,)),
    (add_several_kinds, (1,)), (add_several_kinds, (0,)),
    (compared_with_eq, (0,)), (compared_with_eq, (3,)), (compared_with_eq, (4,)),
]


@functools.cache
def _compiled(fn):  # noqa: ANN001, ANN202 - one build per function
    return everypath.compile(fn)


@pytest.mark.parametrize("fn, args", CASES, ids=[f"{f.__name__}-{i}" for i, (f, _) in enumerate(CASES)])
def test_matches_cpython(fn, args) -> None:  # noqa: ANN001
    assert_like_cpython(fn, _compiled(fn), args)


def _line_of(fn, text: str) -> int:  # noqa: ANN001
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def several_kinds(n: int):
    x = n if n > 0 else "s"
    return x[0]


def with_array(n: int, a: F1):
    x = a
    if n:
        x = n
    return x


@pytest.mark.parametrize("fn, text, message", [
    (several_kinds, "return x[0]", "'x' may hold int | str here"),
    (with_array, "x = n", "variable 'x' holds float64[:] elsewhere but int here; a union may hold"),
])
def test_refusals_are_located(fn, text: str, message: str) -> None:  # noqa: ANN001
    with pytest.raises(CompileError) as info:
        _compiled(fn)(1, A) if fn is with_array else _compiled(fn)(1)
    err = info.value
    assert message in str(err), str(err)
    assert err.lineno == _line_of(fn, text), str(err)

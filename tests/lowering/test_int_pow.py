"""`int ** int` whose exponent may be negative, and pow(a, b, m): CPython's values, exact types and exceptions
(lowering/int_pow.py, variants/include/everypath/pyint_pow.hpp)."""
from __future__ import annotations

import functools

import numpy as np
import pytest

import everypath as ep
from everypath.base.settings import Settings
from everypath.errors import CompileError
from everypath.lowering.pipeline import generate
from tests.corpus.values._compare import assert_like_cpython

MAX, MIN = 2**63 - 1, -(2**63)


def power(b: int, e: int):
    return b**e


def builtin_pow(b: int, e: int):
    return pow(b, e)


def augmented(b: int, e: int):
    x = b
    x **= e
    return x


def scaled(b: int, e: int, k: int):
    """A local that starts as an int and is multiplied by a power: int or float, as in CPython."""
    x = 1
    for _ in range(k):
        x = x * b**e
    return x


def in_expression(b: int, e: int):
    return b**e + 1, b**e < 1, str(b**e)


def chained(k: int, m: int):
    y = 2**k
    return 3**y, m**y


def powmod(a: int, b: int, m: int) -> int:
    return pow(a, b, m)


def counter_powers(n: int) -> int:
    total = 0
    for k in range(n):
        total += 3**k
    return total


def guarded(b: int, e: int) -> int:
    if e < 0:
        raise ValueError("negative exponent")
    return b**e


def index_by_power(a: np.ndarray[tuple[int], np.dtype[np.float64]], e: int) -> float:
    return a[2**e]


def float_modulus(a: int, m: float) -> float:
    return pow(a, 2, m)


@functools.cache
def _compiled(fn):
    return ep.compile(fn)


_POWERS = [(2, -1), (-2, -3), (0, -1), (0, 0), (3, 4), (1, -5), (-1, -2), (-1, -3), (7, -400), (2**62, -1),
           (MAX, -1), (MIN, -1), (-3, 39), (2, 62), (2, 63), (10, -2), (0, 5)]


@pytest.mark.parametrize("fn", [power, builtin_pow, augmented], ids=lambda f: f.__name__)
@pytest.mark.parametrize("args", _POWERS, ids=repr)
def test_power_of_ints_is_int_or_float_as_cpython(fn, args) -> None:
    if args == (2, 63):  # CPython makes a big int; compiled ints are int64 and say so (documented deviation)
        with pytest.raises(OverflowError, match=r"integer result of \*\* exceeds 64 bits"):
            _compiled(fn)(*args)
        return
    assert_like_cpython(fn, _compiled(fn), args)


@pytest.mark.parametrize("args", [(2, -1, 3), (2, 2, 3), (2, -1, 0), (-3, -1, 2), (0, -1, 1), (0, 2, 2)], ids=repr)
def test_a_local_keeps_int_and_float_apart(args) -> None:
    assert_like_cpython(scaled, _compiled(scaled), args)


@pytest.mark.parametrize("args", [(2, -1), (2, 3), (0, -1), (-4, -1)], ids=repr)
def test_a_power_used_in_an_expression(args) -> None:
    assert_like_cpython(in_expression, _compiled(in_expression), args)


@pytest.mark.parametrize("args", [(1, 2), (-1, 2), (0, 0), (2, -2), (-1, 0)], ids=repr)
def test_a_power_of_a_power(args) -> None:
    assert_like_cpython(chained, _compiled(chained), args)


@pytest.mark.parametrize("args", [
    (3, -1, 7), (2, -1, 4), (3, 2, -5), (3, -1, -7), (0, -1, 1), (5, 0, 1), (5, 0, -1), (3, 2, 0), (0, -1, 5),
    (-7, 3, 10), (-7, -1, 10), (10**18, 10**18, 10**18 + 9), (2**62 + 3, 2**62 + 1, MAX), (-5, 3, MIN),
    (7, -1, MIN), (MIN, MAX, MAX), (MAX, MIN, 10**9 + 7), (5, 1, 1),
], ids=repr)
def test_pow_with_a_modulus(args) -> None:
    assert_like_cpython(powmod, _compiled(powmod), args)


def test_proven_exponents_stay_plain_ints() -> None:
    """A range counter, or a guard that raises on a negative exponent, proves it >= 0: one int, no union."""
    for fn, args in ((counter_powers, (0,)), (counter_powers, (7,)), (guarded, (3, 5)), (guarded, (3, -1))):
        assert_like_cpython(fn, _compiled(fn), args)
    for fn in (counter_powers, guarded):
        src = generate(fn, Settings.from_env()).source
        assert "power_or_float" not in src and "ep::Union" not in src, fn.__name__
    assert "power_or_float" in generate(power, Settings.from_env()).source


def test_a_power_where_only_an_int_is_taken_is_a_located_error() -> None:
    with pytest.raises(CompileError, match=r"test_int_pow.py:\d+:\d+: error: only integers.*got float \| int"):
        _compiled(index_by_power).build()


def test_pow_with_a_float_modulus_is_a_located_error() -> None:
    with pytest.raises(CompileError, match="pow\\(\\) 3rd argument not allowed unless all arguments are integers"):
        _compiled(float_modulus).build()

"""sorted() in compiled code and the standard-library code that needs it (statistics.median and friends),
compared with CPython on the same inputs: values, result types, stability of equal keys under reverse,
errors (StatisticsError on empty data, a loud ValueError for NaN, whose order CPython leaves to timsort)."""
from __future__ import annotations

import statistics
from typing import Any, Callable

import numpy as np
import pytest

import everypath

F = np.ndarray[tuple[int], np.dtype[np.float64]]
F32 = np.ndarray[tuple[int], np.dtype[np.float32]]
I = np.ndarray[tuple[int], np.dtype[np.int64]]
B = np.ndarray[tuple[int], np.dtype[np.bool_]]


def median(x: F) -> float:
    return statistics.median(x)


def median_low(x: F32):
    return statistics.median_low(x)


def median_high(x: I):
    return statistics.median_high(x)


def spread(x: F, r: bool) -> float:
    ys = sorted([v * 2.0 for v in x], reverse=r)
    return ys[0] - ys[-1] + len(ys)


def odd_range(n: int) -> int:
    ys = sorted(range(n, 0, -2))
    return ys[0] * 1000 + ys[len(ys) - 1]


def bools(x: B) -> int:
    ys = sorted(x, reverse=True)
    return int(ys[0]) + 2 * int(ys[-1])


def signed_zeros(x: F, r: bool) -> float:
    ys = sorted([v for v in x], reverse=r)  # -0.0 == 0.0: a stable sort keeps their order either way
    return 1.0 / ys[1] + 10.0 * (1.0 / ys[2])


def trimmed_mean(x: F, k: int) -> float:
    ys = sorted(x)
    total = 0.0
    for v in ys[k: len(ys) - k]:
        total += v
    return total / (len(ys) - 2 * k)


RNG = np.random.default_rng(5)
CASES: list[tuple[Callable[..., Any], tuple[Any, ...]]] = [
    (median, (RNG.random(7),)), (median, (RNG.random(8),)), (median, (np.zeros(0),)), (median, (np.ones(1),)),
    (median_low, (RNG.random(6).astype(np.float32),)), (median_high, (np.array([3, 1, 2, 2]),)),
    (spread, (RNG.random(9), True)), (spread, (RNG.random(9), False)), (odd_range, (9,)), (odd_range, (1,)),
    (bools, (np.array([True, False, True]),)), (signed_zeros, (np.array([0.0, -0.0, 0.0, 5.0]), False)),
    (signed_zeros, (np.array([-0.0, 0.0, -0.0, -5.0]), True)), (trimmed_mean, (RNG.standard_normal(41), 3)),
]


def _outcome(fn: Callable[..., Any], args: tuple[Any, ...]) -> tuple[str, str]:
    try:
        r = fn(*args)
        return type(r).__name__, repr(r)
    except Exception as e:  # noqa: BLE001 - the exception is the result compared
        return type(e).__name__, str(e)


@pytest.mark.parametrize("fn, args", CASES, ids=[f"{f.__name__}-{i}" for i, (f, _) in enumerate(CASES)])
def test_sorted_as_cpython(fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    assert _outcome(everypath.compile(fn), args) == _outcome(fn, args)


def slices(x: I, a: int, b: int, c: int) -> int:
    ys = sorted(x)
    total = 0
    for v in ys[a:b:c]:
        total = total * 7 + int(v)
    return total + 1000 * len(ys[::-1]) + 100 * len(ys[b:a])


def test_list_slices_as_cpython() -> None:
    f = everypath.compile(slices)
    x = RNG.integers(-50, 50, size=11)
    for a, b, c in ((0, 11, 1), (2, -2, 3), (-3, 1, -1), (10, 0, -4), (-100, 100, 2), (5, 5, 1), (1, 9, -1)):
        assert _outcome(f, (x, a, b, c)) == _outcome(slices, (x, a, b, c)), (a, b, c)
    assert _outcome(f, (x, 0, 3, 0)) == _outcome(slices, (x, 0, 3, 0))  # ValueError: slice step cannot be zero


def test_nan_is_refused_loudly() -> None:
    with pytest.raises(ValueError, match="NaN"):
        everypath.compile(median)(np.array([1.0, np.nan, 2.0]))


def keyed(x: F) -> float:
    return sorted(x, key=lambda v: -v)[0]


def test_a_key_function_sorts_as_cpython() -> None:
    x = np.array([3.0, -1.0, 7.5, 0.0, 7.5])
    assert everypath.compile(keyed)(x) == keyed(x) == 7.5

"""Loop versioning on run-time index bounds (lowering/unit_stride.py bounds_versions): an inner loop over
`range(lo, hi)` with lo and hi parameters tests `lo >= 0 && hi <= a.shape[0]` once and runs an unchecked copy
when it holds, the checked (wrapping, raising) loop otherwise; results and errors compared with CPython."""
from __future__ import annotations

import dataclasses
import os
import re
from typing import Any, Callable

import numpy as np
import pytest

import everypath
from everypath.base.settings import Settings
from everypath.lowering.pipeline import generate
from tests.corpus.values._compare import assert_like_cpython

IVec = np.ndarray[tuple[int], np.dtype[np.int64]]
Mat = np.ndarray[tuple[int, int], np.dtype[np.float64]]


def _settings() -> Settings:
    return dataclasses.replace(Settings.from_env({**os.environ, "EVERYPATH_TELEMETRY": "0"}))


def swap(a, i, j):
    t = a[i]
    a[i] = a[j]
    a[j] = t


def partition(a: IVec, lo: int, hi: int) -> tuple[int, IVec]:
    """Lomuto's partition of a[lo:hi + 1] around a[hi], as a user writes it (a helper does the swaps)."""
    pivot = a[hi]
    i = lo
    for j in range(lo, hi):
        if a[j] < pivot:
            swap(a, i, j)
            i += 1
    swap(a, i, hi)
    return i, a


def window_sum(a: IVec, lo: int, hi: int) -> int:
    s = 0
    for j in range(lo, hi):
        s += int(a[j]) + int(a[j + 1])
    return s


def rows_window(m: Mat, lo: int, hi: int) -> float:
    s = 0.0
    for i in range(m.shape[0]):
        for j in range(lo, hi):
            s += float(m[i, j])
    return s


_ACCESS = re.compile(r"ep::(get\w*)(<\w+>)?\(")


def _source(fn: Callable[..., Any]) -> str:
    src = generate(fn, _settings()).source
    return src[src.index("EP_DEFINE_ABI"):]


def _compiled(fn: Callable[..., Any], cache: dict[Any, Any] = {}) -> Any:  # noqa: B006 - one build per kernel
    if fn not in cache:
        cache[fn] = everypath.compile(fn, settings=_settings())
    return cache[fn]


def test_parameter_bounds_are_tested_once_before_the_loop() -> None:
    src = _source(window_sum)
    assert re.search(r"if \(v\d+ >= 0 && v\d+ \+ 1 <= l_a\.shape\[0\]\)", src), src  # j and j + 1: one test
    accs = {m.group(1) for m in _ACCESS.finditer(src)}
    assert {"get_inbounds", "get"} <= accs, accs  # the fast copy, and the checked copy that wraps
    assert src.count("__builtin_unreachable") == 2  # j and j + 1 in range, said to g++ in the fast copy only


@pytest.mark.parametrize("args", [(0, 9), (2, 5), (5, 5), (7, 3), (-3, 2), (-11, 0), (0, 10), (3, 12), (-12, -9)],
                         ids=repr)
def test_window_sum_like_cpython(args: tuple[int, int]) -> None:
    a = np.arange(10, dtype=np.int64) * 3 - 7
    assert_like_cpython(window_sum, _compiled(window_sum), (a, *args))


def test_a_helper_inlined_into_the_fast_copy() -> None:
    """swap(a, i, j) is a separate function; the fast copy's facts about j reach its inlined body."""
    src = _source(partition)
    assert "__builtin_unreachable" in src and re.search(r">= 0 && v\d+ <= l_a\.shape\[0\]", src)
    rng = np.random.default_rng(3)
    for lo, hi, n in ((0, 9, 10), (2, 7, 10), (0, 0, 1), (4, 4, 10), (-5, -1, 8), (-8, 3, 8), (0, 10, 10), (3, 9, 8)):
        a = rng.integers(-50, 50, size=n).astype(np.int64)
        assert_like_cpython(partition, _compiled(partition), (a, lo, hi))


def test_only_the_inner_loop_is_versioned() -> None:
    src = _source(rows_window)
    tests = [line for line in src.splitlines() if ">= 0 && " in line and "__builtin_unreachable" not in line]
    assert src.count("__builtin_unreachable") == 1 and len(tests) == 1, src  # one fact, one test before one loop
    m = np.arange(12.0).reshape(3, 4)
    for lo, hi in ((0, 4), (1, 3), (-2, 1), (2, 5), (3, 3)):
        assert_like_cpython(rows_window, _compiled(rows_window), (m, lo, hi))
    assert_like_cpython(rows_window, _compiled(rows_window), (np.ones((0, 4)), 0, 9))  # no rows: never indexed

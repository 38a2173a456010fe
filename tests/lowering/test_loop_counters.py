"""Trailing counters, helpers' indices and borrowed array parameters (lowering/loop_counters.py, helper_clones.py,
borrowed.py).

Kernels written the way users write partition and compaction loops; every result is compared with CPython
running the same function, and the generated C++ is read for what the proofs promise (the fact for the
counter, the reference parameter) and for what they must not promise (a counter bumped twice, a start that is
not the range's).
"""
from __future__ import annotations

import re

import numpy as np
import pytest

import everypath

I1 = np.ndarray[tuple[int], np.dtype[np.int64]]
F1 = np.ndarray[tuple[int], np.dtype[np.float64]]


def exch(v, p, q):
    tmp = v[p]
    v[p] = v[q]
    v[q] = tmp


def evens_first(a: I1, lo: int, hi: int) -> int:
    """Move the even elements of a[lo:hi] to its front (stable for the evens); returns where the odds start."""
    i = lo
    for j in range(lo, hi):
        if a[j] % 2 == 0:
            exch(a, i, j)
            i += 1
    return i


def positives(x: F1) -> F1:
    out = np.zeros_like(x)
    k = 0
    for j in range(x.shape[0]):
        if x[j] > 0.0:
            out[k] = x[j]
            k += 1
    return out[:k]


def running_tail(x: F1, out: F1) -> int:
    """A use after the increment: out[k] is written with k == j + 1 at most."""
    k = 0
    for j in range(len(x)):
        if x[j] >= 0.0:
            k += 1
            out[k] = x[j]
    return k


def into_small(x: F1, out: F1) -> int:
    k = 0
    for j in range(x.shape[0]):
        if x[j] > 0.0:
            out[k] = x[j]
            k += 1
    return k


def bumped_twice(x: F1, out: F1) -> int:
    k = 0
    for j in range(x.shape[0]):
        if x[j] > 0.0:
            out[k] = x[j]
            k += 1
        else:
            k += 1
            out[k] = 0.0
    return k


def offset_start(x: F1, out: F1) -> int:
    k = 1
    for j in range(x.shape[0]):
        if x[j] > 0.0:
            out[k] = x[j]
            k += 1
    return k


def narrow_counter(x: F1, out: F1) -> int:
    k = np.int32(0)  # int32 arithmetic could wrap before j ends: no fact for it
    for j in range(x.shape[0]):
        if x[j] > 0.0:
            out[k] = x[j]
            k += 1
    return int(k)


def fill_ramp(a: I1, n: int) -> None:
    for j in range(n):
        a[j] = j


def ramp_caller(a: I1) -> I1:
    fill_ramp(a, a.shape[0])
    return a


def rebinds(a: F1) -> float:
    while a.shape[0] > 2:  # loop-carried: the parameter's own variable is stored again (a straight-line
        a = a[1::2]  # rebinding would be a new variable of its own, and the parameter could still borrow)
    return a[-1]


def keep(a: I1) -> I1:
    return a


def returns_param(n: int) -> I1:
    return keep(np.arange(n))


def shift_into(dst, src, n):
    for i in range(n - 1):
        dst[i + 1] = src[i] + dst[i]


def same_array_twice(a: F1) -> F1:
    shift_into(a, a, a.shape[0])  # both parameters borrow one array: every store must be seen by later loads
    return a


def _cxx(fn) -> str:
    return everypath.compile(fn).cpp_source


@pytest.fixture(scope="module")
def rng() -> np.random.Generator:
    return np.random.default_rng(20261203)


@pytest.mark.parametrize("n,lo,hi", [(0, 0, 0), (1, 0, 1), (9, 2, 7), (200, 0, 200), (200, 37, 38)])
def test_partition_with_a_helper_matches_cpython(n: int, lo: int, hi: int, rng: np.random.Generator) -> None:
    a = rng.integers(-50, 50, size=n)
    ours, theirs = a.copy(), a.copy()
    got = everypath.compile(evens_first)(ours, lo, hi)
    want = evens_first(theirs, lo, hi)
    assert got == want and type(got) is type(want)
    np.testing.assert_array_equal(ours, theirs)


def test_partition_out_of_range_raises_like_cpython() -> None:
    a = np.arange(6)
    with pytest.raises(IndexError) as want:
        evens_first(a.copy(), 2, 9)
    with pytest.raises(IndexError) as got:
        everypath.compile(evens_first)(a.copy(), 2, 9)
    assert str(got.value) == str(want.value)


def test_the_counter_and_the_helper_are_proven_in_the_fast_copy() -> None:
    src = _cxx(evens_first)
    assert "if (!(l_i >= 0 && l_i < l_a.shape[0])) __builtin_unreachable();" in src
    # the helper is inlined and borrows the array instead of copying it
    assert re.search(r"\[\[gnu::always_inline\]\] inline static ep::None exch__0\(const ep::Array<int64_t, 1>& "
                     r"__restrict__ a_v,", src)
    # the fast copy calls a copy of it with both indices unchecked, the general loop the checked helper
    clone = src[src.index("// exch, indices proven by its caller's loop"):]
    clone = clone[:clone.index("\n}\n")]
    assert clone.count("ep::get_inbounds(l_v, ") == 4 and "ep::get(" not in clone
    fast, general = src.split("} else {", 1)[0], src.split("} else {", 1)[1]
    assert "exch__0__inb0(l_a, " in fast and "exch__0(l_a, " in general and "__inb" not in general.split("return")[0]


@pytest.mark.parametrize("n", [0, 1, 7, 1000])
def test_compaction_matches_numpy(n: int, rng: np.random.Generator) -> None:
    x = rng.standard_normal(n)
    got = everypath.compile(positives)(x)
    np.testing.assert_array_equal(got, x[x > 0.0])
    src = _cxx(positives)
    assert "<= l_out.shape[0]) {" in src  # one test before the loop ...
    assert "if (!(l_k >= 0 && l_k < l_out.shape[0])) __builtin_unreachable();" in src
    assert re.search(r"ep::get_unit_inbounds\(l_out, v\d+\) = ", src)  # ... and the store is unchecked


def test_use_after_the_increment_needs_one_more_element(rng: np.random.Generator) -> None:
    x = np.abs(rng.standard_normal(50))
    ours, theirs = np.zeros(51), np.zeros(51)
    assert everypath.compile(running_tail)(x, ours) == running_tail(x, theirs) == 50
    np.testing.assert_array_equal(ours, theirs)
    src = _cxx(running_tail)
    assert re.search(r"v\d+ \+ 1 <= l_out.shape\[0\]\) \{", src)  # stop + 1: the counter may reach stop
    assert "if (!(l_k + 1 >= 0 && l_k + 1 < l_out.shape[0])) __builtin_unreachable();" in src
    with pytest.raises(IndexError) as want:  # out one short: the last element's store is out of range
        running_tail(x, np.zeros(50))
    with pytest.raises(IndexError) as got:
        everypath.compile(running_tail)(x, np.zeros(50))
    assert str(got.value) == str(want.value)


def test_an_output_too_small_for_the_loop_but_not_the_count_still_runs() -> None:
    # the fast copy's test (n <= out.shape[0]) fails, the checked loop runs: only three elements are stored
    x = np.array([1.0, -1.0, 2.0, -2.0, 3.0, -3.0])
    ours, theirs = np.zeros(3), np.zeros(3)
    assert everypath.compile(into_small)(x, ours) == into_small(x, theirs) == 3
    np.testing.assert_array_equal(ours, theirs)
    x = np.ones(5)
    with pytest.raises(IndexError) as want:
        into_small(x, np.zeros(3))
    with pytest.raises(IndexError) as got:
        everypath.compile(into_small)(x, np.zeros(3))
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("fn", [bumped_twice, offset_start, narrow_counter],
                         ids=["bumped_twice", "offset_start", "narrow_counter"])
def test_what_is_not_a_trailing_counter_gets_no_fact(fn, rng: np.random.Generator) -> None:
    assert not re.search(r"\(l_k( \+ 1)? >= 0", _cxx(fn))
    x = rng.standard_normal(40)
    for size in (41, 42, 10):
        ours, theirs = np.zeros(size), np.zeros(size)
        try:
            want = fn(x, theirs)
        except IndexError as exc:
            with pytest.raises(IndexError) as got:
                everypath.compile(fn)(x, ours)
            assert str(got.value) == str(exc)
            continue
        assert everypath.compile(fn)(x, ours) == want
        np.testing.assert_array_equal(ours, theirs)


def test_borrowed_parameters_write_through_and_results_outlive_the_call() -> None:
    a = np.full(5, -1)
    got = everypath.compile(ramp_caller)(a)
    np.testing.assert_array_equal(a, np.arange(5))  # the helper's stores reach the caller's array
    np.testing.assert_array_equal(got, np.arange(5))
    assert "const ep::Array<int64_t, 1>& __restrict__ a_a" in _cxx(ramp_caller)
    # a helper returning its borrowed parameter: the result is a copy of the view that owns the buffer
    out = everypath.compile(returns_param)(1000)
    np.testing.assert_array_equal(out, np.arange(1000))


def test_a_rebound_parameter_is_copied() -> None:
    src = _cxx(rebinds)
    assert "const ep::Array<double, 1>&" not in src and "rebinds__0(ep::Array<double, 1> a_a)" in src
    x = np.arange(40.0)
    assert everypath.compile(rebinds)(x) == rebinds(x) == 31.0


def test_one_array_borrowed_twice_sees_its_own_stores() -> None:
    x = np.arange(1.0, 9.0)
    want = same_array_twice(x.copy())
    got = everypath.compile(same_array_twice)(x.copy())
    np.testing.assert_array_equal(got, want)
    assert "const ep::Array<double, 1>& __restrict__ a_dst, const ep::Array<double, 1>& __restrict__ a_src" \
        in _cxx(same_array_twice)

"""NEP 50 across loop iterations and branches: a Python scalar accumulator yields to the first NumPy scalar it
meets (lowering/types.py MaybeWeakT), so compiled code accumulates in the same dtype as CPython, bit for bit."""
from __future__ import annotations

import numpy as np
import pytest

import everypath

F32 = np.ndarray[tuple[int], np.dtype[np.float32]]
I32 = np.ndarray[tuple[int], np.dtype[np.int32]]
U8 = np.ndarray[tuple[int], np.dtype[np.uint8]]
C64 = np.ndarray[tuple[int], np.dtype[np.complex64]]


def dot32(a: F32, b: F32):
    total = 0.0
    for i in range(a.shape[0]):
        total += a[i] * b[i]
    return total


def sum_abs(x: F32):
    s = 0
    for v in x:
        s = s + abs(v)
    return s


def count_positive(x: F32):
    count = 0
    for i in range(x.shape[0]):
        count += x[i] > 0
    return count


def checksum(x: U8):
    h = 0
    for v in x:
        h += v * 7  # wraps in uint8 as in NumPy: the Python int yields to np.uint8
    return h


def int_sum(x: I32):
    s = 0
    for v in x:
        s += v
    return s


def pick(x: F32, c: bool):
    y = 0.0
    if c:
        y = x[0]
    return y * x[-1], y < x[-1]


def running_max(x: F32):
    best = 0.0
    for v in x:
        if v > best:
            best = v
    return best


def complex_acc(z: C64):
    acc = 0
    for v in z:
        acc += v * v
    return acc


def store_back(x: F32):
    s = 0.0
    out = np.zeros(1, np.float32)
    for v in x:
        s += v * np.float32(0.1)
        out[0] = s
    return out, s


def mean_loop(x: F32):
    s = 0.0
    for v in x:
        s += v
    return s / max(x.shape[0], 1)  # the mean users write: accumulated and divided in float32, as CPython


def rms_loop(x: F32):
    s = 0.0
    for v in x:
        s += v * v
    return (s / len(x)) ** 0.5 if len(x) else s


def demoted(x: F32):
    s = 0.1
    for v in x:
        s += v
    return s / max(x.shape[0], 1)  # 0.1 is not a float32: a Python float and np.float32 differ here


RNG = np.random.default_rng(12)


def f32(n: int) -> np.ndarray:
    return (RNG.standard_normal(n) * 3).astype(np.float32)


CASES = [
    (dot32, [(f32(n), f32(n)) for n in (0, 1, 1000)]),
    (sum_abs, [(f32(0),), (f32(7),)]),
    (count_positive, [(f32(0),), (f32(50),)]),
    (checksum, [(np.zeros(0, np.uint8),), (RNG.integers(0, 256, 40).astype(np.uint8),)]),
    (int_sum, [(np.zeros(0, np.int32),), (np.array([2**31 - 1, 5, -3], np.int32),)]),
    (pick, [(f32(3), True), (f32(3), False)]),
    (running_max, [(f32(0),), (f32(20),), (-np.abs(f32(5)),)]),
    (complex_acc, [(np.zeros(0, np.complex64),), ((f32(4) + 1j * f32(4)).astype(np.complex64),)]),
    (store_back, [(f32(0),), (f32(9),)]),
    (mean_loop, [(f32(0),), (f32(1),), (f32(1000),), (f32(10**5),)]),
    (rms_loop, [(f32(0),), (f32(3),), (f32(10**5),)]),
]


def _same(want, got, where):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), where
        for w, g in zip(want, got):
            _same(w, g, where)
        return
    if isinstance(want, np.ndarray):
        assert got.dtype == want.dtype, where
        np.testing.assert_array_equal(got, want)
        return
    # zero iterations included: the Python scalar where CPython returns it, the NumPy scalar otherwise; the
    # one documented exception is a Python scalar and a NumPy scalar of one dtype (`count = 0` then
    # `count += x[i] > 0`, an np.int64): one slot, so zero iterations give np.int64(0) for 0
    same_dtype = where[0] == "count_positive"
    assert type(got) is type(want) or (same_dtype and type(want) is int and got == want), (where, want, got)
    assert got == want or (np.isnan(want) and np.isnan(got)), (where, want, got)


@pytest.mark.parametrize("fn, inputs", CASES, ids=[c[0].__name__ for c in CASES])
def test_same_as_cpython(fn, inputs):
    compiled = everypath.compile(fn)
    for args in inputs:
        _same(fn(*args), compiled(*args), (fn.__name__, [getattr(a, "shape", a) for a in args]))


def test_float32_sum_of_a_million_is_bit_identical():
    a, b = f32(10**6), f32(10**6)
    want, got = dot32(a, b), everypath.compile(dot32)(a, b)
    assert type(got) is np.float32 and got == want


def test_inexact_start_computes_as_cpython():
    # s = 0.1: Python float arithmetic while no element was seen, float32 from the first one (lowering/weak_results.py)
    x = f32(5)
    got = everypath.compile(demoted)
    want = demoted(x)
    assert type(got(x)) is np.float32 and got(x) == want
    assert type(got(x[:0])) is float and got(x[:0]) == demoted(x[:0]) == 0.1

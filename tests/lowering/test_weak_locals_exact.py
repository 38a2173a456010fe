"""A local that starts as a Python scalar and meets a NumPy scalar (NEP 50; base/types.py MaybeWeakT,
lowering/weak_results.py): compiled code gives CPython's value AND exact type on every path, including the
loop that ran zero times (the Python scalar comes back) and reads where the two differ (`s = 0.1` then
`s / n`). Each kernel is compared with CPython itself, bit for bit."""
from __future__ import annotations

import math

import numpy as np
import pytest

import everypath

F32 = np.ndarray[tuple[int], np.dtype[np.float32]]
F16 = np.ndarray[tuple[int], np.dtype[np.float16]]
I8 = np.ndarray[tuple[int], np.dtype[np.int8]]
U8 = np.ndarray[tuple[int], np.dtype[np.uint8]]
C64 = np.ndarray[tuple[int], np.dtype[np.complex64]]
F32_2D = np.ndarray[tuple[int, int], np.dtype[np.float32]]


def dot(a: F32, b: F32):
    total = 0.0
    for i in range(a.shape[0]):
        total += a[i] * b[i]
    return total


def running_mean(x: F32):
    s = 0.0
    for v in x:
        s += v
    return s / max(len(x), 1)


def mean_from_tenth(x: F32):
    s = 0.1  # not a float32: Python float arithmetic while no element was seen
    for v in x:
        s += v
    return s / max(len(x), 1)


def rms_from_tenth(x: F32):
    s = 0.1
    for v in x:
        s += v * v
    return math.sqrt(s / max(len(x), 1))


def max_tracker(x: F32):
    best = 0.0
    for v in x:
        if v > best:
            best = v
    return best


def complex_energy(z: C64):
    acc = 0
    for v in z:
        acc += v * v
    return acc


def complex_shift(z: C64):
    acc = 0.5j  # exact in complex64, but a Python complex until the first element
    for v in z:
        acc = acc + v
    return acc * 2


def djb_hash(x: U8):
    h = 0
    for v in x:
        h = h * 33 + v  # np.uint8 after the first byte: wraps as NumPy does
    return h


def int8_sum(x: I8):
    s = 0
    for v in x:
        s += v
    return s, s + 1


def half_sum(x: F16):
    s = 0.0
    for v in x:
        s += v
    return s


def sum_if(x: F32, enabled: bool):
    s = 0.0
    if enabled:
        for v in x:
            s += v
    return s


def grid_sum(a: F32_2D):
    s = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            s += a[i, j]
    return s


def sum_until_negative(x: F32):
    s = 0.25
    n = 0
    for v in x:
        if v < 0:
            break
        s += v
        n += 1
    return s, n


def _accumulate(x: F32):
    s = 0.0
    for v in x:
        s += v
    return s


def via_helper(x: F32):
    r = _accumulate(x)
    return r, r * 3, _accumulate(x) + 0.1


def stats(x: F32):
    s = 0.0
    sq = 0.0
    for v in x:
        s += v
        sq += v * v
    return [s, sq], {"sum": s, "sumsq": sq}


def sum_gen(x: F32):
    return sum(v * 2 for v in x)  # starts from the Python int 0


def copied(x: F32):
    s = 0.1
    for v in x:
        s += v
    r = s
    return r if len(x) != 3 else -r


RNG = np.random.default_rng(1212)


def f32(n: int) -> np.ndarray:
    return (RNG.standard_normal(n) * 3).astype(np.float32)


def sizes(make, ns=(0, 1, 7, 1001)):
    return [(make(n),) for n in ns]


C = [(f32(n) + 1j * f32(n)).astype(np.complex64) for n in (0, 1, 9)]
CASES = [
    (dot, [(f32(n), f32(n)) for n in (0, 1, 7, 1001)] + [(f32(9)[::2], f32(5))]),
    (running_mean, sizes(f32)),
    (mean_from_tenth, sizes(f32)),
    (rms_from_tenth, sizes(f32)),
    (max_tracker, sizes(f32) + [(-np.abs(f32(6)),)]),
    (complex_energy, [(z,) for z in C]),
    (complex_shift, [(z,) for z in C]),
    (djb_hash, [(np.zeros(0, np.uint8),), (np.array([200], np.uint8),),
                (RNG.integers(0, 256, 57).astype(np.uint8),)]),
    (int8_sum, [(np.zeros(0, np.int8),), (np.array([-128], np.int8),),
                (RNG.integers(-128, 128, 33).astype(np.int8),)]),
    (half_sum, [(f32(n).astype(np.float16),) for n in (0, 1, 11)]),
    (sum_if, [(f32(5), True), (f32(5), False), (f32(0), True)]),
    (grid_sum, [(f32(0).reshape(0, 3),), (f32(1).reshape(1, 1),), (f32(15).reshape(3, 5),)]),
    (sum_until_negative, [(f32(0),), (np.abs(f32(4)),), (np.array([1.5, 2.25, -1.0, 4.0], np.float32),),
                          (np.array([-1.0], np.float32),)]),
    (via_helper, sizes(f32, (0, 1, 6))),
    (stats, sizes(f32, (0, 1, 6))),
    (sum_gen, sizes(f32, (0, 1, 5))),
    (copied, sizes(f32, (0, 1, 3))),
]


def _same(want, got, where) -> None:
    """Value and exact type, recursively: np.float32 is not float, np.uint8 is not int."""
    assert type(got) is type(want), (where, want, got)
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want), where
        for w, g in zip(want, got):
            _same(w, g, where)
    elif isinstance(want, dict):
        assert list(got) == list(want), where
        for k in want:
            _same(want[k], got[k], (where, k))
    else:
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want), err_msg=str(where))


@pytest.mark.parametrize("fn, inputs", CASES, ids=[c[0].__name__ for c in CASES])
def test_value_and_type_as_cpython(fn, inputs):
    compiled = everypath.compile(fn)
    for args in inputs:
        _same(fn(*args), compiled(*args), (fn.__name__, [getattr(a, "shape", a) for a in args]))


def test_zero_iterations_give_the_python_scalar():
    empty = np.zeros(0, np.float32)
    assert type(everypath.compile(dot)(empty, empty)) is float
    assert type(everypath.compile(djb_hash)(np.zeros(0, np.uint8))) is int
    assert type(everypath.compile(complex_energy)(np.zeros(0, np.complex64))) is int
    got = everypath.compile(mean_from_tenth)(empty)
    assert type(got) is float and got == 0.1


def test_hash_from_5381_raises_as_cpython():
    # 5381 * 33 is a Python int beyond uint8 when the first byte arrives: NumPy 2 raises OverflowError
    def djb2(x: U8):
        h = 5381
        for v in x:
            h = h * 33 + v
        return h

    compiled = everypath.compile(djb2)
    assert compiled(np.zeros(0, np.uint8)) == 5381 and type(compiled(np.zeros(0, np.uint8))) is int
    x = np.array([7, 9], np.uint8)
    with pytest.raises(OverflowError) as want:
        djb2(x)
    with pytest.raises(OverflowError) as got:
        compiled(x)
    assert str(got.value) == str(want.value)

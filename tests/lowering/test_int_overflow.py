"""Python ints (and floats) that do not fit an integer array's dtype: NumPy 2 raises OverflowError in arithmetic
and stores and compares them by value; compiled code must do the same (compared against the uncompiled function)."""
from __future__ import annotations

import numpy as np
import pytest

import everypath

U8 = np.ndarray[tuple[int, int], np.dtype[np.uint8]]
I8 = np.ndarray[tuple[int], np.dtype[np.int8]]
U64 = np.ndarray[tuple[int], np.dtype[np.uint64]]
U8_1 = np.ndarray[tuple[int], np.dtype[np.uint8]]


def brighten(img: U8, k: int):
    return img + k, k * img, img - k, img // max(k, 1), np.maximum(img, k), img & k


def brighten_const(img: U8):
    return img + 300


def threshold(img: U8, t: int):
    # NumPy 2 compares Python ints by value: these never raise
    return img > t, img == t, img <= t, img != -1, img < 256


def signed(x: I8, k: int):
    return x - k, x * 2 + k


def unsigned64(x: U64, k: int):
    return x + k, x > k


def inplace(img: U8, k: int):
    img += k
    return img


def scalar_ops(img: U8, k: int):
    v = img[0, 0]
    return v + k, v > k


def stores(a: U8_1, k: int, x: float):
    a[0] = k
    a[1:] = x
    return a


def fill(a: U8_1, x: float):
    a.fill(x)
    return a


def loop_store(a: U8_1, k: int):
    for i in range(a.shape[0]):
        a[i] = k + i
    return a


def const_store(a: U8_1, n: int):
    if n > 0:
        a[0] = 256  # only raises when the line runs
    return a


CASES = [
    (brighten, [(3,), (252,), (255,), (300,), (-1,)]),
    (brighten_const, [()]),
    (threshold, [(3,), (300,), (-1,), (255,)]),
    (signed, [(5,), (127,), (128,), (-129,)]),
    (unsigned64, [(5,), (-1,)]),
    (inplace, [(4,), (300,), (-2,)]),
    (scalar_ops, [(7,), (256,), (-3,)]),
    (stores, [(3, 4.7), (255, 255.9), (256, 1.0), (-1, 1.0), (2, -1.0), (2, -0.5), (2, float("nan")),
              (2, float("inf")), (2, 1e30)]),
    (fill, [(3.5,), (300.5,), (float("-inf"),)]),
    (loop_store, [(250,), (254,)]),
    (const_store, [(0,), (1,)]),
]


def _arrays(fn):
    if fn in (signed,):
        return np.array([-5, 0, 100], np.int8)
    if fn is unsigned64:
        return np.array([0, 7, 2**63], np.uint64)
    if fn in (stores, fill, loop_store, const_store):
        return np.zeros(3, np.uint8)
    return np.array([[0, 44], [200, 255]], np.uint8)


def _outcome(fn, args):
    try:
        return "ok", fn(*args)
    except Exception as exc:  # noqa: BLE001 - the exception is the result compared
        return type(exc), str(exc)


@pytest.mark.parametrize("fn, inputs", CASES, ids=[c[0].__name__ for c in CASES])
def test_same_as_numpy(fn, inputs):
    compiled = everypath.compile(fn)
    for rest in inputs:
        want = _outcome(fn, (_arrays(fn), *rest))
        got = _outcome(compiled, (_arrays(fn), *rest))
        if want[0] != "ok":
            assert got == want, rest
            continue
        assert got[0] == "ok", (rest, got)
        w = want[1] if isinstance(want[1], tuple) else (want[1],)
        g = got[1] if isinstance(got[1], tuple) else (got[1],)
        for x, y in zip(w, g, strict=True):
            assert type(x) is type(y) and np.asarray(x).dtype == np.asarray(y).dtype, rest
            np.testing.assert_array_equal(y, x)


def test_in_range_constants_cost_nothing():
    def kernel(img: U8):
        return (img + 3) * 2 > 100

    assert "checked_int" not in everypath.compile(kernel).cpp_source


def test_bool_for_python_number_parameters_is_refused():
    # CPython keeps True a bool (`return k` gives True, True * 2 an int): refused at the call, not silently 1
    def as_int(k: int) -> int:
        return k

    def as_float(x: float) -> float:
        return x * 2.0

    for fn, value in ((as_int, True), (as_float, False), (as_int, np.True_)):
        with pytest.raises(TypeError, match=f"{fn.__name__}\\(\\) argument '\\w': expected \\w+, got"):
            everypath.compile(fn)(value)
    assert everypath.compile(as_int)(3) == 3

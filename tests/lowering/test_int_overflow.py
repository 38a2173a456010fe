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


# ---- NumPy scalars stored into integer arrays (NumPy 2: int() for signed destinations, C casts otherwise)
I16 = np.ndarray[tuple[int], np.dtype[np.int16]]
F64_1 = np.ndarray[tuple[int], np.dtype[np.float64]]
I64_1 = np.ndarray[tuple[int], np.dtype[np.int64]]


def quantize(q: I16, x: F64_1, scale: float):
    for i in range(x.shape[0]):
        q[i] = np.round(x[i] * scale)  # a NumPy float64 into int16
    return q


def narrow(q: I8, x: I64_1, u: U64):
    q[0] = x[0]  # np.int64 into int8
    q[1:] = x[1]  # a basic slice takes the same path
    q[2] = u[0]  # np.uint64: beyond C long first
    return q


def through_mask(q: I8, x: I64_1):
    q[q >= 0] = x[0]  # a mask casts (wraps), as NumPy does
    q[np.array([0, 1])] = x[1]  # so does an index array
    return q


def into_unsigned(a: U8_1, x: F64_1, y: I64_1):
    a[0] = x[0]  # unsigned destinations cast
    a[1] = y[0]
    return a


def test_numpy_scalars_into_integer_arrays_as_numpy():
    import warnings

    f = everypath.compile(quantize)
    for xs, scale in (([0.25, -0.5, 1.0], 100.0), ([1.0, 400.0], 100.0), ([float("nan")], 1.0),
                      ([float("inf")], 1.0), ([1e300], 1.0), ([-327.68], 100.0)):
        x = np.array(xs)
        want = _outcome(quantize, (np.zeros(len(xs), np.int16), x, scale))
        assert _outcome(f, (np.zeros(len(xs), np.int16), x, scale))[0] == want[0]
        got = _outcome(f, (np.zeros(len(xs), np.int16), x, scale))
        if want[0] == "ok":
            np.testing.assert_array_equal(got[1], want[1])
        else:
            assert got == want, xs
    g, h, k = everypath.compile(narrow), everypath.compile(through_mask), everypath.compile(into_unsigned)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy warns on the NaN cast; compiled code does not
        for xs in ([5, -7, 3], [300, 1, 1], [1, -129, 0], [-128, 127, 2]):
            for u in (0, 200, 2**63):
                args = (np.array(xs), np.array([u], np.uint64))
                w, o = _outcome(narrow, (np.zeros(3, np.int8), *args)), _outcome(g, (np.zeros(3, np.int8), *args))
                assert (o[0], str(o[1])) == (w[0], str(w[1])), (xs, u)
            w = _outcome(through_mask, (np.zeros(3, np.int8), np.array(xs)))
            o = _outcome(h, (np.zeros(3, np.int8), np.array(xs)))
            assert str(o) == str(w), xs
        for v in (300.5, -1.5, float("nan"), 1e10):
            args = (np.array([v]), np.array([-1, 2**40]))
            w, o = _outcome(into_unsigned, (np.zeros(2, np.uint8), *args)), _outcome(k, (np.zeros(2, np.uint8), *args))
            assert str(o) == str(w), v

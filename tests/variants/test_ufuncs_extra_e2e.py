"""The extra element-wise operators (ufuncs_extra.py) through everypath.compile:
fused into element-wise loops with the existing ufuncs, on several dtypes,
Python and NumPy scalars, broadcasting, strided views, special values (NaN,
inf, signed zeros, extremes), and the two-output ufuncs (tuples of arrays).
Transcendental functions use libm/libmvec (<= 4 ulp): rtol 1e-12 for float64
and 3e-6 for float32 (same_as_python's floor); everything else is exact."""
from __future__ import annotations

import numpy as np
import pytest

import everypath
from tests.variants._harness import infer, sample, same_as_python, typing_error

F1 = np.ndarray[tuple[int], np.dtype[np.float64]]
F2 = np.ndarray[tuple[int, int], np.dtype[np.float64]]
F32 = np.ndarray[tuple[int], np.dtype[np.float32]]
I32 = np.ndarray[tuple[int], np.dtype[np.int32]]
I64 = np.ndarray[tuple[int], np.dtype[np.int64]]
I8 = np.ndarray[tuple[int], np.dtype[np.int8]]
U8 = np.ndarray[tuple[int], np.dtype[np.uint8]]
B1 = np.ndarray[tuple[int], np.dtype[np.bool_]]
C1 = np.ndarray[tuple[int], np.dtype[np.complex128]]

with np.errstate(all="ignore"):
    SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.5, -3.5, 1e308, -1e308, 5e-324, 1e-300,
                        700.0, -745.0, 0.5, 7.25, -0.75])
    SPECIAL_B = np.array([1.0, np.inf, np.inf, -0.0, 0.0, np.nan, 2.0, 2.5, 3.5, -1e308, 1e308, -5e-324, 2.0,
                          710.0, -745.0, -0.5, 0.25, 0.0])


@everypath.compile
def floats(a: F1, b: F1):
    return (np.logaddexp(a, b), np.logaddexp2(a, b), np.heaviside(a, 0.5), np.heaviside(a, b), np.fmod(a, b),
            np.float_power(a, b), np.nextafter(a, b), np.spacing(a), np.sinc(a), np.i0(a), np.fix(a),
            np.isposinf(a), np.isneginf(a), np.isreal(a), np.iscomplex(a), np.ldexp(a, 3))


@everypath.compile
def fused(a: F1, b: F1):
    # one fused loop mixing the new operators with the table's, and a fused full sum
    y = np.logaddexp(a, b) * 2.0 - np.sinc(a / 3.0) + np.fix(b) ** 2
    z = np.where(np.isposinf(a) | np.isneginf(b), 0.0, np.heaviside(a - b, 0.5) + np.spacing(1.0))
    return y, z, np.sum(np.logaddexp2(a, b)), np.float_power(np.abs(a) + 1.0, 0.5) + np.i0(b / 10.0)


@everypath.compile
def floats32(a: F32, b: F32):
    return (np.logaddexp(a, b), np.logaddexp2(a, 2.0), np.heaviside(a, np.float32(1)), np.fmod(a, b),
            np.float_power(a, b), np.nextafter(a, b), np.spacing(a), np.sinc(a), np.i0(a), np.fix(a),
            np.isposinf(a), np.ldexp(a, np.int32(-2)), np.modf(a), np.frexp(a), np.divmod(a, b))


@everypath.compile
def ints(i: I32, j: I32, k: I64, u: U8):
    return (np.gcd(i, j), np.lcm(i, j), np.fmod(i, j), np.fmod(k, 3), np.gcd(k, 12), np.lcm(u, np.uint8(6)),
            np.fmod(u, u), np.ldexp(2.0, i % 10), np.float_power(i, 2), np.sinc(i), np.fix(i), np.fix(u),
            np.isposinf(i), np.spacing(k), np.divmod(i, j), np.divmod(k, -3), np.i0(u), np.modf(i))


@everypath.compile
def small(i: I8, m: B1):
    return np.gcd(i, np.int8(-128)), np.lcm(i, np.int8(3)), np.fmod(m, m), np.fix(m), np.float_power(m, 2)


@everypath.compile
def complexes(z: C1, w: C1):
    return np.float_power(z, w), np.float_power(z, 2), np.float_power(z, -3), np.sinc(z), np.isreal(z), np.iscomplex(z)


@everypath.compile
def scalars(x: float, y: float, n: int, f: np.float32):
    return (np.logaddexp(x, y), np.heaviside(x, 0.5), np.fmod(x, y), np.gcd(n, 6), np.lcm(n, 4), np.spacing(x),
            np.sinc(x), np.i0(x), np.fix(x), np.isposinf(x), np.ldexp(x, n), np.float_power(x, 2), np.modf(x),
            np.frexp(x), np.divmod(x, y), np.divmod(n, 7), np.nextafter(f, np.float32(2)), np.fix(n), np.sinc(f))


@everypath.compile
def broadcast(a: F2, b: F1):
    return np.logaddexp(a, b), np.fmod(a, b[:1]), np.divmod(a, b), np.modf(a.T), np.gcd(a.astype(np.int64), 4)


@pytest.mark.parametrize("n", [0, 1, 7, 18])
def test_float64(n):
    a, b = SPECIAL[:n].copy(), SPECIAL_B[:n].copy()
    same_as_python(floats, a, b)
    same_as_python(fused, a, b)
    same_as_python(floats, sample((n,), np.float64), sample((n,), np.float64, 5))
    same_as_python(fused, sample((n,), np.float64), sample((n,), np.float64, 5))


def test_float64_strided():
    a = sample((31,), np.float64)
    b = sample((62,), np.float64, 3)
    same_as_python(floats, a[::2], b[::4])
    same_as_python(fused, a[::-3], b[1::6])


def test_float32():
    with np.errstate(all="ignore"):
        a, b = SPECIAL.astype(np.float32), SPECIAL_B.astype(np.float32)
    same_as_python(floats32, a, b)
    same_as_python(floats32, sample((13,), np.float32), sample((13,), np.float32, 2))


def test_integers():
    i = np.array([0, 1, -1, 12, -18, 2**31 - 1, -2**31, 7, 100, 9], np.int32)
    j = np.array([0, 0, 5, -8, 12, 2, -1, 21, 30, 3], np.int32)
    k = np.array([0, 1, -1, 2**62, -2**63, 36, -36, 5, 7, 11], np.int64)
    u = np.array([0, 1, 255, 6, 4, 9, 128, 10, 3, 2], np.uint8)
    same_as_python(ints, i, j, k, u)
    same_as_python(ints, sample((5,), np.int32), sample((5,), np.int32, 3), sample((5,), np.int64), sample((5,), np.uint8))
    same_as_python(small, np.array([-128, 0, 127, -6, 9], np.int8), np.array([True, False, True, True, False]))


def test_complex():
    z = np.array([0j, 1 + 1j, -2.5 + 0.5j, 1e-3j, 3 + 0j, complex(np.inf, 0), complex(np.nan, 1)])
    w = np.array([0j, 2 + 0j, -1 + 0j, 0.5 + 0.5j, -3 + 0j, 1 + 0j, 2 + 0j])
    same_as_python(complexes, z, w)
    same_as_python(complexes, sample((6,), np.complex128), sample((6,), np.complex128, 2))


@pytest.mark.parametrize("x,y,n", [(2.5, -1.5, 3), (0.0, -0.0, 0), (-7.25, 2.0, -14), (float("inf"), 1.0, 5),
                                   (float("nan"), 3.0, 1)])
def test_scalars(x, y, n):
    same_as_python(scalars, x, y, n, np.float32(x))


def test_broadcast_and_views():
    a = sample((4, 5), np.float64, 1)
    same_as_python(broadcast, a, sample((5,), np.float64, 2))
    same_as_python(broadcast, np.asfortranarray(a), sample((10,), np.float64, 3)[::2])
    with pytest.raises(ValueError):
        broadcast(a, sample((3,), np.float64))


def test_fused_into_one_loop():
    cpp = fused.cpp_source
    assert "ep::sc::logaddexp<double>" in cpp and "ep::sc::sinc<double>" in cpp
    assert cpp.count("ep::map<") <= 3  # y, z and the last expression; the sum reads its operand directly


def test_typing():
    assert str(infer("numpy.sinc", sample((3,), np.int8))) == "float64[:]"
    assert str(infer("numpy.i0", 1.5)) == "float64[()]"  # np.i0 gives 0-d arrays for scalars
    assert str(infer("numpy.modf", sample((3,), np.float32))) == "tuple[float32[:], float32[:]]"
    assert str(infer("numpy.frexp", 2.0)) == "tuple[np.float64, np.int32]"
    assert "not supported for complex" in typing_error("numpy.isposinf", sample((3,), np.complex128))
    assert "i0 not supported for complex" in typing_error("numpy.i0", sample((3,), np.complex64))
    # NumPy's float16 loop types as float16; compiled code refuses it (lowering/half_ops.py: logaddexp is a composite)
    assert str(infer("numpy.logaddexp", sample((3,), np.int8), sample((3,), np.int8))) == "float16[:]"
    assert "gcd" in typing_error("numpy.gcd", sample((3,), np.float64), 2)
    assert "keyword" in typing_error("numpy.logaddexp", sample((3,), np.float64), 1.0, out=None)

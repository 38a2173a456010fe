"""Generated C++ always builds: kernels that once made g++ fail, checked against CPython + NumPy.

PYTEST_DONT_REWRITE: the kernels' asserts must raise what CPython raises (the reference runs them here).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import everypath as ep

F1_32 = np.ndarray[tuple[int], np.dtype[np.float32]]
F1 = np.ndarray[tuple[int], np.dtype[np.float64]]
F2 = np.ndarray[tuple[int, int], np.dtype[np.float64]]
I1 = np.ndarray[tuple[int], np.dtype[np.int64]]


def _outcome(fn, *args):
    """(result or exception type and message, inputs after the call): what a caller can observe."""
    args = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    try:
        with np.errstate(all="ignore"):
            r = fn(*args)
    except Exception as e:  # noqa: BLE001 - the exception is the observable result
        return (type(e).__name__, str(e)), args
    return r, args


def _same(ref, got) -> bool:
    if isinstance(ref, np.ndarray):
        return isinstance(got, np.ndarray) and ref.dtype == got.dtype and ref.shape == got.shape and bool(
            np.allclose(ref, got, rtol=1e-6, equal_nan=True))
    if isinstance(ref, tuple):
        return isinstance(got, tuple) and len(ref) == len(got) and all(map(_same, ref, got))
    if isinstance(ref, float):
        return type(got) is type(ref) and (math.isclose(ref, got, rel_tol=1e-12) or (ref != ref and got != got))
    return type(ref) is type(got) and ref == got


def check(fn, *args) -> None:
    ref, ref_in = _outcome(fn, *args)
    got, got_in = _outcome(ep.compile(fn), *args)
    assert _same(ref, got), (ref, got)
    assert _same(ref_in, got_in), (ref_in, got_in)


def inplace_cast(u: F1_32, ru: F1) -> None:
    u += 0.15 * ru  # same_kind: float64 -> float32 in place


def inplace_cast_view(u: np.ndarray[tuple[int, int], np.dtype[np.float32]], ru: F2) -> None:
    u[1:, ::2] -= ru[1:, ::2] * 2.0
    u *= np.float64(0.5)


def test_inplace_update_that_casts():
    check(inplace_cast, np.ones(7, np.float32), np.arange(7.0))
    check(inplace_cast_view, np.ones((3, 5), np.float32), np.arange(15.0).reshape(3, 5))


def inplace_int_float(u: I1, r: F1) -> None:
    u += r  # NumPy: UFuncTypeError (same_kind refuses float64 -> int64)


def test_inplace_int_plus_float_is_refused_like_numpy():
    with pytest.raises(TypeError):  # numpy's UFuncTypeError
        inplace_int_float(np.ones(3, np.int64), np.ones(3))
    with pytest.raises(ep.CompileError, match="same_kind"):
        ep.compile(inplace_int_float)(np.ones(3, np.int64), np.ones(3))


def shape_message(x: F2) -> float:
    assert x.shape[0] == 3, f"bad shape {x.shape}"
    return float(x.sum())


def scalars_message(x: F1_32, y: F1, k: int, t: float, b: bool) -> float:
    if x.shape[0] > 0:
        raise ValueError(f"x0={x[0]} y0={y[0]} k={k} t={t} b={b} s={x.shape} one={(k,)} e={()} m={(x[0], t, b)}")
    return t


def str_message(x: F1_32) -> float:
    raise ValueError(x[0])  # str(np.float32): NumPy's own digits


@pytest.mark.parametrize("v", [0.1, 1e16, 1e15, 1.5e-5, 1e-4, 100000.0, 123456789.0, -0.0, 2.5, 1e300, math.inf,
                               -math.nan, 3e38, 1e6, 999999.0])
def test_fstring_values_print_like_cpython(v):
    with np.errstate(over="ignore"):
        x32 = np.array([v, 1.0]).astype(np.float32)
    check(scalars_message, x32, np.array([v]), -7, v, True)
    check(str_message, x32)


def conversions_message(x: F1_32, y: F1, k: int, t: float, b: bool) -> float:
    if x.shape[0] > 0:
        raise ValueError(f"{x[0]!r} {x[0]!s} {x[0]} {y[0]!r} {k!r} {t!r} {t!s} {b!r} {x.shape!r} {(x[0], k)!s}")
    return t


@pytest.mark.parametrize("v", [0.1, 1e16, 2.5, -0.0, math.inf, 3e38])
def test_fstring_conversions_r_and_s_like_cpython(v):
    with np.errstate(over="ignore"):
        x32 = np.array([v, 1.0]).astype(np.float32)
    check(conversions_message, x32, np.array([v]), -7, v, True)


def test_fstring_of_a_shape_tuple():
    check(shape_message, np.ones((2, 2)))
    check(shape_message, np.ones((3, 2)))


def strong_scalar_mix(x: F1_32):
    return np.minimum(np.cos(x), np.cos(0.439))  # np.cos(0.439) is a strong np.float64: the result is float64


def strong_scalar_where(x: F1_32):
    return np.where(x > 0.5, np.sqrt(x) * np.float64(2.0), np.exp(-x))


def test_strong_numpy_scalar_in_a_float32_expression():
    x = np.linspace(0, 2, 33, dtype=np.float32)
    check(strong_scalar_mix, x)
    check(strong_scalar_where, x)
    assert ep.compile(strong_scalar_mix)(x).dtype == np.float64


def repeat_rows(x: F2):
    return x[::2].repeat(2, axis=0)[: x.shape[0]] - x


def repeat_cols(x: F2):
    return x[:, ::2].repeat(2, axis=1)[:, : x.shape[1]] * 2.0 + x


def repeat_flat(x: F2):
    return x[::2].repeat(2)[: x.shape[0]] + 1.0


def test_slices_of_repeated_strided_views():
    for shape in [(6, 5), (5, 3), (1, 1), (0, 4)]:
        x = np.arange(float(np.prod(shape))).reshape(shape)
        check(repeat_rows, x)
        check(repeat_cols, x)
        check(repeat_flat, x)


def tanh_u8(x: np.ndarray[tuple[int], np.dtype[np.uint8]]):
    return np.tanh(x)  # NumPy computes in float16 (ep::half, tests/lowering/test_half.py)


def test_float16_loop_dtype_compiles():
    x = np.arange(256, dtype=np.uint8)
    got = ep.compile(tanh_u8)(x)
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got.view(np.uint16), tanh_u8(x).view(np.uint16))

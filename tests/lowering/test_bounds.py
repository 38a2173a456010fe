"""Negative-index wrapping is dropped only where an index provably cannot be negative."""
from __future__ import annotations

import numpy as np

import everypath
from everypath.lowering.bounds import LowerBounds
from everypath.lowering.infer import ProgramTyper
from everypath.lowering.pipeline import _resolve_params
from everypath.base.types import ArrayT
from tests.corpus._loader import assert_same_result
from everypath.tracer.callgraph import trace_program
from everypath.tracer.ir import Opcode

V = np.ndarray[tuple[int], np.dtype[np.float64]]
M = np.ndarray[tuple[int, int], np.dtype[np.float64]]


def wraps(x: V, n: int) -> V:
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = x[i - 1]  # reads x[-1] when i == 0
    for i in range(x.shape[0] - 1, -1, -1):
        out[i] += x[i - n]  # negative step and a runtime offset
    k = 3
    k = k - 10
    out[0] += x[k]  # a re-assigned variable
    return out


def stencil(a: M) -> M:
    h, w = a.shape
    out = np.zeros((h, w))
    for i in range(1, h - 1):
        for j in range(1, w - 1):
            out[i, j] = a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1] + a[(i * 2) // 2, j % 3]
    return out


def _bounds(fn):
    program = trace_program(fn)
    types, _ = _resolve_params(program.functions[program.entry], None)
    spec = ProgramTyper(program.functions).run(program.entry, types)
    return spec, LowerBounds(spec)


def test_possibly_negative_indices_keep_python_semantics() -> None:
    x = np.arange(7.0)
    assert_same_result(wraps(x, 2), everypath.compile(wraps)(x, 2))
    spec, b = _bounds(wraps)
    reads_of_x = [n.args[1] for n in spec.fn.body.walk()
                  if n.op is Opcode.GETITEM and isinstance(spec.types[n.args[0]], ArrayT)
                  and n.args[0].op is Opcode.LOAD and n.args[0].target == "x"]
    assert len(reads_of_x) == 3 and not any(b.non_negative(i) for i in reads_of_x)


def test_stencil_indices_are_proven_non_negative() -> None:
    a = np.random.default_rng(0).random((6, 5))
    assert_same_result(stencil(a), everypath.compile(stencil)(a))
    spec, b = _bounds(stencil)
    reads = [n for n in spec.fn.body.walk() if n.op is Opcode.GETITEM and n.args[1].op is Opcode.CALL
             and n.args[1].target == "ep.tuple"]
    assert reads and all(b.non_negative(i) for n in reads for i in n.args[1].args)


U8 = np.ndarray[tuple[int, int], np.dtype[np.uint8]]


def magnitudes(img: U8, x: V, s: float) -> tuple[float, float, float, float]:
    import math

    gx = int(img[0, 0]) - int(img[0, 1])
    gy = float(img[1, 0]) - 0.5
    d2 = gx * gx + gy * gy  # a sum of squares, through a variable
    cube = abs(x[0]) ** 3 + x[1] ** 2
    return math.sqrt(d2), math.sqrt(cube), math.sqrt(float(img[1, 1])), math.sqrt(s - 1.0)


def test_sqrt_domain_check_dropped_only_where_the_argument_cannot_be_negative() -> None:
    import math

    img = np.array([[3, 250], [7, 9]], dtype=np.uint8)
    x = np.array([-2.0, 3.0])
    f = everypath.compile(magnitudes)
    assert_same_result(magnitudes(img, x, 5.0), f(img, x, 5.0))
    assert_same_result(magnitudes(img, np.array([np.nan, 1.0]), 1.0), f(img, np.array([np.nan, 1.0]), 1.0))
    # the three provably non-negative arguments take a plain sqrt; s - 1.0 keeps Python's check
    assert f.cpp_source.count("std::sqrt(double(") == 3 and f.cpp_source.count("ep::pymath::sqrt(") == 1
    try:
        magnitudes(img, x, 0.5)
    except ValueError as e:
        want = str(e)
    try:
        f(img, x, 0.5)
    except ValueError as e:
        assert str(e) == want == "math domain error"
    else:
        raise AssertionError("math.sqrt of a negative number must raise ValueError")
    assert math.isnan(f(img, np.array([np.nan, 1.0]), 1.0)[1])


def stencil_u8(img: U8) -> np.ndarray[tuple[int, int], np.dtype[np.int32]]:
    h, w = img.shape
    out = np.zeros((h, w), dtype=np.int32)
    for i in range(1, h - 1):
        for j in range(1, w - 1):
            out[i, j] = int(img[i - 1, j]) + int(img[i + 1, j]) - 2 * int(img[i, j + 1])
    return out


def test_inner_loops_are_versioned_on_unit_strides_and_agree_on_views() -> None:
    f = everypath.compile(stencil_u8)
    src = f.cpp_source
    # the fast copy runs only when both arrays have unit inner strides; the general loop otherwise
    assert "if (l_img.strides[1] == 1 && l_out.strides[1] == 1) {" in src and "ep::get_unit_inbounds(l_img" in src
    img = np.random.default_rng(3).integers(0, 256, (9, 14)).astype(np.uint8)
    for view in (img, img[:, ::2], img[::-1, 1:], img.T, np.asfortranarray(img)):
        assert_same_result(stencil_u8(view), f(view))


def zero_d(x: np.ndarray[tuple[()], np.dtype[np.float64]], y: V) -> float:
    s = 0.0
    for i in range(y.shape[0]):
        s += x[()] * y[i]
    x[()] = s  # a 0-d element written in place, visible to the caller
    return s


def test_zero_d_elements_in_versioned_loops() -> None:
    x, y = np.array(2.0), np.arange(5.0)
    xc = x.copy()
    assert_same_result(zero_d(xc, y), everypath.compile(zero_d)(x, y))
    assert x[()] == xc[()] == 20.0


def conv3(img: M, k: M) -> M:
    h, w = img.shape
    out = np.zeros((max(h - 2, 0), max(w - 2, 0)))
    for i in range(h - 2):
        for j in range(w - 2):
            acc = 0.0
            for di in range(3):  # constant trips: g++ unrolls them, the j loop is the versioned one
                for dj in range(3):
                    acc += img[i + di, j + dj] * k[di, dj]
            out[i, j] = acc
    return out


def test_loops_around_constant_trip_loops_are_versioned() -> None:
    f = everypath.compile(conv3)
    assert "if (l_img.strides[1] == 1 && l_k.strides[1] == 1 && l_out.strides[1] == 1" in f.cpp_source
    rng = np.random.default_rng(5)
    img, k = rng.random((11, 17)), rng.random((3, 3))
    for a in (img, img[:, ::2], img.T):
        assert_same_result(conv3(a, k), f(a, k))
    assert_same_result(conv3(img[:2, :2], k), f(img[:2, :2], k))  # empty result

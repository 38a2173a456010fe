"""numpy.fft lowered to C++ (ops/fft.hpp), compiled once and compared with NumPy.

Tolerance: 1e-12 * max(n, 16) relative to the largest output for complex128 /
float64 results, 1e-5 for complex64 / float32 (NumPy's pocketfft computes
those in single precision, everypath in double). Lengths cover powers of two,
mixed radices, odd lengths and primes handled by Bluestein (97, 1009).
"""
from __future__ import annotations

import numpy as np

from tests.variants._decomp_data import general
from tests.variants._harness import Const, View
from tests.variants._tuple_cases import TupleProgram, run_tuple_program

LENGTHS = [1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 15, 16, 30, 64, 97, 100, 210, 243, 1009, 1024, 2018]


def _tol(dt: object, n: int) -> float:
    return 1e-5 if np.dtype(dt) in (np.float32, np.complex64) else 1e-12 * max(n, 16)


def _one_d(p: TupleProgram) -> None:
    for n in LENGTHS:
        x = general((n,), np.complex128, n)
        r = general((n,), np.float64, n + 1)
        for op in ("fft", "ifft"):
            p.tcase(f"{op}_{n}", f"numpy.fft.{op}", x, within=_tol(np.float64, n))
        p.tcase(f"rfft_{n}", "numpy.fft.rfft", r, within=_tol(np.float64, n))
        h = np.fft.rfft(r)
        p.tcase(f"irfft_{n}", "numpy.fft.irfft", h, Const(n), within=_tol(np.float64, n))
        if n > 1:
            p.tcase(f"irfft_default_{n}", "numpy.fft.irfft", h, within=_tol(np.float64, n))
    for dt in (np.float32, np.float64, np.int32, np.int64, np.uint8, np.bool_, np.complex64, np.complex128):
        x = general((2, 21), dt, 3)
        tag = np.dtype(dt).name
        for op in ("fft", "ifft", "irfft"):
            p.tcase(f"{op}_{tag}", f"numpy.fft.{op}", x, within=_tol(dt, 21))
        if np.dtype(dt).kind != "c":
            p.tcase(f"rfft_{tag}", "numpy.fft.rfft", x, within=_tol(dt, 21))
        else:
            # a TypeError at compile time, as NumPy's (whose message names the even-length ufunc)
            p.tcase(f"rfft_{tag}", "numpy.fft.rfft", general((2, 20), dt, 3))
    x = general((3, 4, 10), np.complex128, 7)
    for axis in (0, 1, 2, -1, -2, -3):
        p.tcase(f"fft_axis{axis}", "numpy.fft.fft", x, axis=Const(axis))
        p.tcase(f"rfft_axis{axis}", "numpy.fft.rfft", x.real.copy(), axis=Const(axis))
        p.tcase(f"irfft_axis{axis}", "numpy.fft.irfft", x, axis=Const(axis))
    for n in (1, 5, 10, 16, 23):  # truncation and zero padding
        p.tcase(f"fft_n{n}", "numpy.fft.fft", x, n)
        p.tcase(f"ifft_n{n}", "numpy.fft.ifft", x, Const(n), Const(1))
        p.tcase(f"rfft_n{n}", "numpy.fft.rfft", x.real.copy(), n=Const(n), axis=Const(0))
        p.tcase(f"irfft_n{n}", "numpy.fft.irfft", x, n, Const(1))
    for norm in ("backward", "ortho", "forward", None):
        for op in ("fft", "ifft", "rfft", "irfft"):
            arg = x.real.copy() if op == "rfft" else x
            p.tcase(f"{op}_norm_{norm}", f"numpy.fft.{op}", arg, norm=Const(norm))
        p.tcase(f"fftn_norm_{norm}", "numpy.fft.fftn", x, norm=Const(norm))
        p.tcase(f"irfftn_norm_{norm}", "numpy.fft.irfftn", x, norm=Const(norm))
    # errors: n < 1 (also an empty axis), bad norm, bad axis
    p.tcase("fft_empty", "numpy.fft.fft", np.ones(0))
    p.tcase("fft_n0", "numpy.fft.fft", np.ones(3), 0)
    p.tcase("fft_nneg", "numpy.fft.fft", np.ones(3), -1)
    p.tcase("irfft_len1", "numpy.fft.irfft", np.ones(1))
    p.tcase("rfft_empty", "numpy.fft.rfft", np.ones((2, 0)))
    p.tcase("fft_bad_norm", "numpy.fft.fft", np.ones(3), norm=Const("bad"))
    p.tcase("fft_bad_axis", "numpy.fft.fft", np.ones((3, 4)), axis=Const(2))
    p.tcase("fft_empty_other_axis", "numpy.fft.fft", np.ones((0, 4)))
    # non-contiguous views and lists
    base = general((12, 14), np.complex128, 5)
    p.tcase("fft_view", "numpy.fft.fft", View(base, (slice(None, None, 3), slice(1, None, 2))))
    p.tcase("fft_T", "numpy.fft.fft", View(base, transpose=True), axis=Const(0))
    p.tcase("rfft_view", "numpy.fft.rfft", View(base.real.copy(), (slice(None, None, -2), 3)))
    p.tcase("irfft_view", "numpy.fft.irfft", View(base, (slice(2, 9), slice(None, None, -3))), Const(9))
    p.tcase("fft_list", "numpy.fft.fft", [1.0, 2.0, 0.5, -1.0])


def _n_d(p: TupleProgram) -> None:
    x = general((5, 6, 7), np.complex128, 9)
    r = x.real.copy()
    for op in ("fft2", "ifft2", "fftn", "ifftn"):
        p.tcase(f"{op}", f"numpy.fft.{op}", x)
        p.tcase(f"{op}_axes", f"numpy.fft.{op}", x, axes=Const((0, 2)))
        p.tcase(f"{op}_s", f"numpy.fft.{op}", x, s=Const((4, 9)), axes=Const((2, 0)))
        p.tcase(f"{op}_f32", f"numpy.fft.{op}", r.astype(np.float32), within=1e-5)
    p.tcase("fftn_s_noaxes", "numpy.fft.fftn", x, Const((3, 8)))
    p.tcase("fftn_axes_rep", "numpy.fft.fftn", x, axes=Const((0, 0)))
    p.tcase("fftn_1axis", "numpy.fft.fftn", x, axes=Const((1,)))
    for op in ("rfft2", "rfftn"):
        p.tcase(op, f"numpy.fft.{op}", r)
        p.tcase(f"{op}_s", f"numpy.fft.{op}", r, Const((4, 5)), Const((0, 1)))
        p.tcase(f"{op}_axes", f"numpy.fft.{op}", r, axes=Const((2, 0)))
        p.tcase(f"{op}_int", f"numpy.fft.{op}", r.astype(np.int16))
    for op in ("irfft2", "irfftn"):
        p.tcase(op, f"numpy.fft.{op}", x)
        p.tcase(f"{op}_s", f"numpy.fft.{op}", x, Const((4, 9)), Const((0, 1)))
        p.tcase(f"{op}_sneg", f"numpy.fft.{op}", x, Const((-1, -1)), Const((1, 2)))
        p.tcase(f"{op}_axes", f"numpy.fft.{op}", x, axes=Const((2, 0)))
        p.tcase(f"{op}_c64", f"numpy.fft.{op}", x.astype(np.complex64), within=1e-5)
    p.tcase("fft2_1d", "numpy.fft.fft2", np.ones(3))
    p.tcase("fftn_s_axes_len", "numpy.fft.fftn", x, s=Const((3,)), axes=Const((0, 1)))
    p.tcase("fftn_view", "numpy.fft.fftn", View(x, (slice(None, None, 2), slice(None), slice(1, None, 3))))
    p.tcase("rfftn_prime", "numpy.fft.rfftn", general((13, 97), np.float64, 3), within=1e-10)


def _helpers(p: TupleProgram) -> None:
    for n in (1, 2, 5, 8, 11):
        p.tcase(f"fftfreq_{n}", "numpy.fft.fftfreq", n, within=0.0)
        p.tcase(f"fftfreq_d_{n}", "numpy.fft.fftfreq", n, 0.1, within=0.0)
        p.tcase(f"rfftfreq_{n}", "numpy.fft.rfftfreq", n, within=0.0)
        p.tcase(f"rfftfreq_d_{n}", "numpy.fft.rfftfreq", n, d=Const(2.5), within=0.0)
    p.tcase("fftfreq_f32", "numpy.fft.fftfreq", 7, np.float32(0.3), within=0.0)
    p.tcase("fftfreq_int_d", "numpy.fft.fftfreq", 7, 3, within=0.0)
    p.tcase("fftfreq_npint", "numpy.fft.fftfreq", np.int32(6), within=0.0)
    p.tcase("fftfreq_0", "numpy.fft.fftfreq", 0)
    p.tcase("rfftfreq_0", "numpy.fft.rfftfreq", 0, 2.0)
    p.tcase("fftfreq_float_n", "numpy.fft.fftfreq", 3.0)
    for dt in (np.float64, np.int8, np.bool_, np.complex64):
        for shape in ((7,), (4, 5), (3, 1, 6), (0, 3)):
            x = general(shape, dt, 2)
            tag = f"{np.dtype(dt).name}_{'x'.join(map(str, shape))}"
            p.tcase(f"fftshift_{tag}", "numpy.fft.fftshift", x)
            p.tcase(f"ifftshift_{tag}", "numpy.fft.ifftshift", x)
            p.tcase(f"fftshift_ax_{tag}", "numpy.fft.fftshift", x, Const(-1))
            if len(shape) > 1:
                p.tcase(f"ifftshift_ax_{tag}", "numpy.fft.ifftshift", x, axes=Const((0, -1)))
                p.tcase(f"fftshift_rep_{tag}", "numpy.fft.fftshift", x, axes=Const((0, 0)))
    p.tcase("fftshift_view", "numpy.fft.fftshift", View(general((6, 9), np.float64), (slice(None, None, -1), slice(1, None, 2))))
    p.tcase("fftshift_list", "numpy.fft.fftshift", [1, 2, 3, 4, 5])
    p.tcase("fftshift_bad_axis", "numpy.fft.fftshift", np.ones(3), Const(1))


def test_fft_cpp(tmp_path):
    p = TupleProgram("fft")
    _one_d(p)
    _n_d(p)
    _helpers(p)
    run_tuple_program(p, tmp_path)


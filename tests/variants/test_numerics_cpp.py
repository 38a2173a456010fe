"""Numerical helpers (numerics.hpp, numerics_calc.hpp, numerics_elem.hpp)
lowered to C++, compiled with g++ and compared with NumPy: values, dtype,
shape, view-or-copy and errors. Results are exact where NumPy's formula is
replayed step for step (cross, interp, gradient, round, isclose, ...);
convolve/correlate of floats sum in order where NumPy may use BLAS, and
trapezoid follows NumPy's pairwise sum: harness default tolerances there."""
from __future__ import annotations

import numpy as np

from tests.variants._harness import Const, Program, View, run_and_check, sample


# ties at every scale, values that are not exact in binary, overflow of x * 10**d, NaN and inf
HALVES = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.675, 1.005, 0.125, 1234.5678, -1e300, np.nan, np.inf])


def _tag(dt: object, shape: tuple[int, ...]) -> str:
    return f"{np.dtype(dt).name}_{'x'.join(map(str, shape)) or 's'}"


def _cross_conv(p: Program) -> None:
    for dt in (np.float64, np.float32, np.int32, np.uint8, np.complex128):
        a, b = sample((5, 3), dt, 1), sample((5, 3), dt, 4)
        t = np.dtype(dt).name
        ex = dt is not np.complex128  # NumPy's SIMD complex multiply may fuse multiply-adds
        p.case(f"cross33_{t}", "numpy.cross", a, b, exact=ex)
        p.case(f"cross_bc_{t}", "numpy.cross", a, b[1], exact=ex)
        p.case(f"cross23_{t}", "numpy.cross", a[:, :2], b, exact=ex)
        p.case(f"cross32_{t}", "numpy.cross", a, b[:, 1:], exact=ex)
        p.case(f"cross1d_{t}", "numpy.cross", a[0], b[2], exact=ex)
        for name in ("convolve", "correlate"):
            for mode in ("full", "same", "valid"):
                for n1, n2 in ((7, 3), (3, 7), (4, 4), (6, 1), (2, 5)):
                    p.case(f"{name}_{t}_{mode}_{n1}_{n2}", f"numpy.{name}", sample((n1,), dt, 2),
                           sample((n2,), dt, 5), mode=Const(mode))
    p.case("cross_mixed", "numpy.cross", sample((3,), np.int8), sample((3,), np.float32))
    p.case("cross_tuples2", "numpy.cross", (1.0, 2.0), (3.0, 5.0))
    p.case("cross_tuple3", "numpy.cross", sample((4, 3), np.float64), (0.0, 0.0, 1.0))
    p.case("cross_3d", "numpy.cross", sample((2, 1, 3), np.float64), sample((4, 3), np.float64, 2))
    p.case("cross_view", "numpy.cross", View(sample((6, 6), np.float64), (slice(None, None, 2), slice(None, 3))),
           sample((3,), np.float64, 1))
    p.case("cross_int_wrap", "numpy.cross", np.array([100, -100, 7], np.int8), np.array([-100, 90, 3], np.int8))
    p.case("conv_scalar", "numpy.convolve", 2.0, sample((4,), np.float64))
    p.case("conv_bool", "numpy.convolve", sample((5,), np.bool_), sample((3,), np.bool_, 1))
    p.case("conv_int8_wrap", "numpy.convolve", np.full(5, 100, np.int8), np.full(3, 100, np.int8))
    p.case("conv_mixed", "numpy.convolve", sample((5,), np.int32), sample((3,), np.float32))
    p.case("conv_list", "numpy.convolve", [1, 2, 3], [0.0, 1.0, 0.5])
    p.case("conv_mode_int", "numpy.convolve", sample((5,), np.float64), sample((2,), np.float64), Const(1))
    p.case("corr_view", "numpy.correlate", View(sample((12,), np.float64), (slice(None, None, -2),)),
           View(sample((9,), np.float64), (slice(1, None, 3),)), Const("same"))
    p.case("err_cross_bcast", "numpy.cross", sample((2, 3), np.float64), sample((3, 3), np.float64))
    p.case("err_cross_bool", "numpy.cross", sample((3,), np.bool_), sample((3,), np.bool_))
    p.case("err_conv_empty", "numpy.convolve", np.zeros(0), sample((3,), np.float64))
    p.case("err_conv_empty_v", "numpy.convolve", sample((3,), np.float64), np.zeros(0))
    p.case("err_corr_empty", "numpy.correlate", np.zeros(0), sample((3,), np.float64))
    p.case("err_corr_mode", "numpy.correlate", sample((3,), np.float64), sample((3,), np.float64), Const(5))
    p.case("err_corr_2d", "numpy.correlate", sample((2, 3), np.float64), sample((3,), np.float64))


def _interp_calculus(p: Program) -> None:
    xp = np.array([0.0, 1.0, 1.5, 2.5, 4.0, 4.0, 7.0])
    fp = np.array([1.0, -2.0, 0.5, 3.0, 2.0, 5.0, -1.0])
    xs = np.array([-1.0, 0.0, 0.3, 1.0, 2.0, 4.0, 5.5, 7.0, 9.0, np.nan, 1.49, 6.99])
    p.case("interp", "numpy.interp", xs, xp, fp, exact=True)
    p.case("interp_lr", "numpy.interp", xs, xp, fp, left=-10.0, right=10, exact=True)
    p.case("interp_few", "numpy.interp", xs[:3], np.linspace(0, 5, 40), np.linspace(0, 5, 40) ** 2, exact=True)
    p.case("interp_2d_x", "numpy.interp", sample((3, 4), np.float64), xp, fp, exact=True)
    p.case("interp_scalar", "numpy.interp", 1.2, xp, fp, exact=True)
    p.case("interp_int", "numpy.interp", sample((5,), np.int32), np.arange(-5, 6), sample((11,), np.int64), exact=True)
    p.case("interp_f32", "numpy.interp", sample((5,), np.float32), xp.astype(np.float32), fp, exact=True)
    p.case("interp_complex", "numpy.interp", xs, xp, fp + 1j * fp[::-1], exact=True)
    p.case("interp_one", "numpy.interp", xs, xp[:1], fp[:1], exact=True)
    p.case("interp_period", "numpy.interp", xs[:9], np.array([350.0, 10.0, 90.0, 180.0]),
           np.array([1.0, 2.0, 3.0, 4.0]), period=360, exact=True)
    p.case("interp_inf", "numpy.interp", np.array([0.5, 1.0, 1.5]), np.array([0.0, 1.0, 2.0]),
           np.array([np.inf, np.inf, 1.0]), exact=True)
    p.case("interp_view", "numpy.interp", View(sample((4, 6), np.float64), (slice(None), slice(None, None, -2))),
           xp, fp, exact=True)
    p.case("err_interp_empty", "numpy.interp", xs, np.zeros(0), np.zeros(0))
    p.case("err_interp_len", "numpy.interp", xs, xp, fp[:3])
    p.case("err_interp_period", "numpy.interp", xs, xp, fp, period=0.0)
    for dt in (np.float64, np.float32, np.int32, np.uint8, np.complex128):
        for shape in ((7,), (2,), (5, 4), (3, 4, 5)):
            f = sample(shape, dt, 3)
            t = _tag(dt, shape)
            # one axis at a time: several axes give a tuple of arrays (test_numerics_e2e.py)
            for k in range(len(shape)):
                p.case(f"grad_{t}_{k}", "numpy.gradient", f, axis=Const(k), exact=True)
                p.case(f"grad_{t}_{k}_h", "numpy.gradient", f, 0.5 * (k + 1), axis=Const(k), exact=True)
            if shape[-1] >= 3:
                p.case(f"grad_{t}_e2", "numpy.gradient", f, 2.0, edge_order=Const(2), axis=Const(-1), exact=True)
            p.case(f"trapz_{t}", "numpy.trapezoid", f)
            p.case(f"trapz_{t}_dx", "numpy.trapezoid", f, dx=0.25, axis=Const(0))
            p.case(f"trapz_{t}_x", "numpy.trapezoid", f, x=np.cumsum(np.arange(shape[-1], dtype=np.float64) + 1))
            p.case(f"ediff_{t}", "numpy.ediff1d", f, exact=True)
    p.case("grad_np_f64_dx", "numpy.gradient", sample((6,), np.float32), np.float64(0.5), exact=True)
    p.case("grad_int_dx", "numpy.gradient", sample((6,), np.float32), 3, exact=True)
    p.case("grad_view", "numpy.gradient", View(sample((6, 8), np.float64), transpose=True), axis=Const(1), exact=True)
    p.case("trapz_x_nd", "numpy.trapezoid", sample((3, 5), np.float64), x=sample((3, 5), np.float64, 4) ** 2)
    p.case("trapz_int8_wrap", "numpy.trapezoid", np.full(4, 100, np.int8), dx=1)
    p.case("trapz_strong_dx", "numpy.trapezoid", sample((5,), np.float32), dx=np.float64(0.1))
    p.case("trapz_view", "numpy.trapezoid", View(sample((6, 8), np.float64), (slice(None, None, -1), slice(1, None, 2))),
           axis=Const(0))
    p.case("trapz_bool", "numpy.trapezoid", sample((5,), np.bool_))
    p.case("ediff_ends", "numpy.ediff1d", sample((5,), np.int32), to_end=np.array([7, 8]), to_begin=-1, exact=True)
    p.case("ediff_list_end", "numpy.ediff1d", sample((4,), np.float64), to_end=[1.5, 2.5], exact=True)
    p.case("ediff_u8", "numpy.ediff1d", np.array([5, 3, 250], np.uint8), exact=True)
    p.case("ediff_one", "numpy.ediff1d", np.array([5.0]), to_begin=1.0, exact=True)
    p.case("err_grad_small", "numpy.gradient", sample((1,), np.float64))
    p.case("err_grad_small2", "numpy.gradient", sample((2,), np.float64), edge_order=Const(2))
    p.case("err_grad_bool", "numpy.gradient", sample((4,), np.bool_))
    p.case("err_trapz_x", "numpy.trapezoid", sample((2, 4), np.float64), x=np.arange(3.0))
    p.case("err_ediff_kind", "numpy.ediff1d", sample((3,), np.int32), to_begin=1.5)
    p.case("err_ediff_bool", "numpy.ediff1d", sample((3,), np.bool_))


def _elementwise(p: Program) -> None:
    for dt in (np.float64, np.float32, np.int32, np.int64, np.uint8, np.bool_, np.complex128, np.complex64):
        a = sample((4, 5), dt, 2)
        small_int = dt in (np.uint8, np.bool_)  # round/angle give float16 there, which everypath does not have
        b = sample((4, 5), dt, 6)
        t = np.dtype(dt).name
        p.case(f"isclose_{t}", "numpy.isclose", a, b, exact=True)
        p.case(f"isclose_same_{t}", "numpy.isclose", a, a.copy(), exact=True)
        p.case(f"isclose_bc_{t}", "numpy.isclose", a, b[0], rtol=0.5, atol=0.1, exact=True)
        p.case(f"allclose_{t}", "numpy.allclose", a, a)
        p.case(f"allclose_ne_{t}", "numpy.allclose", a, b)
        p.case(f"array_equal_{t}", "numpy.array_equal", a, a.copy())
        p.case(f"array_equal_ne_{t}", "numpy.array_equal", a, b)
        p.case(f"array_equiv_{t}", "numpy.array_equiv", a, a[1:2])
        p.case(f"nan_to_num_{t}", "numpy.nan_to_num", a, exact=True)
        p.case(f"real_{t}", "numpy.real", a, exact=True)
        p.case(f"imag_{t}", "numpy.imag", a, exact=True)
        if dt is not np.bool_:
            p.case(f"round_{t}", "numpy.round", a, exact=True)
            p.case(f"round2_{t}", "numpy.around", a * 3, 1, exact=True)
            p.case(f"roundm_{t}", "ndarray.round", a, decimals=-1, exact=True)
        if not small_int:
            p.case(f"angle_{t}", "numpy.angle", a)
            p.case(f"angle_deg_{t}", "numpy.angle", a, deg=Const(True))
    special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -2.5, 1e308, 5e-324])
    with np.errstate(all="ignore"):
        special32 = special.astype(np.float32)
        special_c = special + 1j * special[::-1]
        halves32 = HALVES.astype(np.float32)
    p.case("isclose_special", "numpy.isclose", special, special[::-1].copy(), exact=True)
    p.case("isclose_equal_nan", "numpy.isclose", special, special.copy(), equal_nan=Const(True), exact=True)
    p.case("isclose_int_y", "numpy.isclose", sample((5,), np.int8), 2, exact=True)
    p.case("isclose_min_int", "numpy.isclose", np.array([-2**63, 5]), np.array([-2**63, 5]), exact=True)
    p.case("isclose_scalars", "numpy.isclose", 1.0, 1.0 + 1e-9)
    p.case("isclose_f32_y", "numpy.isclose", np.float32(1.0), 1.0000001)
    p.case("allclose_nan", "numpy.allclose", special, special.copy(), equal_nan=Const(True))
    p.case("allclose_bcast", "numpy.allclose", sample((3, 4), np.float64), 1.0, atol=10.0)
    p.case("err_allclose_bcast", "numpy.allclose", sample((3, 4), np.float64), sample((3,), np.float64))
    p.case("array_equal_nan", "numpy.array_equal", special, special.copy(), equal_nan=Const(True))
    p.case("array_equal_nan_off", "numpy.array_equal", special, special.copy())
    p.case("array_equal_shape", "numpy.array_equal", sample((2, 3), np.float64), sample((3, 2), np.float64))
    p.case("array_equal_rank", "numpy.array_equal", sample((3,), np.float64), sample((1, 3), np.float64))
    p.case("array_equal_mixed", "numpy.array_equal", sample((4,), np.int32), sample((4,), np.int32).astype(np.float32))
    p.case("array_equal_scalar", "numpy.array_equal", 2.0, 2)
    p.case("array_equiv_no", "numpy.array_equiv", sample((2, 3), np.float64), sample((2,), np.float64))
    p.case("array_equal_view", "numpy.array_equal", View(sample((4, 4), np.float64), transpose=True),
           sample((4, 4), np.float64).T.copy())
    p.case("nan_to_num_kw", "numpy.nan_to_num", special, nan=-1.0, posinf=99.0, neginf=-99, exact=True)
    p.case("nan_to_num_f32", "numpy.nan_to_num", special32, nan=1e50, exact=True)
    p.case("nan_to_num_c", "numpy.nan_to_num", special_c, exact=True)
    p.case("nan_to_num_inplace", "numpy.nan_to_num", special.copy(), copy=Const(False), exact=True)
    p.case("nan_to_num_scalar", "numpy.nan_to_num", float("inf"), exact=True)
    p.case("nan_to_num_int_scalar", "numpy.nan_to_num", np.int16(3), exact=True)
    for d in (-3, -1, 0, 1, 2, 3, 10, 25):
        p.case(f"round_half_{d}", "numpy.round", HALVES, d, exact=True)
        p.case(f"round_half32_{d}", "numpy.round", halves32, d, exact=True)
    p.case("round_int_neg", "numpy.round", np.array([15, 25, -35, 149, -150], np.int64), -1, exact=True)
    p.case("round_uint8_neg", "numpy.round", np.array([249, 250, 251], np.uint8), -1, exact=True)
    p.case("round_scalar", "numpy.round", 2.5, exact=True)
    p.case("round_np_scalar", "numpy.round", np.float32(2.675), 2, exact=True)
    p.case("round_int_scalar", "numpy.round", 7, -1, exact=True)
    p.case("round_complex", "numpy.round", np.array([1.25 + 2.35j, -0.5 - 1.5j]), 1, exact=True)
    p.case("round_view", "numpy.round", View(HALVES.reshape(3, 4), transpose=True), 1, exact=True)
    p.case("real_scalar", "numpy.real", 1.5 + 2j)
    p.case("imag_scalar", "numpy.imag", np.complex64(1.5 + 2j))
    p.case("angle_scalar", "numpy.angle", -1.0 + 0.0j, deg=Const(True))
    p.case("angle_zero", "numpy.angle", np.array([0.0, -0.0, 1j, -1j]))
    p.case("err_round_bool", "numpy.round", sample((3,), np.bool_), 2)


def test_cross_convolve_against_numpy(tmp_path):
    p = Program("numerics_cross_conv")
    _cross_conv(p)
    run_and_check(p, tmp_path)


def test_interp_calculus_against_numpy(tmp_path):
    p = Program("numerics_calculus")
    _interp_calculus(p)
    run_and_check(p, tmp_path)


def test_elementwise_helpers_against_numpy(tmp_path):
    p = Program("numerics_elem")
    _elementwise(p)
    run_and_check(p, tmp_path)

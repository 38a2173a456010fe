"""NaN-ignoring reductions and scans (statistics_nan.hpp) and np.cov /
np.corrcoef (statistics_cov.hpp) lowered to C++, compiled with g++ and compared
with NumPy. Sums follow NumPy's pairwise order, so float results agree to the
harness tolerances (1e-12 float64, 3e-6 float32); np.cov's matrix product is
a plain loop where NumPy calls BLAS, so it agrees to rounding (rtol 1e-12)."""
from __future__ import annotations

import numpy as np

from tests.variants._harness import Const, Program, View, run_and_check, sample

SHAPES = [(7,), (1,), (5, 3), (2, 3, 4)]


def _tag(dt: object, shape: tuple[int, ...]) -> str:
    return f"{np.dtype(dt).name}_{'x'.join(map(str, shape))}"


def _nans(shape: tuple[int, ...], dt: object, seed: int = 0) -> np.ndarray:
    a = sample(shape, dt, seed)
    if a.size > 1:
        a.flat[1::4] = np.nan
    return a


def _nan_reductions(p: Program) -> None:
    combos = [(dt, s) for dt in (np.float32, np.complex128, np.int32, np.uint8, np.bool_) for s in ((7,), (5, 3))]
    for dt, shape in combos + [(np.float64, s) for s in SHAPES]:
        inexact = np.dtype(dt).kind in "fc"
        a = _nans(shape, dt) if inexact else sample(shape, dt)
        t = _tag(dt, shape)
        last = len(shape) - 1
        for name in ("nanvar", "nanstd"):
            p.case(f"{name}_{t}", f"numpy.{name}", a)
            p.case(f"{name}_{t}_0", f"numpy.{name}", a, Const(0))
            p.case(f"{name}_{t}_k", f"numpy.{name}", a, axis=Const(last), keepdims=Const(True), ddof=1)
        p.case(f"nanprod_{t}", "numpy.nanprod", a)
        p.case(f"nanprod_{t}_0", "numpy.nanprod", a, axis=Const(0), keepdims=Const(True))
        p.case(f"nancumsum_{t}", "numpy.nancumsum", a)
        p.case(f"nancumsum_{t}_l", "numpy.nancumsum", a, axis=Const(last))
        p.case(f"nancumprod_{t}_0", "numpy.nancumprod", a, Const(0))
    a = _nans((4, 5), np.float32, 3)
    p.case("nanvar_f32_dtype64", "numpy.nanvar", a, axis=Const(1), dtype=Const(np.float64))
    p.case("nanvar_ddof_float", "numpy.nanvar", a, ddof=1.5)
    p.case("nanvar_tuple_axes", "numpy.nanvar", _nans((2, 3, 4), np.float64), axis=Const((0, 2)))
    p.case("nanprod_dtype", "numpy.nanprod", sample((6,), np.int8), dtype=Const(np.int8))
    p.case("nancumsum_dtype", "numpy.nancumsum", a, dtype=Const(np.float64))
    p.case("nanvar_dof0", "numpy.nanvar", np.array([[1.0, np.nan], [np.nan, np.nan]]), axis=Const(1))
    p.case("nanstd_allnan", "numpy.nanstd", np.full(3, np.nan))
    p.case("nanprod_empty", "numpy.nanprod", np.zeros((0, 3)), Const(0))
    p.case("nancumsum_empty", "numpy.nancumsum", np.zeros((0,)))
    p.case("nanvar_list", "numpy.nanvar", [1.0, 2.0, float("nan"), 4.0])
    base = _nans((6, 8), np.float64, 2)
    for tag, v in {"step": View(base, (slice(None, None, 2), slice(1, None, 3))), "T": View(base, transpose=True),
                   "neg": View(base, (slice(None, None, -1), slice(None, None, -2)))}.items():
        p.case(f"nanvar_{tag}", "numpy.nanvar", v, Const(1))
        p.case(f"nanprod_{tag}", "numpy.nanprod", v)
        p.case(f"nancumprod_{tag}", "numpy.nancumprod", v, axis=Const(0))
    p.case("err_nanvar_axis", "numpy.nanvar", a, Const(2))
    p.case("err_nancum_axis", "numpy.nancumsum", a, axis=Const((0, 1)))


def _cov(p: Program) -> None:
    for dt in (np.float64, np.float32, np.int32, np.complex128, np.bool_):
        for shape in ((3, 7), (2, 5), (4, 2)):
            m = sample(shape, dt, seed=1)
            t = _tag(dt, shape)
            for name in ("cov", "corrcoef"):
                p.case(f"{name}_{t}", f"numpy.{name}", m)
                p.case(f"{name}_{t}_rv", f"numpy.{name}", m, rowvar=Const(False))
                p.case(f"{name}_{t}_y", f"numpy.{name}", m, sample(shape, dt, seed=7))
            p.case(f"cov_{t}_bias", "numpy.cov", m, bias=Const(True))
            p.case(f"cov_{t}_ddof", "numpy.cov", m, ddof=0)
            p.case(f"cov_{t}_1d", "numpy.cov", m[0])
            p.case(f"corrcoef_{t}_1d", "numpy.corrcoef", m[0])
            p.case(f"cov_{t}_1d_y", "numpy.cov", m[0], m[1])
    p.case("cov_dtype32", "numpy.cov", sample((3, 6), np.float64), dtype=Const(np.float32))
    p.case("cov_list", "numpy.cov", [1.0, 2.0, 4.0, 7.0])
    p.case("cov_view", "numpy.cov", View(sample((6, 8), np.float64), (slice(None, None, 2), slice(None, None, -1))))
    p.case("cov_T", "numpy.cov", View(sample((6, 4), np.float64), transpose=True), rowvar=Const(False))
    p.case("cov_y2_rowvar", "numpy.cov", sample((5, 2), np.float64), sample((5, 3), np.float64, 2),
           rowvar=Const(False))
    p.case("cov_one_obs", "numpy.cov", sample((3, 1), np.float64))
    p.case("cov_empty", "numpy.cov", np.zeros((0, 4)))
    p.case("corrcoef_const", "numpy.corrcoef", sample((2, 4), np.float64) * 0 + 1)
    p.case("err_cov_ddof", "numpy.cov", sample((2, 5), np.float64), ddof=1.5)
    p.case("err_cov_shapes", "numpy.cov", sample((2, 5), np.float64), sample((2, 4), np.float64))
    p.case("err_cov_3d", "numpy.cov", sample((2, 2, 2), np.float64))


def test_nan_reductions_against_numpy(tmp_path):
    p = Program("statistics_nan")
    _nan_reductions(p)
    run_and_check(p, tmp_path)


def test_cov_corrcoef_against_numpy(tmp_path):
    p = Program("statistics_cov")
    _cov(p)
    run_and_check(p, tmp_path)

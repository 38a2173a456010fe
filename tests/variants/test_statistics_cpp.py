"""Order statistics, np.ptp and np.average lowered to C++ (statistics.hpp,
statistics_more.hpp), compiled with g++ and compared with NumPy: values, dtype,
shape and errors. Medians and quantiles are exact (same formula, same dtypes);
float tolerances are the harness defaults (1e-12 float64, 3e-6 float32)."""
from __future__ import annotations

import numpy as np

from tests.variants._harness import Const, Program, View, run_and_check, sample

SHAPES = [(7,), (1,), (13, 2), (3, 1, 5), (4, 6)]
AXES = {1: [0, -1], 2: [0, 1, (0, 1)], 3: [0, 2, (0, 2), (1, 2)]}


def _tag(dt: object, shape: tuple[int, ...]) -> str:
    return f"{np.dtype(dt).name}_{'x'.join(map(str, shape)) or 's'}"


def _with_nans(a: np.ndarray) -> np.ndarray:
    b = a.copy()
    b.flat[::3] = np.nan
    return b


def _combos() -> list[tuple[object, tuple[int, ...]]]:
    """Every dtype on a 1-d and a 2-d shape, every shape in float64 (one g++ run stays quick)."""
    out = [(dt, shape) for dt in (np.float32, np.int32, np.int64, np.uint8, np.bool_) for shape in ((7,), (13, 2))]
    return out + [(np.float64, shape) for shape in SHAPES]


def _orders(p: Program) -> None:
    for dt, shape in _combos():
        a = sample(shape, dt, seed=2)
        t = _tag(dt, shape)
        p.case(f"med_{t}", "numpy.median", a, exact=True)
        for ax in AXES[len(shape)]:
            p.case(f"med_{t}_{ax}", "numpy.median", a, Const(ax), exact=True)
            p.case(f"medk_{t}_{ax}", "numpy.median", a, axis=Const(ax), keepdims=Const(True), exact=True)
        if dt is np.bool_:
            p.case(f"q_{t}", "numpy.quantile", a, 0.5)  # NumPy's own TypeError (boolean subtract)
            continue
        p.case(f"q_{t}", "numpy.quantile", a, 0.37, exact=True)
        p.case(f"p_{t}", "numpy.percentile", a, 62.5, axis=Const(0), exact=True)
        p.case(f"pq_{t}", "numpy.percentile", a, [0.0, 10.0, 50.0, 99.0, 100.0], axis=Const(-1), exact=True)
        p.case(f"pk_{t}", "numpy.percentile", a, 30, keepdims=Const(True), exact=True)
        for m in ("lower", "higher", "nearest", "midpoint", "linear"):
            p.case(f"q_{t}_{m}", "numpy.quantile", a, np.array([0.0, 0.25, 0.5, 0.9, 1.0]), axis=Const(0),
                   method=Const(m), exact=True)
        p.case(f"qint_{t}", "numpy.quantile", a, 1, exact=True)  # integer q: NumPy's take path
        p.case(f"nmed_{t}", "numpy.nanmedian", a, exact=True)
        p.case(f"nq_{t}", "numpy.nanquantile", a, [0.2, 0.8], axis=Const(0), exact=True)
    for dt, shape in _combos():
        if dt in (np.float64, np.float32) and shape != (1,):  # (1,) would be all-NaN: see nq_allnan
            a = _with_nans(sample(shape, dt, seed=1))
            t = _tag(dt, shape)
            p.case(f"nan_med_{t}", "numpy.median", a, Const(0))
            p.case(f"nan_q_{t}", "numpy.quantile", a, 0.5)
            p.case(f"nmedn_{t}", "numpy.nanmedian", a, exact=True)
            p.case(f"nmedn_{t}_0", "numpy.nanmedian", a, axis=Const(0), keepdims=Const(True), exact=True)
            p.case(f"np_{t}", "numpy.nanpercentile", a, [25.0, 75.0], axis=Const(-1), exact=True)
            p.case(f"nqm_{t}", "numpy.nanquantile", a, 0.3, method=Const("nearest"), exact=True)
    # float32 with a strong float64 q promotes; weak q keeps float32
    a32 = sample((9,), np.float32)
    p.case("q_f32_strong", "numpy.quantile", a32, np.float64(0.3))
    p.case("q_f32_arr32", "numpy.quantile", a32, np.array([0.3, 0.7], np.float32))
    p.case("p_f32_arr32", "numpy.percentile", a32, np.array([30.0, 70.0], np.float32), method=Const("midpoint"))
    p.case("med_c128", "numpy.median", sample((6,), np.complex128), exact=True)
    p.case("med_c64_odd", "numpy.median", sample((5, 3), np.complex64), Const(0), exact=True)
    p.case("med_0d", "numpy.median", np.array(2.5))
    p.case("med_list", "numpy.median", [3, 1, 2, 7])
    p.case("med_empty", "numpy.median", np.zeros((0,)))
    p.case("med_empty_ax", "numpy.median", np.zeros((0, 3)), Const(0))
    p.case("nmed_allnan", "numpy.nanmedian", np.full((2, 3), np.nan), Const(1))
    p.case("nq_allnan", "numpy.nanquantile", np.array([[np.nan, np.nan], [1.0, 2.0]]), 0.5, axis=Const(1))
    p.case("nq_empty", "numpy.nanquantile", np.zeros((2, 0)), 0.5, axis=Const(1))
    p.case("nmed_empty", "numpy.nanmedian", np.zeros((0, 2)), axis=Const(0), keepdims=Const(True))
    p.case("q_inf", "numpy.quantile", np.array([1.0, np.inf]), 1.0)
    p.case("q_neg0", "numpy.quantile", np.array([-0.0, 0.0, 1.0]), [0.0, 0.5])
    base = sample((6, 8), np.float64)
    views = {"step": View(base, (slice(None, None, 2), slice(1, None, 3))),
             "neg": View(base, (slice(None, None, -1), slice(None, None, -2))), "T": View(base, transpose=True)}
    for tag, v in views.items():
        p.case(f"med_{tag}", "numpy.median", v, exact=True)
        p.case(f"med_{tag}_1", "numpy.median", v, Const(1), exact=True)
        p.case(f"q_{tag}", "numpy.quantile", v, [0.1, 0.6], axis=Const(0), exact=True)
        p.case(f"nmed_{tag}", "numpy.nanmedian", v, Const(0), exact=True)
    # errors: NumPy's exception types and messages
    p.case("err_q_range", "numpy.quantile", sample((5,), np.float64), 1.5)
    p.case("err_p_range", "numpy.percentile", sample((5,), np.float64), [50.0, -1.0])
    p.case("err_q_nan", "numpy.quantile", sample((5,), np.float64), float("nan"))
    p.case("err_q_empty", "numpy.quantile", np.zeros((0,)), 0.5)
    p.case("err_method", "numpy.quantile", sample((5,), np.float64), 0.5, method=Const("bogus"))
    p.case("err_complex", "numpy.percentile", sample((5,), np.complex128), 50.0)
    p.case("err_axis", "numpy.median", sample((3, 4), np.float64), Const(2))
    p.case("err_dup_axis", "numpy.median", sample((3, 4), np.float64), axis=Const((0, 0)))


def _ptp_average(p: Program) -> None:
    combos = [(dt, s) for dt in (np.float32, np.int8, np.int32, np.uint8, np.complex128) for s in ((7,), (13, 2))]
    for dt, shape in combos + [(np.float64, s) for s in SHAPES]:
        a = sample(shape, dt, seed=4)
        t = _tag(dt, shape)
        p.case(f"ptp_{t}", "numpy.ptp", a, exact=True)
        p.case(f"avg_{t}", "numpy.average", a)
        for ax in AXES[len(shape)]:
            p.case(f"ptp_{t}_{ax}", "numpy.ptp", a, Const(ax), exact=True)
            p.case(f"ptpk_{t}_{ax}", "numpy.ptp", a, axis=Const(ax), keepdims=Const(True), exact=True)
            p.case(f"avg_{t}_{ax}", "numpy.average", a, axis=Const(ax))
        w = sample(shape, np.float64, seed=9) + 10
        p.case(f"avgw_{t}", "numpy.average", a, weights=w)
        p.case(f"avgwk_{t}", "numpy.average", a, weights=w, keepdims=Const(True))
        p.case(f"avgw0_{t}", "numpy.average", a, axis=Const(0), weights=sample((shape[0],), np.int32, 3) + 10)
        p.case(f"avgwl_{t}", "numpy.average", a, axis=Const(-1), weights=w, keepdims=Const(True))
    big = sample((300,), np.float64)
    p.case("ptp_long", "numpy.ptp", big, exact=True)  # the vector-lanes path
    p.case("ptp_long_i16", "numpy.ptp", sample((257, 3), np.int16).T, Const(1), exact=True)
    nan_long = big.copy()
    nan_long[200] = np.nan
    p.case("ptp_long_nan", "numpy.ptp", nan_long)
    p.case("ptp_nan", "numpy.ptp", _with_nans(sample((4, 5), np.float64)), Const(0))
    p.case("ptp_wrap", "numpy.ptp", np.array([-100, 100], np.int8), exact=True)
    p.case("ptp_view", "numpy.ptp", View(sample((6, 8), np.float64), (slice(None, None, 2), slice(None, None, -3))),
           Const(0))
    p.case("avg_f32_f32w", "numpy.average", sample((5,), np.float32), weights=sample((5,), np.float32, 2) + 9)
    p.case("avg_tuple_axes_w", "numpy.average", sample((3, 4, 5), np.float64), axis=Const((2, 0)),
           weights=sample((5, 3), np.float64, 1) + 20)
    p.case("avg_bool_w", "numpy.average", sample((6,), np.bool_), weights=sample((6,), np.bool_, 1))
    p.case("avg_view_w", "numpy.average", View(sample((6, 8), np.float64), transpose=True), axis=Const(1),
           weights=sample((6,), np.float64) + 5)
    p.case("err_ptp_empty", "numpy.ptp", np.zeros((0,)))
    p.case("err_ptp_bool", "numpy.ptp", sample((4,), np.bool_))
    p.case("err_avg_zero", "numpy.average", sample((2, 3), np.float64), axis=Const(1), weights=np.array([1.0, -1.0, 0.0]))
    p.case("err_avg_shape", "numpy.average", sample((2, 3), np.float64), axis=Const(1), weights=np.array([1.0, 2.0]))
    p.case("err_avg_noaxis", "numpy.average", sample((2, 3), np.float64), weights=np.array([1.0, 2.0, 3.0]))
    p.case("err_avg_samezero", "numpy.average", sample((3,), np.float64), weights=np.zeros(3))


def test_order_statistics_against_numpy(tmp_path):
    p = Program("statistics_orders")
    _orders(p)
    run_and_check(p, tmp_path)


def test_ptp_average_against_numpy(tmp_path):
    p = Program("statistics_ptp_average")
    _ptp_average(p)
    run_and_check(p, tmp_path)

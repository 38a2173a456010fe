"""Counting lowered to C++ (count.hpp), compiled with g++ and compared with NumPy: bincount and
histogram (edges and counts bit for bit, including NumPy's mixed-dtype bin arithmetic)."""
from __future__ import annotations

import numpy as np

from tests.variants._harness import Const, View, sample
from tests.variants._sortkit import Kit, run_kit, special


def _bincount_cases(p: Kit) -> None:
    for dt in (np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint32, np.uint64):
        tag = np.dtype(dt).name
        x = np.abs(sample((29,), dt, 2))
        p.case(f"bc_{tag}", "numpy.bincount", x)
        p.case(f"bc_{tag}_min", "numpy.bincount", x, minlength=Const(40))
        p.case(f"bc_{tag}_w", "numpy.bincount", x, weights=sample((29,), np.float32, 1))
    x = np.array([0, 3, 3, 1, 7, 3])
    p.case("bc_min_small", "numpy.bincount", x, minlength=Const(2))
    p.case("bc_min_dyn", "numpy.bincount", x, minlength=11)
    p.case("bc_w_f64", "numpy.bincount", x, np.array([0.5, 1.5, -2.0, 3.0, 1e300, 0.25]))
    p.case("bc_w_int", "numpy.bincount", x, weights=np.array([1, 2, 3, 4, 5, 6], np.int8))
    p.case("bc_w_bool", "numpy.bincount", x, weights=np.array([True, False, True, True, False, True]))
    p.case("bc_w_list", "numpy.bincount", x, weights=[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    p.case("bc_list", "numpy.bincount", [2, 0, 2])
    p.case("bc_empty", "numpy.bincount", np.ones(0, np.int64))
    p.case("bc_empty_min", "numpy.bincount", np.ones(0, np.int64), minlength=Const(3))
    p.case("bc_one", "numpy.bincount", np.array([5]))
    p.case("bc_view", "numpy.bincount", View(np.arange(20) % 7, (slice(None, None, -3),)))
    # errors
    p.case("bc_neg", "numpy.bincount", np.array([1, -2, 3]))
    p.case("bc_u64_huge", "numpy.bincount", np.array([2**63], np.uint64))
    p.case("bc_min_neg", "numpy.bincount", x, minlength=-1)
    p.case("bc_w_len", "numpy.bincount", x, weights=np.ones(5))
    p.case("bc_float", "numpy.bincount", np.array([1.0, 2.0]))
    p.case("bc_2d", "numpy.bincount", np.ones((2, 2), np.int64))
    p.case("bc_0d", "numpy.bincount", np.array(3))
    p.case("bc_w_complex", "numpy.bincount", x, weights=np.ones(6, np.complex64))


def _hist(p: Kit, name: str, *args, n: int = 2, **kwargs) -> None:
    p.tuple_case(name, "numpy.histogram", *args, n=n, **kwargs)


def _histogram_cases(p: Kit) -> None:
    for dt in (np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint64, np.float32, np.float64, np.bool_):
        tag = np.dtype(dt).name
        x = sample((41,), dt, 3)
        _hist(p, f"h_{tag}", x)
        _hist(p, f"h_{tag}_7", x, 7)
        _hist(p, f"h_{tag}_dens", x, 5, density=Const(True))
        _hist(p, f"h_{tag}_range", x, 4, range=Const((-3, 5)))
        _hist(p, f"h_{tag}_frange", x, Const(6), Const((-2.5, 4.25)))
        _hist(p, f"h_{tag}_edges", x, np.array([-5.0, -1.0, 0.0, 0.5, 4.0]))
        _hist(p, f"h_{tag}_edges_dens", x, np.array([-5, -1, 0, 4]), density=Const(True))
    f = special(np.float64, 40, 2)
    finite = f[np.isfinite(f)]
    _hist(p, "h_nan_range", f, 3, range=Const((0.0, 5.0)))
    _hist(p, "h_const", np.full(5, 3.0), 4)
    _hist(p, "h_const_int", np.full(5, 3), 4)
    _hist(p, "h_const_f32", np.full(5, 0.1, np.float32), 3)
    _hist(p, "h_empty", np.ones(0), 3)
    _hist(p, "h_empty_f32", np.ones(0, np.float32), 3)
    _hist(p, "h_empty_range", np.ones(0), 3, range=Const((1.0, 2.0)))
    _hist(p, "h_range_eq", finite, 2, range=Const((1, 1)))
    _hist(p, "h_range_dyn", finite, 5, range=(-1.5, 2.0))
    _hist(p, "h_range_np", finite.astype(np.float32), 5, range=(np.float64(-1.5), np.float64(2.0)))
    _hist(p, "h_bins_dyn", finite, 9)
    _hist(p, "h_many", finite, 1000)
    _hist(p, "h_wide_i8", np.array([-128, 127, 0, 5], np.int8), 3)
    _hist(p, "h_wide_u64", np.array([0, 2**64 - 1, 2**63], np.uint64), 3)
    _hist(p, "h_tiny", np.array([1.0, 1.0 + 2**-40, 1.0 + 2**-39]), 7)
    _hist(p, "h_2d", sample((4, 6), np.float32, 1), 3)
    _hist(p, "h_view", View(sample((5, 8), np.float64, 4), (slice(None, None, 2), slice(None, None, -3))), 4)
    _hist(p, "h_list", [1.0, 2.0, 2.5, 7.0], 3)
    _hist(p, "h_edges_list", finite, [-1.0, 0.0, 1.0])
    _hist(p, "h_edges_int", np.array([1.5, 2.0, 3.0, 4.0]), np.array([1, 2, 4]))
    _hist(p, "h_edges_nan", f, np.array([-1.0, 0.0, 1.0, 2.0]))
    _hist(p, "h_edges_one", finite, np.array([0.5]))
    _hist(p, "h_edges_dens0", finite, np.array([100.0, 200.0]), density=Const(True))
    _hist(p, "h_dens_none", finite, 4, density=Const(None))
    big = sample((70001,), np.float64, 9) + 0.001 * np.arange(70001)  # more than one of NumPy's blocks
    _hist(p, "h_big", big, 17)
    _hist(p, "h_big_edges", big, np.linspace(-5, 60, 8))
    # errors
    _hist(p, "h_nan", f, 3)
    _hist(p, "h_inf", np.array([1.0, np.inf]))
    _hist(p, "h_range_bad", finite, 2, range=Const((3, 1)))
    _hist(p, "h_range_inf", finite, 2, range=(0.0, np.inf))
    _hist(p, "h_range_bad_dyn", finite, 2, range=(3.0, 1.0))
    _hist(p, "h_bins0", finite, 0)
    _hist(p, "h_bins0_const", finite, Const(0))
    _hist(p, "h_too_many", np.array([1.0, 1.0 + 1e-15]), 100)
    _hist(p, "h_edges_bad", finite, np.array([0.0, 3.0, 2.0]))
    _hist(p, "h_edges_2d", finite, np.ones((2, 2)))


def _program() -> Kit:
    p = Kit("counting")
    _bincount_cases(p)
    _histogram_cases(p)
    return p


def test_counting_against_numpy(tmp_path):
    run_kit(_program(), tmp_path)

"""Sorting at the size boundaries of sort.hpp's kernels, compiled with g++ and compared with NumPy: many
short lanes go through the vectorised sorting networks (sort_net.hpp: 8..net_max elements, blocks of
128 bytes of lanes, a last partial block), single lanes and long lanes through the per-lane kernels
(comparison sort, radix sort from 384 elements, counting sort). Inputs have ties, NaNs, infinities and
signed zeros, and rows that are already sorted or reverse sorted; argsort is compared with NumPy's
stable argsort exactly, partition / argpartition by the partition property."""
from __future__ import annotations

from typing import Any

import numpy as np

from tests.variants._harness import Const, View
from tests.variants._sortkit import Kit, run_kit
from tests.variants.test_sorting_cpp import partition_checker, stable_argsort

ROW_LENGTHS = (8, 15, 16, 17, 31, 32, 33, 100, 255, 256, 257)
# dtype -> (lane count: about a quarter block more than a block or a partial one, lane lengths)
ROWS: dict[Any, tuple[int, tuple[int, ...]]] = {
    np.float64: (21, ROW_LENGTHS),
    np.float32: (11, ROW_LENGTHS),
    np.int64: (7, ROW_LENGTHS),
    np.int32: (11, ROW_LENGTHS),
    np.int16: (19, (16, 31, 257)),
    np.uint8: (35, (15, 16, 17, 33, 100)),
    np.int8: (33, (32, 65)),
    np.uint64: (5, (17, 64)),
}
FLAT_LENGTHS = (15, 16, 17, 31, 32, 33, 1023, 1024, 1025, 4097)


def lanes(dt: Any, rows: int, n: int, seed: int) -> np.ndarray:
    """rows x n values with many ties; floats with NaN, +-inf and -0.0 / 0.0; row 0 sorted, row 1 reversed."""
    rng = np.random.default_rng(seed)
    d = np.dtype(dt)
    span = max(2, n // 3)
    if d.kind == "u":
        x = rng.integers(0, span, (rows, n)).astype(dt)
    elif d.kind == "i":
        x = rng.integers(-span, span, (rows, n)).astype(dt)
    else:
        x = (rng.integers(-span, span, (rows, n)) * 0.5).astype(dt)
        x[rng.random((rows, n)) < 0.06] = np.nan
        x[rng.random((rows, n)) < 0.04] = -0.0
        x[rng.random((rows, n)) < 0.04] = 0.0
        x[rng.random((rows, n)) < 0.02] = np.inf
        x[rng.random((rows, n)) < 0.02] = -np.inf
    if rows >= 2:
        x[0] = np.sort(x[0])
        x[1] = np.sort(x[1])[::-1]
    return x


def _row_cases(p: Kit) -> None:
    for dt, (rows, lengths) in ROWS.items():
        tag = np.dtype(dt).name
        for n in lengths:
            x = lanes(dt, rows, n, n)
            t = View(x, transpose=True)  # the same lanes, strided (axis 0)
            p.case(f"sort_{tag}_{n}", "numpy.sort", x)
            p.case(f"sort0_{tag}_{n}", "numpy.sort", t, axis=Const(0))
            p.case(f"argsort_{tag}_{n}", "numpy.argsort", x, ref=stable_argsort)
            p.case(f"argsort0_{tag}_{n}", "numpy.argsort", t, axis=Const(0), ref=stable_argsort)
            p.inplace_case(f"msort_{tag}_{n}", "ndarray.sort", x.copy())
            for k in (0, n // 2, -1):
                name = f"{tag}_{n}_{k}".replace("-", "m")
                p.prop_case(f"part_{name}", "numpy.partition", partition_checker(x, k), x, k)
                p.prop_case(f"apart0_{name}", "numpy.argpartition", partition_checker(x.T, k, 0, arg=True), t, k,
                            axis=Const(0))
        x = lanes(dt, rows, lengths[0], 99)
        p.case(f"sort_stable_{tag}", "numpy.sort", x, kind=Const("stable"))  # floats: ordered -0.0 / 0.0
        p.case(f"argsort_stable_{tag}", "numpy.argsort", x, kind=Const("stable"))


def _edge_cases(p: Kit) -> None:
    # lane counts around the block threshold (a quarter block) and lanes of 7 / 8 elements
    for rows in (3, 4, 5, 16, 17):
        x = lanes(np.float64, rows, 16, rows)
        p.case(f"sort_rows{rows}", "numpy.sort", x)
        p.case(f"argsort_rows{rows}", "numpy.argsort", x, ref=stable_argsort)
    for n in (7, 8, 9):
        x = lanes(np.int32, 40, n, n)
        p.case(f"sort_len{n}", "numpy.sort", x)
        p.case(f"argsort_len{n}", "numpy.argsort", x, ref=stable_argsort)
    # all equal, all NaN, a 3-d array along its middle axis, a step view
    p.case("argsort_equal", "numpy.argsort", np.full((12, 40), 2.5), ref=stable_argsort)
    allnan = np.full((9, 20), np.nan)
    allnan[::2, ::3] = -0.0
    p.case("sort_nan", "numpy.sort", allnan)
    p.case("argsort_nan", "numpy.argsort", allnan, ref=stable_argsort)
    cube = lanes(np.float32, 24, 33, 5).reshape(4, 6, 33).transpose(0, 2, 1).copy()
    p.case("sort_3d_ax1", "numpy.sort", cube, axis=Const(1))
    p.case("argsort_3d_ax1", "numpy.argsort", cube, axis=Const(1), ref=stable_argsort)
    base = lanes(np.int64, 30, 40, 3)
    v = View(base, (slice(None, None, 2), slice(None, None, -2)))
    p.case("sort_view", "numpy.sort", v)
    p.case("argsort_view", "numpy.argsort", v, ref=stable_argsort)


def _flat_cases(p: Kit) -> None:
    for dt in (np.float64, np.int32):
        tag = np.dtype(dt).name
        for n in FLAT_LENGTHS:
            x = lanes(dt, 1, n, n)[0]
            p.case(f"flat_sort_{tag}_{n}", "numpy.sort", x)
            p.case(f"flat_argsort_{tag}_{n}", "numpy.argsort", x, ref=stable_argsort)
            p.prop_case(f"flat_part_{tag}_{n}", "numpy.partition", partition_checker(x, n // 3), x, n // 3)
        for n in (33, 1025):
            x = np.sort(lanes(dt, 1, n, 7)[0])
            p.case(f"flat_sorted_{tag}_{n}", "numpy.argsort", x, ref=stable_argsort)
            p.case(f"flat_reversed_{tag}_{n}", "numpy.argsort", x[::-1].copy(), ref=stable_argsort)
            p.case(f"flat_sort_stable_{tag}_{n}", "numpy.sort", x[::-1].copy(), kind=Const("stable"))


def test_short_lanes_against_numpy(tmp_path):
    p = Kit("sorting_short")
    _row_cases(p)
    run_kit(p, tmp_path)


def test_edges_and_flat_against_numpy(tmp_path):
    p = Kit("sorting_edges")
    _edge_cases(p)
    _flat_cases(p)
    run_kit(p, tmp_path)

"""Sorting lowered to C++ (sort.hpp), compiled with g++ and compared with NumPy: sort, ndarray.sort,
argsort, partition / argpartition (by the partition property), lexsort and sort_complex."""
from __future__ import annotations

from typing import Any

import numpy as np

from tests.variants._harness import Const, View, sample
from tests.variants._sortkit import Checker, Kit, run_kit, special

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint64, np.float32, np.float64,
          np.complex64, np.complex128]


def stable_argsort(a: Any, axis: Any = -1, **_: Any) -> np.ndarray:
    return np.argsort(a, axis=axis, kind="stable")


def _lanes(x: np.ndarray, axis: int | None) -> np.ndarray:
    if axis is None:
        return x.reshape(1, -1)
    m = np.moveaxis(x, axis, -1)
    return m.reshape(-1, m.shape[-1]) if m.size else m.reshape(0, max(m.shape[-1], 0))


def partition_checker(a: np.ndarray, kth: Any, axis: int | None = -1, arg: bool = False) -> Checker:
    """Each lane is a permutation of the input lane with every kth element in its sorted place."""
    ks = np.atleast_1d(np.asarray(kth)).ravel()

    def check(got: np.ndarray, _: Any) -> None:
        src = _lanes(np.asarray(a), axis)
        out = _lanes(got, axis)
        for lane, res in zip(src, out):
            n = lane.size
            vals = lane[res] if arg else res
            if arg:
                assert sorted(res.tolist()) == list(range(n)), f"not a permutation: {res}"
            want = np.sort(lane)
            np.testing.assert_array_equal(np.sort(vals), want)
            for k in ks:
                k = int(k) % n if n else 0
                np.testing.assert_array_equal(vals[k], want[k])
                np.testing.assert_array_equal(np.sort(vals[:k]), want[:k])
                np.testing.assert_array_equal(np.sort(vals[k + 1:]), want[k + 1:])

    return check


def _sort_cases(p: Kit) -> None:
    for dt in DTYPES:
        tag = np.dtype(dt).name
        x = special(dt)
        p.case(f"sort_{tag}", "numpy.sort", x)
        p.case(f"sort_{tag}_stable", "numpy.sort", x, kind=Const("stable"))
        p.case(f"argsort_{tag}", "numpy.argsort", x, ref=stable_argsort)
        p.case(f"argsort_{tag}_stable", "numpy.argsort", x, kind=Const("stable"))
        m = sample((4, 7), dt, 3)
        for ax in (0, 1, -1, None):
            p.case(f"sort2_{tag}_{ax}", "numpy.sort", m, Const(ax))
            p.case(f"argsort2_{tag}_{ax}", "numpy.argsort", m, axis=Const(ax), ref=stable_argsort)
        p.inplace_case(f"msort_{tag}", "ndarray.sort", x.copy())
        p.inplace_case(f"msort0_{tag}", "ndarray.sort", m.copy(), Const(0))
        p.case(f"margsort_{tag}", "ndarray.argsort", m, Const(0), ref=lambda a, axis: stable_argsort(a, axis))
        big = special(dt, 1001, 5)  # counting sort (1-byte types), radix sort (2-8 bytes); many ties
        p.case(f"sort_big_{tag}", "numpy.sort", big)
        p.case(f"sort_big_{tag}_stable", "numpy.sort", big, kind=Const("stable"))
        p.case(f"argsort_big_{tag}", "numpy.argsort", big, ref=stable_argsort)
        tall = sample((400, 3), dt, 6)
        p.case(f"sort_tall_{tag}", "numpy.sort", tall, axis=Const(0))
        p.case(f"argsort_tall_{tag}", "numpy.argsort", tall, axis=Const(0), ref=stable_argsort)
    for shape in ((0,), (1,), (2,), (13,), (3, 0), (0, 4), (2, 3, 5)):
        s = "x".join(map(str, shape))
        x = sample(shape, np.float64, 1)
        p.case(f"sort_shape_{s}", "numpy.sort", x)
        p.case(f"sort_shape_{s}_0", "numpy.sort", x, axis=Const(0))
        p.case(f"argsort_shape_{s}", "numpy.argsort", x, ref=stable_argsort)
        p.case(f"sort_shape_{s}_none", "numpy.sort", x, axis=Const(None))
    base = sample((6, 9), np.float32, 2)
    for name, v in (("step", View(base, (slice(None, None, 2), slice(1, None, 3)))), ("T", View(base, transpose=True)),
                    ("rev", View(base, (slice(None, None, -1), slice(None))))):
        for ax in (0, -1, None):
            p.case(f"sort_view_{name}_{ax}", "numpy.sort", v, Const(ax))
            p.case(f"argsort_view_{name}_{ax}", "numpy.argsort", v, Const(ax), ref=stable_argsort)
        p.inplace_case(f"msort_view_{name}", "ndarray.sort", View(base.copy(), v.index, v.transpose))
        p.inplace_case(f"msort_view_{name}_0", "ndarray.sort", View(base.copy(), v.index, v.transpose), axis=Const(0))
    p.case("sort_list", "numpy.sort", [3, 1, 2])
    p.case("sort_scalar_none", "numpy.sort", 3.5, axis=Const(None))
    p.case("sort_mergesort", "numpy.sort", special(np.float64), kind=Const("mergesort"))
    p.case("sort_heapsort", "numpy.sort", special(np.float64), kind=Const("heapsort"))
    p.case("sort_stable_kw", "numpy.sort", special(np.float32), stable=Const(True))
    # typing errors with NumPy's messages
    p.case("sort_0d", "numpy.sort", np.array(3.0))
    p.case("sort_kind_bad", "numpy.sort", special(np.float64), kind=Const("fancy"))
    p.case("sort_axis_bad", "numpy.sort", sample((2, 3), np.float64), Const(2))
    p.case("argsort_axis_bad", "numpy.argsort", sample((2, 3), np.float64), axis=Const(-3))
    p.case("msort_none", "ndarray.sort", sample((2, 3), np.float64), axis=Const(None))


def _partition_cases(p: Kit) -> None:
    for dt in (np.int8, np.uint8, np.int32, np.int64, np.float32, np.float64, np.complex64, np.bool_):
        tag = np.dtype(dt).name
        x = special(dt, 31, 2)
        for k in (0, 5, 30, -1, -31):
            p.prop_case(f"part_{tag}_{k}".replace("-", "m"), "numpy.partition", partition_checker(x, k), x, k)
            p.prop_case(f"apart_{tag}_{k}".replace("-", "m"), "numpy.argpartition",
                        partition_checker(x, k, arg=True), x, k)
        p.prop_case(f"part_{tag}_multi", "numpy.partition", partition_checker(x, (3, 20, 7)), x, (3, 20, 7))
        p.prop_case(f"apart_{tag}_multi", "numpy.argpartition", partition_checker(x, [3, 20, 3], arg=True), x,
                    [3, 20, 3])
        m = sample((5, 6), dt, 4)
        p.prop_case(f"part2_{tag}_ax0", "numpy.partition", partition_checker(m, 2, 0), m, 2, axis=Const(0))
        p.prop_case(f"apart2_{tag}_ax1", "numpy.argpartition", partition_checker(m, 4, 1, arg=True), m, 4)
        p.prop_case(f"part2_{tag}_none", "numpy.partition", partition_checker(m, 17, None), m, 17, axis=Const(None))
        p.prop_case(f"apart2_{tag}_none", "numpy.argpartition", partition_checker(m, 17, None, arg=True), m, 17,
                    axis=Const(None))
        p.inplace_case(f"mpart_{tag}", "ndarray.partition", m.copy(), 3, checker=partition_checker(m, 3))
        p.prop_case(f"mapart_{tag}", "ndarray.argpartition", partition_checker(m, 1, 0, arg=True), m, 1, Const(0))
    x = special(np.float64, 40)
    p.prop_case("part_arraykth", "numpy.partition", partition_checker(x, [2, 39]), x, np.array([2, 39]))
    base = sample((7, 8), np.float64, 6)
    v = View(base, (slice(None, None, 2), slice(None, None, -1)))
    p.prop_case("part_view", "numpy.partition", partition_checker(v.value, 1, 0), v, 1, axis=Const(0))
    p.prop_case("apart_view_T", "numpy.argpartition", partition_checker(base.T, 3, arg=True), View(base, transpose=True),
                3)
    p.inplace_case("mpart_view", "ndarray.partition", View(base.copy(), v.index), 2, checker=partition_checker(v.value, 2))
    p.prop_case("part_1", "numpy.partition", partition_checker(np.array([4.0]), 0), np.array([4.0]), 0)
    p.case("part_empty", "numpy.partition", np.ones((0,)), 0)  # no bounds check on empty arrays (as NumPy)
    # errors: kth out of bounds at run time, bad kth / axis types at compile time
    p.case("part_oob", "numpy.partition", x, 40)
    p.case("part_oob_neg", "numpy.partition", x, -41)
    p.case("apart_oob_tuple", "numpy.argpartition", x, (1, 45))
    p.case("part_float_kth", "numpy.partition", x, 1.5)
    p.case("part_0d", "numpy.partition", np.array(3.0), 0)
    p.case("part_kind_bad", "numpy.partition", x, 1, kind=Const("quick"))


def _lexsort_cases(p: Kit) -> None:
    a = np.array([1, 2, 1, 2, 1, 0, 2], np.int32)
    b = np.array([3.0, 3.0, 1.0, np.nan, 1.0, 3.0, -0.0])
    c = np.array([True, False, True, True, False, False, True])
    p.case("lex_tuple2", "numpy.lexsort", (a, b))
    p.case("lex_tuple3", "numpy.lexsort", (c, a, b))
    p.case("lex_list", "numpy.lexsort", [a.astype(np.float64), b])
    p.case("lex_array", "numpy.lexsort", np.stack([a, a[::-1], a % 2]))
    m1, m2 = sample((3, 5), np.int8, 1), sample((3, 5), np.int8, 2)
    p.case("lex_2d", "numpy.lexsort", (m1, m2))
    p.case("lex_2d_ax0", "numpy.lexsort", (m1, m2), axis=Const(0))
    p.case("lex_view", "numpy.lexsort", (View(sample((4, 6), np.float32), (slice(None), slice(None, None, 2))),
                                         View(sample((4, 6), np.uint8, 3), (slice(None), slice(1, None, 2)))))
    p.case("lex_empty", "numpy.lexsort", (np.ones(0), np.ones(0, np.int64)))
    p.case("lex_complex", "numpy.lexsort", (special(np.complex128, 9),))
    p.case("lex_shape_bad", "numpy.lexsort", (a, b[:3]))
    p.case("lex_none", "numpy.lexsort", ())


def _sort_complex_cases(p: Kit) -> None:
    for dt in (np.int8, np.uint16, np.int32, np.float32, np.float64, np.complex64, np.complex128, np.bool_):
        p.case(f"sortc_{np.dtype(dt).name}", "numpy.sort_complex", special(dt, 11))
    p.case("sortc_2d", "numpy.sort_complex", sample((3, 4), np.complex64, 2))
    p.case("sortc_0d", "numpy.sort_complex", np.array(3.0))


def _program() -> Kit:
    p = Kit("sorting")
    _sort_cases(p)
    _partition_cases(p)
    _lexsort_cases(p)
    _sort_complex_cases(p)
    return p


def _sort_program() -> Kit:
    p = Kit("sorting_sort")
    _sort_cases(p)
    return p


def _select_program() -> Kit:
    p = Kit("sorting_select")
    _partition_cases(p)
    _lexsort_cases(p)
    _sort_complex_cases(p)
    return p


# two programs, so that pytest -n can compile them in parallel
def test_sort_argsort_against_numpy(tmp_path):
    run_kit(_sort_program(), tmp_path)


def test_partition_lexsort_against_numpy(tmp_path):
    run_kit(_select_program(), tmp_path)

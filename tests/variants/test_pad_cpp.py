"""np.pad (pad.hpp) compiled with g++ and compared with NumPy: every supported
mode, the pad_width / constant_values forms NumPy broadcasts, paddings
wider than the data (iterated reflection and wrapping), views, empty axes
and NumPy's errors. Exact for every dtype (odd reflections included: the
arithmetic is NumPy's).
"""
from __future__ import annotations

import numpy as np

from tests.variants._harness import Const, Program, View, run_and_check, sample

DTS = (np.bool_, np.uint8, np.int8, np.int32, np.int64, np.float32, np.float64, np.complex128)
MODES = ("constant", "edge", "reflect", "symmetric", "wrap")


def _modes(p: Program) -> None:
    x1 = sample((5,), np.float64)
    m = sample((3, 4), np.int32)
    base = sample((6, 9), np.float32)
    arrays = {"x1": x1, "m": m, "one": sample((1,), np.int16), "one2": sample((1, 3), np.int16),
              "T": View(base, transpose=True), "neg": View(base, (slice(None, None, -2), slice(1, None, 3))),
              "c3": sample((2, 3, 2), np.complex64)}
    widths = (0, 1, 4, 13, (1, 0), (6, 1), ((2, 1),), ((1,),))
    for tag, v in arrays.items():
        for mode in MODES:
            for w in widths:
                p.case(f"pad_{tag}_{mode}_{w}", "numpy.pad", v, Const(w), Const(mode))
            p.case(f"pad_{tag}_{mode}_rt", "numpy.pad", v, (3, 2), mode=Const(mode))
        for w in (1, 5, (2, 9)):
            p.case(f"pad_{tag}_reflect_odd_{w}", "numpy.pad", v, Const(w), Const("reflect"),
                   reflect_type=Const("odd"))
            p.case(f"pad_{tag}_symmetric_odd_{w}", "numpy.pad", v, Const(w), Const("symmetric"),
                   reflect_type=Const("odd"))
    for mode in MODES:
        p.case(f"pad_peraxis_{mode}", "numpy.pad", m, Const(((1, 2), (3, 0))), Const(mode))
        p.case(f"pad_peraxis_big_{mode}", "numpy.pad", m, Const(((7, 5), (0, 9))), Const(mode))
        p.case(f"pad_3d_{mode}", "numpy.pad", sample((2, 3, 4), np.uint8), Const(((1, 2), (0, 4), (3, 3))),
               Const(mode))
        p.case(f"pad_col21_{mode}", "numpy.pad", m, Const(((2,), (1,))), Const(mode))
        for dt in DTS:
            p.case(f"pad_{np.dtype(dt).name}_{mode}", "numpy.pad", sample((3, 2), dt), Const(3), Const(mode))
            p.case(f"pad_{np.dtype(dt).name}_{mode}_odd", "numpy.pad", sample((4,), dt), Const(6), Const(mode),
                   reflect_type=Const("odd")) if mode in ("reflect", "symmetric") else None


def _constants_errors(p: Program) -> None:
    m = sample((3, 4), np.int32)
    x = sample((4,), np.float64)
    p.case("pad_default", "numpy.pad", m, Const(1))
    p.case("pad_const_int", "numpy.pad", x, Const(2), constant_values=Const(7))
    p.case("pad_const_rt", "numpy.pad", x, 2, constant_values=-2.5)
    p.case("pad_const_pair", "numpy.pad", x, Const((1, 2)), constant_values=(9.0, -1.0))
    p.case("pad_const_peraxis", "numpy.pad", m, Const(((1, 2), (2, 1))), constant_values=((1, 2), (3, 4)))
    p.case("pad_const_col", "numpy.pad", m, Const(1), constant_values=((5,), (6,)))
    p.case("pad_const_float_int", "numpy.pad", m, Const(1), constant_values=2.7)
    p.case("pad_const_overflow", "numpy.pad", sample((3,), np.int8), Const(1), constant_values=300)
    p.case("pad_const_overflow_pairs", "numpy.pad", sample((2, 2), np.int8), Const(1),
           constant_values=((1, 300), (1, 1)))
    p.case("pad_const_complex", "numpy.pad", sample((2,), np.complex64), Const(1), constant_values=1 - 2j)
    p.case("pad_const_bool", "numpy.pad", sample((3,), np.bool_), Const(2), constant_values=True)
    p.case("pad_empty_mode", "numpy.pad", m, Const(2), Const("empty"), values=False)
    p.case("pad_empty_arr_const", "numpy.pad", np.ones((0, 2)), Const(1))
    for mode in ("edge", "reflect", "wrap"):
        p.case(f"pad_empty_arr_{mode}", "numpy.pad", np.ones((0, 2)), Const(1), Const(mode))
        p.case(f"pad_empty_axis_ok_{mode}", "numpy.pad", np.ones((0, 2)), Const(((0, 0), (1, 2))), Const(mode))
    p.case("pad_0d", "numpy.pad", np.full((), 3.0), Const(2))
    p.case("pad_list", "numpy.pad", [1, 2, 3], Const(1), Const("edge"))
    p.case("pad_neg", "numpy.pad", m, Const(-1))
    p.case("pad_neg_rt", "numpy.pad", m, (1, -2))
    p.case("pad_neg_peraxis", "numpy.pad", m, Const(((1, 1), (0, -1))))
    p.case("pad_bad_shape", "numpy.pad", m, Const((1, 2, 3)))
    p.case("pad_bad_shape2", "numpy.pad", m, Const(((1, 2), (1, 2), (1, 2))))
    p.case("pad_bad_mode", "numpy.pad", m, Const(1), Const("mean2"))
    p.case("pad_bad_kw", "numpy.pad", m, Const(1), Const("edge"), constant_values=Const(2))
    p.case("pad_float_width", "numpy.pad", m, Const(1.0))
    p.case("pad_uint_width", "numpy.pad", m, np.uint8(1))
    p.case("pad_ragged", "numpy.pad", m, Const(((1, 2), (1,))))


def test_pad_against_numpy(tmp_path):
    p = Program("pad")
    _modes(p)
    _constants_errors(p)
    run_and_check(p, tmp_path)

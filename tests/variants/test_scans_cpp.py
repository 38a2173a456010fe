"""Scans lowered to C++ (scan.hpp), compiled with g++ and compared with NumPy."""
from __future__ import annotations

import numpy as np

from tests.variants._harness import Const, Program, View, run_and_check, sample


def _program() -> Program:
    p = Program("scans")
    shapes = [(7,), (1,), (0,), (3, 5), (2, 1, 4), (0, 3), ()]
    for dt in (np.bool_, np.int8, np.uint16, np.int32, np.int64, np.uint64, np.float32, np.float64, np.complex64):
        for shape in shapes:
            a = sample(shape, dt, seed=3)
            tag = f"{np.dtype(dt).name}_{'x'.join(map(str, shape)) or 's'}"
            for name in ("cumsum", "cumprod"):
                p.case(f"{name}_{tag}", f"numpy.{name}", a, exact=True)
                p.case(f"m{name}_{tag}", f"ndarray.{name}", a, exact=True)
                for axis in range(len(shape)):
                    p.case(f"{name}_{tag}_ax{axis}", f"numpy.{name}", a, Const(axis), exact=True)
                    p.case(f"{name}_{tag}_axm{axis}", f"ndarray.{name}", a, axis=Const(axis - len(shape)), exact=True)
                p.case(f"{name}_{tag}_f32", f"numpy.{name}", a, dtype=Const(np.dtype(np.float32)), exact=True)
            if shape:
                for n in (0, 1, 2, 4, 9):
                    for axis in range(len(shape)):
                        p.case(f"diff_{tag}_{n}_{axis}", "numpy.diff", a, Const(n), Const(axis))
                p.case(f"diff_{tag}", "numpy.diff", a)
    base = sample((6, 8), np.float64)
    views = {"strided": View(base, (slice(None, None, 2), slice(1, None, 3))),
             "neg": View(base, (slice(None, None, -1), slice(None, None, -2))), "T": View(base, transpose=True)}
    for tag, v in views.items():
        p.case(f"cumsum_{tag}", "numpy.cumsum", v, exact=True)
        p.case(f"cumsum_{tag}_0", "numpy.cumsum", v, Const(0), exact=True)
        p.case(f"cumprod_{tag}_1", "numpy.cumprod", v, Const(1))
        p.case(f"diff_{tag}", "numpy.diff", v)
        p.case(f"diff_{tag}_0", "numpy.diff", v, axis=Const(0), n=Const(2))
    p.case("cumsum_wrap", "numpy.cumsum", np.array([2**62, 2**62, 2**62], np.int64))
    p.case("cumsum_scalar", "numpy.cumsum", 2.5)
    p.case("cumsum_list", "numpy.cumsum", [1, 2, 3])
    p.case("diff_u8", "numpy.diff", np.array([5, 3, 250], np.uint8))
    p.case("diff_bool", "numpy.diff", np.array([True, False, False, True]))
    return p


def test_scans_against_numpy(tmp_path):
    run_and_check(_program(), tmp_path)

"""Array construction from others (construct.hpp: tri, tril, triu, diag,
diagonal, diagflat, vander, indices, meshgrid, logspace, geomspace)
compiled with g++ and compared with NumPy.

Data movement and integer results are exact. Tolerances: vander multiplies
in NumPy's order (exact as well); logspace/geomspace go through pow and
log10, which may differ from NumPy's SIMD loops by an ulp or two, so they
use rtol 1e-12 (float64/complex128) and 3e-6 (float32/complex64).
"""
from __future__ import annotations

import numpy as np

from tests.variants._harness import Const, Program, View, run_and_check, sample
from tests.variants._manip import seq_cases

DTS = (np.bool_, np.uint8, np.int32, np.int64, np.float32, np.float64, np.complex64, np.complex128)


def _tri(p: Program) -> None:
    for n, m, k in ((3, None, 0), (4, 2, 1), (2, 5, -1), (0, 3, 0), (3, 3, 7), (3, 3, -7), (-1, None, 0), (2, -3, 0)):
        p.case(f"tri_{n}_{m}_{k}", "numpy.tri", n, Const(None) if m is None else m, k)
    p.case("tri_dtype", "numpy.tri", 3, dtype=Const(np.dtype(np.int8)))
    p.case("tri_bool", "numpy.tri", 4, 3, k=1, dtype=Const(np.dtype(np.bool_)))
    base = sample((6, 7), np.float32)
    views = {"c": sample((4, 5), np.int16), "T": View(base, transpose=True),
             "neg": View(base, (slice(None, None, -2), slice(1, None))), "e": np.ones((0, 3))}
    for key, name in (("numpy.tril", "tril"), ("numpy.triu", "triu")):
        for dt in DTS:
            p.case(f"{name}_{np.dtype(dt).name}", key, sample((3, 4), dt))
        for tag, v in views.items():
            for k in (0, 1, -2, 9, -9):
                p.case(f"{name}_{tag}_{k}", key, v, k)
        p.case(f"{name}_1d", key, sample((4,), np.float64), 1)
        p.case(f"{name}_3d", key, sample((2, 3, 4), np.int32), Const(-1))
        p.case(f"{name}_0d", key, np.ones(()))
        p.case(f"{name}_list", key, [1, 2, 3])


def _diag(p: Program) -> None:
    for dt in DTS:
        n = np.dtype(dt).name
        p.case(f"diag_1d_{n}", "numpy.diag", sample((3,), dt))
        p.case(f"diag_2d_{n}", "numpy.diag", sample((3, 4), dt))
        p.case(f"diagflat_{n}", "numpy.diagflat", sample((2, 2), dt), -1)
    base = sample((5, 6), np.float64)
    for k in (0, 1, -1, 3, -4, 6, -6):
        p.case(f"diag_1d_k{k}", "numpy.diag", sample((4,), np.int64), k)
        p.case(f"diag_2d_k{k}", "numpy.diag", base, k=k)
        p.case(f"diag_T_k{k}", "numpy.diag", View(base, transpose=True), k)
        p.case(f"diag_neg_k{k}", "numpy.diag", View(base, (slice(None, None, -1), slice(None, None, 2))), k)
        p.case(f"diag_strided_k{k}", "numpy.diag", View(base, (slice(None), 2)), k)
        p.case(f"diagflat_k{k}", "numpy.diagflat", View(base, (slice(1, 3), slice(None, None, 3))), k)
    p.case("diag_3d", "numpy.diag", np.ones((2, 2, 2)))
    p.case("diag_0d", "numpy.diag", np.ones(()))
    p.case("diag_list", "numpy.diag", [1.5, 2.5])
    p.case("diag_empty", "numpy.diag", np.ones(0))
    p.case("diagflat_scalar", "numpy.diagflat", 3)
    c4 = sample((2, 3, 4, 5), np.int32)
    for a1, a2 in ((0, 1), (1, 0), (0, 2), (3, 1), (-1, -2), (2, 3)):
        for off in (0, 1, -2):
            p.case(f"diagonal_{a1}_{a2}_{off}", "numpy.diagonal", c4, off, Const(a1), Const(a2))
            p.case(f"mdiagonal_{a1}_{a2}_{off}", "ndarray.diagonal", c4, off, axis1=Const(a1), axis2=Const(a2))
    p.case("diagonal_default", "numpy.diagonal", base)
    p.case("mdiagonal_default", "ndarray.diagonal", View(base, transpose=True))
    p.case("diagonal_same", "numpy.diagonal", c4, 0, Const(1), Const(-3))
    p.case("diagonal_oob", "numpy.diagonal", c4, 0, Const(4), Const(0))
    p.case("diagonal_oob2", "numpy.diagonal", c4, 0, Const(0), Const(-5))
    p.case("diagonal_1d", "numpy.diagonal", np.ones(3))
    p.case("diagonal_far", "numpy.diagonal", base, 100)


def _vander_indices(p: Program) -> None:
    for dt in (np.uint8, np.int32, np.int64, np.uint64, np.float32, np.float64, np.complex64, np.bool_):
        n = np.dtype(dt).name
        x = sample((4,), dt)
        p.case(f"vander_{n}", "numpy.vander", x)
        p.case(f"vander_{n}_inc", "numpy.vander", x, 3, True)
    x = np.array([1.5, -2.0, 0.0, 3.25, 1e10], np.float64)
    for n in (0, 1, 2, 6):
        p.case(f"vander_N{n}", "numpy.vander", x, n)
        p.case(f"vander_N{n}_inc", "numpy.vander", x, N=n, increasing=True)
    p.case("vander_view", "numpy.vander", View(sample((9,), np.float64), (slice(None, None, -2),)), 4)
    p.case("vander_none", "numpy.vander", x, Const(None))
    p.case("vander_neg", "numpy.vander", x, -1)
    p.case("vander_2d", "numpy.vander", np.ones((2, 2)))
    p.case("vander_list", "numpy.vander", [1, 2, 3])
    p.case("vander_empty", "numpy.vander", np.ones(0))
    for dims in ((2, 3), (3,), (2, 0, 3), (1, 4, 2), ()):
        tag = "_".join(map(str, dims))
        p.case(f"indices_{tag}", "numpy.indices", Const(dims))
        seq_cases(p, f"indices_sparse_{tag}", "numpy.indices", Const(dims), sparse=Const(True), count=len(dims))
    p.case("indices_rt", "numpy.indices", (3, 2))
    p.case("indices_f32", "numpy.indices", Const((2, 2)), dtype=Const(np.dtype(np.float32)))
    p.case("indices_neg", "numpy.indices", (2, -1))
    p.case("indices_int", "numpy.indices", 3)


def _mesh_space(p: Program) -> None:
    x = sample((3,), np.float64)
    y = sample((4,), np.int32)
    z = sample((2,), np.complex64)
    xv = View(sample((7,), np.float64), (slice(None, None, 3),))
    m2 = sample((2, 2), np.uint8)
    for kw in ({}, {"indexing": Const("ij")}, {"sparse": Const(True)}, {"copy": Const(False)},
               {"indexing": Const("ij"), "sparse": Const(True)}, {"copy": Const(False), "indexing": Const("ij")}):
        tag = "_".join(f"{k}{v.value}" for k, v in kw.items()) or "default"
        seq_cases(p, f"mesh2_{tag}", "numpy.meshgrid", x, y, count=2, **kw)
        seq_cases(p, f"mesh3_{tag}", "numpy.meshgrid", x, y, z, count=3, **kw)
        seq_cases(p, f"mesh1_{tag}", "numpy.meshgrid", y, count=1, **kw)
        seq_cases(p, f"meshv_{tag}", "numpy.meshgrid", xv, m2, count=2, **kw)
    seq_cases(p, "mesh_scalar", "numpy.meshgrid", 2.5, y, count=2)
    seq_cases(p, "mesh_empty", "numpy.meshgrid", np.ones(0), y, count=2)
    seq_cases(p, "mesh_bad", "numpy.meshgrid", x, y, indexing=Const("yx"), count=2)
    seq_cases(p, "mesh_none", "numpy.meshgrid", count=0)  # an empty tuple
    for start, stop in ((0, 3), (0.5, -2.0), (np.float32(0), np.float32(2)), (1 + 1j, 2 - 1j), (2, 2)):
        tag = f"{start}_{stop}".replace(" ", "")
        for num in (0, 1, 5, 7):
            p.case(f"logspace_{tag}_{num}", "numpy.logspace", start, stop, num)
            p.case(f"logspace_{tag}_{num}_ne", "numpy.logspace", start, stop, num, False)
        p.case(f"logspace_{tag}_base2", "numpy.logspace", start, stop, 6, base=2)
        p.case(f"logspace_{tag}_basef32", "numpy.logspace", start, stop, 6, base=np.float32(3.0))
    p.case("logspace_default_num", "numpy.logspace", 0.0, 1.0)
    p.case("logspace_dtype_int", "numpy.logspace", 0, 3, 4, dtype=Const(np.dtype(np.int64)))
    p.case("logspace_dtype_f32", "numpy.logspace", 0, 3, 4, dtype=Const(np.dtype(np.float32)))
    p.case("logspace_neg_num", "numpy.logspace", 0, 3, -1)
    for start, stop in ((1, 1000), (-1, -16), (0.5, 8.0), (np.float32(1), np.float32(7)), (1j, 8j),
                        (1 + 1j, 4 + 4j), (2, -3), (3, 3)):
        tag = f"{start}_{stop}".replace(" ", "")
        for num in (0, 1, 4, 9):
            p.case(f"geomspace_{tag}_{num}", "numpy.geomspace", start, stop, num)
            p.case(f"geomspace_{tag}_{num}_ne", "numpy.geomspace", start, stop, num, endpoint=False)
    p.case("geomspace_int", "numpy.geomspace", 1, 1000, 4, dtype=Const(np.dtype(np.int64)))
    p.case("geomspace_f32", "numpy.geomspace", 1.0, 1000.0, 4, dtype=Const(np.dtype(np.float32)))
    p.case("geomspace_c64", "numpy.geomspace", 1, 16, 5, dtype=Const(np.dtype(np.complex64)))
    p.case("geomspace_zero", "numpy.geomspace", 0, 10, 3)
    p.case("geomspace_zero_stop", "numpy.geomspace", 2.0, 0.0, 3)
    p.case("geomspace_default", "numpy.geomspace", 1.0, 2.0)


def test_construct_against_numpy(tmp_path):
    p = Program("construct")
    _tri(p)
    _diag(p)
    _vander_indices(p)
    _mesh_space(p)
    run_and_check(p, tmp_path)

"""np.kron, np.tensordot and np.einsum lowered to C++ (ops/tensor.hpp), compiled
once and compared with NumPy. Integer and bool results are exact; float64
within 1e-12 and float32 within 1e-5 of the largest entry (summation order
differs from NumPy's SIMD kernels)."""
from __future__ import annotations

import numpy as np

from tests.variants._decomp_data import general
from tests.variants._harness import Const, View
from tests.variants._tuple_cases import TupleProgram, run_tuple_program

DT = [np.float64, np.float32, np.int64, np.int8, np.uint8, np.bool_, np.complex128]


def _tag(dt: object) -> str:
    return np.dtype(dt).name


def _kron(p: TupleProgram) -> None:
    for dt in DT:
        a, b = general((2, 3), dt, 1), general((3, 1), dt, 2)
        p.tcase(f"kron_{_tag(dt)}", "numpy.kron", a, b, within=1e-5)
        p.tcase(f"kron_1d_{_tag(dt)}", "numpy.kron", general((4,), dt, 3), a, within=1e-5)
    p.tcase("kron_mixed", "numpy.kron", general((2, 2), np.int8, 1), general((3,), np.uint8, 2))
    p.tcase("kron_3d", "numpy.kron", general((2, 1, 3), np.float64, 1), general((2, 2), np.float64, 2))
    p.tcase("kron_scalar", "numpy.kron", 2.5, general((3,), np.float64, 2))
    p.tcase("kron_scalars", "numpy.kron", 3, 4)
    p.tcase("kron_empty", "numpy.kron", np.ones((0, 2)), np.ones((3, 2)))
    p.tcase("kron_view", "numpy.kron", View(general((4, 5), np.float64), transpose=True),
            View(general((6,), np.float64, 3), (slice(None, None, -2),)))


def _tensordot(p: TupleProgram) -> None:
    for dt in DT:
        a, b = general((3, 4, 5), dt, 1), general((4, 5, 2), dt, 2)
        p.tcase(f"td_{_tag(dt)}", "numpy.tensordot", a, b, within=1e-5)
        p.tcase(f"td_pair_{_tag(dt)}", "numpy.tensordot", a, general((5, 3), dt, 3), Const(((2, 0), (0, 1))),
                within=1e-5)
    a = general((3, 4, 5), np.float64, 4)
    p.tcase("td_0", "numpy.tensordot", a, general((2,), np.float64), Const(0))
    p.tcase("td_1", "numpy.tensordot", a, general((5, 2), np.float64), axes=Const(1))
    p.tcase("td_3", "numpy.tensordot", a, general((3, 4, 5), np.float64), Const(3))
    p.tcase("td_ints", "numpy.tensordot", a, general((4, 3), np.float64), Const((1, 0)))
    p.tcase("td_neg", "numpy.tensordot", a, general((5, 4), np.float64), Const(((-1, -2), (0, 1))))
    p.tcase("td_vec", "numpy.tensordot", general((6,), np.float64), general((6,), np.float64, 2), Const(1))
    p.tcase("td_mismatch", "numpy.tensordot", a, general((4, 4), np.float64), Const(((1, 2), (0, 1))))
    p.tcase("td_lenmismatch", "numpy.tensordot", a, general((4, 5), np.float64), Const(((1, 2), (0,))))
    p.tcase("td_toomany", "numpy.tensordot", general((2, 3), np.float64), general((3, 3), np.float64), Const(3))
    p.tcase("td_empty", "numpy.tensordot", np.ones((2, 0)), np.ones((0, 3)), Const(1))
    p.tcase("td_view", "numpy.tensordot", View(a, (slice(None, None, -1), slice(None), slice(None, None, 2))),
            View(general((4, 7), np.float64), (slice(None), slice(None, None, 3))), Const(((1,), (0,))))


EINSUM = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ij,kj->ik", [(3, 4), (5, 4)]),
    ("ij,jk->ki", [(3, 4), (4, 5)]),
    ("i,i", [(7,), (7,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ii", [(4, 4)]),
    ("ii->i", [(4, 4)]),
    ("iji->j", [(3, 2, 3)]),
    ("ij->ji", [(3, 5)]),
    ("ij", [(3, 5)]),
    ("ji", [(3, 5)]),
    ("ij->", [(3, 5)]),
    ("ij->j", [(3, 5)]),
    ("ijk,jl,kl->il", [(2, 3, 4), (3, 5), (4, 5)]),
    ("ij,ij,ij->i", [(3, 4), (3, 4), (3, 4)]),
    ("...ij,...jk->...ik", [(5, 2, 3), (3, 4)]),
    ("...ij,...jk", [(2, 1, 2, 3), (4, 3, 2)]),
    ("ij...,jk...->ik...", [(2, 3, 5), (3, 4, 1)]),
    ("...i->...", [(2, 3, 4)]),
    ("Ba,ab", [(2, 3), (3, 4)]),
    ("i j , j k -> i k", [(2, 3), (3, 2)]),
    ("ij,jk->ik", [(2, 1), (3, 4)]),
    ("ij,jk->ik", [(2, 3), (1, 4)]),
    ("i->", [(0,)]),
    ("ij,jk->ik", [(2, 0), (0, 3)]),
    (",i->i", [(), (3,)]),
]


def _einsum(p: TupleProgram) -> None:
    for k, (subs, shapes) in enumerate(EINSUM):
        for dt in ((np.float64, np.int32) if k % 3 == 0 else (np.float64,)):
            ops = [general(s, dt, k + i) for i, s in enumerate(shapes)]
            p.tcase(f"einsum_{k}_{_tag(dt)}", "numpy.einsum", Const(subs), *ops)
    for dt in DT:
        a, b = general((3, 4), dt, 1), general((4, 2), dt, 2)
        p.tcase(f"einsum_mm_{_tag(dt)}", "numpy.einsum", Const("ij,jk->ik"), a, b, within=1e-5)
        p.tcase(f"einsum_tr_{_tag(dt)}", "numpy.einsum", Const("ii"), general((4, 4), dt, 3), within=1e-5)
    p.tcase("einsum_mixed", "numpy.einsum", Const("i,i->i"), general((3,), np.float32), general((3,), np.int64))
    p.tcase("einsum_opt", "numpy.einsum", Const("ij,jk"), general((3, 4), np.float64), general((4, 2), np.float64),
            optimize=Const(True))
    p.tcase("einsum_view", "numpy.einsum", Const("ij,jk->ik"), View(general((6, 8), np.float64), transpose=True),
            View(general((6, 8), np.float64, 2), (slice(None), slice(None, None, 2))))
    p.tcase("einsum_view_diag", "numpy.einsum", Const("ii->i"),
            View(general((6, 6), np.float64), (slice(None, None, -1), slice(None, None, -1))))
    # errors: bad shapes (same type as NumPy), bad subscripts (NumPy's own message at compile time)
    p.tcase("einsum_diag_mismatch", "numpy.einsum", Const("ii"), np.ones((2, 3)))
    p.tcase("einsum_out_twice", "numpy.einsum", Const("ij,jk->ikk"), np.ones((2, 3)), np.ones((3, 4)))
    p.tcase("einsum_out_unknown", "numpy.einsum", Const("ij,jk->iz"), np.ones((2, 3)), np.ones((3, 4)))
    p.tcase("einsum_too_many", "numpy.einsum", Const("ijk"), np.ones((2, 3)))
    p.tcase("einsum_operands", "numpy.einsum", Const("ij,jk"), np.ones((2, 3)))


def _broadcast_error(p: TupleProgram) -> None:
    # NumPy's message spells the remapped shapes of its iterator; the type matches
    p.tcase("einsum_bcast_err", "numpy.einsum", Const("ij,jk"), np.ones((2, 3)), np.ones((2, 4)),
            ref=lambda s, a, b: _type_only(s, a, b))


def _type_only(*args):
    try:
        return np.einsum(*args)
    except ValueError:
        raise ValueError("operands could not be broadcast together with remapped shapes: label 'j' has sizes 3 and 2") from None


def test_tensor_cpp(tmp_path):
    p = TupleProgram("tensor")
    _kron(p)
    _tensordot(p)
    _einsum(p)
    _broadcast_error(p)
    run_tuple_program(p, tmp_path)

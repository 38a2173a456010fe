"""Rearranging operators (arrange.hpp: tile, repeat, roll, rot90, fliplr/flipud,
moveaxis, swapaxes, atleast_Nd, broadcast_to, resize) compiled with g++ and
compared with NumPy: values, dtype, shape, view-or-copy and exceptions.

All results are exact (pure data movement), so every dtype compares bit for bit.
"""
from __future__ import annotations

import numpy as np

from tests.variants._harness import Const, Program, View, run_and_check, sample

DTS = (np.bool_, np.uint8, np.int32, np.int64, np.float32, np.float64, np.complex128)


def _inputs() -> dict[str, object]:
    base = sample((6, 8), np.float32)
    return {
        "c": sample((3, 4), np.int32),
        "rows": View(base, (slice(None, None, 2), slice(None))),  # (3, 8), strided rows
        "cols": View(base, (slice(None), slice(1, None, 3))),  # (6, 3), strided columns
        "T": View(sample((5, 7), np.float64), transpose=True),  # (7, 5)
        "neg": View(base, (slice(None, None, -1), slice(None, None, -2))),  # negative strides
        "e": np.ones((0, 4), np.int8),
        "one": sample((1, 1), np.complex128),
    }


def _tile_repeat(p: Program, views: dict[str, object]) -> None:
    for tag, v in views.items():
        for reps in (2, 1, 0, (2, 3), (2, 1, 2), (3,)):
            p.case(f"tile_{tag}_{reps}", "numpy.tile", v, Const(reps))
        p.case(f"tile_rt_{tag}", "numpy.tile", v, (2, 2))  # run-time reps
        for rep in (2, 0, 3):
            p.case(f"repeat_{tag}_{rep}", "numpy.repeat", v, rep)
            for ax in (0, 1, -1):
                p.case(f"repeat_{tag}_{rep}_ax{ax}", "numpy.repeat", v, rep, axis=Const(ax))
        p.case(f"mrepeat_{tag}", "ndarray.repeat", v, 2, Const(0))
    for dt in DTS:
        n = np.dtype(dt).name
        x = sample((4,), dt)
        p.case(f"tile_1d_{n}", "numpy.tile", x, Const((2, 2)))
        p.case(f"repeat_1d_{n}", "numpy.repeat", x, np.array([1, 0, 3, 2]))
        p.case(f"repeat_2d_{n}", "numpy.repeat", sample((2, 3), dt), (2, 0, 1), axis=Const(1))
    m = sample((3, 5), np.int64)
    p.case("tile_0d", "numpy.tile", np.full((), 7, np.int16), Const((2, 3)))
    p.case("tile_scalar", "numpy.tile", 2.5, Const(3))
    p.case("tile_np_scalar", "numpy.tile", np.float32(1.5), Const((2, 2)))
    p.case("tile_neg", "numpy.tile", m, Const(-1))
    p.case("tile_neg_rt", "numpy.tile", m, (2, -1))
    p.case("tile_empty_neg", "numpy.tile", np.ones((0,)), Const(-1))
    p.case("tile_empty_neg2", "numpy.tile", np.ones((0, 3)), Const((1, -1)))
    p.case("repeat_counts_ax0", "numpy.repeat", m, np.array([3, 0, 1], np.int8), axis=Const(0))
    p.case("repeat_counts_u8", "numpy.repeat", m, np.array([1, 2, 0, 1, 1], np.uint8), axis=Const(1))
    p.case("repeat_counts_one", "numpy.repeat", m, np.array([2]), axis=Const(1))
    p.case("repeat_counts_list", "numpy.repeat", m, [1, 2, 3], axis=Const(0))
    p.case("repeat_flat_counts", "numpy.repeat", sample((2, 2), np.float64), np.array([1, 2, 3, 0]))
    p.case("repeat_0d_counts", "numpy.repeat", m, np.array(2), axis=Const(0))
    p.case("repeat_scalar", "numpy.repeat", 3, 4)
    p.case("repeat_bool_count", "numpy.repeat", m, True)
    p.case("repeat_bad_len", "numpy.repeat", m, (1, 2), axis=Const(0))
    p.case("repeat_bad_flat", "numpy.repeat", m, (1, 2))
    p.case("repeat_empty_counts", "numpy.repeat", np.ones((0, 3)), np.array([], np.int64), axis=Const(0))
    p.case("repeat_neg", "numpy.repeat", m, -1)
    p.case("repeat_neg_one", "numpy.repeat", m, np.array([-1]), axis=Const(0))
    p.case("repeat_neg_counts", "numpy.repeat", m, (1, -2, 1), axis=Const(0))
    p.case("repeat_bad_axis", "numpy.repeat", m, 2, axis=Const(2))
    p.case("repeat_u64_counts", "numpy.repeat", m, np.array([1, 2, 3], np.uint64), axis=Const(0))
    p.case("repeat_2d_counts", "numpy.repeat", m, np.ones((1, 1), np.int64), axis=Const(0))


def _roll_rot(p: Program, views: dict[str, object]) -> None:
    for tag, v in views.items():
        for sh in (1, -7, 0, 13):
            p.case(f"roll_{tag}_{sh}", "numpy.roll", v, sh)
            p.case(f"roll_{tag}_{sh}_ax0", "numpy.roll", v, sh, axis=Const(0))
            p.case(f"roll_{tag}_{sh}_axm1", "numpy.roll", v, sh, Const(-1))
        p.case(f"roll_{tag}_pair", "numpy.roll", v, (1, -2), axis=Const((0, 1)))
        p.case(f"roll_{tag}_both", "numpy.roll", v, 3, axis=Const((0, 1)))
        for k in (0, 1, 2, 3, 4, -1, 7):
            p.case(f"rot90_{tag}_{k}", "numpy.rot90", v, k)
            p.case(f"rot90_{tag}_{k}_10", "numpy.rot90", v, k, axes=Const((1, 0)))
        p.case(f"rot90_{tag}_default", "numpy.rot90", v)
        p.case(f"fliplr_{tag}", "numpy.fliplr", v)
        p.case(f"flipud_{tag}", "numpy.flipud", v)
    c3 = sample((2, 3, 5), np.uint8)
    p.case("roll_3d_tuple", "numpy.roll", c3, (1, 2, -1), axis=Const((0, 2, 2)))
    p.case("roll_3d_dup", "numpy.roll", c3, 2, axis=Const((1, 1)))
    p.case("roll_flat_tuple", "numpy.roll", c3, (1, 5))
    p.case("roll_bad_pairs", "numpy.roll", c3, (1, 2), axis=Const((0, 1, 2)))
    p.case("roll_bad_axis", "numpy.roll", c3, 1, axis=Const(3))
    p.case("roll_0d", "numpy.roll", np.full((), 3.5), 2)
    p.case("roll_1d_prime", "numpy.roll", sample((13,), np.complex64), 5)
    p.case("roll_bool", "numpy.roll", sample((7,), np.bool_), -3, axis=Const(0))
    p.case("rot90_3d", "numpy.rot90", c3, 1, axes=Const((0, 2)))
    p.case("rot90_3d_neg", "numpy.rot90", c3, 3, axes=Const((-1, 1)))
    p.case("rot90_1d", "numpy.rot90", np.ones(3))
    p.case("rot90_same", "numpy.rot90", c3, 1, Const((1, 1)))
    p.case("rot90_wrap_same", "numpy.rot90", c3, 1, Const((0, -3)))
    p.case("rot90_range", "numpy.rot90", c3, 1, Const((0, 3)))
    p.case("rot90_len", "numpy.rot90", c3, 1, Const((0,)))
    p.case("fliplr_1d", "numpy.fliplr", np.ones(3))
    p.case("flipud_0d", "numpy.flipud", np.ones(()))
    p.case("flipud_1d", "numpy.flipud", sample((5,), np.int16))
    p.case("fliplr_3d", "numpy.fliplr", c3)


def _axes_views(p: Program, views: dict[str, object]) -> None:
    c4 = sample((2, 3, 4, 5), np.float64)
    for src, dst in ((0, -1), (-1, 0), (1, 2), ((0, 1), (2, 3)), ((0, 3), (3, 0)), ((), ())):
        p.case(f"moveaxis_{src}_{dst}", "numpy.moveaxis", c4, Const(src), Const(dst))
    p.case("moveaxis_bad", "numpy.moveaxis", c4, Const(4), Const(0))
    p.case("moveaxis_bad_dst", "numpy.moveaxis", c4, Const(0), Const(-5))
    p.case("moveaxis_len", "numpy.moveaxis", c4, Const((0, 1)), Const(0))
    p.case("moveaxis_rep", "numpy.moveaxis", c4, Const((0, 0)), Const((1, 2)))
    for i, j in ((0, 1), (1, 0), (0, 0), (-1, 0), (2, 3)):
        p.case(f"swapaxes_{i}_{j}", "numpy.swapaxes", c4, Const(i), Const(j))
        p.case(f"mswapaxes_{i}_{j}", "ndarray.swapaxes", c4, Const(i), Const(j))
    p.case("swapaxes_bad", "numpy.swapaxes", c4, Const(4), Const(0))
    p.case("swapaxes_bad2", "numpy.swapaxes", c4, Const(0), Const(-5))
    for tag, v in views.items():
        p.case(f"swapaxes_{tag}", "numpy.swapaxes", v, Const(0), Const(1))
        p.case(f"moveaxis_{tag}", "numpy.moveaxis", v, Const(0), Const(-1))
    for n in (1, 2, 3):
        key = f"numpy.atleast_{n}d"
        for shape in ((), (3,), (2, 3), (2, 1, 3), (1, 2, 1, 2)):
            p.case(f"atleast{n}_{len(shape)}", key, sample(shape, np.int16))
        p.case(f"atleast{n}_py", key, 2.5)
        p.case(f"atleast{n}_pyint", key, 7)
        p.case(f"atleast{n}_npy", key, np.uint8(3))
        p.case(f"atleast{n}_view", key, views["neg"])
        p.case(f"atleast{n}_col", key, View(sample((4, 5), np.float32), (slice(None), 2)))
        p.case(f"atleast{n}_empty", key, np.ones((0,), np.bool_))


def _broadcast_resize(p: Program, views: dict[str, object]) -> None:
    x3 = sample((3,), np.float64)
    col = sample((3, 1), np.int8)
    for shape in ((3,), (2, 3), (4, 1, 3), (0, 3)):
        p.case(f"bto_row_{len(shape)}_{shape[0]}", "numpy.broadcast_to", x3, Const(shape))
    p.case("bto_rt", "numpy.broadcast_to", x3, (2, 3))
    p.case("bto_int", "numpy.broadcast_to", x3, 3)
    p.case("bto_col", "numpy.broadcast_to", col, Const((3, 4)))
    p.case("bto_col3", "numpy.broadcast_to", col, Const((2, 3, 0)))
    p.case("bto_0d", "numpy.broadcast_to", np.full((), 2 + 1j), Const((2, 2)))
    p.case("bto_0d_0d", "numpy.broadcast_to", np.full((), 2.0), Const(()))
    p.case("bto_scalar", "numpy.broadcast_to", 5, Const((3,)))
    p.case("bto_view", "numpy.broadcast_to", views["cols"], Const((2, 6, 3)))
    p.case("bto_T", "numpy.broadcast_to", views["T"], Const((1, 7, 5)))
    p.case("bto_bad", "numpy.broadcast_to", x3, Const((4,)))
    p.case("bto_bad2", "numpy.broadcast_to", col, Const((2, 4)))
    p.case("bto_bad_rt", "numpy.broadcast_to", sample((2, 3), np.uint8), (4, 3))
    p.case("bto_neg", "numpy.broadcast_to", x3, (-1, 3))
    p.case("bto_fewer", "numpy.broadcast_to", col, Const((3,)))
    p.case("bto_scalar_shape", "numpy.broadcast_to", x3, Const(()))
    for tag, v in views.items():
        for shape in (7, (2, 3), (4, 5, 1), 0, (2, 0)):
            p.case(f"resize_{tag}_{shape}", "numpy.resize", v, Const(shape))
    p.case("resize_rt", "numpy.resize", sample((5,), np.uint8), (3, 4))
    p.case("resize_neg", "numpy.resize", sample((5,), np.uint8), (3, -4))
    p.case("resize_scalar", "numpy.resize", 1.5, Const(3))
    p.case("resize_list", "numpy.resize", [1, 2, 3], Const((2, 2)))


def _program() -> Program:
    p = Program("arrange")
    views = _inputs()
    _tile_repeat(p, views)
    _roll_rot(p, views)
    _axes_views(p, views)
    _broadcast_resize(p, views)
    return p


def test_arrange_against_numpy(tmp_path):
    run_and_check(_program(), tmp_path)

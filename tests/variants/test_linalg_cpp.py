"""Linear algebra lowered to C++ (linalg.hpp), compiled with g++ and compared with NumPy."""
from __future__ import annotations

import math

import numpy as np

from tests.variants._harness import Const, Program, View, run_and_check, sample


def _program() -> Program:
    p = Program("linalg")
    dims = {"n": 3, "k": 5, "m": 4}
    pairs = [(np.float64, np.float64), (np.float32, np.float32), (np.int32, np.int32), (np.int8, np.float32),
             (np.bool_, np.bool_), (np.complex64, np.complex128), (np.uint8, np.uint8), (np.int64, np.bool_)]
    for da, db in pairs:
        tag = f"{np.dtype(da).name}_{np.dtype(db).name}"
        n, k, m = dims["n"], dims["k"], dims["m"]
        A = {1: sample((k,), da, 1), 2: sample((n, k), da, 2), 3: sample((2, n, k), da, 3)}
        B = {1: sample((k,), db, 4), 2: sample((k, m), db, 5), 3: sample((2, k, m), db, 6)}
        for na in (1, 2, 3):
            for nb in (1, 2, 3):
                p.case(f"matmul_{tag}_{na}{nb}", "operator.matmul", A[na], B[nb])
                if na <= 2 and nb <= 2:
                    p.case(f"dot_{tag}_{na}{nb}", "numpy.dot", A[na], B[nb])
                    p.case(f"mdot_{tag}_{na}{nb}", "ndarray.dot", A[na], B[nb])
        p.case(f"npmatmul_{tag}", "numpy.matmul", A[2], B[2])
        p.case(f"inner_{tag}_11", "numpy.inner", A[1], B[1])
        p.case(f"inner_{tag}_21", "numpy.inner", A[2], B[1])
        p.case(f"inner_{tag}_22", "numpy.inner", A[2], sample((m, k), db, 7))
        p.case(f"inner_{tag}_12", "numpy.inner", A[1], sample((m, k), db, 7))
        p.case(f"outer_{tag}", "numpy.outer", A[1], B[2])
        p.case(f"vdot_{tag}", "numpy.vdot", A[2], sample((n * k,), db, 8))
    # shape errors with NumPy's messages
    p.case("matmul_bad_21", "operator.matmul", np.ones((2, 3)), np.ones(4))
    p.case("matmul_bad_12", "operator.matmul", np.ones(3), np.ones((4, 5)))
    p.case("matmul_bad_11", "numpy.matmul", np.ones(3), np.ones(4))
    p.case("matmul_bad_22", "operator.matmul", np.ones((2, 3)), np.ones((4, 3)))
    p.case("dot_bad_21", "numpy.dot", np.ones((2, 3)), np.ones(4))
    p.case("dot_bad_22", "numpy.dot", np.ones((2, 3)), np.ones((4, 5)))
    p.case("dot_bad_11", "numpy.dot", np.ones(3), np.ones(4))
    p.case("dot_bad_12", "numpy.dot", np.ones(3), np.ones((4, 5)))
    p.case("inner_bad", "numpy.inner", np.ones((2, 3)), np.ones((5, 4)))
    # empty and size-1
    p.case("matmul_empty_k", "operator.matmul", np.ones((3, 0)), np.ones((0, 2)))
    p.case("matmul_empty_n", "operator.matmul", np.ones((0, 4)), np.ones((4, 2)))
    p.case("dot_empty", "numpy.dot", np.ones(0), np.ones(0))
    p.case("matmul_11", "operator.matmul", np.full((1, 1), 3.0), np.full((1, 1), 2.0))
    # non-contiguous operands
    base = sample((8, 10), np.float64)
    sub = View(base, (slice(None, None, 2), slice(1, None, 2)))  # (4, 5)
    tr = View(base, transpose=True)  # (10, 8)
    col = View(base, (slice(None), 3))  # (8,)
    p.case("matmul_views", "operator.matmul", sub, View(base, (slice(None, 5), slice(None, None, -3))))
    p.case("matmul_T", "operator.matmul", tr, sample((8, 3), np.float64))
    p.case("dot_col", "numpy.dot", col, View(base, (slice(None), slice(None, None, -1))))
    p.case("dot_11_strided", "numpy.dot", col, View(base, (slice(None), 0)))
    p.case("batched_bcast", "operator.matmul", sample((3, 1, 2, 4), np.float32), sample((5, 4, 2), np.float32))
    p.case("batched_bad", "operator.matmul", sample((3, 2, 4), np.float32), sample((5, 4, 2), np.float32))
    # bigger than a block (cache blocking)
    big_a = sample((37, 300), np.float64, 3)
    big_b = sample((300, 1100), np.float64, 4)
    p.case("matmul_blocked", "operator.matmul", big_a, big_b)
    p.case("matmul_blocked_int", "operator.matmul", big_a.astype(np.int32), big_b.astype(np.int32))
    p.case("imatmul", "operator.imatmul", sample((3, 3), np.float32), sample((3, 3), np.float32))
    # trace
    for dt in (np.int8, np.uint32, np.float32, np.complex64, np.bool_):
        a = sample((4, 5), dt)
        for off in (0, 1, -2, 4, 7, -6):
            p.case(f"trace_{np.dtype(dt).name}_{off}".replace("-", "m"), "numpy.trace", a, off)
        p.case(f"mtrace_{np.dtype(dt).name}", "ndarray.trace", a)
    p.case("trace_view", "numpy.trace", tr)
    # norms
    for dt in (np.int8, np.float32, np.float64, np.complex64, np.bool_):
        for shape in ((7,), (3, 4), (2, 3, 2), (0,), (0, 3)):
            x = sample(shape, dt, 2)
            tag = f"{np.dtype(dt).name}_{'x'.join(map(str, shape))}"
            p.case(f"norm_{tag}", "numpy.linalg.norm", x)
            p.case(f"norm_{tag}_k", "numpy.linalg.norm", x, keepdims=Const(True))
            for ax in range(len(shape)):
                for o in (None, 1, 2, math.inf, -math.inf, 0, 3):
                    p.case(f"norm_{tag}_{ax}_{o}", "numpy.linalg.norm", x, Const(o), Const(ax))
                p.case(f"norm_{tag}_{ax}_k", "numpy.linalg.norm", x, axis=Const(ax), keepdims=Const(True))
            if len(shape) == 1:
                for o in (1, 2, math.inf, -math.inf, 0, 0.5):
                    p.case(f"norm_{tag}_v{o}", "numpy.linalg.norm", x, Const(o))
            if len(shape) == 2:
                for o in (None, "fro", 1, -1, math.inf, -math.inf):
                    p.case(f"norm_{tag}_m{o}", "numpy.linalg.norm", x, Const(o))
                    p.case(f"norm_{tag}_m{o}_T", "numpy.linalg.norm", x, Const(o), Const((1, 0)))
                    p.case(f"norm_{tag}_m{o}_k", "numpy.linalg.norm", x, ord=Const(o), keepdims=Const(True))
    p.case("norm_view", "numpy.linalg.norm", sub)
    p.case("norm_view_ax", "numpy.linalg.norm", sub, axis=Const(0))
    return p


def test_linalg_against_numpy(tmp_path):
    run_and_check(_program(), tmp_path)

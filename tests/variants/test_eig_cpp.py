"""np.linalg.eig / eigvals lowered to C++ (ops/decomp/eig.hpp) and compared with
NumPy: the same multiset of eigenvalues (matched to 1e-9 relative for double,
1e-4 for single precision, eigenvalue order is unspecified), A v = v w and unit
eigenvectors. Results are always complex (see docs/semantics.md)."""
from __future__ import annotations

from typing import Any

import numpy as np

from tests.variants._decomp_data import general, hermitian
from tests.variants._harness import View
from tests.variants._tuple_cases import TupleProgram, close, run_tuple_program


def _match(got: np.ndarray, want: np.ndarray, tol: float) -> None:
    """Every expected eigenvalue has its own computed one nearby (greedy matching per matrix)."""
    if got.size == 0:
        assert np.asarray(want).size == 0
        return
    got = got.reshape(-1, got.shape[-1])
    want = np.asarray(want).reshape(got.shape)
    for g, w in zip(got, want):
        left = list(g)
        scale = max(1.0, float(np.max(np.abs(w)))) if w.size else 1.0
        for x in w:
            k = int(np.argmin([abs(x - y) for y in left]))
            assert abs(x - left[k]) <= tol * scale, f"eigenvalue {x} not found in {g}"
            left.pop(k)


def eig_check(tol: float):
    def chk(got: list[Any], want: Any, inputs: list[Any]) -> None:
        a = inputs[0].astype(np.complex128)
        if isinstance(want, tuple):
            w, v = got
            _match(w, want[0], tol)
            close(a @ v, v * w[..., None, :], tol * 10, "A v == v w")
            close(np.linalg.norm(v, axis=-2), np.ones(v.shape[:-2] + v.shape[-1:]), tol, "unit vectors")
        else:
            _match(got[0], want, tol)

    return chk


def _as_complex(fn):
    """NumPy's result made complex: compiled eig/eigvals are always complex (documented deviation)."""
    def ref(a):
        r = fn(a)
        c = np.complex64 if np.asarray(a).dtype in (np.float32, np.complex64) else np.complex128
        return tuple(np.asarray(x).astype(c) for x in r) if isinstance(r, tuple) else np.asarray(r).astype(c)

    return ref


EIG, EIGVALS = _as_complex(np.linalg.eig), _as_complex(np.linalg.eigvals)


def _t(p: TupleProgram, name: str, key: str, *args: Any, **kw: Any) -> None:
    p.tcase(name, key, *args, ref=EIG if key.endswith("eig") else EIGVALS, **kw)


def test_eig_cpp(tmp_path):
    p = TupleProgram("eig")
    for dt in (np.float64, np.float32, np.int64, np.complex128, np.complex64):
        tol = 1e-4 if np.dtype(dt) in (np.float32, np.complex64) else 1e-9
        for n in (1, 2, 3, 5, 8):
            a = general((n, n), dt, n)
            tag = f"{np.dtype(dt).name}_{n}"
            _t(p, f"eig_{tag}", "numpy.linalg.eig", a, check=eig_check(tol))
            _t(p, f"eigvals_{tag}", "numpy.linalg.eigvals", a, check=eig_check(tol))
    rot = np.array([[0.0, -1.0], [1.0, 0.0]])  # eigenvalues +-i from a real matrix
    _t(p, "eig_rotation", "numpy.linalg.eig", rot, check=eig_check(1e-12))
    _t(p, "eig_sym", "numpy.linalg.eig", hermitian(6, np.float64, 2), check=eig_check(1e-9))
    _t(p, "eig_triangular", "numpy.linalg.eig", np.triu(general((5, 5), np.float64, 1)), check=eig_check(1e-9))
    _t(p, "eig_diag_repeated", "numpy.linalg.eig", np.diag([2.0, 2.0, 1.0]), check=eig_check(1e-12))
    _t(p, "eig_companion", "numpy.linalg.eigvals", np.array([[0.0, 0, 6], [1, 0, -11], [0, 1, 6]]),
            check=eig_check(1e-9))
    _t(p, "eig_stack", "numpy.linalg.eig", general((2, 3, 4, 4), np.float64, 3), check=eig_check(1e-9))
    _t(p, "eig_view", "numpy.linalg.eig", View(general((8, 8), np.float64, 4), (slice(None, None, 2), slice(1, None, 2))),
            check=eig_check(1e-9))
    _t(p, "eig_zero", "numpy.linalg.eig", np.zeros((3, 3)), check=eig_check(1e-12))
    _t(p, "eig_empty", "numpy.linalg.eigvals", np.ones((0, 0)), check=eig_check(1e-12))
    _t(p, "eig_nonsquare", "numpy.linalg.eig", np.ones((2, 3)))
    _t(p, "eig_1d", "numpy.linalg.eigvals", np.ones(3))
    run_tuple_program(p, tmp_path)

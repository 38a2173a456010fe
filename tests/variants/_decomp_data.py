"""Matrices and invariant checks shared by the numpy.linalg decomposition tests."""
from __future__ import annotations

from typing import Any

import numpy as np

from tests.variants._tuple_cases import Checker, close, tol_for


def rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def general(shape: tuple[int, ...], dtype: Any, seed: int = 0) -> np.ndarray:
    """Random entries; integers in [-4, 4]; complex with random imaginary parts."""
    g = rng(seed)
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        x = g.integers(0 if dt.kind == "u" else -4, 5, size=shape)
    elif dt.kind == "b":
        x = g.integers(0, 2, size=shape)
    else:
        x = g.standard_normal(shape)
        if dt.kind == "c":
            x = x + 1j * g.standard_normal(shape)
    return np.asarray(x).astype(dt)


def wellcond(n: int, dtype: Any, seed: int = 0, batch: tuple[int, ...] = ()) -> np.ndarray:
    """Square and diagonally dominant: well conditioned, never singular."""
    a = general((*batch, n, n), dtype, seed)
    dt = np.dtype(dtype)
    boost = (3 * n + 4) * np.eye(n, dtype=np.int64)
    if dt.kind == "b":
        return (a.astype(np.int64) + np.eye(n, dtype=np.int64) > 0)
    return (a + boost.astype(dt)).astype(dt)


def hermitian(n: int, dtype: Any, seed: int = 0, batch: tuple[int, ...] = ()) -> np.ndarray:
    a = general((*batch, n, n), dtype, seed)
    if np.dtype(dtype).kind in "iu":
        return a + np.swapaxes(a, -1, -2)
    return ((a + np.conj(np.swapaxes(a, -1, -2))) / 2).astype(dtype)


def spd(n: int, dtype: Any, seed: int = 0, batch: tuple[int, ...] = ()) -> np.ndarray:
    a = general((*batch, n, n), dtype, seed)
    if np.dtype(dtype).kind in "iu":
        return a @ np.swapaxes(a, -1, -2) + n * np.eye(n, dtype=a.dtype)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype)


def _eye_like(x: np.ndarray, n: int) -> np.ndarray:
    return np.broadcast_to(np.eye(n), x.shape[:-2] + (n, n))


def _h(x: np.ndarray) -> np.ndarray:
    return np.conj(np.swapaxes(x, -1, -2))


def _work(a: np.ndarray) -> np.ndarray:
    return a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)


def qr_check(dtype: Any) -> Checker:
    tol = tol_for(dtype) * 10

    def chk(got: list[Any], want: Any, inputs: list[Any]) -> None:
        a = _work(inputs[0])
        q, r = got
        close(q @ r, a, tol, "Q @ R == A")
        close(_h(q) @ q, _eye_like(q, q.shape[-1]), tol, "Q^H Q == I")
        close(r, np.triu(r), tol, "R upper triangular")
        rw = want[1]
        # R agrees with NumPy's up to a unit phase per row
        for idx in np.ndindex(r.shape[:-2]):
            for i in range(min(r.shape[-2], r.shape[-1])):
                d, e = r[idx][i, i], rw[idx][i, i]
                ph = e / d if abs(d) > 1e-30 else 1.0
                ph = ph / abs(ph) if abs(ph) > 0 else 1.0
                close(r[idx][i] * ph, rw[idx][i], tol, f"R row {i}")

    return chk


def svd_check(dtype: Any) -> Checker:
    tol = tol_for(dtype) * 10

    def chk(got: list[Any], want: Any, inputs: list[Any]) -> None:
        a = _work(inputs[0])
        u, s, vh = got
        close(s, want[1], tol, "singular values")
        k = s.shape[-1]
        close((u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :], a, tol, "U S Vh == A")
        close(_h(u) @ u, _eye_like(u, u.shape[-1]), tol, "U^H U == I")
        close(vh @ _h(vh), _eye_like(vh, vh.shape[-2]), tol, "Vh Vh^H == I")

    return chk


def eigh_check(dtype: Any, uplo: str = "L") -> Checker:
    tol = tol_for(dtype) * 10

    def chk(got: list[Any], want: Any, inputs: list[Any]) -> None:
        a = _work(inputs[0])
        tri = np.tril(a) if uplo == "L" else np.triu(a)
        diag = np.real(np.diagonal(a, axis1=-2, axis2=-1))
        h = tri + _h(tri) - np.einsum("...i,ij->...ij", np.diagonal(tri, axis1=-2, axis2=-1), np.eye(a.shape[-1]))
        h = h - np.einsum("...i,ij->...ij", np.diagonal(h, axis1=-2, axis2=-1) - diag, np.eye(a.shape[-1]))
        w, v = got
        close(w, want[0], tol, "eigenvalues")
        close(h @ v, v * w[..., None, :], tol, "A v == v w")
        close(_h(v) @ v, _eye_like(v, v.shape[-1]), tol, "V^H V == I")

    return chk

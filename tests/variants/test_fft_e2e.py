"""numpy.fft and the tensor products (kron, tensordot, einsum) through
everypath.compile, against the same Python function."""
from __future__ import annotations

import numpy as np
import pytest

import everypath
from tests.variants._decomp_data import general
from tests.variants._harness import same_as_python

F1 = np.ndarray[tuple[int], np.dtype[np.float64]]
F2 = np.ndarray[tuple[int, int], np.dtype[np.float64]]
S1 = np.ndarray[tuple[int], np.dtype[np.float32]]
C2 = np.ndarray[tuple[int, int], np.dtype[np.complex128]]
I2 = np.ndarray[tuple[int, int], np.dtype[np.int64]]


@everypath.compile
def spectrum(x: F1, n: int):
    X = np.fft.fft(x)
    return (X, np.fft.ifft(X), np.fft.rfft(x), np.fft.irfft(np.fft.rfft(x), len(x)), np.fft.fft(x, n),
            np.fft.fft(x, norm="ortho"), np.fft.ifft(X, norm="forward"), np.fft.fftfreq(len(x), 0.5),
            np.fft.rfftfreq(len(x)), np.fft.fftshift(x), np.fft.ifftshift(np.fft.fftshift(x)))


@everypath.compile
def single(x: S1):
    return np.fft.fft(x), np.fft.rfft(x), np.fft.irfft(np.fft.rfft(x))


@everypath.compile
def planes(a: C2, r: F2):
    return (np.fft.fft2(a), np.fft.ifft2(a), np.fft.fftn(a, axes=(0,)), np.fft.rfft2(r), np.fft.irfft2(a),
            np.fft.rfftn(r, s=(4, 6), axes=(0, 1)), np.fft.irfftn(a, axes=(0, 1)), np.fft.fft(a, axis=0),
            np.fft.fftshift(r, axes=(1,)))


@everypath.compile
def bad_length(x: F1, n: int):
    return np.fft.fft(x, n)


@everypath.compile
def products(a: F2, b: F2, m: I2):
    return (np.kron(a, b), np.tensordot(a, b, axes=1), np.tensordot(a, b, axes=((0, 1), (1, 0))),
            np.einsum("ij,jk->ik", a, b), np.einsum("ii", a), np.einsum("ij->ji", a), np.einsum("ij,ij->i", a, b.T),
            np.einsum("ij,jk", m, m), np.kron(m, m))


@pytest.mark.parametrize("n", [1, 2, 7, 12, 13, 97, 256, 1009])
def test_spectrum(n):
    x = general((n,), np.float64, n)
    same_as_python(spectrum, x, n + 3, rtol=1e-12 * max(n, 16))
    same_as_python(single, x.astype(np.float32), rtol=1e-5)


def test_planes():
    a = general((6, 5), np.complex128, 2)
    same_as_python(planes, a, a.real.copy(), rtol=1e-11)


def test_errors():
    exc = same_as_python(bad_length, np.ones(4), 0)
    assert "Invalid number of FFT data points (0)" in str(exc)
    exc = same_as_python(bad_length, np.ones(0), -1)
    assert isinstance(exc, ValueError)


def test_products():
    a, b = general((3, 3), np.float64, 1), general((3, 3), np.float64, 2)
    same_as_python(products, a, b, general((3, 3), np.int64, 3), rtol=1e-12)

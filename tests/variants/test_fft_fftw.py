"""The fftw path of numpy.fft (FFTW 3) forced through everypath.compile
(Settings.force_path="fftw"), against NumPy (pocketfft) on the same inputs.

Covered: fft/ifft/rfft/irfft and fft2/ifft2/rfft2/irfft2/fftn/ifftn/rfftn/irfftn on
float32, float64, complex64, complex128 and int64 operands; lengths 1, 2, 12, 97,
256, 1009 and 1024; n padding and truncation; each norm; axis=0 on 2-d; strided and
reversed views (x[::2], x[::-1], a.T, a[::2, 1::3]) and broadcast ones (stride 0); s and axes of the n-d forms;
NumPy's errors for 0 points; concurrent first calls (plans made from several
threads); and, unforced, the default policy's choice at a large size.

Tolerances (docs/semantics.md, FFT): NumPy 2 computes float32/complex64 FFTs in
single precision and so does FFTW here (fftwf): both agree to 3e-6 of the largest
magnitude of the result; double precision to 1e-11.
"""
from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import numpy as np
import pytest

import everypath
from everypath.base.settings import Settings
from everypath.variants.ops.fft import FFTW_MIN_WORK
from everypath.variants.paths import host_path
from tests.variants._decomp_data import general
from tests.variants._harness import assert_same, same_as_python

pytestmark = pytest.mark.skipif(not host_path("fftw").available, reason=str(host_path("fftw").reason))

F1 = np.ndarray[tuple[int], np.dtype[np.float64]]
S1 = np.ndarray[tuple[int], np.dtype[np.float32]]
Z1 = np.ndarray[tuple[int], np.dtype[np.complex128]]
C1 = np.ndarray[tuple[int], np.dtype[np.complex64]]
I1 = np.ndarray[tuple[int], np.dtype[np.int64]]
F2 = np.ndarray[tuple[int, int], np.dtype[np.float64]]
S2 = np.ndarray[tuple[int, int], np.dtype[np.float32]]
Z2 = np.ndarray[tuple[int, int], np.dtype[np.complex128]]
C2 = np.ndarray[tuple[int, int], np.dtype[np.complex64]]
F3 = np.ndarray[tuple[int, int, int], np.dtype[np.float64]]
Z3 = np.ndarray[tuple[int, int, int], np.dtype[np.complex128]]

RTOL = 1e-11  # float32 / complex64 results: assert_same widens it to 3e-6


def line(v, n: int):
    """The 1-d transforms of one operand; n a run-time length (padding or truncation)."""
    return (np.fft.fft(v), np.fft.ifft(v), np.fft.fft(v, n), np.fft.ifft(v, n, norm="ortho"),
            np.fft.fft(v, norm="forward"), np.fft.ifft(v, norm="forward"), np.fft.fft(v, norm="ortho"),
            np.fft.irfft(v, n), np.fft.irfft(v, 2 * len(v) + 1, norm="ortho"), np.fft.fft(v[::2]),
            np.fft.ifft(v[::-1], norm="backward"))


def real_line(v, n: int):
    """rfft of a real operand."""
    return (np.fft.rfft(v), np.fft.rfft(v, n), np.fft.rfft(v, norm="ortho"), np.fft.rfft(v[::-1], norm="forward"),
            np.fft.rfft(v[1::3]), np.fft.irfft(np.fft.rfft(v), len(v), norm="forward"))


def few(v, n: int):
    """Fewer transforms for the other dtypes (a build's time grows with its call sites)."""
    return (np.fft.fft(v), np.fft.ifft(v, n, norm="ortho"), np.fft.fft(v[::-2], norm="forward"), np.fft.irfft(v, n),
            np.fft.ifft(v, norm="forward"))


def lines(x: F1, s: S1, z: Z1, c: C1, i: I1, n: int):
    """Every dtype: float64, float32, complex128, complex64, int64 (computed in float64)."""
    return (line(x, n), few(s, n), line(z, n), line(c, n), few(i, n), real_line(x, n), real_line(s, n),
            np.fft.rfft(i, n, norm="ortho"))


def plane(v):
    """Transforms along axis 0, of transposed and strided views, and the 2-d and n-d forms."""
    return (np.fft.fft(v, axis=0), np.fft.ifft(v.T), np.fft.fft(v[::2, 1::3], axis=0), np.fft.irfft(v, axis=0),
            np.fft.irfft(v.T, 5, axis=1, norm="ortho"), np.fft.fft2(v), np.fft.ifft2(v, norm="ortho"),
            np.fft.fft2(v, s=(3, 8)), np.fft.ifft2(v.T, axes=(1, 0)), np.fft.fftn(v), np.fft.ifftn(v, s=(7, 2)),
            np.fft.fftn(v, axes=(0,), norm="forward"), np.fft.irfft2(v), np.fft.irfft2(v, s=(4, 9)),
            np.fft.irfftn(v, s=(5, -1), axes=(1, 0)), np.fft.irfftn(v, axes=(0,), norm="forward"))


def few_plane(v):
    return (np.fft.fft(v, axis=0), np.fft.ifft(v.T), np.fft.irfft2(v), np.fft.ifftn(v, s=(7, 2)),
            np.fft.irfft(v.T, 5, axis=1, norm="ortho"), np.fft.fft2(v[::2, 1::3], norm="forward"))


def real_plane(v):
    return (np.fft.rfft(v, axis=0), np.fft.rfft(v.T, 6), np.fft.rfft2(v), np.fft.rfft2(v, s=(2, 5), norm="ortho"),
            np.fft.rfftn(v), np.fft.rfftn(v, s=(4,), axes=(0,)), np.fft.rfftn(v[::-1, ::2], axes=(1, 0)),
            np.fft.irfftn(np.fft.rfftn(v), axes=(0, 1)))


def volume(t, w):
    """3-d: rfftn / irfftn over chosen axes with s, fftn over all axes."""
    return (np.fft.rfftn(t), np.fft.rfftn(t, s=(3, 4), axes=(0, 2)), np.fft.irfftn(w, s=(2, 3, 6)),
            np.fft.irfftn(w, axes=(2, 0), norm="ortho"), np.fft.fftn(w), np.fft.ifftn(t, axes=(1, 2)),
            np.fft.fftn(t.transpose(2, 0, 1), s=(2, 2, 5)))


def planes(a: F2, b: S2, z: Z2, c: C2, t: F3, w: Z3):
    """Every 2-d form on each dtype, and 3-d volumes (one build)."""
    wide = np.broadcast_to(z[:, :1], z.shape)  # stride 0 along the transformed axis, read in place
    return (plane(a), few_plane(b), plane(z), few_plane(c), real_plane(a), real_plane(b), volume(t, w),
            np.fft.fft(wide), np.fft.ifft(np.broadcast_to(c[:1], c.shape), axis=0), np.fft.rfft(wide.real))


_BUILT: dict[str, object] = {}


def fftw(fn):
    """fn compiled with only the fftw path; every transform went to FFTW, none to the loops."""
    if fn.__name__ not in _BUILT:
        compiled = everypath.compile(fn, settings=replace(Settings.from_env(), force_path="fftw"))
        src = compiled.cpp_source
        assert "ep::fftw::fft_" in src and re.search(r"[^:]ep::fft_(c2c|r2c|c2r)", src) is None
        _BUILT[fn.__name__] = compiled
    return _BUILT[fn.__name__]


@pytest.mark.parametrize("m", [1, 2, 12, 97, 256, 1009, 1024])
def test_lines(m):
    x = general((m,), np.float64, m)
    z = general((m,), np.complex128, m + 1)
    i = general((m,), np.int64, m + 2)
    args = (x, x.astype(np.float32), z, z.astype(np.complex64), i)
    for n in (1, m, m + 5, 2 * m + 1, max(m // 2, 1)):  # the same, padded, truncated
        same_as_python(fftw(lines), *args, n, rtol=RTOL)


def _volumes(seed: int) -> tuple[np.ndarray, np.ndarray]:
    return general((3, 5, 4), np.float64, seed), general((4, 3, 5), np.complex128, seed + 1)


@pytest.mark.parametrize("shape", [(2, 2), (4, 6), (7, 5), (12, 97)])
def test_planes(shape):
    a = general(shape, np.float64, 3)
    z = general(shape, np.complex128, 4)
    same_as_python(fftw(planes), a, a.astype(np.float32), z, z.astype(np.complex64), *_volumes(5), rtol=RTOL)


@pytest.mark.parametrize("n", [0, -3])
def test_errors_as_numpy(n):
    # n < 1 (the first transform given n raises), an empty input, irfft's default n of a 1-element axis
    x, z = general((8,), np.float64, 7), general((5,), np.complex128, 8)
    e = np.zeros(0)
    for args in ((x, x.astype(np.float32), z, z.astype(np.complex64), x.astype(np.int64), n),
                 (e, e.astype(np.float32), e.astype(np.complex128), e.astype(np.complex64), e.astype(np.int64), 4)):
        exc = same_as_python(fftw(lines), *args)
        assert isinstance(exc, ValueError) and "Invalid number of FFT data points" in str(exc)
    a = general((1, 3), np.float64, 9)  # irfft's default n along an axis of length 1: 2 * (1 - 1) == 0 points
    exc = same_as_python(fftw(planes), a, a.astype(np.float32), a + 0j, (a + 0j).astype(np.complex64), *_volumes(1))
    assert isinstance(exc, ValueError) and "Invalid number of FFT data points (0)" in str(exc)


def test_plans_from_many_threads():
    # first calls of new lengths from several threads at once: each makes plans concurrently
    f = fftw(lines)
    sizes = [17, 64, 100, 211, 512, 1000, 4096, 33]
    jobs = [(general((m,), np.float64, m), general((m,), np.complex128, m)) for m in sizes]

    def run(j):
        x, z = j
        args = (x, x.astype(np.float32), z, z.astype(np.complex64), x.astype(np.int64), len(x) + 1)
        return f(*args), lines(*args)

    with ThreadPoolExecutor(4) as pool:
        for got, want in pool.map(run, jobs * 2):
            assert_same(got, want, RTOL)


def large(x: F1, z: Z2):
    return np.fft.fft(x), np.fft.rfft(x), np.fft.irfft(np.fft.rfft(x), len(x)), np.fft.fft2(z)


def test_default_policy_dispatches_to_fftw():
    # unforced: the loops and fftw variants are both built, chosen by size at run time
    compiled = everypath.compile(large)
    src = compiled.cpp_source
    assert "ep::fftw::fft_c2c" in src and re.search(r"[^:]ep::fft_c2c", src)
    for m in (FFTW_MIN_WORK // 2, FFTW_MIN_WORK, 1 << 14):
        same_as_python(compiled, general((m,), np.float64, m), general((8, m // 8 or 1), np.complex128, 1), rtol=RTOL)

"""Every implementation path of the element-wise and product families, forced one at
a time (Settings.force_path), against NumPy on empty, 1-element, odd, prime-sized,
strided and broadcast operands.

Tolerances: the loops and threads paths compute each element exactly as the
loops reference does; the simd path uses xsimd's transcendental functions
(<= a few ulp), so float64 results agree to 1e-13 relative and float32 to 1e-5;
BLAS products agree to rounding (1e-12 float64, 1e-4 float32 relative to the
largest magnitude), as NumPy's own BLAS results do.
"""
from __future__ import annotations

import numpy as np
import pytest

import everypath
from everypath.base.settings import Settings
from everypath.lowering.dispatch import PathPolicy
from everypath.variants.ops.elementwise import ELEMENTWISE_VARIANTS
from everypath.variants.ops.linalg import PRODUCT_VARIANTS
from everypath.variants.ops.reductions import REDUCTION_VARIANTS
from everypath.variants.paths import host_path

F2 = np.ndarray[tuple[int, int], np.dtype[np.float64]]
S2 = np.ndarray[tuple[int, int], np.dtype[np.float32]]
I2 = np.ndarray[tuple[int, int], np.dtype[np.int64]]


def expr64(x: F2, y: F2):
    return np.tanh(x * 2.0 + y) + np.where(x > 0.5, np.exp(-x), np.maximum(y, 0.3)) + x ** 2 - np.log1p(y) / 3


def expr32(x: S2, y: S2):
    return np.sqrt(np.abs(x - y)) * np.float32(1.5) + np.sin(x) * np.cos(y) - np.minimum(x, np.arctan2(y, x + 1))


def nan_minmax(x: F2, y: F2):
    return np.maximum(x, y), np.minimum(x, y), np.fmax(x, y), np.sign(x - y)


def int_expr(x: I2, y: I2):
    return (x * 3 + y) // 2, x @ y.T


def prod64(a: F2, b: F2):
    return a @ b, np.dot(a, b.sum(axis=1)), a.T @ a


def prod32(a: S2, b: S2):
    return np.matmul(a, b)


def reductions64(x: F2):
    return np.sum(x), np.max(x), np.min(x), np.mean(x), np.prod(x[:2]), np.nansum(x), np.nanmax(x), x.sum(axis=0)


def reductions32(x: S2):
    return x.sum(), x.max(), x.min(), x.mean()


def int_reductions(x: I2):
    return x.sum(), x.max(), x.min(), np.prod(x[:1])


def _paths(variants) -> list[str]:
    return [v.path for v in variants if host_path(v.path).available]


def _compiled(fn, path: str, tmp_path_factory):
    cache = tmp_path_factory.getbasetemp() / "paths-cache"
    return everypath.compile(fn, settings=Settings(cache_dir=cache, force_path=path))


SHAPES = [(0, 0), (1, 1), (7, 5), (13, 97), (64, 129)]


def _pair(rng, shape, dtype):
    x = rng.standard_normal(shape).astype(dtype)
    y = rng.random(shape).astype(dtype)
    return x, y


@pytest.mark.parametrize("path", _paths(ELEMENTWISE_VARIANTS))
def test_elementwise_paths(path, tmp_path_factory):
    rng = np.random.default_rng(7)
    c64 = _compiled(expr64, path, tmp_path_factory)
    c32 = _compiled(expr32, path, tmp_path_factory)
    cnan = _compiled(nan_minmax, path, tmp_path_factory)
    cint = _compiled(int_expr, path, tmp_path_factory)
    for shape in SHAPES:
        x, y = _pair(rng, shape, np.float64)
        np.testing.assert_allclose(c64(x, y), expr64(x, y), rtol=1e-13, atol=1e-15)
        # strided and broadcast operands
        np.testing.assert_allclose(c64(x[::2, 1:], y[::2, :-1]), expr64(x[::2, 1:], y[::2, :-1]), rtol=1e-13,
                                   atol=1e-15)
        np.testing.assert_allclose(c64(x.T, y.T), expr64(x.T, y.T), rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(c64(x, y[:1]), expr64(x, y[:1]), rtol=1e-13, atol=1e-15)
        xs, ys = _pair(rng, shape, np.float32)
        np.testing.assert_allclose(c32(xs, ys), expr32(xs, ys), rtol=1e-5, atol=1e-6)
        x[::3] = np.nan
        for got, want in zip(cnan(x, y), nan_minmax(x, y)):
            np.testing.assert_array_equal(got, want)  # NaN propagation is exact on every path
        xi = rng.integers(-50, 50, shape)
        yi = rng.integers(-50, 50, shape)
        for got, want in zip(cint(xi, yi), int_expr(xi, yi)):
            np.testing.assert_array_equal(got, want)


def test_large_arrays_use_every_path_and_agree(tmp_path_factory):
    """Above the default thresholds each path runs its parallel / vector branch."""
    rng = np.random.default_rng(3)
    x, y = _pair(rng, (1100, 1000), np.float64)
    want = expr64(x, y)
    for path in _paths(ELEMENTWISE_VARIANTS):
        got = _compiled(expr64, path, tmp_path_factory)(x, y)
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15, err_msg=path)


@pytest.mark.parametrize("path", _paths(PRODUCT_VARIANTS))
def test_product_paths(path, tmp_path_factory):
    rng = np.random.default_rng(11)
    c64 = _compiled(prod64, path, tmp_path_factory)
    c32 = _compiled(prod32, path, tmp_path_factory)
    for n, k, m in [(0, 3, 2), (1, 1, 1), (3, 0, 4), (7, 13, 5), (97, 31, 64), (130, 257, 67)]:
        a = rng.standard_normal((n, k))
        b = rng.standard_normal((k, m))
        for got, want in zip(c64(a, b), prod64(a, b)):
            scale = max(1.0, float(np.abs(want).max(initial=0)))
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * scale * max(k, n, 1))
        got = c32(a.astype(np.float32), b.astype(np.float32))
        want = prod32(a.astype(np.float32), b.astype(np.float32))
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-5 * max(k, 1) * max(1.0, float(np.abs(want).max(initial=0))))
        # transposed and strided (non-contiguous) operands
        for got, want in zip(c64(b.T, a.T), prod64(b.T, a.T)):
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * max(n, k, 1) * max(1.0, float(np.abs(want).max(initial=0))))
        got = c32(a[::2].astype(np.float32), b[:, ::3].astype(np.float32).T.copy().T)
        np.testing.assert_allclose(got, prod32(a[::2].astype(np.float32), b[:, ::3].astype(np.float32)), rtol=0,
                                   atol=1e-5 * max(k, 1) * max(1.0, float(np.abs(a).max(initial=0) * np.abs(b).max(initial=0))))


def test_policy_offers_paths_by_host():
    policy = PathPolicy.from_settings(Settings())
    offered = [v.path for v in policy.variants(PRODUCT_VARIANTS)]
    assert offered[0] == "loops"
    for v in PRODUCT_VARIANTS:
        assert (v.path in offered) == host_path(v.path).available
    forced = PathPolicy.from_settings(Settings(force_path="blas")).variants(ELEMENTWISE_VARIANTS)
    assert [v.path for v in forced] == ["loops"]  # element-wise code has no BLAS path: the reference runs


def test_blas_declines_integer_products(tmp_path_factory):
    """An integer matmul forced onto blas runs the loops GEMM (no BLAS routine), exactly."""
    c = _compiled(int_expr, "blas", tmp_path_factory)
    x = np.arange(12).reshape(3, 4)
    got = c(x, x[::-1])
    want = int_expr(x, x[::-1])
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("path", _paths(REDUCTION_VARIANTS))
def test_reduction_paths(path, tmp_path_factory):
    rng = np.random.default_rng(5)
    c64 = _compiled(reductions64, path, tmp_path_factory)
    c32 = _compiled(reductions32, path, tmp_path_factory)
    ci = _compiled(int_reductions, path, tmp_path_factory)
    for shape in [(1, 2), (7, 5), (13, 97), (64, 129), (2000, 1001)]:
        x = rng.standard_normal(shape)
        for view in (x, x[::2, 1:], x.T):
            for got, want in zip(c64(view), reductions64(view)):
                np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * view.size)
        xs = x.astype(np.float32)
        for got, want in zip(c32(xs), reductions32(xs)):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.sqrt(xs.size))
        xi = rng.integers(-1000, 1000, shape)
        for got, want in zip(ci(xi), int_reductions(xi)):
            assert got == want and type(got) is type(want)
        x[shape[0] // 2, shape[1] // 2] = np.nan  # NaN propagates through max/min/sum on every path
        for got, want in zip(c64(x), reductions64(x)):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * x.size)
    with pytest.raises(ValueError, match="zero-size array"):
        c64(np.zeros((0, 3)))

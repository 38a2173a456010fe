"""Reductions over views, compiled on every reduction path (Settings.force_path) and compared with
NumPy called on the very same view objects.

The loops kernels walk a view in its memory order, as NumPy's iterator does (ops/reduce_order.hpp),
so on the loops path every result is bit-identical to NumPy's: sums, means, var/std and nanstd of
transposed, strided, reversed and permuted views included. The simd and threads paths use the loops
kernels below their split sizes (these inputs are below them), so they are compared exactly too,
except float sums on the simd path, whose contiguous blocks regroup the pairwise sum (rtol 1e-5).
Integer, bool, max/min, argmax/argmin and all/any results are exact on every path.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import everypath
from everypath.base.settings import Settings
from everypath.variants.ops.reductions import REDUCTION_VARIANTS
from everypath.variants.paths import host_path

S2 = np.ndarray[tuple[int, int], np.dtype[np.float32]]
S3 = np.ndarray[tuple[int, int, int], np.dtype[np.float32]]
I2 = np.ndarray[tuple[int, int], np.dtype[np.int64]]
B2 = np.ndarray[tuple[int, int], np.dtype[np.bool_]]


def full32(x: S2):
    return (np.sum(x), np.mean(x), np.max(x), np.min(x), np.argmax(x), np.argmin(x), np.all(x), np.any(x),
            np.var(x), np.std(x), np.nanstd(x), x.sum())


def axis32(x: S2):
    return (np.sum(x, axis=1), np.sum(x, axis=0), np.mean(x, axis=1), np.max(x, axis=1), np.min(x, axis=0),
            np.argmax(x, axis=1), np.argmin(x, axis=0), np.all(x, axis=1), np.any(x, axis=0), np.var(x, axis=1),
            np.std(x, axis=0), np.nanstd(x, axis=1), np.sum(x, axis=1, keepdims=True))


def cube32(x: S3):
    return (np.sum(x), np.sum(x, axis=1), np.sum(x, axis=(0, 2)), np.mean(x, axis=2), np.argmax(x, axis=0),
            np.argmin(x), np.all(x, axis=0), np.var(x, axis=(1, 2)), np.nanstd(x, axis=0), np.max(x, axis=2))


def ints(x: I2):
    return (np.sum(x), np.sum(x, axis=1), np.max(x), np.max(x, axis=0), np.argmax(x), np.argmax(x, axis=1),
            np.mean(x), np.mean(x, axis=0), np.all(x), np.any(x, axis=1), np.std(x), np.nanstd(x, axis=1))


def bools(x: B2):
    return np.all(x), np.any(x), np.all(x, axis=1), np.any(x, axis=0), np.sum(x), np.argmax(x), np.argmin(x, axis=0)


def empty_ok(x: S2):
    return np.sum(x), np.all(x), np.any(x), np.sum(x, axis=0), np.all(x, axis=1), np.any(x, axis=0)


def _paths() -> list[str]:
    return [v.path for v in REDUCTION_VARIANTS if v.path in ("loops", "simd", "threads") and host_path(v.path).available]


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Any]:
    cache = tmp_path_factory.mktemp("views-cache")
    out = {}
    for path in _paths():
        for fn in (full32, axis32, cube32, ints, bools, empty_ok):
            out[(path, fn.__name__)] = everypath.compile(fn, settings=Settings(cache_dir=cache, force_path=path))
    return out


def _same(got: Any, want: Any, loose: bool, where: str) -> None:
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want)):
            _same(g, w, loose, f"{where}[{i}]")
        return
    assert type(got) is type(want), f"{where}: {type(got).__name__} != {type(want).__name__}"
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, f"{where}: {g.dtype}{g.shape} != {w.dtype}{w.shape}"
    if loose and w.dtype.kind == "f":
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5 * max(1.0, float(np.max(np.abs(np.nan_to_num(w)), initial=0))),
                                   equal_nan=True, err_msg=where)
    else:
        np.testing.assert_array_equal(g, w, err_msg=where)


def _check(c: Any, fn: Any, x: np.ndarray, path: str, what: str) -> None:
    want = fn(x)  # NumPy on the same view: its layout is what is compared
    _same(c(x), want, loose=path == "simd", where=f"{fn.__name__} {path} {what}")


def _views2(x: np.ndarray) -> dict[str, np.ndarray]:
    return {"contiguous": x, "T": x.T, "cols2": x[:, ::2], "rows_rev": x[::-1], "both_rev": x[::-2, ::-1],
            "inner": x[1:, 3:-2], "T_rev": x[:, ::-1].T}


def _floats(shape: tuple[int, ...], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 100).astype(np.float32)
    x.flat[::7] = 0.5  # ties for argmax/argmin in different C and memory orders
    if x.size > 5:
        x.flat[5] = x.flat[-3] = x.max()
    return x


@pytest.mark.parametrize("path", _paths())
@pytest.mark.parametrize("shape", [(37, 53), (300, 257), (8, 9), (6, 1000)])
def test_float_views_match_numpy(compiled, path, shape):
    x = _floats(shape, sum(shape))
    for what, v in _views2(x).items():
        _check(compiled[(path, "full32")], full32, v, path, what)
        _check(compiled[(path, "axis32")], axis32, v, path, what)


@pytest.mark.parametrize("path", _paths())
def test_nan_and_zero_views(compiled, path):
    x = _floats((41, 67), 3)
    y = x.copy()
    y[7, 3] = np.nan  # later in C order than [2, 40], earlier in x.T's memory order
    y[2, 40] = np.nan
    z = x.copy()
    z[10, 20] = 0.0  # np.all is False, decided in the middle of a block
    z[30, 0] = -0.0
    for arr in (y, z):
        for what, v in _views2(arr).items():
            _check(compiled[(path, "full32")], full32, v, path, what)
            _check(compiled[(path, "axis32")], axis32, v, path, what)


@pytest.mark.parametrize("path", _paths())
def test_permuted_3d_views(compiled, path):
    y = _floats((5, 33, 41), 9)
    views = {"T": y.T, "102": y.transpose(1, 0, 2), "201": y.transpose(2, 0, 1), "sliced": y[:, ::-1, ::2],
             "021_rev": y.transpose(0, 2, 1)[::-1], "size1": y[:1].transpose(2, 0, 1)}
    for what, v in views.items():
        _check(compiled[(path, "cube32")], cube32, v, path, what)


@pytest.mark.parametrize("path", _paths())
def test_int_and_bool_views(compiled, path):
    rng = np.random.default_rng(4)
    xi = rng.integers(-50, 50, (45, 77))
    xi[3, 60] = xi[40, 2] = 10**12  # a tie for argmax, far from the others
    for what, v in _views2(xi).items():
        _check(compiled[(path, "ints")], ints, v, path, what)
    xb = rng.random((45, 77)) < 0.97
    for what, v in _views2(xb).items():
        _check(compiled[(path, "bools")], bools, v, path, what)
        _check(compiled[(path, "bools")], bools, np.ones_like(v) if what == "contiguous" else v, path, what)


@pytest.mark.parametrize("path", _paths())
def test_empty_and_size1_axes(compiled, path):
    for shape in [(0, 5), (5, 0), (1, 1), (1, 9), (9, 1)]:
        x = _floats(shape, 1) if 0 not in shape else np.zeros(shape, np.float32)
        for what, v in {"contiguous": x, "T": x.T, "rev": x[::-1, ::-1]}.items():
            _check(compiled[(path, "empty_ok")], empty_ok, v, path, f"{shape} {what}")
            if x.size:
                _check(compiled[(path, "full32")], full32, v, path, f"{shape} {what}")
                _check(compiled[(path, "axis32")], axis32, v, path, f"{shape} {what}")
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum which has no identity"):
        compiled[(path, "full32")](np.zeros((0, 4), np.float32).T)

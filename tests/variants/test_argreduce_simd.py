"""np.argmax / np.argmin (and torch.argmax / argmin) through the one-pass block kernel
(variants/include/everypath/ops/argreduce.hpp), compiled on every reduction path (Settings.force_path)
and compared with NumPy / PyTorch called on the very same view objects.

The answer must be exact: the first position of the extreme (ties at several positions, across the
kernel's 8 KiB blocks and its 4-vector unroll), the first NaN's position when there is a NaN, -0.0 and
0.0 as equals (the first of either wins), on contiguous, strided (x[::2], x[::3], x[:, ::2]) and
reversed (x[::-1]) views, at sizes around the vector, unroll and block boundaries.
"""
from __future__ import annotations

import platform
from typing import Any

import numpy as np
import pytest

import everypath
from everypath.base.settings import Settings
from everypath.variants.ops.reductions import REDUCTION_VARIANTS
from everypath.variants.paths import host_path

F32 = np.ndarray[tuple[int], np.dtype[np.float32]]
F64 = np.ndarray[tuple[int], np.dtype[np.float64]]
I8 = np.ndarray[tuple[int], np.dtype[np.int8]]
U16 = np.ndarray[tuple[int], np.dtype[np.uint16]]
I64 = np.ndarray[tuple[int], np.dtype[np.int64]]
S2 = np.ndarray[tuple[int, int], np.dtype[np.float32]]
L2 = np.ndarray[tuple[int, int], np.dtype[np.int64]]


def flat(a: F32, b: F64, c: I8, d: U16, e: I64):
    return (np.argmax(a), np.argmin(a), np.argmax(b), np.argmin(b), np.argmax(c), np.argmin(c),
            a.argmax(), d.argmin(), np.argmax(d), np.argmin(e), e.argmax())


def grid(x: S2, y: L2):
    return (np.argmax(x), np.argmin(x), np.argmax(x, axis=1), np.argmin(x, axis=1), np.argmax(x, axis=0),
            np.argmax(y), np.argmin(y, axis=1), np.argmax(x, axis=1, keepdims=True), np.argmax(y, axis=0))


def only_argmax(a: F32):
    return np.argmax(a)


def only_argmin(e: I64):
    return np.argmin(e)


def _paths() -> list[str]:
    return [v.path for v in REDUCTION_VARIANTS if v.path in ("loops", "simd", "threads") and host_path(v.path).available]


# the kernel's vector width follows the target (argreduce.hpp, kArgVecBytes): a host build takes the
# CPU's own width; "simd@x86-64" is the SSE2 baseline's 16 bytes, which every portable target has too
BASELINE = "simd@x86-64"


def _builds() -> list[str]:
    return _paths() + ([BASELINE] if platform.machine() in ("x86_64", "AMD64") else [])


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Any]:
    cache = tmp_path_factory.mktemp("argreduce-cache")

    def settings(build: str) -> Settings:
        path, _, march = build.partition("@")
        return Settings(cache_dir=cache, force_path=path, **({"march": march} if march else {}))
    fns = {b: (flat, grid, only_argmax, only_argmin) if b != BASELINE else (flat, grid) for b in _builds()}
    return {(b, fn.__name__): everypath.compile(fn, settings=settings(b)) for b in _builds() for fn in fns[b]}


SIZES = [1, 2, 7, 15, 16, 17, 63, 64, 65, 1023, 2048, 2049, (1 << 16) + 5]


def _pattern(n: int, case: str, rng: np.random.Generator) -> np.ndarray:
    """float64 values of one case; the integer arrays are cast from it (NaN -> 0, inf -> the dtype's ends)."""
    x = rng.integers(-40, 40, n).astype(np.float64)  # few distinct values: ties everywhere
    k = [0, n // 3, n // 2, n - 1]
    if case == "ties":
        x[k] = 99.0  # the maximum at several positions, the first must win
        x[[n // 5, n - 2]] = -99.0
    elif case == "nan_first":
        x[0] = np.nan
    elif case == "nan_middle":
        x[n // 2] = np.nan
    elif case == "nan_last":
        x[-1] = np.nan
    elif case == "nan_several":
        x[k[1:]] = np.nan
        x[0] = 99.0
    elif case == "inf":
        x[k[2]] = np.inf
        x[k[1]] = -np.inf
        x[-1] = np.inf
    elif case == "all_equal":
        x[:] = 3.0
    elif case == "signed_zero":
        x[:] = -1.0
        x[n // 2:] = 0.0
        x[n // 2:: 3] = -0.0  # equal to 0.0: the first zero of either sign is argmax
        x[0] = -2.0
    elif case == "rising":
        x = np.arange(n, dtype=np.float64) % 251  # every block improves on the one before
    elif case == "falling":
        x = -np.arange(n, dtype=np.float64)
    return x


CASES = ["random", "ties", "nan_first", "nan_middle", "nan_last", "nan_several", "inf", "all_equal",
         "signed_zero", "rising", "falling"]


def _cast(x: np.ndarray, dtype: type) -> np.ndarray:
    info = np.iinfo(dtype)
    hi, lo = min(float(info.max), 2.0**62), max(float(info.min), -(2.0**62))  # int64's ends round out of range
    return np.clip(np.nan_to_num(x, nan=0.0, posinf=hi, neginf=lo), lo, hi).astype(dtype)


def _operands(x: np.ndarray) -> tuple[np.ndarray, ...]:
    return (x.astype(np.float32), x, _cast(x, np.int8), _cast(x + 40, np.uint16), _cast(x * 1e6, np.int64))


def _views(a: np.ndarray) -> dict[str, np.ndarray]:
    return {"contiguous": a, "reversed": a[::-1], "step3": a[::3], "step2": a[1::2], "step-2": a[::-2]}


def _same(got: Any, want: Any, where: str) -> None:
    assert isinstance(got, tuple) and len(got) == len(want), where
    for i, (g, w) in enumerate(zip(got, want)):
        assert type(g) is type(w), f"{where}[{i}]: {type(g).__name__} != {type(w).__name__}"
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w), err_msg=f"{where}[{i}]")
        assert np.asarray(g).dtype == np.asarray(w).dtype and np.asarray(g).shape == np.asarray(w).shape


@pytest.mark.parametrize("path", _builds())
@pytest.mark.parametrize("n", SIZES)
def test_flat_argmax_argmin_match_numpy(compiled, path, n):
    rng = np.random.default_rng(n)
    for case in CASES:
        ops = _operands(_pattern(n, case, rng))
        for what in _views(ops[0]):
            vs = tuple(_views(o)[what] for o in ops)
            if vs[0].size == 0:
                continue
            _same(compiled[(path, "flat")](*vs), flat(*vs), f"{path} n={n} {case} {what}")


@pytest.mark.parametrize("path", _builds())
def test_one_mebi_elements(compiled, path):
    rng = np.random.default_rng(20)
    n = 1 << 20
    for case in ("random", "ties", "nan_middle", "nan_several", "signed_zero", "rising"):
        ops = _operands(_pattern(n, case, rng))
        for what in ("contiguous", "reversed", "step3"):
            vs = tuple(_views(o)[what] for o in ops)
            _same(compiled[(path, "flat")](*vs), flat(*vs), f"{path} 2^20 {case} {what}")


@pytest.mark.parametrize("path", _builds())
@pytest.mark.parametrize("shape", [(1, 1), (3, 17), (37, 1023), (5, 70001), (3, 1 << 19)])
def test_grid_views_and_axes(compiled, path, shape):
    rng = np.random.default_rng(sum(shape))
    for case in ("random", "ties", "nan_middle", "signed_zero"):
        x = _pattern(shape[0] * shape[1], case, rng).reshape(shape)
        xs, xi = x.astype(np.float32), _cast(x * 1e6, np.int64)
        for what, (a, b) in {"contiguous": (xs, xi), "cols2": (xs[:, ::2], xi[:, ::2]),
                             "reversed": (xs[::-1, ::-1], xi[::-1, ::-1]), "T": (xs.T, xi.T)}.items():
            if a.size == 0:
                continue
            _same(compiled[(path, "grid")](a, b), grid(a, b), f"{path} {shape} {case} {what}")


@pytest.mark.parametrize("path", _paths())
def test_empty_raises_numpys_error(compiled, path):
    for fn, arg, name in ((only_argmax, np.zeros(0, np.float32), "argmax"),
                          (only_argmin, np.zeros(0, np.int64), "argmin")):
        with pytest.raises(ValueError, match=f"attempt to get {name} of an empty sequence") as want:
            fn(arg)
        with pytest.raises(ValueError) as got:
            compiled[(path, fn.__name__)](arg)
        assert str(got.value) == str(want.value)
    with pytest.raises(ValueError, match="attempt to get argmax of an empty sequence"):
        compiled[(path, "flat")](*(o[:0] for o in _operands(np.zeros(4))))


def test_numpy_first_nan_rule():
    """The rule the kernel reproduces, checked on NumPy itself (the first NaN's index wins)."""
    assert np.argmax(np.array([1.0, np.nan, 5.0, np.nan])) == 1
    assert np.argmin(np.array([1.0, np.nan, -5.0, np.nan])) == 1


# ---- torch.argmax / argmin: torch's own results (its NaN and tie rules are checked, not assumed) ----
try:
    import torch
except ImportError:  # the NumPy tests above do not need it
    torch = None


def torch_arg(x: torch.Tensor):
    return (torch.argmax(x), torch.argmin(x), torch.argmax(x, dim=-1), x.argmin(dim=-1),
            torch.argmax(x, dim=0), torch.argmin(x, dim=0, keepdim=True))


@pytest.mark.skipif(torch is None, reason="torch is not installed")
@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "int64"])
def test_torch_argmax_argmin_match_torch(dtype, tmp_path_factory):
    tdt = getattr(torch, dtype)
    c = everypath.compile(torch_arg, settings=Settings(cache_dir=tmp_path_factory.mktemp("torch-arg")))
    for shape in [(1, 1), (2, 17), (3, 2049), (4, (1 << 16) + 5)]:
        rng = np.random.default_rng(shape[1])
        for case in CASES:
            x = _pattern(shape[0] * shape[1], case, rng).reshape(shape)
            if not tdt.is_floating_point:
                x = _cast(x * 1e6, np.int64) if dtype == "int64" else _cast(x, np.int8)
            t = torch.from_numpy(np.ascontiguousarray(x)).to(tdt)
            for what, v in {"contiguous": t, "cols2": t[:, ::2], "T": t.t(), "flipped": t.flip(1)}.items():
                for i, (g, w) in enumerate(zip(c(v), torch_arg(v))):
                    assert torch.equal(g, w), f"{dtype} {shape} {case} {what} [{i}]: {g} != {w}"

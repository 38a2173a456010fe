"""torch element-wise functions on every fused-loop path (loops, simd, threads) and the tensor boundary's
C path (lowering/runtime/tensors.cpp, the dispatcher's tensor keys), against eager PyTorch.

Values, dtype, shape and type must be torch's (float32 within rtol 1e-5: xsimd's and libm's exp differ
from torch's by ulps); NaN, signed zeros and infinities come out of the simd path's selects exactly as
from the loops path's scalar code, bit for bit. Views (transposed, strided, negative strides) run
through the same loops as contiguous tensors.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import everypath  # noqa: E402
from everypath.base.settings import Settings  # noqa: E402


def acts(x: torch.Tensor, y: torch.Tensor):
    return (F.relu(x), torch.sigmoid(x), F.silu(x), F.hardswish(x), torch.maximum(x, y), torch.minimum(x, y),
            torch.abs(x) * 2 + y, torch.where(x > y, x, y), torch.relu(x - 1))


def _compiled(path: str):
    settings = dataclasses.replace(Settings.from_env(), force_path=path)
    return everypath.compile(acts, settings=settings)


_SPECIAL = [float("nan"), -0.0, 0.0, float("inf"), -float("inf"), -3.0, 3.0, -2.9999, 1e-30, -1e-30, 88.5, -104.0]


def _inputs(dtype: torch.dtype, n: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(7)
    x = torch.randn(n, 64, generator=g, dtype=dtype) * 4
    y = torch.randn(n, 64, generator=g, dtype=dtype) * 4
    x.view(-1)[: len(_SPECIAL)] = torch.tensor(_SPECIAL, dtype=dtype)
    y.view(-1)[1: len(_SPECIAL) + 1] = torch.tensor(_SPECIAL, dtype=dtype)
    return x, y


def _layouts(x: torch.Tensor, y: torch.Tensor):
    yield "contiguous", x, y
    yield "transposed", x.t(), y.t()
    yield "strided", x[:, ::2], y[:, 1::2]
    yield "flipped", x.flip(0)[::3], y[::3]
    yield "broadcast", x, y[:1]


# torch.maximum/minimum of 0.0 and -0.0 give either zero: its AVX body returns the second operand, its
# scalar tail the first; the other outputs' signed zeros are torch's exactly
_ANY_ZERO = (4, 5)


def assert_same(got, want, zeros: bool = True) -> None:
    assert type(got) is type(want)
    if isinstance(want, tuple):
        assert len(got) == len(want)
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, i not in _ANY_ZERO)
        return
    assert got.dtype == want.dtype and got.shape == want.shape
    tol = (1e-5, 1e-6) if want.dtype == torch.float32 else (1e-10, 1e-12)
    torch.testing.assert_close(got, want, rtol=tol[0], atol=tol[1], equal_nan=True)
    special = torch.isinf(want) | ((want == 0) & zeros)  # a NaN's sign bit is no library's promise
    assert torch.equal(torch.isnan(got), torch.isnan(want))
    assert torch.equal(torch.signbit(got[special]), torch.signbit(want[special]))  # -0.0 stays -0.0


@pytest.mark.parametrize("path,dtype", [("loops", torch.float32), ("simd", torch.float32),
                                        ("simd", torch.float64), ("threads", torch.float32)])
def test_paths_match_torch(path: str, dtype: torch.dtype) -> None:
    f = _compiled(path)
    for n in (3, 1024):  # 1024 x 64 reaches the threads path's parallel split
        x, y = _inputs(dtype, n)
        for layout, a, b in _layouts(x, y):
            got, want = f(a, b), acts(a, b)
            try:
                assert_same(got, want)
            except AssertionError as exc:
                raise AssertionError(f"{path} {dtype} {layout} n={n}: {exc}") from None
    src = f.cpp_source
    assert {"loops": "ep::map<", "simd": "ep::simd::map<", "threads": "ep::threads::map<"}[path] in src


def test_simd_is_bit_identical_to_loops_for_selects() -> None:
    """relu, maximum/minimum, hardswish and where are selects and arithmetic: the same bits on both paths."""
    loops, simd = _compiled("loops"), _compiled("simd")
    x, y = _inputs(torch.float32, 256)
    a, b = loops(x, y), simd(x, y)
    for i in (0, 3, 4, 5, 6, 7, 8):
        assert torch.equal(a[i].view(torch.int32), b[i].view(torch.int32)), i


@everypath.compile
def scale(x: torch.Tensor, k: float):
    return x * k


@everypath.compile
def same_and_views(x: torch.Tensor):
    return x, x.numpy(), x.t(), x + 1


def test_boundary_fast_path_keeps_semantics() -> None:
    x = torch.arange(6.0).reshape(2, 3)
    for _ in range(3):  # the first call builds; the others go through the C dispatcher's tensor key
        same, arr, t, plus = same_and_views(x)
        assert same is x
        assert type(arr) is np.ndarray and np.shares_memory(arr, x.numpy())
        assert type(t) is torch.Tensor and t.data_ptr() == x.data_ptr() and t.shape == (3, 2)
        assert type(plus) is torch.Tensor and torch.equal(plus, x + 1)
    assert same_and_views._dispatch_entries >= 1
    # the same dtype and rank, so the C entry takes them: refusals must still be ours
    with pytest.raises(TypeError, match=r"same_and_views\(\) argument 'x': the tensor requires grad"):
        same_and_views(torch.ones(2, 3, requires_grad=True))
    for _ in range(2):
        assert torch.equal(scale(torch.ones(2, 3), 2.0), torch.full((2, 3), 2.0))
    c = torch.complex(torch.arange(6.0), torch.ones(6)).reshape(2, 3)
    for _ in range(2):  # a lazy conj view (numpy() refuses it) crosses resolved, on either path
        torch.testing.assert_close(scale(c.conj(), 2.0), c.conj().resolve_conj() * 2.0)


@everypath.compile
def add(x: torch.Tensor, y: torch.Tensor):
    return x + y


def test_boundary_fast_path_broadcast_error_is_torchs() -> None:
    a, b = torch.ones(4, 3), torch.ones(2, 3)
    with pytest.raises(RuntimeError) as want:
        torch.add(a, b)
    for _ in range(2):
        assert torch.equal(add(a, a), a + a)
    with pytest.raises(RuntimeError) as got:
        add(a, b)
    assert str(got.value) == str(want.value)


def products(a: torch.Tensor, w: torch.Tensor, b: torch.Tensor, s: torch.Tensor):
    return (a @ w.t(), torch.mm(a, w.t()), torch.matmul(s, w.t()), torch.bmm(s, s.transpose(1, 2)),
            F.linear(a, w, b), F.linear(s, w), F.linear(a, w))


@pytest.mark.parametrize("path", ["threads", "blas"])
def test_products_on_gemm_paths(path: str) -> None:
    settings = dataclasses.replace(Settings.from_env(), force_path=path)
    f = everypath.compile(products, settings=settings)
    g = torch.Generator().manual_seed(3)
    for dtype in (torch.float32, torch.int64):  # int64: BLAS declines, the loops GEMM runs
        a, w, b, s = ((torch.randn(*shape, generator=g) * 3).to(dtype)
                      for shape in ((33, 70), (40, 70), (40,), (3, 33, 70)))
        got, want = f(a, w, b, s), products(a, w, b, s)
        for i, (x, y) in enumerate(zip(got, want)):
            assert type(x) is torch.Tensor and x.dtype == y.dtype and x.shape == y.shape, (path, dtype, i)
            torch.testing.assert_close(x, y, rtol=1e-5, atol=1e-4)
        if dtype is torch.float32:  # the latest build's source: this dtype's
            assert f"ep::path::{path}" in f.cpp_source

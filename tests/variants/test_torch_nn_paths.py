"""torch.nn.functional row kernels and F.linear on every path they have, against eager PyTorch.

softmax / log_softmax / layer_norm run on loops (double accumulation), simd (xsimd rows, or lanes across
the inner axis for another dim) and threads (row or lane blocks across the pool); F.linear and the MLP run
on loops, threads and blas (OpenBLAS reading torch's [out, in] weight through its transpose flag).
Tolerances: float64 rtol 1e-10; float32 rtol 1e-5 for softmax (xsimd's exp and torch's SLEEF exp differ
by ulps, and both sum a row in float32 lanes in their own order) and rtol 1e-4 for layer_norm and the
products
(atol 1e-4: a sum of k float32 products of values ~3 drifts by a few ulps times k between blockings, which
is large next to an output that cancels to near zero).
"""
from __future__ import annotations

import dataclasses

import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import everypath  # noqa: E402
from everypath.base.settings import Settings  # noqa: E402


def rows(x: torch.Tensor, g: torch.Tensor, b: torch.Tensor):
    return (F.softmax(x, dim=-1), F.log_softmax(x, dim=-1), x.softmax(0), torch.log_softmax(x, 0),
            F.layer_norm(x, (x.shape[-1],), g, b), F.layer_norm(x, (x.shape[-1],), eps=1e-3))


def rows3(x: torch.Tensor):
    return F.softmax(x, dim=1), F.log_softmax(x, dim=1), F.softmax(x, dim=-1), F.layer_norm(x, (x.shape[1], x.shape[2]))


def linears(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor):
    return F.linear(x, w, b), F.linear(x, w), x @ w.t() + b, F.linear(x, w, b[:1])


def mlp(x: torch.Tensor, w1: torch.Tensor, b1: torch.Tensor, w2: torch.Tensor):
    h = torch.relu(x @ w1 + b1)
    return torch.softmax(h @ w2, dim=-1)


def mlp_linear(x: torch.Tensor, w1: torch.Tensor, b1: torch.Tensor, w2: torch.Tensor, b2: torch.Tensor):
    return F.softmax(F.linear(F.relu(F.linear(x, w1, b1)), w2, b2), dim=-1)


_COMPILED: dict[tuple[str, str], everypath.CompiledFunction] = {}


def compiled(fn, path: str):
    key = (fn.__name__, path)
    if key not in _COMPILED:
        _COMPILED[key] = everypath.compile(fn, settings=dataclasses.replace(Settings.from_env(), force_path=path))
    return _COMPILED[key]


def tol(dtype: torch.dtype, loose: bool) -> dict[str, float]:
    if dtype is torch.float64:
        return {"rtol": 1e-10, "atol": 1e-12}
    return {"rtol": 1e-4, "atol": 1e-4} if loose else {"rtol": 1e-5, "atol": 1e-6}


def check(got, want, dtype: torch.dtype, loose: tuple[int, ...], what: str) -> None:
    assert len(got) == len(want), what
    for i, (g, w) in enumerate(zip(got, want)):
        assert type(g) is torch.Tensor and g.dtype == w.dtype and g.shape == w.shape, (what, i)
        torch.testing.assert_close(g, w, equal_nan=True, **tol(dtype, i in loose), msg=lambda m, at=f"{what}[{i}]": f"{at}: {m}")


def data(shape: tuple[int, ...], dtype: torch.dtype, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g, dtype=torch.float64) * 3).to(dtype)


ROW_SHAPES = [(1, 1), (3, 5), (7, 33), (0, 4), (2, 1), (64, 257)]  # 64 x 257: the threads path splits rows


@pytest.mark.parametrize("path", ["loops", "simd", "threads"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_row_kernels_match_torch(path: str, dtype: torch.dtype) -> None:
    f = compiled(rows, path)
    for shape in ROW_SHAPES:
        x = data(shape, dtype, 1)
        g, b = data(shape[1:], dtype, 2), data(shape[1:], dtype, 3)
        views = {"contiguous": x, "transposed": data(shape[::-1], dtype, 4).t(), "stepped": data((shape[0], 2 * shape[1]), dtype, 5)[:, ::2]}
        for layout, v in views.items():
            check(f(v, g, b), rows(v, g, b), dtype, (4, 5), f"{path} {dtype} {shape} {layout}")
    x3 = data((3, 37, 21), dtype, 6)  # dim=1: 21 lanes (one vector and a scalar tail) per outer row
    check(compiled(rows3, path)(x3), rows3(x3), dtype, (3,), f"{path} {dtype} 3-d")
    x3 = data((1, 50, 300), dtype, 7)  # one outer row: the threads path splits the lanes
    check(compiled(rows3, path)(x3), rows3(x3), dtype, (3,), f"{path} {dtype} 3-d, one outer row")
    if path != "loops":
        assert f"ep::path::{path}" in f.cpp_source


def test_softmax_specials_on_every_path() -> None:
    """-inf entries, a NaN row, an all -inf row and values far apart: NaN and -inf as torch gives them."""
    x = torch.tensor([[0.0, float("-inf"), 1.0] * 7, [float("nan")] + [1.0] * 20,
                      [1000.0, 1001.0, -1000.0] * 7, [float("-inf")] * 21])
    ones, zeros = torch.ones(21), torch.zeros(21)
    want = rows(x, ones, zeros)
    for path in ("loops", "simd", "threads"):
        got = compiled(rows, path)(x, ones, zeros)
        for i in (0, 1):  # softmax and log_softmax along rows (the vector path)
            torch.testing.assert_close(got[i], want[i], equal_nan=True, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("path", ["loops", "threads", "blas"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_linear_layouts(path: str, dtype: torch.dtype) -> None:
    """Contiguous, transposed (x.t() of a stored [k, n]) and stepped inputs and weights: BLAS reads a view
    with one unit stride through its transpose flag, a stepped one is copied."""
    f = compiled(linears, path)
    for n, k, o in ((1, 1, 1), (5, 7, 3), (33, 70, 40), (1, 64, 10), (4, 0, 3), (0, 5, 2)):
        xs = {"contiguous": data((n, k), dtype, 1), "transposed": data((k, n), dtype, 2).t(),
              "stepped": data((n, 2 * k), dtype, 3)[:, ::2]}
        ws = {"contiguous": data((o, k), dtype, 4), "transposed": data((k, o), dtype, 5).t()}
        b = data((2 * o,), dtype, 6)[::2]  # a strided bias
        for xl, x in xs.items():
            for wl, w in ws.items():
                check(f(x, w, b), linears(x, w, b), dtype, (0, 1, 2, 3), f"{path} {dtype} {(n, k, o)} x {xl} w {wl}")
    x3 = data((2, 5, 9), dtype, 7)
    w, b = data((4, 9), dtype, 8), data((4,), dtype, 9)
    check(f(x3, w, b), linears(x3, w, b), dtype, (0, 1, 2, 3), f"{path} 3-d input")
    if path == "blas" and dtype is torch.float32:
        assert "ep::path::blas" in f.cpp_source


@pytest.mark.parametrize("path", ["loops", "threads", "blas"])
def test_mlp_matches_torch(path: str) -> None:
    for dtype in (torch.float32, torch.float64):
        x, w1, b1 = data((17, 31), dtype, 1), data((31, 24), dtype, 2) / 4, data((24,), dtype, 3)
        w2, b2 = data((24, 10), dtype, 4) / 4, data((10,), dtype, 5)
        got, want = compiled(mlp, path)(x, w1, b1, w2), mlp(x, w1, b1, w2)
        torch.testing.assert_close(got, want, **tol(dtype, True))
        lw1, lw2 = w1.t().contiguous(), w2.t().contiguous()  # nn.Linear's [out, in] weights
        got, want = compiled(mlp_linear, path)(x, lw1, b1, lw2, b2), mlp_linear(x, lw1, b1, lw2, b2)
        torch.testing.assert_close(got, want, **tol(dtype, True))


def test_linear_shape_errors_are_torchs() -> None:
    f = compiled(linears, "blas")
    x, w = torch.ones(3, 4), torch.ones(5, 6)
    for args in ((x, w, torch.ones(5)), (x, torch.ones(5, 4), torch.ones(7))):
        with pytest.raises(RuntimeError) as want:
            linears(*args)
        with pytest.raises(RuntimeError) as got:
            f(*args)
        assert str(got.value) == str(want.value)


def convs(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor):
    return (F.conv2d(x, w, b, padding=1), F.conv2d(x, w), F.conv2d(x, w, b, stride=2, padding=(2, 1)),
            F.conv2d(x, w, dilation=(2, 1), padding="same"), torch.conv2d(x, w, b, stride=(1, 2)))


def convs_1x1_grouped(x: torch.Tensor, w1: torch.Tensor, wg: torch.Tensor):
    return F.conv2d(x, w1), F.conv2d(x, wg, groups=2, padding=1), F.conv2d(x, wg, stride=2, groups=2)


@pytest.mark.parametrize("path", ["loops", "simd", "threads", "blas"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_conv2d_paths(path: str, dtype: torch.dtype) -> None:
    """3x3 (and 1x1, grouped) kernels: batch 1 and 2, one channel, odd sizes, an unbatched CHW input and a
    transposed (non-contiguous) view, on the direct kernels and im2col + BLAS."""
    f, g = compiled(convs, path), compiled(convs_1x1_grouped, path)
    for shape, cin in (((2, 3, 9, 7), 3), ((1, 1, 5, 5), 1), ((4, 13, 11), 4), ((1, 2, 3, 3), 2)):
        x, w, b = data(shape, dtype, 1), data((5, cin, 3, 3), dtype, 2), data((5,), dtype, 3)
        check(f(x, w, b), convs(x, w, b), dtype, (0, 1, 2, 3, 4), f"{path} {dtype} {shape}")
    xt = data((2, 4, 8, 10), dtype, 4).transpose(-1, -2)
    w1, wg = data((6, 4, 1, 1), dtype, 5), data((6, 2, 3, 3), dtype, 6)
    check(g(xt, w1, wg), convs_1x1_grouped(xt, w1, wg), dtype, (0, 1, 2), f"{path} {dtype} 1x1/grouped")
    if path != "loops":
        assert f"ep::path::{path}" in f.cpp_source


def conv_geometry(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, wd: torch.Tensor):
    return (F.conv2d(x, w, b, padding=1), F.conv2d(x, w, stride=3, dilation=2, padding=(3, 0)),
            F.conv2d(x, w, b, stride=(2, 1), padding="valid"), F.conv2d(x[:, :2], wd, padding="same", groups=2),
            F.conv2d(x[:, :, 1:, ::2], w, b, stride=(1, 2), padding=2))


@pytest.mark.parametrize("path", ["simd", "threads"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_conv2d_blocked_kernel_geometry(path: str, dtype: torch.dtype) -> None:
    """The blocked direct kernel's tiles: output channels in blocks of 8 with a remainder of 4 and 1s
    (13 channels), rows of many vectors with a partial last one (width 53), a row of one short vector,
    strides and dilation through the phase-split input, an even kernel over two groups of one input
    channel (padding='same' puts the odd row after), and a stepped, cropped view as input."""
    f = compiled(conv_geometry, path)
    for n, c, h, wdt, oc in ((2, 5, 17, 53, 13), (1, 3, 6, 6, 8), (1, 2, 4, 40, 1), (3, 2, 9, 5, 4), (1, 16, 33, 70, 24)):
        x, w, b = data((n, c, h, wdt), dtype, 1), data((oc, c, 3, 3), dtype, 2) / c, data((oc,), dtype, 3)
        wd = data((6, 1, 4, 2), dtype, 4)
        check(f(x, w, b, wd), conv_geometry(x, w, b, wd), dtype, (0, 1, 2, 3, 4), f"{path} {dtype} {(n, c, h, wdt, oc)}")
    xc = data((1, 4, 9, 21), dtype, 5).to(memory_format=torch.channels_last)  # NHWC storage
    w, b, wd = data((9, 4, 3, 3), dtype, 6), data((9,), dtype, 7), data((6, 1, 4, 2), dtype, 8)
    check(f(xc, w, b, wd), conv_geometry(xc, w, b, wd), dtype, (0, 1, 2, 3, 4), f"{path} {dtype} channels_last")


def test_conv2d_threads_blocks_run_the_blocked_kernel() -> None:
    """Under the default policy a unit builds simd and threads together, and an input past the threads
    threshold (2^20 elements) runs the blocked kernel's channel blocks and row chunks across the pool."""
    f = everypath.compile(conv_geometry, settings=dataclasses.replace(Settings.from_env(), force_path=None,
                                                                         paths=("loops", "simd", "threads")))
    x = data((1, 4, 512, 515), torch.float32, 1)  # 1,054,720 elements; 515 columns: a partial last vector
    w, b, wd = data((5, 4, 3, 3), torch.float32, 2) / 4, data((5,), torch.float32, 3), data((6, 1, 4, 2), torch.float32, 4)
    check(f(x, w, b, wd), conv_geometry(x, w, b, wd), torch.float32, (0, 1, 2, 3, 4), "default policy, large")
    assert "ep::path::threads" in f.cpp_source and "ep::path::simd" in f.cpp_source

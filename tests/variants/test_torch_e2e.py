"""PyTorch through everypath.compile: each compiled function against the same function run by eager PyTorch.

Results must be tensors (or Python scalars) of the same dtype and shape, with values equal within
the per-dtype tolerances below; errors must be the same exception type with the same message.
Tolerances: integers and bools exactly; float64 rtol 1e-10 (our libm vs torch's SLEEF, and sums in
another order); float32 rtol 1e-5 (torch accumulates float32 in float32 with its own blocking, we in
double or pairwise). Convolution and layer_norm sum many products per output, so float32 gets
rtol 1e-4 there (torch's blocked float32 accumulation drifts from the exactly rounded sum by a few
ulps times the number of terms).
"""
from __future__ import annotations

from typing import Any, Callable

import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import everypath  # noqa: E402
from tests.variants._harness import same_outcome  # noqa: E402

TOL = {torch.float32: (1e-5, 1e-6), torch.float64: (1e-10, 1e-12)}
LOOSE = {torch.float32: (1e-4, 1e-5), torch.float64: (1e-10, 1e-12)}


def assert_same(got: Any, want: Any, tol: dict = TOL, path: str = "result") -> None:
    if isinstance(want, torch.Size):  # sizes come back as plain tuples (docs/semantics.md, "PyTorch")
        want = tuple(want)
    assert type(got) is type(want), f"{path}: {type(got).__name__} != {type(want).__name__}"
    if isinstance(want, tuple):
        assert len(got) == len(want), path
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, tol, f"{path}[{i}]")
    elif isinstance(want, torch.Tensor):
        assert got.dtype == want.dtype, f"{path}: dtype {got.dtype} != {want.dtype}"
        assert got.shape == want.shape, f"{path}: shape {tuple(got.shape)} != {tuple(want.shape)}"
        rtol, atol = tol.get(want.dtype, (0.0, 0.0))
        torch.testing.assert_close(got, want, rtol=rtol, atol=atol, equal_nan=True, msg=lambda m: f"{path}: {m}")
    else:
        assert got == want or (got != got and want != want), f"{path}: {got!r} != {want!r}"


def same_as_eager(compiled: Any, make: Callable[[], tuple], tol: dict = TOL) -> Any:
    """Run eager PyTorch and the compiled function on fresh arguments from make(); compare."""
    return same_outcome(lambda: compiled.py_function(*make()), lambda: compiled(*make()),
                        lambda got, want: assert_same(got, want, tol))


def data(shape: tuple[int, ...], dtype: Any, seed: int = 0) -> Any:
    g = torch.Generator().manual_seed(seed)
    if dtype.is_floating_point:
        return torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)
    return torch.randint(-9, 10, shape, generator=g).to(dtype)


# strided layouts: contiguous, a transpose, a column slice with a step
LAYOUTS = {
    "contiguous": lambda s, dt, seed: data(s, dt, seed),
    "transposed": lambda s, dt, seed: data(s[::-1], dt, seed).t(),
    "stepped": lambda s, dt, seed: data((s[0], 2 * s[1]), dt, seed)[:, ::2],
}
SHAPES = [(3, 5), (1, 1), (0, 4), (7, 13)]


# ---- element-wise ---------------------------------------------------------------------------------
@everypath.compile
def arith(x: torch.Tensor, y: torch.Tensor):
    return (x + y, x - y, x * y, x * 2, x + 1.5, x / y, 3 / (y * y + 1), -x, abs(x), x ** 2, 2 ** x.clamp(-4, 4),
            x < y, x >= 0.5, x == y, torch.maximum(x, y), torch.minimum(x, y * 0), torch.where(x > y, x, y),
            torch.where(x > 0, x, 0.5), torch.clamp(x, -0.5, 0.5), x.clamp(min=0), torch.clip(x, max=y),
            torch.add(x, y), x.mul(y), torch.sub(x, 1), x.abs(), x.neg())


@everypath.compile
def float_math(x: torch.Tensor):
    a = x.abs() + 1
    return (torch.exp(x), torch.log(a), torch.sqrt(a), x.exp(), torch.tanh(x), torch.sigmoid(x), torch.relu(x),
            F.relu(x), F.silu(x), F.sigmoid(x), F.tanh(x), x.relu(), x.sigmoid(), F.gelu(x),
            F.gelu(x, approximate="tanh"), F.leaky_relu(x, 0.2), F.leaky_relu(x), F.elu(x), F.elu(x, alpha=0.5),
            F.hardtanh(x), F.hardtanh(x, -0.3, 0.7), x // 0.3, x % 0.7, torch.floor(x), torch.round(x * 3),
            torch.sin(x), torch.log1p(a), torch.expm1(x), torch.square(x), torch.reciprocal(a))


@everypath.compile
def int_math(x: torch.Tensor, y: torch.Tensor):
    d = y * y + 1
    return (x + y, x * 3, x // d, x % d, x / d, x ** 2, torch.relu(x), torch.exp(x.clamp(-3, 3)), x & y, x | 1,
            x ^ y, ~x, x < y, torch.where(x > 0, x, y), torch.clamp(x, -2, 2), torch.clamp(x, min=0.5), abs(x),
            torch.sigmoid(x), torch.sqrt(x.abs()), x * 0.5)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("shape", SHAPES)
def test_float_elementwise(dtype, layout, shape):
    mk = LAYOUTS[layout]
    same_as_eager(arith, lambda: (mk(shape, dtype, 1), mk(shape, dtype, 2)))
    same_as_eager(float_math, lambda: (mk(shape, dtype, 3),))


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32])
@pytest.mark.parametrize("shape", [(3, 5), (0, 2), (1, 1)])
def test_int_elementwise(dtype, shape):
    same_as_eager(int_math, lambda: (data(shape, dtype, 1), data(shape, dtype, 2)))
    same_as_eager(int_math, lambda: (data(shape[::-1], dtype, 1).t(), data(shape, dtype, 2)))


def test_broadcasting_and_promotion():
    # a row against a column, a 0-d tensor of a wider dtype, Python scalars, int / int
    x, col = data((4, 5), torch.float32), data((4, 1), torch.float32, 1)
    same_as_eager(arith, lambda: (x.clone(), col.clone()))
    same_as_eager(arith, lambda: (x.clone(), torch.tensor(0.25, dtype=torch.float32)))
    same_as_eager(mixed, lambda: (data((3, 4), torch.int32), data((), torch.float64, 1), data((3, 4), torch.int64, 2)))


@everypath.compile
def mixed(i: torch.Tensor, f0: torch.Tensor, j: torch.Tensor):
    return i + f0, i / i.clamp(1, 5), i + 2, i + 2.5, i * True, i + j, (i < f0), f0 * 3, i.sum(), i.float() * f0


# ---- reductions -----------------------------------------------------------------------------------
def reductions(x: torch.Tensor):
    return (torch.sum(x), x.sum(dim=1), x.sum(0, keepdim=True), torch.sum(x, dim=(0, 1)), x.sum(-1, True),
            torch.amax(x, 1), x.amax(dim=0, keepdim=True), torch.amin(x, dim=-1), x.amin(1),
            torch.sum(x, dim=1, dtype=torch.float64))


reduce_any = everypath.compile(reductions)


@everypath.compile
def reduce_float(x: torch.Tensor):
    return reductions(x), torch.mean(x), x.mean(dim=1), x.mean((0, 1), keepdim=True), torch.mean(x, -1)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.bool])
@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("shape", [(3, 5), (1, 1), (7, 13), (2, 0)])
def test_reductions(dtype, layout, shape):
    mk = LAYOUTS[layout]
    if dtype is torch.bool:
        same_as_eager(reduce_any, lambda: (mk(shape, torch.int64, 4) > 0,))
    else:  # (2, 0): amax over the empty dim raises torch's IndexError
        same_as_eager(reduce_float if dtype.is_floating_point else reduce_any, lambda: (mk(shape, dtype, 4),))


# ---- views, joins, conversions ------------------------------------------------------------------
@everypath.compile
def shapes(x: torch.Tensor, y: torch.Tensor):
    n = x.shape[0]
    return (x.reshape(-1), x.reshape(n, -1, 1), torch.reshape(x, (x.shape[1], n)), x.t(), x.transpose(0, 1),
            x.permute(1, 0), torch.permute(x, (1, 0)), x.unsqueeze(0), torch.unsqueeze(x, -1), x.unsqueeze(1).squeeze(1),
            x.flatten(), torch.flatten(x.unsqueeze(0), 1), x.contiguous(), x.clone(), x.detach(), x.T,
            x.float(), x.double(), x.long(), x.to(torch.float64), x.size(), x.size(-1), x.dim(), x.numel(),
            x.reshape(-1, 1).view(-1), torch.cat((x, y)), torch.cat([x, y], dim=1), torch.cat((x, y, x), -1),
            torch.stack((x, y)), torch.stack([x, y], dim=2), torch.stack((x, y), 1), torch.concat((x, y), 0))


@everypath.compile
def contiguous_views(x: torch.Tensor):
    return x.view(-1), x.view(x.shape[1], x.shape[0]), x.view((1, -1)), x.flatten(0, 1)


@everypath.compile
def joins_mixed(a: torch.Tensor, b: torch.Tensor):
    return torch.cat((a, b)), torch.stack((a, b), -1)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64])
@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("shape", [(3, 5), (1, 1), (0, 4), (7, 13)])
def test_views_and_joins(dtype, layout, shape):
    mk = LAYOUTS[layout]
    same_as_eager(shapes, lambda: (mk(shape, dtype, 5), mk(shape, dtype, 6)))
    if dtype is torch.float32:  # view needs compatible strides: torch's RuntimeError on the stepped layout
        same_as_eager(contiguous_views, lambda: (mk(shape, dtype, 5),))


def test_joins_promote():
    same_as_eager(joins_mixed, lambda: (data((2, 3), torch.int32), data((2, 3), torch.float64, 1)))


# ---- products -------------------------------------------------------------------------------------
@everypath.compile
def products(a: torch.Tensor, b: torch.Tensor, v: torch.Tensor, w: torch.Tensor, ba: torch.Tensor, bb: torch.Tensor):
    return (a @ b, torch.matmul(a, b), torch.mm(a, b), a.mm(b), a @ v, v @ w, torch.matmul(v, b),
            torch.matmul(a.unsqueeze(0), b), F.linear(a, b.t()), F.linear(a, b.t(), w), F.linear(a.unsqueeze(0), b.t(), w),
            F.linear(v, b.t()), torch.bmm(ba, bb), ba @ bb, torch.matmul(ba, bb[0]), ba.bmm(bb), torch.matmul(ba[0], bb),
            torch.matmul(ba, v))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64])
@pytest.mark.parametrize("n,k,m", [(3, 4, 5), (1, 1, 1), (7, 13, 2), (0, 3, 2), (4, 0, 3)])
def test_products(dtype, n, k, m):
    def make(strided: bool):
        a = data((k, n), dtype).t() if strided else data((n, k), dtype)
        b = data((k, 2 * m), dtype, 1)[:, ::2] if strided else data((k, m), dtype, 1)
        return a, b, data((k,), dtype, 2), data((m,), dtype, 3), data((2, n, k), dtype, 4), data((2, k, m), dtype, 5)

    same_as_eager(products, lambda: make(False))
    same_as_eager(products, lambda: make(True))


# ---- nn -----------------------------------------------------------------------------------------
@everypath.compile
def nn_ops(x: torch.Tensor, g: torch.Tensor, b: torch.Tensor):
    return (F.softmax(x, dim=-1), F.softmax(x, 0), torch.softmax(x, 1), x.softmax(-1), F.log_softmax(x, dim=1),
            torch.log_softmax(x, 0), x.log_softmax(dim=-1), F.softmax(x, dim=1, dtype=torch.float64),
            F.layer_norm(x, (x.shape[-1],)), F.layer_norm(x, (x.shape[1],), g, b),
            F.layer_norm(x, (x.shape[-1],), g, b, 1e-3), F.layer_norm(x, x.shape), F.normalize(x), F.normalize(x, dim=0),
            F.normalize(x, p=1.0, dim=1), F.normalize(x, p=float("inf"), dim=-1, eps=1e-3),
            F.dropout(x, 0.3, training=False), F.dropout(x, p=0.0, training=False))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("shape", [(3, 5), (1, 1), (0, 4), (7, 13), (2, 1)])
def test_nn(dtype, layout, shape):
    mk = LAYOUTS[layout]
    same_as_eager(nn_ops, lambda: (mk(shape, dtype, 7), data(shape[1:], dtype, 8), data(shape[1:], dtype, 9)), LOOSE)


def test_softmax_specials():
    # -inf entries, a NaN row and large values: the max is subtracted first
    x = torch.tensor([[0.0, float("-inf"), 1.0], [float("nan"), 1.0, 2.0], [1000.0, 1001.0, -1000.0]])
    same_as_eager(nn_ops, lambda: (x.clone(), torch.ones(3), torch.zeros(3)), LOOSE)


# ---- convolution and pooling --------------------------------------------------------------------
@everypath.compile
def vision(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor):
    return (F.conv2d(x, w), F.conv2d(x, w, b), F.conv2d(x, w, b, stride=2), F.conv2d(x, w, padding=1),
            F.conv2d(x, w, b, 1, (2, 1), (2, 1)), F.conv2d(x, w, padding="same"), F.conv2d(x, w, padding="valid"),
            torch.conv2d(x, w, stride=(1, 2)), F.conv2d(x, w, b, dilation=2, padding=2),
            F.max_pool2d(x, 2), F.max_pool2d(x, 3, stride=1, padding=1), F.max_pool2d(x, (2, 3), (1, 2)),
            F.max_pool2d(x, 2, ceil_mode=True), F.max_pool2d(x, 2, dilation=2), F.avg_pool2d(x, 2),
            F.avg_pool2d(x, 3, stride=2, padding=1), F.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
            F.avg_pool2d(x, 3, 2, 1, ceil_mode=True), F.avg_pool2d(x, 2, divisor_override=3),
            F.max_pool2d(x, kernel_size=(3, 1), padding=(1, 0)))


@everypath.compile
def grouped(x: torch.Tensor, w: torch.Tensor):
    return F.conv2d(x, w, groups=2), F.conv2d(x, w, groups=2, padding=1, stride=2)


@pytest.mark.parametrize("dtype,shape", [(torch.float32, (2, 3, 7, 6)), (torch.float32, (1, 3, 5, 5)),
                                         (torch.float32, (0, 3, 5, 5)), (torch.float64, (2, 3, 7, 6)),
                                         (torch.float32, (3, 11, 13)), (torch.int64, (1, 3, 6, 7))])
def test_conv_and_pools(dtype, shape):
    cin = shape[-3]
    weights = lambda: (data((4, cin, 3, 2), dtype, 1), data((4,), dtype, 2))  # noqa: E731
    same_as_eager(vision, lambda: (data(shape, dtype), *weights()), LOOSE)
    if dtype is torch.float32 and shape[0] == 2:  # a transposed (non-contiguous) input
        same_as_eager(vision, lambda: (data(shape[:-2] + shape[:-3:-1], dtype).transpose(-1, -2), *weights()), LOOSE)


def test_conv_groups_and_nan_pools():
    same_as_eager(grouped, lambda: (data((2, 4, 6, 5), torch.float32), data((6, 2, 3, 3), torch.float32, 1)), LOOSE)
    nan = torch.tensor([[[[1.0, float("nan"), 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]]]]).repeat(1, 2, 2, 2)
    same_as_eager(vision, lambda: (nan.clone(), data((4, 2, 3, 2), torch.float32, 1), data((4,), torch.float32)), LOOSE)


# ---- factories ----------------------------------------------------------------------------------
@everypath.compile
def factories(n: int, x: torch.Tensor):
    return (torch.zeros(n, 3), torch.ones((2, n)), torch.zeros(x.shape, dtype=torch.float64), torch.full((n, 2), 1.5),
            torch.full((2,), 7), torch.full((1, n), True), torch.arange(n), torch.arange(1, n), torch.arange(0, n, 2),
            torch.arange(0.0, 1.0, 0.125), torch.arange(n, 0, -3), torch.arange(0, n, dtype=torch.float64),
            torch.ones(n, dtype=torch.int32), torch.zeros_like(x), torch.ones_like(x, dtype=torch.int64),
            torch.full_like(x, 2.5), torch.empty(n, 2).shape, torch.empty_like(x).shape, torch.zeros(()))


@everypath.compile
def bad_factories(a: float, b: float, s: float, n: int):
    return torch.arange(a, b, s), torch.zeros(n, 2), torch.ones(2, n)


def test_factories():
    for n in (0, 1, 5, 13):
        same_as_eager(factories, lambda n=n: (n, data((2, 3), torch.float32)))
    for args in [(0.0, 1.0, 0.0, 1), (5.0, 0.0, 1.0, 1), (0.0, float("inf"), 1.0, 1), (0.5, 3.0, 0.25, 1),
                 (0.0, 1.0, 0.5, -1)]:
        same_as_eager(bad_factories, lambda args=args: args)


# ---- the transformer-style block of the brief ---------------------------------------------------
@everypath.compile
def block(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    h = F.linear(x, w, b)
    return F.layer_norm(F.gelu(h), (h.shape[-1],))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_block(dtype):
    same_as_eager(block, lambda: (data((8, 16), dtype), data((32, 16), dtype, 1), data((32,), dtype, 2)), LOOSE)
    same_as_eager(block, lambda: (data((16, 8), dtype).t(), data((32, 16), dtype, 1), data((32,), dtype, 2)), LOOSE)
    if dtype is torch.float32:
        same_as_eager(block, lambda: (data((3, 8, 16), dtype), data((32, 16), dtype, 1), data((32,), dtype, 2)), LOOSE)


# ---- shape errors: torch's exception type and message -------------------------------------------
@everypath.compile
def errors(case: int, a: torch.Tensor, b: torch.Tensor, v: torch.Tensor, c: torch.Tensor, d: torch.Tensor, n: int):
    """One run-time shape mistake per case (a, b: 2-d; v: 1-d; c: 3-d; d: 4-d)."""
    r = torch.zeros(())
    if case == 0:
        r = F.linear(a, b, v).sum()
    elif case == 1:
        r = F.linear(c, b, v).sum()
    elif case == 2:
        r = torch.relu(a + v).sum()
    elif case == 3:
        r = (a * 2 + c).sum()
    elif case == 4:
        r = (a @ b).sum()
    elif case == 5:
        r = (v @ v[:n]).sum()
    elif case == 6:
        r = (a @ v).sum()
    elif case == 7:
        r = (v @ b).sum()
    elif case == 8:
        r = (c @ b).sum() + (c @ v).sum()
    elif case == 9:
        r = (c @ c).sum() + torch.bmm(c, c).sum()
    elif case == 10:
        r = (a @ c).sum() + (d @ c).sum()
    elif case == 11:
        r = a.view(n, -1).sum()
    elif case == 12:
        r = torch.cat((a, b), dim=1).sum() + torch.stack((a, b)).sum()
    elif case == 13:
        r = F.layer_norm(a, (n,), v).sum()
    elif case == 14:
        r = torch.clamp(a, min=torch.zeros(n)).sum() + a.item()
    elif case == 15:
        r = torch.amax(c) + torch.amax(c, dim=1).sum()
    elif case == 16:
        r = F.conv2d(d, d).sum()
    elif case == 17:
        r = F.conv2d(d, d, v).sum()
    elif case == 18:
        r = F.max_pool2d(d, 3).sum()
    elif case == 19:
        r = F.avg_pool2d(c, 2).sum()
    elif case == 20:
        r = torch.amin(v) + torch.amax(c, dim=(0, 1, 2))
    return r


def test_shape_errors():
    f = torch.float32

    def run(case: int, a=(2, 3), b=(3, 2), v=(3,), c=(2, 3, 3), d=(1, 3, 4, 4), n=3):
        same_as_eager(errors, lambda: (case, data(a, f), data(b, f, 1), data(v, f, 2), data(c, f, 3), data(d, f, 4), n))

    run(0, a=(8, 16), b=(32, 15), v=(32,))
    run(0, a=(8, 16), b=(32, 16), v=(31,))
    run(1, c=(2, 8, 16), b=(32, 15), v=(32,))
    run(1, c=(2, 8, 16), b=(32, 16), v=(31,))
    run(2, a=(2, 3), v=(4,))
    run(3, a=(2, 3), c=(2, 1, 4))
    run(4, a=(2, 3), b=(4, 5))
    run(5, v=(3,), n=2)
    run(6, a=(2, 3), v=(4,))
    run(7, v=(3,), b=(4, 5))
    run(8, c=(3, 2, 3), b=(4, 5))
    run(8, c=(3, 2, 3), b=(3, 5), v=(4,))
    run(9, c=(2, 2, 3))
    run(10, a=(2, 3), c=(2, 4, 5))
    run(10, a=(2, 3), c=(2, 3, 5), d=(2, 2, 2, 3))
    run(11, a=(2, 3), n=4)
    run(11, a=(3, 2), n=3)
    run(12, a=(2, 3), b=(3, 3))
    run(12, a=(2, 3), b=(2, 4))
    run(13, a=(8, 32), v=(5,), n=5)
    run(13, a=(8, 5), v=(4,), n=5)
    run(14, a=(2, 3), n=4)
    run(14, a=(2, 3), n=3)
    run(14, a=(1, 1), n=1)
    run(15, c=(0, 3, 3))
    run(15, c=(2, 0, 3))
    run(16, d=(1, 2, 5, 5))
    run(17, d=(1, 1, 2, 2), v=(5,))
    run(16, d=(1, 1, 1, 1))
    run(18, d=(1, 3, 2, 2))
    run(18, d=(1, 3, 0, 5))
    run(19, c=(0, 5, 5))
    run(20, v=(0,))
    run(20, c=(2, 0, 3))

"""torch.argmax/argmin, cumsum, sort/argsort, topk and F.softplus/F.hardswish through everypath.compile,
against eager PyTorch on the same inputs: ties, NaN, views, empty dims, 0-d tensors, every dtype that
applies, and torch's errors.

Orders: argmax/argmin and sort(stable=True) must give torch's indices exactly. For stable=False and
topk torch leaves the order of equal values unspecified (its CPU kernels change algorithm with the
size), so there the values must be equal and the indices a valid choice: distinct, in range, and
picking the values (``x.gather(dim, i) == v``).
"""
from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import everypath  # noqa: E402
from tests.variants.test_torch_e2e import assert_same, same_as_eager  # noqa: E402


def ties(shape: tuple[int, ...], dtype, seed: int = 0, nan: bool = True):
    """Few distinct values (many ties); every fifth a NaN for floating dtypes."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(0, 4, shape, generator=g).to(dtype)
    if nan and dtype.is_floating_point and x.numel():
        x.view(-1)[::5] = math.nan
    return x


def views(dtype, seed: int = 0):
    """(contiguous 2-d, its transpose, a stepped column view)."""
    return (ties((6, 9), dtype, seed), ties((9, 6), dtype, seed + 1).t(), ties((6, 18), dtype, seed + 2)[:, ::2])


def _searches(x):
    return (torch.argmax(x), torch.argmin(x), torch.argmax(x, dim=1), torch.argmin(x, 0), x.argmax(-1),
            torch.argmax(x, dim=0, keepdim=True), x.argmin(dim=1, keepdim=True), torch.argmax(x, keepdim=True))


def _scans_sorts(x):
    v, i = torch.sort(x, stable=True)
    w, j = torch.sort(x, dim=0, descending=True, stable=True)
    return (torch.cumsum(x, 0), torch.cumsum(x, dim=-1), x.cumsum(1), torch.cumsum(x, 1, dtype=torch.float64),
            v, i, w, j, torch.argsort(x, dim=1, stable=True), x.argsort(dim=0, descending=True, stable=True))


@everypath.compile
def orders(x: torch.Tensor):
    """Every exact-order operator in one build per dtype."""
    return _searches(x), _scans_sorts(x)


@everypath.compile
def bool_orders(x: torch.Tensor):  # argmax/argmin refuse bool
    return _scans_sorts(x)


@everypath.compile
def searches(x: torch.Tensor):
    return _searches(x)


@everypath.compile
def loose_orders(x: torch.Tensor, k: int):
    v, i = torch.sort(x)
    w, j = x.sort(0, True)
    tv, ti = torch.topk(x, k)
    sv, si = torch.topk(x, k, dim=0, largest=False)
    return v, i, w, j, tv, ti, sv, si, torch.argsort(x, descending=True)


@everypath.compile
def activations(x: torch.Tensor):
    return (F.softplus(x), F.softplus(x, beta=2.0), F.softplus(x, 0.5, 1.0), F.hardswish(x),
            F.hardswish(x) * 2 + 1)


@pytest.mark.parametrize("dtype", [torch.float32, torch.uint8])
def test_argmax_cumsum_stable_sort_ties_nan_views(dtype):
    for x in views(dtype):
        same_as_eager(orders, lambda x=x: (x,))
    same_as_eager(orders, lambda: (torch.tensor([[1.0, math.nan, 3.0, math.nan], [2, 2, math.nan, 1]]).to(dtype),))
    same_as_eager(orders, lambda: (ties((3, 1), dtype),))


def test_bool_cumsum_and_sort():
    for x in views(torch.bool) + (ties((0, 4), torch.bool),):
        same_as_eager(bool_orders, lambda x=x: (x,))


def _valid(x, dim: int, v, i, want_v) -> None:
    assert_same(v, want_v)
    picked = x.gather(dim, i)
    assert torch.equal(picked.nan_to_num(-7), v.nan_to_num(-7)), "indices do not pick the values"
    assert bool((i.sort(dim).values.diff(dim=dim) > 0).all()), "repeated index"


@pytest.mark.parametrize("dtype", [torch.float32])
def test_unstable_sort_and_topk_values_and_valid_indices(dtype):
    for x in views(dtype) + (ties((40, 300), dtype, 7),):
        for k in (0, 1, 3, x.shape[0]):
            got = loose_orders(x, k)
            want_sort = torch.sort(x)
            want_desc = torch.sort(x, 0, True)
            _valid(x, -1, got[0], got[1], want_sort.values)
            _valid(x, 0, got[2], got[3], want_desc.values)
            _valid(x, -1, got[4], got[5], torch.topk(x, k).values)
            _valid(x, 0, got[6], got[7], torch.topk(x, k, dim=0, largest=False).values)
            assert torch.equal(x.gather(1, got[8]).nan_to_num(-7), torch.sort(x, descending=True).values.nan_to_num(-7))


def test_topk_k_out_of_range_and_0d():
    x = ties((4, 5), torch.float32)
    same_as_eager(loose_orders, lambda: (x, 6))  # RuntimeError: selected index k out of range
    same_as_eager(loose_orders, lambda: (x, -1))


def test_errors_match_torch():
    same_as_eager(orders, lambda: (torch.zeros(0, 3),))  # IndexError: dim to be specified / non-zero size
    with pytest.raises(everypath.CompileError, match="does not support bool input"):
        searches(torch.zeros(2, 2, dtype=torch.bool))

    @everypath.compile
    def bad_dim(x: torch.Tensor):
        return torch.sort(x, dim=2)

    with pytest.raises(everypath.CompileError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\]"):
        bad_dim(torch.zeros(2, 2))

    @everypath.compile
    def runtime_flag(x: torch.Tensor, d: bool):
        return torch.sort(x, descending=d)

    with pytest.raises(everypath.CompileError, match="'descending' must be a compile-time constant"):
        runtime_flag(torch.zeros(2), True)


@pytest.mark.parametrize("dtype", [torch.float32])
def test_softplus_hardswish(dtype):
    g = torch.Generator().manual_seed(3)
    x = (torch.randn(7, 9, generator=g, dtype=torch.float64) * 12).to(dtype)  # past softplus' threshold too
    x[0, :4] = torch.tensor([-3.0, 3.0, 20.0, math.nan], dtype=dtype)
    same_as_eager(activations, lambda: (x,))
    same_as_eager(activations, lambda: (x.t(),))
    same_as_eager(activations, lambda: (x[:, ::3],))


def test_activations_refuse_integers_like_torch():
    with pytest.raises(everypath.CompileError):
        activations(torch.ones(3, dtype=torch.int64))


# ---- F.interpolate --------------------------------------------------------------------------------
@everypath.compile
def resized(x: torch.Tensor, h: int, w: int, f: float):
    return (F.interpolate(x, size=(h, w)), F.interpolate(x, scale_factor=f), F.interpolate(x, size=h),
            F.interpolate(x, scale_factor=(2.0, 0.5)), F.interpolate(x, size=(h, w), mode="bilinear"),
            F.interpolate(x, size=(h, w), mode="bilinear", align_corners=True),
            F.interpolate(x, scale_factor=f, mode="bilinear"),
            F.interpolate(x, scale_factor=f, mode="bilinear", align_corners=True),
            F.interpolate(x, (2 * h, w), None, "nearest"))


@everypath.compile
def resized_1d(x: torch.Tensor, n: int, f: float):
    return F.interpolate(x, size=n), F.interpolate(x, scale_factor=f), F.interpolate(x, n, mode="nearest")


def test_interpolate_nearest_bilinear_align_corners():
    g = torch.Generator().manual_seed(5)
    x = torch.randn(2, 3, 5, 7, generator=g)
    for args in ((x, 8, 11, 1.7), (x, 3, 4, 0.6), (x, 5, 7, 2.0), (x, 1, 1, 3.0), (x.transpose(2, 3), 9, 2, 1.3),
                 (x[:, :, ::2, 1:], 4, 4, 2.5), (x, 0, 3, 1.5)):
        same_as_eager(resized, lambda args=args: args)
    one = torch.randn(1, 1, 1, 1, generator=g)
    same_as_eager(resized, lambda: (one, 3, 2, 4.0))


def test_interpolate_1d_and_uint8():
    g = torch.Generator().manual_seed(6)
    x = torch.randint(0, 255, (2, 3, 9), generator=g).to(torch.uint8)
    for n, f in ((4, 0.5), (18, 2.0), (13, 1.37), (0, 1.0)):
        same_as_eager(resized_1d, lambda n=n, f=f: (x, n, f))


def test_interpolate_refusals():
    with pytest.raises(everypath.CompileError, match="only 'nearest' and 'bilinear'"):
        everypath.compile(lambda_free_mode)(torch.ones(1, 1, 2, 2))
    with pytest.raises(everypath.CompileError, match="align_corners option can only be set"):
        everypath.compile(nearest_aligned)(torch.ones(1, 1, 2, 2))


def lambda_free_mode(x: torch.Tensor):
    return F.interpolate(x, size=3, mode="bicubic")


def nearest_aligned(x: torch.Tensor):
    return F.interpolate(x, size=3, align_corners=True)

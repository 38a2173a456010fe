"""torch.Tensor at the boundary of compiled code: arguments cross as NumPy views (same memory), results
come back as tensors (torch.from_numpy, same memory), tensors that cannot cross are refused with a
TypeError naming the parameter; per-call specialisation on dtype and rank; typing by torch's rules."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import everypath  # noqa: E402
from everypath.base.errors import CompileError  # noqa: E402
from everypath.lowering.torch_boundary import torch_broadcast_message  # noqa: E402
from everypath.base.types import ArrayT, DType, ScalarT  # noqa: E402
from tests.variants._harness import infer  # noqa: E402


@everypath.compile
def scale_in_place(x: torch.Tensor, k: float):
    x *= k
    x[0] = -1.0
    return x


@everypath.compile
def views_of(x: torch.Tensor):
    return x, x.t(), x[1:], x.view(-1), x.numpy(), x.sum().item(), x.shape[0], torch.sum(x)


@everypath.compile
def generic(x):
    return x * 2 + 1


@everypath.compile
def dtypes(x: torch.Tensor):
    y = x.to(torch.float64)
    z = torch.zeros(2, dtype=torch.int32)
    if x.dtype == torch.float32:
        return y + 1, z
    return y - 1, z


@everypath.compile
def local_import(x: torch.Tensor):
    import torch.nn.functional as G

    return G.relu(x)


def test_arguments_share_memory():
    x = torch.arange(6.0).reshape(2, 3)
    r = scale_in_place(x, 2.0)
    assert r is x  # the argument itself comes back as the very tensor passed
    assert x.tolist() == [[-1.0, -1.0, -1.0], [6.0, 8.0, 10.0]]


def test_results_are_views_and_keep_python_types():
    x = torch.arange(6.0).reshape(2, 3)
    same, t, rows, flat, arr, total, n, s = views_of(x)
    assert same is x
    for v in (t, rows, flat):
        assert isinstance(v, torch.Tensor) and np.shares_memory(v.numpy(), x.numpy())
    assert t.shape == (3, 2) and t.stride() == (1, 3)
    assert isinstance(arr, np.ndarray) and np.shares_memory(arr, x.numpy())
    assert type(total) is float and total == 15.0 and type(n) is int and n == 2
    assert isinstance(s, torch.Tensor) and s.dim() == 0 and s.dtype == torch.float32
    x[0, 0] = 100.0  # the views see the caller's later writes too
    assert t[0, 0] == 100.0 and flat[0] == 100.0


def test_specialises_per_dtype_and_rank():
    for v in (torch.ones(3), torch.ones(2, 2, dtype=torch.float64), torch.arange(4, dtype=torch.int32), torch.tensor(2.0)):
        r = generic(v)
        want = v * 2 + 1
        assert r.dtype == want.dtype and r.shape == want.shape and torch.equal(r, want)
    assert len(generic._by_types) == 4


def test_torch_dtypes_are_constants():
    y, z = dtypes(torch.ones(2))
    assert y.dtype == torch.float64 and y.tolist() == [2.0, 2.0] and z.dtype == torch.int32
    y, _ = dtypes(torch.ones(2, dtype=torch.float64))
    assert y.tolist() == [0.0, 0.0]


def test_import_inside_the_function():
    assert local_import(torch.tensor([-1.0, 2.0])).tolist() == [0.0, 2.0]


@pytest.mark.parametrize("make,words", [
    (lambda: torch.ones(2, requires_grad=True), "requires grad"),
    (lambda: torch.ones(2, dtype=torch.bfloat16), "dtype torch.bfloat16"),
    (lambda: torch.ones(2, device="meta"), "device 'meta'"),
    (lambda: torch.ones(2, 2).to_sparse(), "torch.sparse_coo"),
])
def test_refused_tensors_name_the_parameter(make, words):
    with pytest.raises(TypeError) as exc:
        generic(make())
    assert "generic() argument 'x'" in str(exc.value) and words in str(exc.value)


def test_numpy_array_for_a_tensor_annotation():
    with pytest.raises(CompileError, match="does not match annotation 'torch.Tensor'"):
        views_of(np.ones((2, 3), np.float32))


@everypath.compile
def numpy_on_tensor(x: torch.Tensor):
    return np.exp(x)


@everypath.compile
def wrong_return(x: torch.Tensor) -> torch.Tensor:
    return x.numpy()


@everypath.compile
def bad_dtype_op(x: torch.Tensor):
    return F.gelu(x)


def test_compile_errors():
    with pytest.raises(CompileError, match=r"np.exp\(\) on a torch.Tensor"):
        numpy_on_tensor(torch.ones(2))
    with pytest.raises(CompileError, match="is annotated 'torch.Tensor'"):
        wrong_return(torch.ones(2))
    with pytest.raises(CompileError, match="\"GeluKernelImpl\" not implemented for 'Long'"):  # torch's own words
        bad_dtype_op(torch.ones(2, dtype=torch.int64))


@everypath.compile
def broadcast(x: torch.Tensor, y: torch.Tensor):
    return torch.sigmoid(x) + y * 2


def test_broadcast_errors_are_torchs():
    with pytest.raises(RuntimeError) as got:
        broadcast(torch.ones(2, 3), torch.ones(4))
    with pytest.raises(RuntimeError) as want:
        broadcast.py_function(torch.ones(2, 3), torch.ones(4))
    assert str(got.value) == str(want.value)
    msg = "operands could not be broadcast together with shapes (2,3) (5,1,4) () "
    assert torch_broadcast_message(msg) == \
        "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 2"
    assert torch_broadcast_message("operands could not be broadcast together with shapes (3,) (1,3) ") == \
        "operands could not be broadcast together with shapes (3,) (1,3) "  # no mismatch torch would see


# typing by torch's rules, checked against torch itself on many operand kinds (no compiling)
_OPERANDS = [torch.ones(2, dtype=d) for d in (torch.bool, torch.uint8, torch.int32, torch.int64, torch.float32,
                                              torch.float64)] + [torch.tensor(1.0, dtype=torch.float64),
                                                                 torch.tensor(3, dtype=torch.int64), 2, 2.5, True]


@pytest.mark.parametrize("key", ["torch.add", "torch.mul", "torch.div", "torch.floor_divide", "torch.lt", "torch.where",
                                 "torch.maximum", "torch.pow"])
def test_binary_typing_is_torchs(key):
    fn = {"torch.where": lambda a, b: torch.where(torch.ones(2, dtype=torch.bool), a, b)}.get(key) or \
        getattr(torch, key.split(".")[1])
    for a in _OPERANDS[:8]:
        for b in _OPERANDS:
            args = (torch.ones(2, dtype=torch.bool), a, b) if key == "torch.where" else (a, b)
            try:
                want = fn(a, b)
            except Exception as exc:  # noqa: BLE001
                with pytest.raises(Exception) as got:  # noqa: B017 - a TypingError with torch's message
                    infer(key, *args)
                assert str(exc).splitlines()[0] == str(got.value), (key, a, b)
                continue
            t = infer(key, *args)
            assert t == ArrayT(DType.of(str(want.dtype)[6:]), want.dim(), torch=True), (key, a, b, t, want.dtype)


@pytest.mark.parametrize("dt", [torch.bool, torch.uint8, torch.int32, torch.int64, torch.float32, torch.float64])
def test_reduction_typing_is_torchs(dt):
    x = torch.ones(2, 3, dtype=dt)
    for key, fn in [("torch.sum", torch.sum), ("torch.amax", torch.amax), ("torch.exp", torch.exp),
                    ("torch.abs", torch.abs), ("tensor.item", lambda v: v.sum().item())]:
        arg = x.sum() if key == "tensor.item" else x
        try:
            want = fn(x)
        except Exception:  # noqa: BLE001
            continue
        t = infer(key, arg)
        if isinstance(want, torch.Tensor):
            assert t == ArrayT(DType.of(str(want.dtype)[6:]), want.dim(), torch=True), (key, dt, t)
        else:
            assert t == ScalarT({bool: DType.BOOL, int: DType.INT64, float: DType.FLOAT64}[type(want)], weak=True)

"""Helpers called with constant arguments are traced once per constant tuple (partial evaluation)."""
from __future__ import annotations

import numpy as np

import everypath as ep
from everypath.tracer.callgraph import MAX_CONST_SPECIALISATIONS, trace_program

I1 = np.ndarray[tuple[int], np.dtype[np.int64]]
F2 = np.ndarray[tuple[int, int], np.dtype[np.float64]]


def wrap_index(x, mode="clip"):
    if mode == "wrap":
        return x % 3
    if mode in ("clip", "nearest"):
        return np.clip(x, 0, 2)
    raise ValueError(f"unknown mode {mode}")


def normalise(a, axis=0, normalize=True, scale=None):
    s = a.sum(axis=axis, keepdims=True)
    out = a / s if normalize else a - s
    if scale is not None:
        out = out * scale
    return out


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


def modes(x: I1):
    return wrap_index(x, mode="wrap"), wrap_index(x), wrap_index(x, "nearest")


def norms(a: F2):
    return normalise(a, axis=1), normalise(a, 0, False), normalise(a, axis=1, scale=2.0)


def fib_const(k: int) -> int:
    return fib(12) + k


def test_string_modes_fold_per_call_site() -> None:
    x = np.arange(-2, 6)
    for got, want in zip(ep.compile(modes)(x), modes(x)):
        np.testing.assert_array_equal(got, want)
        assert got.dtype == want.dtype


def test_axis_flag_and_none_specialise() -> None:
    a = np.arange(1.0, 7.0).reshape(2, 3)
    for got, want in zip(ep.compile(norms)(a), norms(a)):
        np.testing.assert_allclose(got, want)
        assert got.shape == want.shape


def test_one_trace_per_constant_tuple() -> None:
    prog = trace_program(modes)
    keys = {r.consts_key for r in prog.functions if r.qualname == "wrap_index"}
    assert {"mode='wrap'", "mode='clip'", "mode='nearest'"} <= keys


def test_recursion_on_a_folded_constant_is_capped() -> None:
    prog = trace_program(fib_const)
    assert sum(1 for r in prog.functions if r.qualname == "fib" and r.consts) <= MAX_CONST_SPECIALISATIONS
    assert ep.compile(fib_const)(1) == fib_const(1)


def test_true_and_one_are_different_constants() -> None:
    def pick(flag):
        return 1.5 if flag is True else 2.5  # noqa: E712 - `is True` tells True from 1

    assert repr(True) != repr(1)  # the keys differ, though True == 1 and hash(True) == hash(1)
    from everypath.tracer.statics import user_function_ref

    assert user_function_ref(pick, (("flag", True),)) != user_function_ref(pick, (("flag", 1),))

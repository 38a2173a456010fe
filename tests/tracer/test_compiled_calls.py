"""@compile functions calling themselves or each other: traced into the caller's unit like helpers."""
from __future__ import annotations

import math

import numpy as np

import everypath as ep
from everypath.tracer.callgraph import trace_program

F1 = np.ndarray[tuple[int], np.dtype[np.float64]]


@ep.compile
def fact(n: int) -> int:
    if n <= 1:
        return 1
    return n * fact(n - 1)


@ep.compile
def is_even(n: int) -> bool:
    if n == 0:
        return True
    return is_odd(n - 1)


@ep.compile
def is_odd(n: int) -> bool:
    if n == 0:
        return False
    return is_even(n - 1)


@ep.compile(tag="smooth")
def smooth(x: F1, w: float) -> F1:
    out = x.copy()
    for i in range(1, x.shape[0] - 1):
        out[i] = w * x[i] + (1.0 - w) * 0.5 * (x[i - 1] + x[i + 1])
    return out


@ep.compile
def smooth_twice(x: F1) -> float:
    y = smooth(smooth(x, 0.5), 0.25)
    return float(y.sum()) + fact(4)


# the py_functions call the compiled globals, so the references are independent computations


def test_self_recursion_matches_cpython() -> None:
    for n in (0, 1, 5, 15):
        assert fact(n) == math.factorial(max(n, 1))


def test_mutual_recursion_between_compiled_functions() -> None:
    for n in (0, 7, 10):
        assert is_even(n) is (n % 2 == 0)
        assert is_odd(n) is (n % 2 == 1)


def test_compiled_callee_is_traced_into_the_caller() -> None:
    x = np.linspace(0.0, 3.0, 9) ** 2
    ref = smooth.py_function(smooth.py_function(x, 0.5), 0.25)  # plain CPython + NumPy
    assert smooth_twice(x) == float(ref.sum()) + 24
    prog = trace_program(smooth_twice.py_function)
    assert {r.qualname for r in prog.functions} == {"smooth_twice", "smooth", "fact"}

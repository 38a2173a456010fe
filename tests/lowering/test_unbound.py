"""Reading a local before assignment raises CPython's UnboundLocalError (lowering/definite.py), compared
against the uncompiled function; definitely assigned reads carry no check."""
from __future__ import annotations

import numpy as np
import pytest

import everypath

F64 = np.ndarray[tuple[int], np.dtype[np.float64]]


def last_positive(x: F64) -> float:
    for v in x:
        if v > 0:
            found = v
    return found


def first_index(x: F64, t: float) -> int:
    i = 0
    while i < x.shape[0]:
        if x[i] >= t:
            hit = i
            break
        i += 1
    return hit


def loop_target(n: int) -> int:
    for k in range(n):  # noqa: B007 - the target is read after the loop
        pass
    return k


def branch(n: int) -> int:
    if n > 0:
        v = 1
    elif n < -5:
        v = 2
    return v * 10


def after_use(n: int) -> int:
    total = 0
    for i in range(n):
        if i > 0:
            total += prev  # noqa: F821 - bound by the previous iteration
        prev = i * i  # noqa: F841
    return total


def never(n: int) -> int:
    if n > 100:
        w = 1
        return n + w
    return w + n  # never assigned on the paths reaching here


def array_local(x: F64, flag: bool) -> F64:
    if flag:
        y = x * 2.0
    return y + 1.0


CASES = [
    (last_positive, [(np.array([-1.0, 3.0, -2.0]),), (np.array([-1.0, -2.0]),), (np.zeros(0),)]),
    (first_index, [(np.arange(5.0), 3.0), (np.arange(5.0), 9.0)]),
    (loop_target, [(3,), (0,)]),
    (branch, [(2,), (-9,), (0,), (-3,)]),
    (after_use, [(0,), (1,), (5,)]),
    (never, [(101,), (3,)]),
    (array_local, [(np.ones(3), True), (np.ones(3), False)]),
]


def _outcome(fn, args):
    try:
        return "ok", fn(*args)
    except Exception as exc:  # noqa: BLE001 - the exception is the result compared
        return type(exc), str(exc)


@pytest.mark.parametrize("fn, inputs", CASES, ids=[c[0].__name__ for c in CASES])
def test_same_as_cpython(fn, inputs):
    compiled = everypath.compile(fn)
    for args in inputs:
        want, got = _outcome(fn, args), _outcome(compiled, args)
        if want[0] == "ok":
            assert got[0] == "ok", (args, got)
            np.testing.assert_array_equal(got[1], want[1])
            assert type(got[1]) is type(want[1])
        else:
            assert got == want, args


def test_definitely_assigned_reads_are_free():
    def kernel(x: F64, t: float) -> float:
        s = 0.0
        if t > 0:
            m = t
        else:
            m = -t
        while True:
            k = m * 2.0
            if k > 0.0 or k <= 0.0:
                break
        for v in x:
            s += v * m + k
        return s

    compiled = everypath.compile(kernel)
    assert compiled(np.arange(3.0), -1.5) == kernel(np.arange(3.0), -1.5)
    assert "__set" not in compiled.cpp_source


def test_only_dead_stores_is_a_compile_error():
    def kernel(n: int) -> int:
        if n > 1:
            return n
        return w  # noqa: F821 - the only store is unreachable
        w = 1  # noqa: F841

    with pytest.raises(everypath.CompileError, match="'w' is read here but every store to it is unreachable"):
        everypath.compile(kernel)(3)

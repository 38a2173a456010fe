"""Sign facts from a tested condition (lowering/guard_facts.py): `while j >= 0 and ...` proves `x[j]` and
`x[j + 1]` need no sign test; every way the fact can go stale (an or-chain, an assignment between the test
and the read, a loop that re-assigns the name) keeps the check, and compiled code raises or wraps exactly
as CPython + NumPy do on the same inputs."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import everypath
from tests.lowering.test_boundscheck import Vec, _accessors, _check


def insertion_desc(x: Vec) -> Vec:
    out = x.copy()
    for i in range(1, out.shape[0]):
        key = out[i]
        j = i - 1
        while 0 <= j and out[j] < key:  # the constant on the left
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = key
    return out


def skip_three(x: Vec, j: int) -> float:
    if j > 2:
        return x[j - 3]  # j >= 3 here
    return -1.0


def reject_negative(x: Vec, j: int) -> float:
    if j < 0:
        raise ValueError("negative index")
    return x[j]


def or_chain(x: Vec, j: int, more: bool) -> float:
    total = 0.0
    while j >= 0 or more:  # true with j < 0 when more: x[j] wraps, then leaves the array
        total += x[j]
        j -= 1
        if j < -7:
            break
    return total


def assigned_between(x: Vec, j: int) -> float:
    if j >= 0:
        j = j - 4
        return x[j]
    return 0.0


def stale_in_loop(x: Vec, j: int) -> float:
    total = 0.0
    if j >= 0:
        for _ in range(4):
            total += x[j]
            j -= 2
    return total


def ok_then_changed(x: Vec, j: int) -> float:
    ok = j >= 0
    j -= 3
    if ok:
        return x[j]
    return 0.0


PROVEN: list[Callable[..., Any]] = [insertion_desc, skip_three, reject_negative]
CHECKED: list[Callable[..., Any]] = [or_chain, assigned_between, stale_in_loop, ok_then_changed]
RNG = np.random.default_rng(11)


@pytest.mark.parametrize("fn", PROVEN, ids=lambda f: f.__name__)
def test_a_tested_sign_drops_the_check(fn: Callable[..., Any]) -> None:
    accs, _ = _accessors(fn)
    assert accs and all(a in ("get_inbounds", "get_nonneg", "get_unit_inbounds") for a in accs), accs
    assert "get_inbounds" in accs or "get_nonneg" in accs


@pytest.mark.parametrize("fn", CHECKED, ids=lambda f: f.__name__)
def test_a_stale_or_partial_fact_keeps_the_sign_check(fn: Callable[..., Any]) -> None:
    accs, _ = _accessors(fn)
    assert accs and not accs <= {"get_inbounds", "get_nonneg", "get_unit_inbounds"}, accs


def test_results_and_errors_match_cpython() -> None:
    x = np.arange(5.0)
    for j in (-9, -6, -5, -1, 0, 2, 3, 4, 5, 7, 8):
        for fn in (skip_three, reject_negative, assigned_between, stale_in_loop, ok_then_changed):
            _check(everypath.compile(fn), fn, (x, j))
        for more in (False, True):
            _check(everypath.compile(or_chain), or_chain, (x, j, more))
    f = everypath.compile(insertion_desc)
    for v in (np.zeros(0), np.array([1.0]), RNG.random(40), np.repeat(RNG.random(5), 3)):
        _check(f, insertion_desc, (v,))

"""Differential tests: every corpus kernel compiled by everypath against CPython + NumPy.

Same inputs (deep copies), same result types and values, same argument
mutations, and the same exception type and message when the kernel raises.
"""
from __future__ import annotations

import copy

import numpy as np
import pytest

import everypath
from tests.corpus._loader import assert_same_result, load_corpus

KERNELS = load_corpus()


def _run(fn, args):
    try:
        return "ok", fn(*args)
    except Exception as exc:  # compared by type and message
        return "raised", exc


@pytest.mark.parametrize("kernel", KERNELS, ids=[k.name for k in KERNELS])
def test_kernel_matches_cpython(kernel) -> None:
    compiled = everypath.compile(kernel.entry)
    rng = np.random.default_rng(1234)
    for i, case in enumerate(kernel.cases(rng)):
        py_args, ep_args = copy.deepcopy(case), copy.deepcopy(case)
        want = _run(kernel.entry, py_args)
        got = _run(compiled, ep_args)
        where = f"{kernel.name} case {i}"
        if want[0] == "raised":
            assert got[0] == "raised", f"{where}: CPython raised {want[1]!r}, everypath returned {got[1]!r}"
            assert type(got[1]) is type(want[1]), f"{where}: {got[1]!r} != {want[1]!r}"
            assert str(got[1]) == str(want[1]), where
            continue
        if got[0] == "raised":
            raise AssertionError(f"{where}: everypath raised {got[1]!r}") from got[1]
        assert_same_result(want[1], got[1], rtol=kernel.rtol, where=where)
        for j in kernel.mutates:
            assert_same_result(py_args[j], ep_args[j], rtol=kernel.rtol, where=f"{where} argument {j}")

"""The loops and threads paths of a fused element-wise site share one closure (issue 13: the threads
path's serial fallback and row walks are then the loops path's instances, compiled once), and the
threads path still computes every element exactly as the loops path does: contiguous, strided,
broadcast and transposed operands above the threads threshold (1 << 22 elements)."""
from __future__ import annotations

import re

import numpy as np
import pytest

import everypath
from everypath.base.annotations import describe_value_type
from everypath.base.settings import Settings
from everypath.lowering.pipeline import generate
from everypath.variants.paths import host_path

S2 = np.ndarray[tuple[int, int], np.dtype[np.float32]]

pytestmark = pytest.mark.skipif(not host_path("threads").available, reason="no threads path on this host")


def shifted_exp(x: S2, row: S2) -> S2:
    return np.exp(x - row) * np.float32(0.5) + x / 3


def test_unit_declares_one_closure_for_loops_and_threads() -> None:
    x = np.zeros((3, 4), np.float32)
    src = generate(shifted_exp, Settings(), (describe_value_type(x), describe_value_type(x))).source
    names = re.findall(r"auto (ep_f\d+) = \[&\]", src)
    threads = re.findall(r"ep::threads::map<float, 2>\((\w+), ", src)
    assert names and threads, src
    assert sorted(threads) == sorted(names), src  # every threads site calls a named closure ...
    for name in names:  # ... which its loops variant calls too
        assert src.count(f"ep::map<float, 2>({name}, ") == 1, src


def test_threads_path_with_the_shared_closure_is_the_loops_path(tmp_path) -> None:
    both = everypath.compile(shifted_exp, settings=Settings(cache_dir=tmp_path))  # every path in the unit
    loops = everypath.compile(shifted_exp, settings=Settings(cache_dir=tmp_path, force_path="loops"))
    rng = np.random.default_rng(13)
    big = rng.standard_normal((2100, 4002)).astype(np.float32)  # 8.4M elements: the threads variant's size
    row = rng.standard_normal((1, 2001)).astype(np.float32)
    cases = [
        (big[:, :2001], row),               # strided rows, a broadcast row: map_into_slabs' row walk
        (big[:, ::2], row),                 # a stride-2 view
        (big[:2001, :2001].T, row),         # transposed: walked in memory order
        (np.ascontiguousarray(big[:, :2001]), np.ascontiguousarray(big[:, 2001:])),  # contiguous: the flat split
    ]
    for i, (x, r) in enumerate(cases):
        got = both(x, r)
        if i < 3:  # row walks: the very map_rows instance the loops path runs, bit-identical
            np.testing.assert_array_equal(got, loops(x, r), err_msg=f"case {i}")
        else:  # the flat split's chunk ends take libm's scalar expf where the loop's body took libmvec's
            np.testing.assert_array_max_ulp(got, loops(x, r), maxulp=4)  # the last ulp of exp, scaled and summed
        np.testing.assert_allclose(got, shifted_exp(x, r), rtol=2e-6, atol=1e-6, err_msg=f"case {i}")
    tiny = np.float32([[1.5]])
    np.testing.assert_array_equal(both(tiny, tiny), loops(tiny, tiny))
    empty = np.zeros((0, 5), np.float32)
    assert both(empty, np.zeros((1, 5), np.float32)).shape == (0, 5)

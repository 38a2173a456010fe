"""The fixed-seed fuzzing budget: generated kernels compile to C++ that builds, runs and agrees with NumPy."""
from __future__ import annotations

import collections

import numpy as np

from tests.fuzz.programs import module_source, program
from tests.fuzz.runner import Kind, differ, run_isolated

SEED = 12
COUNT = 24  # the make-test budget; bench/fuzz_bench.py runs hundreds


def test_generated_kernels_agree_with_numpy():
    out = run_isolated(SEED, COUNT)
    assert len(out) == COUNT
    counts = collections.Counter(o.kind for o in out)
    bad = [f"{o.kind.name} {o.name}: {o.detail[:800]}\n{o.source}" for o in out
           if o.kind in (Kind.WRONG, Kind.CRASH, Kind.GXX)]
    assert not bad, "\n".join(bad)
    assert counts[Kind.REFUSED] <= COUNT // 4, counts  # well-typed by construction, mostly


def test_programs_are_deterministic_and_parse():
    a, b = program(SEED, 3), program(SEED, 3)
    assert a == b and a.inputs(0)[0].tobytes() == b.inputs(0)[0].tobytes()
    compile(module_source([program(SEED, i) for i in range(30)]), "<fuzz>", "exec")


def test_comparison_is_strict_where_numpy_is():
    assert differ(np.int64(3), 3, 1.0)  # the Python type of a scalar is part of the result
    assert differ(np.ones(2, np.float32), np.ones(2), 1.0)  # and the dtype of an array
    assert not differ(np.float32(1.0), np.float32(1.0 + 1e-7), 1.0)
    assert differ(np.array([1, 2]), np.array([1, 3]), 1.0)
    # float64 results of float32 intermediates: float32's relative tolerance (an ulp of a float32 cos, bench seed 9001)
    ref, got = np.array([5.188280165195465]), np.array([5.188280463218689])
    assert differ(ref, got, 1.0) and not differ(ref, got, 1.0, narrow=True)
    assert not differ((ValueError("a"), None), (ValueError("b"), None), 1.0)
    assert differ(ValueError("a"), IndexError("a"), 1.0)

"""Sandboxed live-value observation: types seen in a separate, limited process."""
from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

import everypath
from everypath.base.types import FLOAT, INT, ArrayT, DType, ScalarT
from everypath.tracer.sandbox import Observation, SandboxError, observe


def _kernel(x, k):
    y = x * k
    n = len(x)
    print("prints must not disturb the reply")
    return y, n


def test_observe_records_params_locals_and_result() -> None:
    obs = observe(_kernel, (np.ones((2, 3), np.float32), 2.0))
    assert obs.params == (ArrayT(DType.FLOAT32, 2), FLOAT)
    assert obs.locals["y"] == {ArrayT(DType.FLOAT32, 2)}
    assert obs.locals["n"] == {INT}
    assert obs.result is not None and obs.raised is None


def test_observe_records_exceptions_as_data() -> None:
    def bad(x):
        raise ValueError("no")

    obs = observe(bad, (1,))
    assert obs.raised == "ValueError: no"


def test_observe_is_stopped_by_its_timeout() -> None:
    def spin(n):
        while True:
            n += 1

    with pytest.raises(SandboxError, match="did not finish"):
        observe(spin, (0,), timeout=2.0)


def test_observe_memory_limit() -> None:
    def hog(n):
        return np.ones(n)

    obs = observe(hog, (10**10,), memory_mb=512)  # 80 GB: refused inside the sandbox, not in the caller
    assert obs.raised is not None and "MemoryError" in obs.raised


def test_open_rank_is_completed_per_call() -> None:
    @everypath.compile
    def scale(x: npt.NDArray[np.float64], k):
        return x * k

    a = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(scale(a, 2.0), a * 2.0)
    b = np.arange(4.0)
    out = scale(b, 3)
    assert out.dtype == np.float64 and out.shape == (4,)
    np.testing.assert_array_equal(out, b * 3)


def test_disagreement_with_observation_is_a_compile_error() -> None:
    from everypath.lowering.infer import ProgramTyper
    from everypath.lowering.pipeline import _resolve_params, check_observation
    from everypath.tracer.callgraph import trace_program

    def f(x: np.ndarray[tuple[int], np.dtype[np.float64]]):
        y = x + 1.0
        return y

    program = trace_program(f)
    types, _ = _resolve_params(program.functions[program.entry], None)
    spec = ProgramTyper(program.functions).run(program.entry, types)
    lying = Observation(params=types, locals={"y": frozenset({ArrayT(DType.INT64, 1)})})
    with pytest.raises(everypath.CompileError, match="inference says 'y' is float64"):
        check_observation(spec, lying)
    honest = Observation(params=types, locals={"y": frozenset({ArrayT(DType.FLOAT64, 1)})},
                         result=ArrayT(DType.FLOAT64, 1))
    check_observation(spec, honest)
    assert ScalarT(DType.FLOAT64) != FLOAT  # Python float and np.float64 stay distinct types

"""The public surface: the decorator, argument checking, exact result types, errors."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

import everypath
from everypath import CompileError, compile

F64_2 = np.ndarray[tuple[int, int], np.dtype[np.float64]]
F64 = np.ndarray[tuple[int], np.dtype[np.float64]]


@compile
def total(x: F64_2, k: int) -> float:
    s = 0.0
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            if x[i, j] > k:
                s += x[i, j]
    return s


@compile(tag="t", description="identity and views", metadata={"owner": "tests"}, targets=("host",), sandbox=False)
def views(x: F64) -> tuple[F64, F64, float, int, bool]:
    return x, x[1:], float(x.shape[0]), len(x), x.shape[0] > 2


def test_bare_and_keyword_forms_compile_and_keep_the_signature() -> None:
    a = np.arange(12.0).reshape(3, 4)
    assert total(a, 3) == total.py_function(a, 3)
    assert total.__name__ == "total" and total.__wrapped__ is total.py_function
    assert views.options.tag == "t" and views.options.metadata == {"owner": "tests"}


def test_results_have_cpython_types_and_views_share_memory() -> None:
    x = np.arange(4.0)
    same, tail, n_float, n_int, flag = views(x)
    assert same is x  # `return x` hands back the caller's object
    assert tail.base is x and np.shares_memory(tail, x)
    assert type(n_float) is float and type(n_int) is int and type(flag) is bool
    assert type(total(np.ones((2, 2)), 0)) is np.float64  # NumPy scalar where NumPy gives one


def test_wrong_arguments_name_the_parameter_and_annotation() -> None:
    with pytest.raises(TypeError, match=r"total\(\) argument 'x': expected F64_2 \(np\.ndarray\[tuple\[int, int\], "
                                        r"np\.dtype\[np\.float64\]\]\), got ndarray of dtype int64 with ndim 2"):
        total(np.ones((2, 2), dtype=np.int64), 1)
    with pytest.raises(TypeError, match="argument 'k'"):
        total(np.ones((2, 2)), "3")
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'k'"):
        total(np.ones((2, 2)))


def test_non_contiguous_arguments_are_handled() -> None:
    a = np.arange(24.0).reshape(4, 6)[::2, ::3]
    assert total(a, 1) == total.py_function(a, 1)


def test_unknown_keywords_and_bad_option_types_are_clear_errors() -> None:
    with pytest.raises(TypeError, match="unknown keyword argument"):
        compile(speed="max")
    with pytest.raises(TypeError, match=r"metadata=\.\.\.\) must be a dict"):
        compile(metadata=[1])


def test_compile_errors_are_picklable_and_gcc_formatted() -> None:
    def bad(x: F64) -> float:
        return x[0, 0]

    with pytest.raises(CompileError) as info:
        compile(bad).build()
    err = pickle.loads(pickle.dumps(info.value))
    first = str(err).splitlines()[0]
    assert first.startswith(f"{__file__}:") and ": error: too many indices" in first


def test_exceptions_from_compiled_code_keep_type_and_message() -> None:
    @compile
    def checked(x: F64, n: int) -> float:
        if n < 0:
            raise ValueError("n must be non-negative")
        assert n < 100, "n too large"
        return x[0] / n

    x = np.ones(3)
    # (pytest rewrites asserts in this file, so CPython's messages are spelled out here)
    for n, exc, msg in ((-1, ValueError, "n must be non-negative"), (200, AssertionError, "n too large")):
        with pytest.raises(exc) as got:
            checked(x, n)
        assert str(got.value) == msg


def test_cold_compile_and_warm_cache(tmp_path) -> None:
    import time

    from everypath.base.settings import Settings

    def kern(x: F64, k: int) -> float:
        s = 0.0
        for v in x:
            s += v * k
        return s

    settings = Settings(cache_dir=tmp_path)
    t0 = time.perf_counter()
    cold = everypath.api.CompiledFunction(kern, everypath.api.CompileOptions(), settings).build()
    assert not cold.from_cache and time.perf_counter() - t0 < 60  # seconds; the bench reports the real figure
    warm = everypath.api.CompiledFunction(kern, everypath.api.CompileOptions(), settings).build()
    assert warm.from_cache and warm.so_path == cold.so_path

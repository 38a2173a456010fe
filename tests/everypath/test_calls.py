"""Calling a compiled function: the C entry (everypath.lowering._dispatch) and the Python path it falls back to.

Every answer is checked against the Python function itself (CPython's result, or CPython's exception and
message for a call that cannot bind); the fast path must not change any of them, whatever came before:
a wrong call, a keyword call, a re-bound module global, a new argument type for an open signature.
"""
from __future__ import annotations

import importlib.util
import itertools
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import everypath

_count = itertools.count()

Vec = np.ndarray[tuple[int], np.dtype[np.float64]]


def _module(tmp_path: Path, source: str) -> ModuleType:
    """Import source as a fresh module from a file (its globals are what the kernels read)."""
    name = f"ep_calls_{os.getpid()}_{next(_count)}"
    path = tmp_path / f"{name}.py"
    path.write_text("import numpy as np\nimport everypath as ep\n" + textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _same(compiled: Any, *args: Any, **kwargs: Any) -> Any:
    """The compiled answer next to CPython's (value and type)."""
    want = compiled.py_function(*args, **kwargs)
    got = compiled(*args, **kwargs)
    assert type(got) is type(want), (got, want)
    np.testing.assert_array_equal(got, want)
    return got


def _same_error(compiled: Any, *args: Any, **kwargs: Any) -> str:
    """A call that cannot bind raises CPython's exception, with CPython's message."""
    with pytest.raises(TypeError) as want:
        compiled.py_function(*args, **kwargs)
    with pytest.raises(TypeError) as got:
        compiled(*args, **kwargs)
    assert str(got.value) == str(want.value)
    return str(got.value)


@everypath.compile
def mul_add(x: float, y: float) -> float:
    return x * y + 1.0


@everypath.compile
def first_sum(a: Vec, b: Vec) -> float:
    return float(a[0] + b[0])


@everypath.compile
def scaled(a: np.ndarray, k: int = 2) -> float:  # rank open: one build per argument types
    return float(a[0] * k)


def test_scalars_positional_and_keyword_calls() -> None:
    _same(mul_add, 2.0, 3.0)
    assert mul_add._dispatch_entries == 1  # published: the calls below are made in C
    _same(mul_add, 2.0, 3.0)
    _same(mul_add, x=2.0, y=3.5)
    _same(mul_add, y=0.5, x=-4.0)
    _same(mul_add, 1.5, y=2.0)
    _same(mul_add, 2, 3.0)  # an int for a float parameter
    assert mul_add(1e308, 10.0) == mul_add.py_function(1e308, 10.0) == float("inf")


def test_arrays() -> None:
    a, b = np.arange(4.0), np.linspace(1.0, 2.0, 4)
    _same(first_sum, a, b)
    _same(first_sum, a[::2], b[1:])  # strided views
    _same(first_sum, b=a, a=b)
    _same(first_sum, a.astype(">f8"), b)  # byte-swapped: passed as a native copy


def test_wrong_type_then_right_type() -> None:
    _same(mul_add, 1.0, 2.0)
    with pytest.raises(TypeError, match=r"mul_add\(\) argument 'x': expected float, got str"):
        mul_add("a", 2.0)
    with pytest.raises(TypeError, match=r"mul_add\(\) argument 'y': expected float, got list"):
        mul_add(1.0, y=[2.0])
    _same(mul_add, 1.0, 2.0)
    with pytest.raises(TypeError, match=r"first_sum\(\) argument 'b': expected Vec \(np\.ndarray\[tuple\[int\], "
                                        r"np\.dtype\[np\.float64\]\]\), got ndarray of dtype int64 with ndim 1"):
        first_sum(np.zeros(2), np.zeros(2, dtype=np.int64))
    with pytest.raises(TypeError, match="got ndarray of dtype float64 with ndim 2"):
        first_sum(np.zeros(2), np.zeros((2, 2)))
    _same(first_sum, np.ones(2), np.ones(3))


def test_bool_is_refused_for_float_and_int_parameters() -> None:
    # CPython would keep a bool a bool (True * 2.0 is fine, but `return k` gives True): one compiled slot cannot
    assert mul_add.py_function(True, 2.0) == 3.0
    with pytest.raises(TypeError, match=r"mul_add\(\) argument 'x': expected float, got bool"):
        mul_add(True, 2.0)
    with pytest.raises(TypeError, match=r"argument 'y': expected float, got numpy\.bool"):
        mul_add(1.0, y=np.bool_(False))
    _same(mul_add, 1.0, 2.0)


def test_binding_errors_are_cpythons() -> None:
    _same(mul_add, 1.0, 2.0)
    assert _same_error(mul_add, 1.0) == "mul_add() missing 1 required positional argument: 'y'"
    _same_error(mul_add)
    _same_error(mul_add, 1.0, 2.0, 3.0)
    _same_error(mul_add, 1.0, 2.0, z=3.0)
    _same_error(mul_add, 1.0, x=2.0)
    _same(mul_add, 1.0, 2.0)


def test_open_signature_specialises_per_argument_types() -> None:
    f64, i64, f32 = np.arange(1.0, 4.0), np.arange(1, 4), np.arange(1.0, 4.0, dtype=np.float32)
    _same(scaled, f64)
    _same(scaled, i64)
    _same(scaled, f64, 3)
    _same(scaled, f32, 3)
    assert scaled._dispatch_entries >= 3  # each positional key the C entry can check is tried there
    _same(scaled, i64)  # back to an earlier build
    _same(scaled, a=f64, k=5)  # keywords: the Python path
    _same(scaled, f64.astype(">f8"))  # dtype('>f8') != dtype('<f8'): another key, the same build
    _same(scaled, f64[::-1])
    _same(scaled, f64)


def test_rebinding_a_global_after_the_fast_path(tmp_path: Path) -> None:
    m = _module(tmp_path, """
        K = 2.0

        @ep.compile
        def axpy(x: float, y: float) -> float:
            return x * K + y
    """)
    _same(m.axpy, 1.5, 2.0)
    _same(m.axpy, 1.5, 2.0)  # by the C entry, guard holding
    assert m.axpy._dispatch_entries == 1
    m.K = 5.0  # the C entry sees the guard fail: Python recompiles
    _same(m.axpy, 1.5, 2.0)
    built = m.axpy._native
    m.K = float("5.0")  # equal value, new object: same build, new guard
    _same(m.axpy, 1.5, 2.0)
    assert m.axpy._native is built and m.axpy._dispatch_entries == 1
    m.K = 2.0
    _same(m.axpy, 1.5, 2.0)


def test_module_array_is_read_at_every_call(tmp_path: Path) -> None:
    m = _module(tmp_path, """
        TABLE = np.arange(8.0)

        @ep.compile
        def lookup(i: int, scale: float = 2.0) -> float:
            return float(TABLE[i] * scale)
    """)
    _same(m.lookup, 3)
    _same(m.lookup, -1, 0.5)
    m.TABLE[3] = 40.0  # in place: seen
    _same(m.lookup, 3)
    m.TABLE = np.linspace(0.0, 1.0, 3)  # re-bound, same dtype and rank: the same build reads the new array
    _same(m.lookup, 2, scale=3.0)
    with pytest.raises(IndexError) as want:
        m.lookup.py_function(5)
    with pytest.raises(IndexError) as got:
        m.lookup(5)
    assert str(got.value) == str(want.value)
    _same_error(m.lookup, 1, 2.0, 3.0)
    _same_error(m.lookup, 1, TABLE=3.0)  # the hidden parameter cannot be named


def test_methods_bind_like_functions() -> None:
    class Pair:
        combine = mul_add  # a compiled function as a class attribute: bound to instances like a def

    assert Pair.combine(2.0, 3.0) == mul_add.py_function(2.0, 3.0)
    with pytest.raises(TypeError, match=r"mul_add\(\) argument 'x': expected float, got Pair"):
        Pair().combine(3.0)


def test_threads_call_while_a_global_is_rebound(tmp_path: Path) -> None:
    m = _module(tmp_path, """
        K = 2.0

        @ep.compile
        def axpy(x: float, y: float) -> float:
            return x * K + y
    """)
    assert m.axpy(1.0, 1.0) == 3.0
    m.K = 3.0
    assert m.axpy(1.0, 1.0) == 4.0  # both builds in the cache now: re-binding below only re-loads them
    allowed = {3.0, 4.0}
    bad: list[Any] = []
    stop = threading.Event()

    def caller() -> None:
        while not stop.is_set():
            r = m.axpy(1.0, 1.0)
            if r not in allowed:
                bad.append(r)

    threads = [threading.Thread(target=caller) for _ in range(3)]
    for t in threads:
        t.start()
    try:
        for i in range(40):
            m.K = 2.0 if i % 2 else 3.0
            assert m.axpy(1.0, 1.0) == m.axpy.py_function(1.0, 1.0)
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert bad == []


def test_straight_line_code_keeps_the_gil_and_loops_release_it() -> None:
    def straight(x: float, y: float) -> float:
        return x * y + 1.0

    def loop(n: int) -> int:
        s = 0
        for i in range(n):
            s += i
        return s

    def whole_array(a: Vec) -> float:
        return float(np.sum(a))

    assert everypath.compile(straight).build().signature.get("release_gil") is False
    assert "release_gil" not in everypath.compile(loop).build().signature
    assert "release_gil" not in everypath.compile(whole_array).build().signature


def test_kernel_error_traceback_outside_the_checkout(tmp_path: Path) -> None:
    """The user's line comes back as the last frame, also where only the installed package is importable."""
    (tmp_path / "app.py").write_text(textwrap.dedent("""
        import traceback
        import numpy as np
        import everypath

        @everypath.compile
        def pick(x: np.ndarray[tuple[int], np.dtype[np.float64]], i: int) -> float:
            return x[i]

        a = np.arange(3.0)
        assert pick(a, 1) == 1.0
        try:
            pick(a, 10)
        except IndexError:
            traceback.print_exc()
    """))
    env = {**os.environ, "EVERYPATH_TELEMETRY": "0"}
    p = subprocess.run([sys.executable, "app.py"], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    frames = [line.strip() for line in p.stderr.splitlines()]
    assert frames[-3:] == [f'File "{tmp_path / "app.py"}", line 8, in pick', "return x[i]",
                           "IndexError: index 10 is out of bounds for axis 0 with size 3"], p.stderr

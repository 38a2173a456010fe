"""Module globals read by compiled code: re-binding is noticed, module arrays are hidden arguments."""
from __future__ import annotations

import importlib.util
import itertools
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from everypath.base.errors import CompileError

_count = itertools.count()


def _module(tmp_path: Path, source: str) -> ModuleType:
    """Import source as a fresh module from a file (its globals are what the kernels read)."""
    name = f"ep_globals_{os.getpid()}_{next(_count)}"
    path = tmp_path / f"{name}.py"
    path.write_text("import numpy as np\nimport everypath as ep\n" + textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # as an import would: the sandbox and the cache find it by name
    spec.loader.exec_module(mod)
    return mod


def _same(compiled, *args):
    """The compiled answer next to CPython's, on copies so that in-place effects do not mix."""
    want = compiled.py_function(*(a.copy() if isinstance(a, np.ndarray) else a for a in args))
    got = compiled(*args)
    np.testing.assert_allclose(got, want)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    return got


def test_rebinding_a_scalar_and_a_tuple_recompiles(tmp_path: Path) -> None:
    m = _module(tmp_path, """
        GAIN = 2.0
        TAPS = (0.25, 0.5, 0.25)

        @ep.compile
        def smooth(x: np.ndarray[tuple[int], np.dtype[np.float64]]) -> np.ndarray[tuple[int], np.dtype[np.float64]]:
            out = np.zeros_like(x)
            for i in range(1, x.shape[0] - 1):
                acc = 0.0
                for k, w in enumerate(TAPS):
                    acc += w * x[i + k - 1]
                out[i] = GAIN * acc
            return out
    """)
    x = np.arange(8.0) ** 2
    _same(m.smooth, x)
    m.GAIN = 3.0
    _same(m.smooth, x)
    m.TAPS = (0.5, 0.0, 0.5)
    _same(m.smooth, x)
    native = m.smooth._native
    m.GAIN = float("3.0")  # equal value, new object: the build is kept
    _same(m.smooth, x)
    assert m.smooth._native is native


def test_redefining_a_helper_function_recompiles(tmp_path: Path) -> None:
    m = _module(tmp_path, """
        def activation(v):
            return np.maximum(v, 0.0)

        @ep.compile
        def layer(x: np.ndarray[tuple[int], np.dtype[np.float64]], b: float):
            return activation(x + b)
    """)
    x = np.linspace(-2.0, 2.0, 9)
    _same(m.layer, x, 0.5)
    cell = tmp_path / "cell.py"  # a notebook cell run again, edited
    cell.write_text("def activation(v):\n    return np.tanh(v)\n")
    exec(compile(cell.read_text(), str(cell), "exec"), vars(m))
    _same(m.layer, x, 0.5)


def test_module_array_read_indexed_and_shape(tmp_path: Path) -> None:
    m = _module(tmp_path, """
        WEIGHTS = np.array([0.5, 1.5, -2.0, 4.0])

        @ep.compile
        def score(x: np.ndarray[tuple[int], np.dtype[np.float64]]) -> float:
            total = 0.0
            for i in range(WEIGHTS.shape[0]):
                total += WEIGHTS[i] * x[i]
            return total + float(np.sum(x * WEIGHTS))
    """)
    x = np.array([1.0, 2.0, 3.0, 4.0])
    _same(m.score, x)
    m.WEIGHTS[2] = 10.0  # mutated in place by Python: seen, as in CPython
    _same(m.score, x)
    native = m.score._native
    m.WEIGHTS = np.array([1.0, -1.0, 3.0])  # re-bound, same dtype and rank: new contents and shape, same build
    _same(m.score, x[:3])
    assert m.score._native is native
    m.WEIGHTS = np.array([1, 2, 3, 4], dtype=np.int32)  # another dtype: recompiled
    _same(m.score, x)
    assert m.score._native is not native


def test_compiled_code_writes_into_a_module_array(tmp_path: Path) -> None:
    m = _module(tmp_path, """
        HIST = np.zeros(4, dtype=np.int64)

        @ep.compile
        def count(v: np.ndarray[tuple[int], np.dtype[np.int64]]) -> None:
            for i in range(v.shape[0]):
                HIST[v[i] % 4] += 1
    """)
    v = np.array([1, 2, 3, 5, 7, 8])
    m.count.py_function(v)
    want = m.HIST.copy()
    m.HIST[:] = 0
    m.count(v)
    np.testing.assert_array_equal(m.HIST, want)


def test_unsupported_globals_are_located_errors(tmp_path: Path) -> None:
    m = _module(tmp_path, """
        CONFIG = {"gain": np.float64(2.0)}  # a table of plain constants would be captured (test_values_gaps.py)
        PAIRS = (np.ones(2), np.zeros(2))
        TABLE = np.arange(3.0)

        @ep.compile
        def uses_dict(x: float) -> float:
            return x * CONFIG["gain"]

        @ep.compile
        def uses_pair(x: np.ndarray[tuple[int], np.dtype[np.float64]]):
            return x + PAIRS[0]

        def lookup(i):
            return TABLE[i]

        @ep.compile
        def uses_helper(i: int) -> float:
            return lookup(i)
    """)
    cases = [(m.uses_dict, (1.0,), "module global 'CONFIG' is a dict", 8),
             (m.uses_pair, (np.ones(2),), "module global 'PAIRS' is a tuple holding a ndarray", 12),
             (m.uses_helper, (1,), "module array 'TABLE' (float64, 1-d) is read in 'lookup'", 15)]
    for fn, args, message, line in cases:
        with pytest.raises(CompileError) as info:
            fn(*args)
        text = str(info.value)
        assert message in text and "as a parameter" in text
        assert f"{m.__file__}:{line + 2}:" in text  # two lines of imports precede the source


def test_portable_builds_refuse_module_arrays(tmp_path: Path) -> None:
    from everypath.base.settings import Settings
    from everypath.lowering.dispatch import PathPolicy
    from everypath.lowering.pipeline import generate
    from everypath.lowering.targets import get

    m = _module(tmp_path, """
        W = np.ones(3)

        @ep.compile
        def usew(x: np.ndarray[tuple[int], np.dtype[np.float64]]):
            return x * W
    """)
    settings = Settings.from_env()
    with pytest.raises(CompileError, match=r"module array 'W' cannot be read .* portable build .* as a parameter"):
        generate(m.usew.py_function, settings, policy=PathPolicy.for_target(get("web"), settings))


_SCRIPT = """
import importlib, sys
sys.path.insert(0, sys.argv[1])
mod = importlib.import_module("ep_kernel")
import numpy as np
x = np.arange(4.0)
got = mod.scaled(x)
np.testing.assert_allclose(got, mod.scaled.py_function(x))
print(mod.scaled._module.from_cache, got.tolist())
"""


def test_cache_across_processes_sees_new_constants(tmp_path: Path) -> None:
    """The on-disk cache is keyed by the globals' values: a constant computed at import (same
    file) or edited in the file never hands back the build made for the old value."""
    src = tmp_path / "src"
    src.mkdir()
    kernel = src / "ep_kernel.py"
    kernel.write_text(textwrap.dedent("""
        import os
        import numpy as np
        import everypath as ep

        SCALE = float(os.environ["EP_SCALE"])

        @ep.compile
        def scaled(x: np.ndarray[tuple[int], np.dtype[np.float64]]):
            return x * SCALE
    """))
    env = dict(os.environ, EVERYPATH_CACHE=str(tmp_path / "cache"), EVERYPATH_TELEMETRY="0")

    def run(scale: str) -> str:
        out = subprocess.run([sys.executable, "-c", _SCRIPT, str(src)], env=dict(env, EP_SCALE=scale),
                             capture_output=True, text=True, timeout=240)
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()

    assert run("2.0") == "False [0.0, 2.0, 4.0, 6.0]"
    assert run("5.0") == "False [0.0, 5.0, 10.0, 15.0]"
    assert run("2.0") == "True [0.0, 2.0, 4.0, 6.0]"  # each value keeps its own build
    kernel.write_text(kernel.read_text().replace('float(os.environ["EP_SCALE"])', "5.0"))  # the file edited
    assert run("2.0") == "False [0.0, 5.0, 10.0, 15.0]"

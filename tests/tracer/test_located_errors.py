"""Compile errors located at the user's line: syntax errors (a file edited after import, a CLI file
argument), errors inside library functions (reported at the user's call), exception classes of
libraries raised from compiled code (compared with CPython), and the compiler's own bugs."""
from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import everypath as ep
from everypath.base.errors import CompileError, SourceSyntaxError
from everypath.base.settings import Settings

EVERYPATH = Path(sys.executable).parent / "everypath"


def _settings() -> Settings:
    return Settings.from_env({**os.environ, "EVERYPATH_TELEMETRY": "0"})


def _module(tmp_path: Path, name: str, source: str) -> Any:
    (tmp_path / f"{name}.py").write_text(source)
    sys.path.insert(0, str(tmp_path))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(tmp_path))


def test_file_edited_after_import_gives_one_located_syntax_error(tmp_path: Path) -> None:
    m = _module(tmp_path, "edited_kernel", "def scale(x: float) -> float:\n    y = x * 2.0\n    return y\n")
    path = tmp_path / "edited_kernel.py"
    path.write_text("def scale(x: float) -> float:\n    y = x * (2.0\n    return y\n")
    with pytest.raises(SourceSyntaxError) as info:
        ep.compile(m.scale, settings=_settings())(1.0)
    want = pytest.raises(SyntaxError, compile, path.read_text(), str(path), "exec").value
    err = info.value
    assert (err.filename, err.lineno, err.col + 1) == (str(path), want.lineno, want.offset)
    assert str(err).splitlines()[0] == f"{path}:{want.lineno}:{want.offset}: error: {want.msg}"
    assert "Traceback" not in str(err)


@pytest.mark.parametrize("command", ["cpp", "trace"])
def test_cli_reports_a_syntax_error_as_one_located_line(tmp_path: Path, command: str) -> None:
    path = tmp_path / "broken.py"
    path.write_text("import numpy as np\n\n\ndef k(x: float) -> float:\n    return x +* 2\n")
    proc = subprocess.run([str(EVERYPATH), command, f"{path}:k"], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "EVERYPATH_TELEMETRY": "0"})
    want = pytest.raises(SyntaxError, compile, path.read_text(), str(path), "exec").value
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [f"{path}:{want.lineno}:{want.offset}: error: {want.msg}",
                                        "    return x +* 2", " " * (want.offset - 1) + "^"]


LIB = """class ShapeError(ValueError):
    pass


def check_positive(x: float) -> float:
    if x <= 0.0:
        raise ShapeError(f"expected a positive value, got {x}")
    return x


def unsupported(x: float) -> float:
    return _inner(x)


def _inner(x: float) -> float:
    del x
    return 1.0
"""

USER = """import mylib


def area(w: float, h: float) -> float:
    a = mylib.check_positive(w)
    return a * mylib.check_positive(h)


def broken(x: float) -> float:
    y = x + 1.0
    return mylib.unsupported(y)
"""


def test_library_exception_class_is_raised_as_cpython_does(tmp_path: Path) -> None:
    _module(tmp_path, "mylib", LIB)
    user = _module(tmp_path, "mylib_user", USER)
    f = ep.compile(user.area, settings=_settings())
    assert f(2.0, 3.0) == user.area(2.0, 3.0)
    want = pytest.raises(ValueError, user.area, 2.0, -1.0).value
    got = pytest.raises(ValueError, f, 2.0, -1.0).value
    assert type(got) is type(want) and str(got) == str(want)


def test_error_in_the_users_other_module_stays_there(tmp_path: Path) -> None:
    _module(tmp_path, "mylib", LIB)
    user = _module(tmp_path, "mylib_user", USER)
    with pytest.raises(CompileError) as info:
        ep.compile(user.broken, settings=_settings())(1.0)
    err = info.value
    assert (Path(err.filename).name, err.lineno, err.col) == ("mylib.py", 16, 4)  # the user wrote it: shown there


def test_stdlib_trace_error_is_reported_at_the_users_call(tmp_path: Path) -> None:
    user = _module(tmp_path, "mean_user", "import statistics\n\n\ndef avg(x: list[float]) -> float:\n"
                                        "    return statistics.mean(x)\n")
    try:
        got = ep.compile(user.avg, settings=_settings())([3.0, 1.0, 2.5])
    except CompileError as err:
        assert (Path(err.filename).name, err.lineno, err.col) == ("mean_user.py", 5, 11)
        assert err.source_line == "    return statistics.mean(x)"
        assert any("statistics.py:" in d for d in err.during)  # where in the library, as context
    else:
        assert got == user.avg([3.0, 1.0, 2.5])


def test_unsupported_stdlib_function_is_reported_at_the_users_call(tmp_path: Path) -> None:
    # statistics.mode needs try/except (not compiled yet): reported at the user's call, the library's line as context
    user = _module(tmp_path, "stats_user", "import statistics\nimport numpy as np\n\n\n"
                                         "def most(x: np.ndarray[tuple[int], np.dtype[np.float64]]) -> float:\n"
                                         "    return statistics.mode(x)\n")
    x = np.array([3.0, 1.0, 3.0])
    try:
        got = ep.compile(user.most, settings=_settings())(x)
    except CompileError as err:
        assert (Path(err.filename).name, err.lineno, err.col) == ("stats_user.py", 6, 11)
        assert any("statistics.py:" in d for d in err.during)
    else:
        assert got == user.most(x)


def test_internal_error_is_located_at_the_node(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from everypath.lowering import emit

    user = _module(tmp_path, "internal_user", "def twice(x: float) -> float:\n    y = x * 2.0\n    return y\n")

    original = emit.FunctionEmitter.node

    def boom(self: Any, n: Any) -> None:  # a bug on the multiplication of line 2
        if n.op.name == "CALL" and n.loc.lineno == 2:
            raise KeyError("boom")
        original(self, n)

    monkeypatch.setattr(emit.FunctionEmitter, "node", boom)
    with pytest.raises(CompileError) as info:
        ep.compile(user.twice, settings=_settings())(1.0)
    err = info.value
    assert err.message.startswith("internal error: KeyError")
    assert Path(err.filename).name == "internal_user.py" and err.lineno == 2

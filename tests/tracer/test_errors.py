"""Compile errors: refused before any C++ is written, with file:line:col, a caret and context."""
from __future__ import annotations

import pickle
import re
from pathlib import Path

import numpy as np
import pytest

import everypath
from everypath import CompileError
from tests.tracer import bad_programs

_SRC = Path(bad_programs.__file__).read_text().splitlines()
_MARK = re.compile(r"#\s*expect:\s*(\d+)\s*\|\s*(.+)$")


def _cases() -> list[tuple[str, int, int, str]]:
    """(function name, line, col, message fragment) from the markers in bad_programs.py."""
    out: list[tuple[str, int, int, str]] = []
    current = None
    for i, line in enumerate(_SRC, start=1):
        m_def = re.match(r"def (\w+)\(", line)
        if m_def:
            current = m_def.group(1)
        m = _MARK.search(line)
        if m and current:
            out.append((current, i, int(m.group(1)), m.group(2).strip()))
    return out


CASES = _cases()


def test_there_are_enough_error_programs() -> None:
    assert len(CASES) >= 10


@pytest.mark.parametrize(("name", "line", "col", "fragment"), CASES, ids=[c[0] for c in CASES])
def test_error_location_and_message(name: str, line: int, col: int, fragment: str, tmp_path) -> None:
    fn = getattr(bad_programs, name)
    compiled = everypath.compile(fn)
    with pytest.raises(CompileError) as info:
        compiled.build()
    err = info.value
    assert err.filename == bad_programs.__file__
    assert (err.lineno, err.col + 1) == (line, col), str(err)
    assert fragment in str(err)
    text = str(err).splitlines()
    assert text[0].startswith(f"{bad_programs.__file__}:{line}:{col}: error: ")
    assert text[1] == _SRC[line - 1]
    assert text[2] == " " * (col - 1) + "^"
    # no C++ was written for a refused program
    assert not list(tmp_path.glob("**/*.cpp"))
    clone = pickle.loads(pickle.dumps(err))
    assert str(clone) == str(err) and (clone.filename, clone.lineno, clone.col) == (err.filename, err.lineno, err.col)


def test_type_errors_are_collected_together() -> None:
    def two_errors(x: np.ndarray[tuple[int], np.dtype[np.float64]]) -> float:
        a = x[0, 0]
        b = x.nope
        return 0.0

    with pytest.raises(everypath.CompileErrors) as info:
        everypath.compile(two_errors).build()
    errs = info.value.errors
    assert len(errs) == 2
    assert errs[1].lineno == errs[0].lineno + 1
    assert "two_errors(float64[:])" in str(info.value) and "during: typing" in str(info.value)


def test_unknown_decorator_keyword_is_a_clear_error() -> None:
    with pytest.raises(TypeError, match="unknown keyword argument.*flavour"):
        everypath.compile(flavour="x")

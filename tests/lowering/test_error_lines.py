"""Run-time errors of compiled code end their traceback at the user's file:line, as CPython's do:
the same exception type and message, and the same last frames (file, line, function, source line)
as CPython's run of the uncompiled function (tests/lowering/error_lines_kernels.py)."""
from __future__ import annotations

import os
import traceback
from typing import Any, Callable

import numpy as np
import pytest

import everypath as ep
from everypath.base.settings import Settings
from tests.lowering import error_lines_kernels as K

Frame = tuple[str, int, str, str]


def _failure(fn: Callable[..., Any], args: tuple[Any, ...]) -> tuple[type, str, list[Frame]]:
    try:
        fn(*args)
    except Exception as exc:  # noqa: BLE001 - any exception is the observation
        frames = [(f.filename, f.lineno, f.name, f.line) for f in traceback.extract_tb(exc.__traceback__)]
        return type(exc), str(exc), frames
    raise AssertionError(f"{fn.__name__}{args} did not raise")


def _kernel_frames(frames: list[Frame]) -> list[Frame]:
    """The frames in the kernels' file: what the user sees of their own code."""
    return [f for f in frames if f[0] == K.__file__]


CASES: dict[str, tuple[Callable[..., Any], tuple[Any, ...]]] = {
    "zero_division": (K.normalise, (np.array([1.0, 2.0]), 3)),
    "index_of_empty": (K.head, (np.zeros(0),)),
    "sqrt_domain": (K.distance, (1.0, 2.0)),
    "assert": (K.checked_mean, (np.zeros(0),)),
    "raise_in_helper": (K.eliminate, (np.array([1.0, 0.0, 2.0]), 1)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_traceback_ends_at_the_users_line(name: str) -> None:
    fn, args = CASES[name]
    want_type, want_msg, want_frames = _failure(fn, args)
    compiled = ep.compile(fn, settings=Settings.from_env({**os.environ, "EVERYPATH_TELEMETRY": "0"}))
    got_type, got_msg, got_frames = _failure(compiled, args)
    assert (got_type, got_msg) == (want_type, want_msg)
    assert _kernel_frames(got_frames) == _kernel_frames(want_frames)
    assert got_frames[-1] == want_frames[-1]  # the traceback ends where CPython's does


def test_source_line_shown_without_stray_carets() -> None:
    fn, args = CASES["raise_in_helper"]
    compiled = ep.compile(fn, settings=Settings.from_env({**os.environ, "EVERYPATH_TELEMETRY": "0"}))
    with pytest.raises(ValueError) as info:
        compiled(*args)
    text = "".join(traceback.format_exception(info.value))
    assert 'error_lines_kernels.py", line 41, in _pivot\n    raise ValueError(f"zero pivot at column {k}")\n' \
        in text.replace(K.__file__, "error_lines_kernels.py")
    assert "^^^^" not in text.split("in _pivot")[1]


def test_wasm_error_names_the_users_line() -> None:
    from everypath.lowering.portable import build_function
    from everypath.lowering.targets import ArtifactKind, get, status

    if not status(get("wasm32-wasi")).buildable:
        pytest.skip(f"wasm32-wasi is not buildable here: {status(get('wasm32-wasi')).reason}")
    from everypath.lowering.wasm_runner import WasmFunction

    settings = Settings.from_env({**os.environ, "EVERYPATH_TELEMETRY": "0"})
    pf = build_function(K.distance, (get("wasm32-wasi"),), settings, kinds=(ArtifactKind.WASM,))
    f = WasmFunction(pf.artifact("wasm32-wasi", ArtifactKind.WASM).path, pf.signature)
    want_type, want_msg, want_frames = _failure(K.distance, (1.0, 2.0))
    got_type, got_msg, got_frames = _failure(f, (1.0, 2.0))
    assert (got_type, got_msg) == (want_type, want_msg)
    assert got_frames[-1] == want_frames[-1]
    assert f(3.0, 1.0) == K.distance(3.0, 1.0)  # the instance works after the trap


def test_standalone_exe_prints_the_users_line(tmp_path: Any) -> None:
    import subprocess

    from everypath.lowering.portable import build_function
    from everypath.lowering.targets import ArtifactKind, get, kind_status

    st = kind_status(get("linux-x86_64-baseline"), ArtifactKind.EXECUTABLE)
    if not st.buildable:
        pytest.skip(st.reason)
    settings = Settings.from_env({**os.environ, "EVERYPATH_TELEMETRY": "0"})
    pf = build_function(K.distance, (get("linux-x86_64-baseline"),), settings, kinds=(ArtifactKind.EXECUTABLE,))
    np.savez(tmp_path / "in.npz", a=np.float64(1.0), b=np.float64(2.0))
    exe = pf.artifact("linux-x86_64-baseline", ArtifactKind.EXECUTABLE).path
    proc = subprocess.run([str(exe), "--inputs", str(tmp_path / "in.npz"), "--out", str(tmp_path / "out.npz")], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "EVERYPATH_TELEMETRY": "0"})
    _, want_msg, want_frames = _failure(K.distance, (1.0, 2.0))
    file, line, name, _ = want_frames[-1]
    assert proc.returncode == 1
    # a shipped binary names the file only: no build machine's path reaches it
    assert proc.stderr.endswith(f'  File "{os.path.basename(file)}", line {line}, in {name}\nValueError: {want_msg}\n'), \
        proc.stderr

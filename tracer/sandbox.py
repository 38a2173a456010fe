"""Sandboxed live-value observation.

When annotations leave types open (``npt.NDArray[np.float32]`` without a
rank, or no annotation at all), everypath runs the plain Python function once
on the call's own inputs in a separate process and records the types (dtype,
rank, Python vs NumPy scalar) of its parameters, of every local variable it
sees at line and return events, and of its result. Those observations
complete the signature and are cross-checked against static inference, so a
disagreement becomes a compile error instead of a silently wrong build.

What the sandbox may do: run your function on your arguments (which you were
about to do anyway), using CPU for at most ``cpu_seconds`` and
``memory_mb`` of address space, with its stdout/stderr discarded.
What it may not do: outlive the timeout (it is killed), affect the calling
process (separate interpreter, no shared memory), or hand back anything but
type descriptions (values never come back). It is not a security boundary
against hostile code: it shares the file system and network of the user
that runs it, exactly as calling the function directly would.
"""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Any

_LINE_BUDGET = 20_000  # line events recorded before only return events are watched


@dataclass(frozen=True)
class Observation:
    params: tuple[Any, ...]  # lowering.types.Type | None per positional parameter
    locals: dict[str, frozenset[Any]] = field(default_factory=dict)
    result: Any = None
    raised: str | None = None  # "ValueError: message" when the function raised


class SandboxError(RuntimeError):
    """The observation run could not complete (timeout, memory, unpicklable function)."""


def observe(pyfunc: Any, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None, *, timeout: float = 20.0,
            cpu_seconds: int = 20, memory_mb: int = 4096) -> Observation:
    import cloudpickle

    import importlib.machinery

    module = sys.modules.get(getattr(pyfunc, "__module__", "") or "")
    by_value = False
    if module is not None and module.__name__ != "__main__":
        # a module a fresh interpreter cannot import (not findable on sys.path,
        # e.g. loaded by file path) travels by value
        top = module.__name__.split(".")[0]
        by_value = importlib.machinery.PathFinder.find_spec(top, sys.path) is None
    try:
        if by_value:
            cloudpickle.register_pickle_by_value(module)
        payload = cloudpickle.dumps((pyfunc, args, kwargs or {}, cpu_seconds, memory_mb))
    except Exception as exc:
        raise SandboxError(f"cannot send the function to the sandbox: {exc}") from None
    finally:
        if by_value:
            cloudpickle.unregister_pickle_by_value(module)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    try:
        proc = subprocess.run([sys.executable, "-m", "everypath.tracer.sandbox"], input=payload, capture_output=True,
                              timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        raise SandboxError(f"the observation run did not finish within {timeout:.0f} s") from None
    if proc.returncode != 0:
        tail = proc.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["killed"]
        raise SandboxError(f"the observation run failed: {tail[0]}")
    return pickle.loads(proc.stdout)


def _child() -> None:
    import resource

    import cloudpickle  # noqa: F401 - needed to unpickle functions by value

    data = sys.stdin.buffer.read()
    pyfunc, args, kwargs, cpu_seconds, memory_mb = pickle.loads(data)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds))
    limit = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    out = sys.stdout.buffer
    sys.stdout = open(os.devnull, "w")  # the function's prints must not corrupt the reply

    from everypath.base.annotations import describe_value_type

    seen: dict[str, set[Any]] = {}
    budget = [_LINE_BUDGET]
    target = pyfunc.__code__

    def record(frame: Any) -> None:
        for name, value in frame.f_locals.items():
            t = describe_value_type(value)
            if t is not None:
                seen.setdefault(name, set()).add(t)

    def local_tracer(frame: Any, event: str, arg: Any) -> Any:
        if event == "return" or budget[0] > 0:
            budget[0] -= 1
            record(frame)
        return local_tracer

    def global_tracer(frame: Any, event: str, arg: Any) -> Any:
        return local_tracer if frame.f_code is target else None

    raised = None
    result = None
    sys.settrace(global_tracer)
    try:
        result = pyfunc(*args, **kwargs)
    except Exception as exc:  # an observation of its own
        raised = f"{type(exc).__name__}: {exc}"
    finally:
        sys.settrace(None)
    from everypath.tracer.sandbox import Observation as Obs  # the importable class, not this __main__ copy

    obs = Obs(
        params=tuple(describe_value_type(a) for a in args),
        locals={k: frozenset(v) for k, v in seen.items()},
        result=describe_value_type(result) if raised is None else None,
        raised=raised,
    )
    out.write(pickle.dumps(obs))
    out.flush()


if __name__ == "__main__":
    _child()

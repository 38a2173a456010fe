"""What `everypath autotune` runs: the functions of a MODULE.py[:FUNC] target or one-line
kernels for --ops, and inputs of about n elements built from their PEP 484 annotations."""
from __future__ import annotations

import ast
import importlib.util
import inspect
import sys
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np


class AutotuneError(ValueError):
    """A target or input that autotune cannot use (the message names it)."""


@dataclass(frozen=True)
class ArraySpec:
    ndim: int
    dtype: np.dtype


@dataclass(frozen=True)
class Target:
    """One function to measure and how to make its arguments for a size n."""

    name: str  # module-qualified, as telemetry records it
    fn: Callable[..., Any]  # the Python function (compiled by the sweep)
    inputs: Callable[[int, np.random.Generator], tuple[Any, ...]]


def _load_module(path: Path) -> Any:
    if not path.is_file():
        raise AutotuneError(f"{path}: no such file")
    if path.suffix != ".py":
        raise AutotuneError(f"{path}: expected a Python source file (.py)")
    name = path.stem
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise AutotuneError(f"{path}: cannot be loaded as a module")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # compiled functions resolve their globals through the module
    try:
        spec.loader.exec_module(mod)
    except Exception as exc:
        raise AutotuneError(f"{path}: importing it failed: {type(exc).__name__}: {exc}") from None
    return mod


def _param_spec(fn: Callable[..., Any], name: str, ann: Any) -> ArraySpec | type:
    if typing.get_origin(ann) is np.ndarray:
        shape, dtype = (typing.get_args(ann) + (None, None))[:2]
        shape_args = typing.get_args(shape)
        ndim = 1 if (not shape_args or Ellipsis in shape_args) else len(shape_args)
        dt = typing.get_args(dtype)
        if not dt:
            raise AutotuneError(f"{fn.__qualname__}: parameter {name!r}: the annotation {ann} has no dtype")
        return ArraySpec(ndim, np.dtype(dt[0]))
    if ann in (int, float, bool, complex):
        return ann
    raise AutotuneError(f"{fn.__qualname__}: parameter {name!r}: cannot make inputs for the annotation {ann!r}; "
                        f"pass --arg {name}=VALUE")


def _array(spec: ArraySpec, n: int, rng: np.random.Generator) -> np.ndarray:
    side = max(1, int(round(max(n, 1) ** (1.0 / spec.ndim))))
    shape = (side,) * spec.ndim
    k = spec.dtype.kind
    if k == "b":
        return rng.random(shape) < 0.5
    if k in "iu":
        hi = 256 if spec.dtype.itemsize == 1 else 100
        return rng.integers(0, hi, shape).astype(spec.dtype)
    if k == "c":
        return (rng.random(shape) + 0.5 + 1j * rng.random(shape)).astype(spec.dtype)
    return (rng.random(shape) + 0.5).astype(spec.dtype)  # away from 0: divisions and logs stay finite


def target_for(fn: Callable[..., Any], name: str, fixed: dict[str, Any]) -> Target:
    """A Target whose array parameters get about n elements (square-ish) of random values;
    scalars come from `fixed`, then the parameter's default, and float parameters are 0.5."""
    try:
        hints = typing.get_type_hints(fn)
    except Exception as exc:
        raise AutotuneError(f"{name}: its annotations cannot be evaluated: {exc}") from None
    specs: list[tuple[str, Any]] = []
    for p in inspect.signature(fn).parameters.values():
        if p.name in fixed:
            specs.append((p.name, ("fixed", fixed[p.name])))
        elif p.name not in hints:
            raise AutotuneError(f"{name}: parameter {p.name!r} has no annotation; pass --arg {p.name}=VALUE")
        else:
            spec = _param_spec(fn, p.name, hints[p.name])
            if isinstance(spec, ArraySpec):
                specs.append((p.name, spec))
            elif p.default is not inspect.Parameter.empty:
                specs.append((p.name, ("fixed", p.default)))
            elif spec is float:
                specs.append((p.name, ("fixed", 0.5)))
            else:
                raise AutotuneError(f"{name}: parameter {p.name!r} ({spec.__name__}) has no default; "
                                    f"pass --arg {p.name}=VALUE")
    if not any(isinstance(s, ArraySpec) for _, s in specs):
        raise AutotuneError(f"{name}: no array parameter, so there is no size to vary")
    unknown = set(fixed) - {p for p, _ in specs}
    if unknown:
        raise AutotuneError(f"--arg {sorted(unknown)[0]}: {name} has no such parameter")

    def inputs(n: int, rng: np.random.Generator) -> tuple[Any, ...]:
        return tuple(_array(s, n, rng) if isinstance(s, ArraySpec) else s[1] for _, s in specs)

    return Target(name, fn, inputs)


def parse_fixed(pairs: tuple[str, ...]) -> dict[str, Any]:
    """--arg NAME=VALUE pairs (VALUE a Python literal)."""
    out: dict[str, Any] = {}
    for pair in pairs:
        name, eq, value = pair.partition("=")
        if not eq or not name.isidentifier():
            raise AutotuneError(f"--arg {pair!r}: expected NAME=VALUE")
        try:
            out[name] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            raise AutotuneError(f"--arg {pair!r}: VALUE must be a Python literal (a number, string, tuple...)") from None
    return out


def _plain(obj: Any) -> Any:
    """The Python function behind an @everypath.compile one (autotune builds its own variants)."""
    from everypath.tracer.statics import is_compiled

    return obj.py_function if is_compiled(obj) else obj


def module_targets(spec: str, fixed: dict[str, Any]) -> list[Target]:
    """MODULE.py[:FUNC]: that function, or every annotated function the module defines."""
    file, _, func = spec.partition(":")
    mod = _load_module(Path(file))
    if func:
        fn = _plain(getattr(mod, func, None))
        if not inspect.isfunction(fn):
            raise AutotuneError(f"{file}: no function named {func!r}")
        return [target_for(fn, f"{mod.__name__}.{func}", fixed)]
    found = [f for f in map(_plain, vars(mod).values())
             if inspect.isfunction(f) and f.__module__ == mod.__name__ and f.__annotations__]
    if not found:
        raise AutotuneError(f"{file}: defines no annotated function")
    return [target_for(f, f"{mod.__name__}.{f.__name__}", fixed) for f in found]


def op_targets(ops: list[str], dtype: str, workdir: Path) -> list[Target]:
    """One-line kernels calling each operator (the recipes `everypath ops bench` uses)."""
    from everypath.variants.opbench import recipe
    from everypath.variants.registry import TypingError, lookup_operator

    out = []
    for key in ops:
        try:
            op = lookup_operator(key)
        except TypingError as exc:
            raise AutotuneError(f"--ops {key}: {exc}") from None
        try:
            rec = recipe(op, dtype)
        except ValueError as exc:
            raise AutotuneError(f"--ops {key}: {exc}") from None
        stem = "autotune_" + "".join(c if c.isalnum() else "_" for c in op.key)
        path = workdir / f"{stem}.py"
        path.write_text(rec.source)
        mod = _load_module(path)
        out.append(Target(f"{stem}.kernel", mod.kernel, rec.inputs))
    return out

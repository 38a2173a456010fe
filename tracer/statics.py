"""Partial evaluation of names: what a global or attribute chain means at compile time.

Module constants, type aliases, ``math`` constants, NumPy functions and other
user functions are known before the program runs. They are resolved here to
constants, operator keys or references to functions to trace, so the IR never
looks anything up at run time.
"""
from __future__ import annotations

import builtins
import enum
import importlib.util
import math
import sys
import types
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from everypath.tracer.ir import FunctionRef, const_key

# modules whose attributes may be used inside compiled functions
ALLOWED_MODULES: dict[str, types.ModuleType] = {
    "numpy": np,
    "numpy.linalg": np.linalg,
    "numpy.fft": np.fft,
    "numpy.random": np.random,
    "math": math,
}
_TORCH_MODULES = ("torch", "torch.nn", "torch.nn.functional")  # allowed once torch is imported (see _allow_torch)
_BUILTIN_NAMES = (
    "range", "len", "min", "max", "abs", "int", "float", "bool", "complex", "enumerate", "zip", "sum",
    "any", "all", "list", "tuple", "isinstance", "print", "round", "divmod", "pow", "reversed", "sorted",
    "str", "ord", "chr", "dict", "set", "repr",
)
EXCEPTION_NAMES = frozenset(
    n for n in dir(builtins) if isinstance(getattr(builtins, n), type) and issubclass(getattr(builtins, n), BaseException)
)


@dataclass(frozen=True)
class Static:
    """A value known at compile time that is not (yet) a runtime constant."""

    obj: Any
    key: str | None = None  # operator key if the object is a known callable

    def describe(self) -> str:
        return self.key or f"{type(self.obj).__name__} {getattr(self.obj, '__name__', '')}".strip()


@lru_cache(maxsize=1)
def _key_by_id() -> dict[int, str]:
    """id(callable or type) -> stable operator key, for every public callable of the allowed modules."""
    keys: dict[int, str] = {}
    for modname, mod in ALLOWED_MODULES.items():
        for attr in dir(mod):
            if attr.startswith("_"):
                continue
            obj = getattr(mod, attr, None)
            if not callable(obj) or (modname == "PIL.Image" and not str(getattr(obj, "__module__", "")).startswith("PIL")):
                continue  # PIL.Image's own callables, not the typing and enum names it imports
            canonical = getattr(obj, "__name__", attr)
            if getattr(mod, canonical, None) is obj:  # np.double -> numpy.float64, np.abs -> numpy.absolute
                attr = canonical
            keys.setdefault(id(obj), f"{modname}.{attr}")
    for name in _BUILTIN_NAMES:
        keys[id(getattr(builtins, name))] = f"builtins.{name}"
    for name in EXCEPTION_NAMES:
        keys[id(getattr(builtins, name))] = f"builtins.{name}"
    return keys


def _allow_torch(load: bool = False) -> None:
    """Add torch to the allowed modules once the program has imported it (or, with load, imports
    it for an `import torch` in compiled code): importing it eagerly would cost every compile a second."""
    if "torch" in ALLOWED_MODULES or not ("torch" in sys.modules or (load and importlib.util.find_spec("torch"))):
        return
    import torch.nn.functional  # noqa: F401 - loads torch and torch.nn too

    ALLOWED_MODULES.update({name: sys.modules[name] for name in _TORCH_MODULES})
    _key_by_id.cache_clear()


def _allow_cv2(load: bool = False) -> None:
    """Add cv2 (OpenCV) once the program has imported it, or, with load, for an `import cv2` in
    compiled code; optional, so everypath works without it (its constants fold to ints)."""
    if "cv2" in ALLOWED_MODULES or not ("cv2" in sys.modules or (load and importlib.util.find_spec("cv2"))):
        return
    import cv2  # type: ignore[import-not-found]

    ALLOWED_MODULES["cv2"] = cv2
    _key_by_id.cache_clear()


def _allow_pil() -> None:
    """Add PIL.Image once the program has imported it: Image.fromarray is compiled (lowering/pil_images.py),
    the rest of PIL is refused where it is used."""
    if "PIL.Image" in ALLOWED_MODULES or "PIL.Image" not in sys.modules:
        return
    ALLOWED_MODULES["PIL.Image"] = sys.modules["PIL.Image"]
    _key_by_id.cache_clear()


def is_constant(value: Any) -> bool:
    if value is None or isinstance(value, (bool, int, float, complex, str, np.generic, np.dtype, enum.Enum)):
        return True  # an enum member too: compiled code holds its index (lowering/records.py)
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.dtype):  # torch.float32: a dtype constant like np.float32
        return True
    if isinstance(value, tuple):
        return all(is_constant(v) for v in value)
    return False


def static_for(obj: Any) -> Static:
    """Classify a Python object found at compile time."""
    _allow_torch()
    _allow_cv2()
    _allow_pil()
    if isinstance(obj, types.ModuleType):
        return Static(obj, obj.__name__)
    key = _key_by_id().get(id(obj))
    if key is not None:
        return Static(obj, key)
    if isinstance(obj, types.FunctionType):
        return Static(obj, None)
    return Static(obj, None)


def user_function_ref(fn: types.FunctionType, consts: tuple[tuple[str, Any], ...] = ()) -> FunctionRef:
    return FunctionRef(fn.__module__ or "__main__", fn.__qualname__, consts, const_key(consts))


def module_name_allowed(name: str) -> bool:
    _allow_torch(load=name in _TORCH_MODULES)
    _allow_cv2(load=name == "cv2")
    _allow_pil()
    return name in ALLOWED_MODULES or name == "numpy.typing"


def import_module(name: str) -> types.ModuleType:
    if name == "numpy.typing":
        import numpy.typing

        return numpy.typing
    return ALLOWED_MODULES[name]


def unwrap_compiled(obj: Any) -> Any:
    """A @compile function called from compiled code is traced like any helper (same unit, direct
    call, recursion included): its CompileOptions (tag, description, targets...) only concern its
    own native entry point, so nothing of them applies to the call."""
    return obj.py_function if is_compiled(obj) else obj


def is_compiled(obj: Any) -> bool:
    """obj is a lowering.compiled.CompiledFunction (known by its class marker: lowering is a later layer)."""
    return bool(getattr(type(obj), "__everypath_compiled__", False))


def _specialisable(value: Any) -> bool:
    """Constants a helper is specialised on: the flags, modes and axes that code branches on or that
    operators need at compile time. Floats are not (they are data, and would only multiply copies)."""
    if value is None or isinstance(value, (bool, int, str)):
        return not isinstance(value, np.generic)
    if isinstance(value, tuple):
        return all(_specialisable(v) for v in value)
    return False


NOT_CONSTANT = object()  # an argument whose value is only known at run time


def const_bindings(fn: types.FunctionType, args: list[Any], kwargs: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    """Parameters of ``fn`` bound to a constant at one call site (passed or defaulted), by name, in
    parameter order: the helper is traced once per distinct tuple (partial evaluation), so
    ``if mode == "wrap":`` folds. Calls that do not bind like CPython get no bindings (and the
    typing reports the binding error)."""
    code = fn.__code__
    names = list(code.co_varnames[: code.co_argcount])
    if code.co_posonlyargcount or code.co_kwonlyargcount or len(args) > len(names):
        return ()
    defaults = fn.__defaults__ or ()
    first_default = len(names) - len(defaults)
    out: list[tuple[str, Any]] = []
    for i, name in enumerate(names):
        if i < len(args):
            value = args[i]
        elif name in kwargs:
            value = kwargs[name]
        elif i >= first_default:
            value = defaults[i - first_default]
        else:
            return ()
        if value is not NOT_CONSTANT and _specialisable(value):
            out.append((name, value))
    return tuple(out)


def is_library_module(mod: types.ModuleType) -> bool:
    """NumPy, math, torch, cv2 and their submodules: their attributes are not the user's globals."""
    top = mod.__name__.split(".")[0]
    return top in ("numpy", "math", "torch", "cv2", "PIL") or any(mod is m for m in ALLOWED_MODULES.values())

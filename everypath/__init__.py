"""everypath: compile annotated Python functions ahead of time to native code.

The public names load on first use (PEP 562): `import everypath` costs microseconds, and the base
layer (`everypath.base`) that every stage imports never pulls the compiler in with it."""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from everypath.api import CompiledFunction, compile, load
    from everypath.base.errors import BuildError, CompileError, CompileErrors, OpenSignatureError, SourceLocation
    from everypath.base.settings import Settings

from everypath.base import __version__  # noqa: E402 - light: the base layer imports no stage

# public name -> the module that defines it
_PUBLIC = {
    "compile": "everypath.api", "load": "everypath.api", "CompiledFunction": "everypath.api",
    "CompileError": "everypath.base.errors", "CompileErrors": "everypath.base.errors",
    "OpenSignatureError": "everypath.base.errors", "BuildError": "everypath.base.errors",
    "SourceLocation": "everypath.base.errors", "Settings": "everypath.base.settings",
}
__all__ = ["compile", "load", "CompiledFunction", "CompileError", "CompileErrors", "OpenSignatureError", "BuildError",
           "SourceLocation", "Settings", "__version__"]


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'everypath' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later reads skip this hook
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_PUBLIC})

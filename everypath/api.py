"""The public @compile decorator, the callable it returns and everypath.load.

The compiled callable itself (builds, the C vectorcall entry, guards) is lowering.compiled.CompiledFunction;
the public class adds what only the public face may do: starting telemetry before a build's first load."""
from __future__ import annotations

from typing import Any, Callable

from everypath.base.settings import Settings
from everypath.lowering._dispatch import enable_vectorcall as _enable_vectorcall
from everypath.lowering.compiled import KNOWN_OPTIONS as _KNOWN_OPTIONS
from everypath.lowering.compiled import CompileOptions
from everypath.lowering.compiled import CompiledFunction as _CompiledFunction

__all__ = ["CompileOptions", "CompiledFunction", "compile", "load"]


class CompiledFunction(_CompiledFunction):
    """A Python function compiled to native code; call it like the original.

    Compiles on the first call (or finds the ahead-of-time build in the cache).
    Fully annotated functions have one native entry; parameters whose
    annotation leaves the rank open are specialised per argument types.
    Calls are made by the C base class (lowering.compiled's docstring); every call is recorded by telemetry.
    """

    def _started(self) -> None:
        from everypath.telemetry.shim import start_telemetry

        start_telemetry(self.settings)  # once per process: the hub records, a thread flushes to the lake


_enable_vectorcall(CompiledFunction)  # Python 3.11: the vectorcall slot is inherited, the flag is not


def compile(fn: Callable[..., Any] | None = None, /, **options: Any) -> Any:  # noqa: A001 - public name
    """Decorator: ``@compile`` or ``@compile(tag=..., description=..., metadata=..., targets=..., sandbox=...,
    settings=..., boundscheck=...)`` (settings: an everypath.Settings; default from the environment;
    boundscheck=False: out-of-range integer indices are undefined behaviour instead of IndexError)."""
    unknown = sorted(set(options) - set(_KNOWN_OPTIONS))
    if unknown:
        raise TypeError(f"everypath.compile() got unknown keyword argument(s): {', '.join(unknown)}; "
                        f"known: {', '.join(_KNOWN_OPTIONS)}")
    settings = options.pop("settings", None)
    if settings is not None and not isinstance(settings, Settings):
        raise TypeError("everypath.compile(settings=...) must be an everypath.Settings")
    opts = _options(options)
    if fn is None:
        return lambda f: CompiledFunction(f, opts, settings)  # type: ignore[arg-type]
    return CompiledFunction(fn, opts, settings)  # type: ignore[arg-type]


def _options(options: dict[str, Any]) -> CompileOptions:
    tag, desc = options.get("tag"), options.get("description")
    if tag is not None and not isinstance(tag, str):
        raise TypeError("everypath.compile(tag=...) must be a str")
    if desc is not None and not isinstance(desc, str):
        raise TypeError("everypath.compile(description=...) must be a str")
    meta = options.get("metadata") or {}
    if not isinstance(meta, dict):
        raise TypeError("everypath.compile(metadata=...) must be a dict")
    targets = options.get("targets") or ("host",)
    if isinstance(targets, str):
        targets = (targets,)
    sandbox = options.get("sandbox", True)
    if not isinstance(sandbox, bool):
        raise TypeError("everypath.compile(sandbox=...) must be a bool")
    boundscheck = options.get("boundscheck")
    if boundscheck is not None and not isinstance(boundscheck, bool):
        raise TypeError("everypath.compile(boundscheck=...) must be a bool")
    return CompileOptions(tag, desc, dict(meta), tuple(targets), sandbox, boundscheck)


def load(path: Any, key: Any = None) -> Any:
    """A function from an `everypath bundle` file, built for this device and called like the original.

    The shared library for this OS, arch and best ISA level is extracted to the cache, checked against
    the manifest's sha256 (and the manifest against its ed25519 signature when ``key``, a public key
    file or its bytes, is given: an unsigned bundle is then refused) before it is loaded."""
    from everypath.lowering.loader import load as _load

    return _load(path, key, start=_start_bundle)


def _start_bundle(settings: Settings, table: Any) -> None:
    """Telemetry for a loaded bundle, once per process as for compiled functions; then the bundle's own
    selection table, which wins over a promoted one."""
    from everypath.telemetry.shim import Shim, start_telemetry

    start_telemetry(settings)
    if table is None:
        return
    from everypath.telemetry.device import process_device

    try:
        Shim._apply_table(table, str(process_device(settings)["device_class"]))
    except Exception:  # noqa: BLE001 - like the shim: a table that cannot serve never breaks the call
        import logging  # here: a first call's path need not load logging for a message it may never say

        logging.getLogger("everypath.bundle").exception(
            "everypath.load: cannot apply %s's selection table; the built-in thresholds choose", table)

"""The Python source line behind a call site, found WITHOUT importing anything: the
dashboard must not run an analyst's (or a fleet's) module code to show one line.

`function` is module-qualified (pkg.mod.kernel, pkg.mod.Class.method): the longest prefix
that names a module is located with importlib's finders; importlib.util.find_spec would
import the parent packages of a dotted name, so only the top-level name goes through it
and submodules are searched in their parent's submodule_search_locations. The call site
"file.py:LINE" is read from that module's file when the names match, else from a file of
that name next to it (a helper module of the same package).
"""
from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
import tokenize
from dataclasses import dataclass
from pathlib import Path

NOT_AVAILABLE = "source not available"


@dataclass(frozen=True)
class SourceLine:
    path: Path | None
    line: int | None
    text: str  # the stripped source line, or NOT_AVAILABLE


def _spec(module: str) -> importlib.machinery.ModuleSpec | None:
    parts = module.split(".")
    try:
        spec = importlib.util.find_spec(parts[0])  # a top-level name: nothing imported to find it
        for i in range(1, len(parts)):
            if spec is None or spec.submodule_search_locations is None:
                return None
            spec = _find_sub(".".join(parts[: i + 1]), list(spec.submodule_search_locations))
    except (ImportError, ValueError, AttributeError):
        return None
    return spec


def _find_sub(fullname: str, locations: list[str]) -> importlib.machinery.ModuleSpec | None:
    """A submodule's spec from the meta-path finders, without importing its parent: PathFinder over the
    parent's folders, then the others (an editable install maps everypath.<stage> to the stage's folder)."""
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        spec = find(fullname, locations) if find is not None else None
        if spec is not None:
            return spec
    return None


def module_file(function: str) -> Path | None:
    """The source file of the module that defines a module-qualified function (None: not found)."""
    parts = function.split(".")
    for cut in range(len(parts) - 1, 0, -1):  # the function name itself is never the module
        spec = _spec(".".join(parts[:cut]))
        if spec is not None and spec.origin and spec.origin.endswith(".py"):
            return Path(spec.origin)
    return None


def parse_call_site(call_site: str) -> tuple[str, int] | None:
    name, sep, line = call_site.rpartition(":")
    if not sep or not line.isdigit() or int(line) < 1 or not name:
        return None
    return name, int(line)


def source_line(function: str, call_site: str) -> SourceLine:
    """The source line of a call site of function (text NOT_AVAILABLE when it cannot be found)."""
    site = parse_call_site(call_site)
    origin = module_file(function)
    if site is None or origin is None:
        return SourceLine(None, None, NOT_AVAILABLE)
    name, line = site
    path = origin if origin.name == Path(name).name else origin.parent / Path(name).name
    try:
        with tokenize.open(path) as fh:  # honours the file's encoding declaration
            for i, text in enumerate(fh, start=1):
                if i == line:
                    return SourceLine(path, line, text.strip())
    except (OSError, SyntaxError, UnicodeDecodeError):
        pass
    return SourceLine(path if path.exists() else None, line, NOT_AVAILABLE)

"""Operator families; each module here declares its operators into the registry.

Every module of this package with a ``declare(reg)`` function is a family
(found by name, in sorted order after the core families), so a new family is
one new file: no list to edit, nothing for parallel work to collide on.
"""
from __future__ import annotations

import importlib
import pkgutil
from typing import Callable

from everypath.variants.registry import Registry

# core families first: later ones may look these up while declaring
CORE = ("elementwise", "builtins_ops", "creation", "reductions", "scans", "linalg", "shape")


def families() -> tuple[Callable[[Registry], None], ...]:
    names = list(CORE)
    names += sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name not in CORE and not m.name.startswith("_"))
    out = []
    for name in names:
        mod = importlib.import_module(f"{__name__}.{name}")
        declare = getattr(mod, "declare", None)
        if callable(declare):
            out.append(declare)
    return tuple(out)

"""The values corpus group (issue 14): pre/post-processing functions over str, dict, set, NumPy; its loader."""
from __future__ import annotations

import importlib
import pathlib
from dataclasses import dataclass
from types import ModuleType
from typing import Callable

HERE = pathlib.Path(__file__).resolve().parent
FEATURES = ("generators", "records", "literal", "enum", "pil")


@dataclass(frozen=True)
class ValueFunction:
    """One entry of the group: the function, its cases, its bench arguments, what it waits for."""

    module: ModuleType
    name: str
    fn: Callable
    cases: Callable[[], list[tuple]]
    bench: Callable[[], tuple] | None
    requires: str | None  # a feature of FEATURES another helper is building; None = must compile today
    rtol: float  # 0.0: floats compared exactly (the same operations in the same order as CPython)
    known: str | None  # a compiler gap found by this function: text of the located error it fails with today

    @property
    def id(self) -> str:
        return f"{self.module.__name__.rsplit('.', 1)[-1]}.{self.name}"


def module_names() -> list[str]:
    return sorted(p.stem for p in HERE.glob("*.py") if not p.name.startswith(("_", "test_")))


def load(names: list[str] | None = None) -> list[ValueFunction]:
    """Every entry of every module (or of the named modules), in module then ENTRIES order."""
    out = []
    for mod_name in names or module_names():
        mod = importlib.import_module(f"{__name__}.{mod_name}")
        requires = getattr(mod, "REQUIRES", {})
        for name in mod.ENTRIES:
            feature = requires.get(name)
            assert feature is None or feature in FEATURES, f"{mod_name}.{name}: unknown feature {feature!r}"
            out.append(ValueFunction(mod, name, getattr(mod, name), getattr(mod, f"cases_{name}"),
                                     getattr(mod, f"bench_{name}", None), feature,
                                     getattr(mod, "RTOL", {}).get(name, 0.0), getattr(mod, "KNOWN", {}).get(name)))
        for table in ("REQUIRES", "RTOL", "KNOWN"):
            extra = set(getattr(mod, table, {})) - set(mod.ENTRIES)
            assert not extra, f"{mod_name}: {table} names no entry: {sorted(extra)}"
    return out

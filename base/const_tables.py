"""Module-global tables: a dict, set, frozenset or list of constants read by compiled code.

``UNITS = {"s": 1, "m": 60}`` at module level, read as ``UNITS[ch]`` in a compiled function, is captured at
compile time as an immutable constant (docs/semantics.md "Module globals"): the tracer (tracer/frontend.py)
turns the read into a CONST node holding a ConstTable, the typer types it from its items, the C++ builds it
once per process (a function-local static, base/cpp.py ``literal``), and lowering/const_tables.py refuses any
use that could change it. Re-binding the global is seen as for scalars (its digest is its items,
tracer/globals.py)."""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from everypath.base.errors import TypingError
from everypath.base.types import BOOL, FLOAT, INT, DictT, ListT, SetT, StrT, TupleT, Type


class TableKind(enum.Enum):
    DICT = "dict"
    SET = "set"
    FROZENSET = "frozenset"
    LIST = "list"


_KINDS: dict[type, TableKind] = {dict: TableKind.DICT, set: TableKind.SET, frozenset: TableKind.FROZENSET,
                                 list: TableKind.LIST}
_ITEM_TYPES = (bool, int, float, str)  # what a table may hold (and tuples of these)


def _plain(x: Any) -> bool:
    """A constant a table may hold: int, float, bool, str and tuples of them (exact types: no subclasses, whose
    methods could differ, no NumPy scalars, whose types a table of Python values would not keep)."""
    if type(x) is tuple:
        return all(_plain(i) for i in x)
    return type(x) in _ITEM_TYPES


@dataclass(frozen=True)
class ConstTable:
    """A table's value as captured: dict items as (key, value) pairs, other kinds as their items (a set's in
    CPython's iteration order; compiled code never shows a set's order)."""

    label: str  # the global's name as messages say it ('UNITS', 'cfg.UNITS')
    kind: TableKind
    items: tuple[Any, ...]

    @staticmethod
    def of(label: str, obj: Any) -> "ConstTable | None":
        """The table obj is (None: not a table of constants)."""
        kind = _KINDS.get(type(obj))
        if kind is None:
            return None
        if kind is TableKind.DICT:
            if not all(_plain(k) and _plain(v) for k, v in obj.items()):
                return None
            return ConstTable(label, kind, tuple(obj.items()))
        if not all(_plain(x) for x in obj):
            return None
        return ConstTable(label, kind, tuple(obj))

    def value(self) -> Any:
        """A fresh Python object equal to the captured one."""
        return dict(self.items) if self.kind is TableKind.DICT else _KIND_TYPE[self.kind](self.items)

    def type(self) -> Type:
        """Its compiled type; a located TypingError where one C++ type cannot hold it."""
        if not self.items:
            raise TypingError(f"module global '{self.label}' is an empty {self.kind.value}: its item types are "
                              "unknown at compile time")
        if self.kind is TableKind.DICT:
            return DictT(self._one((k for k, _ in self.items), "key"), self._one((v for _, v in self.items), "value"))
        elem = self._one(self.items, "item")
        return ListT(elem) if self.kind is TableKind.LIST else SetT(elem)

    def _one(self, xs: Any, what: str) -> Type:
        seen: dict[Type, Any] = {}
        for x in xs:
            seen.setdefault(_type_of(x), x)
        if len(seen) > 1:
            (a, xa), (b, xb) = list(seen.items())[:2]
            raise TypingError(f"module global '{self.label}' mixes {what} types ({xa!r} is {a}, {xb!r} is {b}): a "
                              f"compiled {self.kind.value} holds one {what} type")
        return next(iter(seen))

    def __repr__(self) -> str:  # the IR printer shows the constant as the user wrote it
        return f"{self.label}={self.value()!r}"


_KIND_TYPE: dict[TableKind, type] = {TableKind.SET: set, TableKind.FROZENSET: frozenset, TableKind.LIST: list}


_SIMPLE: dict[type, Type] = {bool: BOOL, int: INT, float: FLOAT, str: StrT()}


def _type_of(x: Any) -> Type:
    if type(x) is tuple:
        return TupleT(tuple(_type_of(i) for i in x))
    return _SIMPLE[type(x)]


def table_of(label: str, obj: Any) -> ConstTable | None:
    return ConstTable.of(label, obj)


__all__ = ["ConstTable", "TableKind", "table_of"]

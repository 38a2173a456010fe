"""Selection tables as the runtime shim reads them: which variant runs for each operator
and work size on a device class (issue 5's selector writes them; bundles ship them).

File format (JSON, ``"format": 1``)::

    {"format": 1, "version": "2026-11-30T12:00:00Z-3f2a9c",
     "tables": {"<device_class>": [{"op": "numpy.matmul", "bounds": [4096, 262144],
                                     "variants": ["loops", "threads", "blas"]}, ...],
                "*": [...]}}

``variants[i]`` serves calls whose largest operand has fewer than ``bounds[i]`` elements,
the last one everything larger; a variant a call site was not built with is no choice
there (the built-in thresholds decide, and the record says so). An optional ``"topk"`` gives, per
variant slot, the variants exploration may try (the selector's predicted best few): with
``EVERYPATH_EXPLORE`` = ε a call explores with probability ε, uniformly among those (the
greedy choice included), so exploration never runs a variant predicted to be poor there. ``"*"`` is the table for
device classes the file does not name. Without a table the built-in thresholds (each
variant's measured ``min_work``) choose.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

FORMAT = 1


def table_in_force(selection_table: Path | None, registry: Path) -> Path | None:
    """The table to put in force: the configured file (Settings.selection_table), else the one
    `everypath selector retrain` promoted into the model registry (Settings.registry), if any."""
    if selection_table is not None:
        return selection_table
    promoted = registry / "current" / "selection_table.json"
    return promoted if promoted.is_file() else None


class TableError(ValueError):
    """A selection table file that cannot be used (the message names the file and the problem)."""


@dataclass(frozen=True)
class Entry:
    op: str
    bounds: tuple[int, ...]
    variants: tuple[str, ...]
    topk: tuple[tuple[str, ...], ...] = ()  # per slot, the variants exploration may try (empty: all)


@dataclass(frozen=True)
class SelectionTable:
    version: str
    entries: tuple[Entry, ...]

    def as_runtime(self) -> list[tuple[str, list[int], list[str]]]:
        return [(e.op, list(e.bounds), list(e.variants), [list(t) for t in e.topk]) for e in self.entries]


def _entry(where: str, i: int, e: object) -> Entry:
    if not isinstance(e, dict) or not isinstance(e.get("op"), str):
        raise TableError(f"{where}: entry {i} needs an 'op' string")
    bounds, variants = e.get("bounds", []), e.get("variants")
    if not (isinstance(bounds, list) and all(isinstance(b, int) and not isinstance(b, bool) and b >= 0 for b in bounds)):
        raise TableError(f"{where}: entry {i} ({e['op']}): 'bounds' must be a list of non-negative integers")
    if sorted(bounds) != bounds:
        raise TableError(f"{where}: entry {i} ({e['op']}): 'bounds' must be increasing")
    if not (isinstance(variants, list) and variants and all(isinstance(v, str) for v in variants)):
        raise TableError(f"{where}: entry {i} ({e['op']}): 'variants' must be a non-empty list of path names")
    if len(variants) != len(bounds) + 1:
        raise TableError(f"{where}: entry {i} ({e['op']}): {len(variants)} variants for {len(bounds)} bounds "
                         "(needs one more variant than bounds)")
    topk = e.get("topk", [])
    if not (isinstance(topk, list) and all(isinstance(t, list) and all(isinstance(v, str) for v in t) for t in topk)):
        raise TableError(f"{where}: entry {i} ({e['op']}): 'topk' must be a list of lists of path names")
    if topk and len(topk) != len(variants):
        raise TableError(f"{where}: entry {i} ({e['op']}): 'topk' needs one list per variant ({len(variants)}), "
                         f"has {len(topk)}")
    return Entry(e["op"], tuple(bounds), tuple(variants), tuple(tuple(t) for t in topk))


def load_table(path: Path, device_class: str) -> SelectionTable | None:
    """The table for device_class from a selection table file (None: the file has none for it)."""
    try:
        doc = json.loads(Path(path).read_text())
    except OSError as exc:
        raise TableError(f"{path}: cannot read the selection table ({exc.strerror or exc})") from None
    except ValueError as exc:
        raise TableError(f"{path}: not JSON ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise TableError(f"{path}: not a selection table of format {FORMAT} (has format {doc.get('format')!r})"
                         if isinstance(doc, dict) else f"{path}: not a selection table (expected a JSON object)")
    version, tables = doc.get("version"), doc.get("tables")
    if not isinstance(version, str) or not version:
        raise TableError(f"{path}: 'version' must be a non-empty string")
    if not isinstance(tables, dict):
        raise TableError(f"{path}: 'tables' must map device classes to entry lists")
    chosen = tables.get(device_class, tables.get("*"))
    if chosen is None:
        return None
    key = device_class if device_class in tables else "*"
    if not isinstance(chosen, list):
        raise TableError(f"{path}: tables[{key!r}] must be a list of entries")
    entries = tuple(_entry(f"{path}: tables[{key!r}]", i, e) for i, e in enumerate(chosen))
    ops = [e.op for e in entries]
    if len(set(ops)) != len(ops):
        raise TableError(f"{path}: tables[{key!r}] names an operator twice")
    return SelectionTable(version, entries)

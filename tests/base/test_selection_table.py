"""Selection table files (base/selection_table.py): what the shim loads, and the errors that name
the file and the entry when a file cannot be used."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from everypath.base.selection_table import TableError, load_table


def _write(tmp_path: Path, doc: object) -> Path:
    p = tmp_path / "table.json"
    p.write_text(json.dumps(doc))
    return p


def test_class_table_or_the_default_star(tmp_path: Path) -> None:
    p = _write(tmp_path, {"format": 1, "version": "v1", "tables": {
        "abc": [{"op": "numpy.sum", "bounds": [1000], "variants": ["loops", "simd"],
                 "topk": [["loops", "simd"], ["simd", "threads"]]}],
        "*": [{"op": "numpy.sum", "bounds": [], "variants": ["threads"]}]}})
    t = load_table(p, "abc")
    assert t is not None and t.version == "v1"
    assert t.as_runtime() == [("numpy.sum", [1000], ["loops", "simd"], [["loops", "simd"], ["simd", "threads"]])]
    other = load_table(p, "zzz")
    assert other is not None and other.as_runtime() == [("numpy.sum", [], ["threads"], [])]
    assert load_table(_write(tmp_path, {"format": 1, "version": "v", "tables": {"abc": []}}), "x") is None


@pytest.mark.parametrize("entry, message", [
    ({"op": "numpy.sum", "bounds": [5, 1], "variants": ["a", "b", "c"]}, "'bounds' must be increasing"),
    ({"op": "numpy.sum", "bounds": [5], "variants": ["a"]}, "1 variants for 1 bounds"),
    ({"op": "numpy.sum", "variants": ["a"], "topk": [["a"], ["b"]]}, "'topk' needs one list per variant (1), has 2"),
    ({"op": "numpy.sum", "variants": ["a"], "topk": ["a"]}, "'topk' must be a list of lists of path names"),
    ({"bounds": [], "variants": ["a"]}, "entry 0 needs an 'op' string"),
])
def test_bad_entries_are_named(tmp_path: Path, entry: dict[str, object], message: str) -> None:
    p = _write(tmp_path, {"format": 1, "version": "v", "tables": {"*": [entry]}})
    with pytest.raises(TableError) as e:
        load_table(p, "any")
    assert str(p) in str(e.value) and "tables['*']" in str(e.value) and message in str(e.value)


def test_not_a_table(tmp_path: Path) -> None:
    with pytest.raises(TableError, match="not JSON"):
        load_table(tmp_path / "x.json" if (tmp_path / "x.json").write_text("{") else tmp_path, "c")
    with pytest.raises(TableError, match="format 1"):
        load_table(_write(tmp_path, {"format": 7}), "c")
    with pytest.raises(TableError, match="cannot read"):
        load_table(tmp_path / "missing.json", "c")

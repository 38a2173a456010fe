"""The str case mappings and character classes compiled code uses are CPython's own: the committed
str_unicode.hpp is what variants/unicode_tables.py writes from this interpreter's unicodedata (the
behaviour of every code point is checked end to end in tests/lowering/test_strings.py)."""
from __future__ import annotations

import unicodedata

import pytest

from everypath.variants import unicode_tables


def test_committed_tables_are_this_pythons_unicode() -> None:
    if not unicode_tables.current():
        pytest.skip(f"str_unicode.hpp is another Unicode version than this Python's {unicodedata.unidata_version}")
    assert unicode_tables.HEADER.read_text(encoding="utf-8") == unicode_tables.header_text(), (
        "regenerate: python -m everypath.variants.unicode_tables")

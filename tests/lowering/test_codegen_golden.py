"""Generated C++ kept as golden files for review, and its // file.py:LINE markers."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from everypath.base.settings import Settings
from everypath.lowering.infer import ProgramTyper
from everypath.lowering.pipeline import _resolve_params
from everypath.lowering.unit import Entry, translation_unit
from tests.tracer import golden_programs as gp
from everypath.tracer.callgraph import trace_program

GOLDEN = Path(__file__).parent / "golden"
PROGRAMS = [gp.loops_and_branches, gp.views_and_masks]


def _cpp(fn) -> str:
    program = trace_program(fn)
    types, _ = _resolve_params(program.functions[program.entry], None)
    typer = ProgramTyper(program.functions)
    spec = typer.run(program.entry, types)
    text = translation_unit(typer.order, [Entry(f"ep_call_{fn.__name__}", spec)], boundscheck=Settings().boundscheck)
    return text.replace(str(Path(gp.__file__).parent) + os.sep, "")  # EP_TRACE_BEGIN's path: checkout-independent


@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
def test_generated_cpp_matches_golden(fn, update_golden: bool) -> None:
    text = _cpp(fn)
    path = GOLDEN / f"{fn.__name__}.cpp"
    if update_golden or not path.exists():
        path.write_text(text)
    assert text == path.read_text(), f"C++ for {fn.__name__} changed; review and run pytest --update-golden"


def test_every_statement_line_is_marked() -> None:
    text = _cpp(gp.loops_and_branches)
    marked = {int(m) for m in re.findall(r"// golden_programs\.py:(\d+)", text)}
    src = Path(gp.__file__).read_text().splitlines()
    first = next(i for i, line in enumerate(src, 1) if line.startswith("def loops_and_branches"))
    body = {i for i in range(first + 1, first + 12) if src[i - 1].strip() not in ("", "else:")}  # statement lines
    assert body <= marked, sorted(body - marked)

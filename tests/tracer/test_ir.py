"""The IR: canonical printer (golden files), lint, and use-def kept by the data structure."""
from __future__ import annotations

from pathlib import Path

import pytest

from everypath.base.errors import SourceLocation
from everypath.lowering.pipeline import ir_text
from tests.tracer import golden_programs as gp
from everypath.tracer.callgraph import trace_program
from everypath.tracer.ir import Block, Function, Node, Opcode
from everypath.tracer.lint import LintError, lint

GOLDEN = Path(__file__).parent / "golden"
PROGRAMS = [gp.loops_and_branches, gp.comprehension_and_closure, gp.views_and_masks]
LOC = SourceLocation("t.py", 1, 0)


@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
def test_printer_matches_golden(fn, update_golden: bool) -> None:
    text = ir_text(fn, typed=True) + "\n"
    path = GOLDEN / f"{fn.__name__}.ir"
    if update_golden or not path.exists():
        path.write_text(text)
    assert text == path.read_text(), f"IR of {fn.__name__} changed; review and run pytest --update-golden"


@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
def test_traced_programs_lint_clean(fn) -> None:
    for f in trace_program(fn).functions.values():
        lint(f)


def test_constants_are_folded_and_globals_resolved() -> None:
    text = ir_text(gp.loops_and_branches, typed=False)
    assert "const 2.0" in text  # SCALE, a module constant
    assert "load SCALE" not in text
    text = ir_text(gp.comprehension_and_closure, typed=False)
    assert "const 3.141592653589793" in text  # math.pi


def _fn(block: Block) -> Function:
    return Function("f", "f", "m", "t.py", [], None, block, LOC)


def test_users_follow_operand_changes() -> None:
    b = Block()
    one = b.append(Node(Opcode.CONST, 1, (), {}, LOC))
    two = b.append(Node(Opcode.CONST, 2, (), {}, LOC))
    add = b.append(Node(Opcode.CALL, "operator.add", (one, one), {}, LOC))
    assert set(one.users) == {add} and not two.users
    add.args = (one, two)
    assert set(two.users) == {add}
    one.replace_all_uses_with(two)
    assert add.args == (two, two) and not one.users
    b.append(Node(Opcode.RETURN, None, (add,), {}, LOC))
    lint(_fn(b))


def test_lint_rejects_use_before_definition() -> None:
    b = Block()
    later = Node(Opcode.CONST, 1, (), {}, LOC)
    b.append(Node(Opcode.RETURN, None, (later,), {}, LOC))
    b.append(later)
    with pytest.raises(LintError, match="not defined before"):
        lint(_fn(b))


def test_lint_rejects_break_outside_loop() -> None:
    b = Block()
    b.append(Node(Opcode.BREAK, None, (), {}, LOC))
    with pytest.raises(LintError, match="outside a loop"):
        lint(_fn(b))


def test_lint_rejects_values_from_a_nested_block() -> None:
    b = Block()
    cond = b.append(Node(Opcode.CONST, True, (), {}, LOC))
    inner = Block()
    v = inner.append(Node(Opcode.CONST, 5, (), {}, LOC))
    b.append(Node(Opcode.IF, None, (cond,), {}, LOC, blocks=(inner, Block())))
    b.append(Node(Opcode.RETURN, None, (v,), {}, LOC))
    with pytest.raises(LintError):
        lint(_fn(b))

"""The tracer's pass pipeline, in order (one pass per module, Pythran style)."""
from __future__ import annotations

from typing import Callable

from everypath.tracer.ir import Function, Opcode
from everypath.tracer.webs import split_webs

PIPELINE: tuple[Callable[[Function], None], ...] = (
    split_webs,
)


def run_pipeline(fn: Function) -> None:
    for p in PIPELINE:
        p(fn)
    for n in fn.body.walk():  # closures get the same treatment
        if n.op is Opcode.CLOSURE:
            run_pipeline(n.target)

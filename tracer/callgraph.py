"""Walk the call graph from an entry function: every reachable user function is traced once."""
from __future__ import annotations

import types
from dataclasses import dataclass

from lowering.annotations import evaluate_annotation
from tracer.frontend import trace_function
from tracer.ir import Function, FunctionRef


@dataclass
class Program:
    entry: FunctionRef
    functions: dict[FunctionRef, Function]
    pyfuncs: dict[FunctionRef, types.FunctionType]

    def files(self) -> set[str]:
        return {f.filename for f in self.functions.values()}


def trace_program(pyfunc: types.FunctionType) -> Program:
    pending: list[tuple[FunctionRef, types.FunctionType]] = []
    seen: dict[FunctionRef, types.FunctionType] = {}

    def on_function(ref: FunctionRef, fn: types.FunctionType) -> None:
        if ref not in seen:
            seen[ref] = fn
            pending.append((ref, fn))

    entry = FunctionRef(pyfunc.__module__ or "__main__", pyfunc.__qualname__)
    on_function(entry, pyfunc)
    functions: dict[FunctionRef, Function] = {}
    while pending:
        ref, fn = pending.pop()
        functions[ref] = trace_function(fn, on_function, evaluate_annotation)
    return Program(entry, functions, seen)

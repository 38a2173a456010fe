"""Walk the call graph from an entry function: every reachable user function is traced once per
set of constant arguments it is called with (at most MAX_CONST_SPECIALISATIONS, so constants folded
through a recursion cannot unroll it forever)."""
from __future__ import annotations

import os
import sysconfig
import types
from dataclasses import dataclass, field

from everypath.base.errors import CompileError, CompileErrors, SourceLocation
from everypath.base.annotations import evaluate_annotation
from everypath.tracer.class_methods import add_methods
from everypath.tracer.frontend import trace_function
from everypath.tracer.globals import GlobalRead, unique
from everypath.tracer.ir import Function, FunctionRef

MAX_CONST_SPECIALISATIONS = 8  # per helper; further constant call sites share the generic trace


@dataclass
class Program:
    entry: FunctionRef
    functions: dict[FunctionRef, Function]
    pyfuncs: dict[FunctionRef, types.FunctionType]
    reads: tuple[GlobalRead, ...] = ()  # every module global the graph read (tracer.globals)
    call_sites: dict[FunctionRef, SourceLocation] = field(default_factory=dict)  # first call reaching each

    def files(self) -> set[str]:
        return {f.filename for f in self.functions.values()}


def trace_program(pyfunc: types.FunctionType) -> Program:
    pending: list[tuple[FunctionRef, types.FunctionType]] = []
    seen: dict[FunctionRef, types.FunctionType] = {}
    per_function: dict[FunctionRef, int] = {}

    def on_function(ref: FunctionRef, fn: types.FunctionType) -> FunctionRef:
        if ref in seen:
            return ref
        if ref.consts:
            generic = FunctionRef(ref.module, ref.qualname)
            if per_function.get(generic, 0) >= MAX_CONST_SPECIALISATIONS:
                return on_function(generic, fn)
            per_function[generic] = per_function.get(generic, 0) + 1
        seen[ref] = fn
        pending.append((ref, fn))
        return ref

    sites: dict[FunctionRef, SourceLocation] = {}
    on_function.call_sites = sites  # type: ignore[attr-defined]  # filled by the tracer (note_call_site)
    entry = FunctionRef(pyfunc.__module__ or "__main__", pyfunc.__qualname__)
    on_function(entry, pyfunc)
    functions: dict[FunctionRef, Function] = {}
    reads: list[GlobalRead] = []
    while pending:
        ref, fn = pending.pop()
        try:
            functions[ref] = trace_function(fn, on_function, evaluate_annotation, ref.consts, reads,
                                            entry=ref == entry)
        except CompileError as exc:
            raise at_call_site(exc, ref, sites, seen, pyfunc.__code__.co_filename) from None
        if not pending:  # the methods of the user's classes the program calls (tracer/class_methods.py)
            add_methods(functions, on_function)
    return Program(entry, functions, seen, unique(reads), sites)


def _library_roots() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    return tuple(os.path.realpath(paths[k]) + os.sep for k in ("stdlib", "platstdlib", "purelib", "platlib"))


def is_library_file(filename: str) -> bool:
    """Python's standard library or an installed package: code the user did not write (their own modules,
    wherever they are, keep their errors at the line in them)."""
    return os.path.realpath(filename).startswith(_library_roots())


def at_call_site(exc: CompileError, ref: FunctionRef, sites: dict[FunctionRef, SourceLocation],
                 seen: dict[FunctionRef, types.FunctionType], user_file: str) -> CompileError:
    """An error inside a library function (stdlib, third-party: any file but the entry's) reported at the
    user's call that reached that library, with the library's location as a `during:` line."""
    if not exc.lineno or exc.filename == user_file or isinstance(exc, CompileErrors) or \
            not is_library_file(exc.filename):
        return exc
    called, site = ref, sites.get(ref)
    if site is None or site.filename != user_file:  # reached through the library's own helpers
        called, site = next(((r, loc) for r, loc in sites.items() if loc.filename == user_file
                             and r in seen and seen[r].__code__.co_filename == exc.filename), (ref, None))
    if site is None:
        return exc
    inner = f"{exc.location}: {exc.message}" + (f": {exc.source_line.strip()}" if exc.source_line else "")
    if called != ref:
        inner = f"in {ref.qualname}() at {inner}"
    return CompileError.at(site, f"cannot compile {called.module}.{called.qualname}(), called here",
                           (*exc.during, inner))


def in_user_code(exc: CompileError, program: Program) -> CompileError:
    """Errors found later (typing) inside library functions, moved to the user's calls as at_call_site
    does; one per call site (the rest cascade from the first)."""
    user_file = program.pyfuncs[program.entry].__code__.co_filename
    errors = exc.errors if isinstance(exc, CompileErrors) else (exc,)
    out: list[CompileError] = []
    moved: set[SourceLocation] = set()
    for e in errors:
        ref = next((r for r, f in program.pyfuncs.items() if f.__code__.co_filename == e.filename), None)
        m = at_call_site(e, ref, program.call_sites, program.pyfuncs, user_file) if ref is not None else e
        if m is not e:
            if m.location in moved:
                continue
            moved.add(m.location)
        out.append(m)
    if len(out) == 1:
        return out[0]
    return exc if out == list(errors) else CompileErrors(out)

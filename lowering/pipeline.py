"""The compile pipeline for one entry function: trace -> type -> emit -> build, cached.

Two cache levels. The front key (entry source, the contents of every file the
call graph touched, argument types, flags, compiler, headers, format version)
maps straight to a manifest, so a warm first call does no tracing at all. The
back key is the generated C++ itself, so identical code is built once.
"""
from __future__ import annotations

import hashlib
import types
from dataclasses import dataclass
from typing import Any

from everypath.base.errors import CompileError, OpenSignatureError
from everypath.base.settings import Settings
from everypath.base.annotations import Annotation, OpenArrayT, annotation_text, to_type
from everypath.lowering.build import build_shared, compiler_version, headers_digest
from everypath.lowering.effects import mutated_params
from everypath.lowering.infer import ProgramTyper, TypedFunction
from everypath.lowering.signature import signature
from everypath.base.types import ArrayT, ImageT, ScalarT, TupleT, Type
from everypath.lowering import cache
from everypath.lowering.cache import CompiledModule
from everypath.lowering.dispatch import PathPolicy
from everypath.lowering.sites import Site
from everypath.lowering.unit import Entry, translation_unit_parts
from everypath.tracer.callgraph import in_user_code, trace_program

def _resolve_params(fn: Any, given: tuple[Type | None, ...] | None) -> tuple[tuple[Type, ...], dict[str, str]]:
    out: list[Type] = []
    texts: dict[str, str] = {}
    for i, p in enumerate(fn.params):
        ann: Annotation | None = p.annotation
        t: Any = to_type(ann) if ann is not None else None
        if ann is not None:
            texts[p.name] = ann.text
        call_t = given[i] if given is not None and i < len(given) else None
        if isinstance(t, TupleT) and any(isinstance(x, OpenArrayT) for x in t.items):
            raise CompileError.at(p.loc, f"parameter '{p.name}': tuples of PIL images are not supported as parameters; "
                                         "pass each image as a parameter of its own", ("resolving the signature",))
        if t is None or isinstance(t, OpenArrayT):
            if call_t is None:
                what = "an annotation" if t is None else "a rank in its annotation"
                raise OpenSignatureError(
                    f"parameter '{p.name}' needs {what} to be compiled ahead of time "
                    "(or call the function once so everypath can specialise on the argument)",
                    p.loc.filename, p.loc.lineno, p.loc.col, ("resolving the signature",))
            if isinstance(t, OpenArrayT) and t.image:  # PIL.Image.Image: the argument's mode (base/images.py)
                if not isinstance(call_t, ImageT):
                    raise CompileError.at(p.loc, f"parameter '{p.name}': argument of type {call_t} does not match "
                                                 f"annotation '{ann.text if ann else ''}'", ("resolving the signature",))
            elif isinstance(t, OpenArrayT):
                if not isinstance(call_t, ArrayT) or (t.dtype is not None and call_t.dtype is not t.dtype) or \
                        call_t.torch != t.torch:
                    raise CompileError.at(p.loc, f"parameter '{p.name}': argument of type {call_t} does not match "
                                                 f"annotation '{ann.text if ann else ''}'", ("resolving the signature",))
            t = call_t
        out.append(t)
    return tuple(out), texts


def _return_compatible(want: Any, got: Any) -> bool:
    """PEP 484 reading of a return annotation: scalars match by dtype (Python or NumPy
    scalar alike; float accepts ints, as the numeric tower does), containers item by item."""
    from everypath.base.types import ListT, TupleT

    if isinstance(want, OpenArrayT) and want.image or isinstance(want, ImageT):  # an image of the mode it makes
        return isinstance(got, ImageT) and (not isinstance(want, ImageT) or got.mode in (want.mode, None))
    from everypath.base.types import UnionT

    if isinstance(want, UnionT):  # `Box | None`, Optional[int]: each kind the function returns is one annotated
        return all(any(_return_compatible(w, g) for w in want.members)
                   for g in (got.members if isinstance(got, UnionT) else (got,)))
    if isinstance(got, UnionT):  # the annotation is one of the kinds it may be (CPython checks nothing at run time)
        return any(_return_compatible(want, m) for m in got.members)
    if isinstance(want, OpenArrayT):
        return isinstance(got, ArrayT) and (want.dtype is None or want.dtype is got.dtype) and want.torch == got.torch
    if isinstance(want, ScalarT) and isinstance(got, ScalarT):
        return want.dtype is got.dtype or (want.dtype.kind == "f" and got.dtype.kind in "iub") or (
            want.dtype.kind == "c" and got.dtype.kind in "iubf")
    if isinstance(want, TupleT) and isinstance(got, TupleT):
        return len(want.items) == len(got.items) and all(map(_return_compatible, want.items, got.items))
    if isinstance(want, ListT) and isinstance(got, ListT):
        return got.elem is None or _return_compatible(want.elem, got.elem)
    from everypath.base.types import DictT

    from everypath.base.types import SetT

    if isinstance(want, SetT) and isinstance(got, SetT):
        return got.elem is None or want.elem == got.elem
    if isinstance(want, DictT) and isinstance(got, DictT):  # keys exactly (a dict keeps their type), values as above
        return want.key == got.key and (got.value is None or _return_compatible(want.value, got.value))
    return want == got


def _crossable(t: Any) -> str | None:
    """Why a result of type t cannot be returned to Python (None: it can)."""
    from everypath.base.types import ListT, TupleT

    from everypath.base.types import StrT

    from everypath.base.types import EnumT, RecordT

    if isinstance(t, ListT) and t.elem is not None and not isinstance(t.elem, (ScalarT, StrT)):
        from everypath.base.types import UnionT

        from everypath.base.types import DictT, SetT

        # one EP_KIND_SEQ slot of items (records.py): list[dict[str, str]] from a CSV reader, list[list[int]]
        if isinstance(t.elem, (EnumT, RecordT, TupleT, UnionT, DictT, SetT, ListT)):
            return _crossable(t.elem)
        return f"returning a list of {t.elem} is not supported yet: return tuple(...) of it instead"
    if isinstance(t, RecordT):
        for item in t.items:
            why = _crossable(item)
            if why:
                return why
    from everypath.base.types import DictT

    from everypath.base.types import SetT

    if isinstance(t, SetT) and t.elem is None:
        return "returning an empty set whose item type is unknown: add to it first"
    if isinstance(t, DictT):
        if t.key is None or t.value is None:
            return "returning an empty dict whose key and value types are unknown: store into it first"
        return _crossable(t.value)
    if isinstance(t, TupleT):
        for item in t.items:
            why = _crossable(item)
            if why:
                return why
    return None


def _check_return(spec: TypedFunction) -> None:
    from everypath.lowering.generators import check_return, is_generator_result

    if is_generator_result(spec.return_type):  # Iterator[T] annotations, items that cross the ABI
        check_return(spec, _return_compatible, _crossable)
        return
    why = _crossable(spec.return_type)
    if why is not None:
        ret = next((n for n in spec.fn.body.walk() if n.op.name == "RETURN"), None)
        raise CompileError.at(ret.loc if ret is not None else spec.fn.loc, why,
                              (f"checking the return type of {spec.fn.qualname}",))
    ann: Annotation | None = spec.fn.returns
    if ann is None or spec.return_type is None:
        return
    want = to_type(ann)
    got = spec.return_type
    if _return_compatible(want, got):
        return
    raise CompileError.at(ann.loc, f"function returns {annotation_text(got)} but is annotated '{ann.text}'",
                          (f"checking the return type of {spec.fn.qualname}",))


def check_observation(spec: TypedFunction, obs: Any) -> None:
    """Static inference must agree with what the sandboxed run saw; disagreement is an error, never a wrong build."""
    from everypath.base.types import NoneT, join

    def agrees(inferred: Any, seen: Any) -> bool:
        if seen is None or isinstance(seen, NoneT) or inferred is None:
            return True
        if isinstance(inferred, ScalarT) and isinstance(seen, ScalarT):
            j = join(ScalarT(inferred.dtype), ScalarT(seen.dtype))
            return j is not None and j.dtype is inferred.dtype
        j = join(inferred, seen)
        return j == inferred

    for name, seen in sorted(obs.locals.items()):
        inferred = spec.var_types.get(name)
        for t in seen:
            if not agrees(inferred, t):
                loc = spec.fn.locals.get(name, spec.fn.loc)
                raise CompileError.at(loc if loc.lineno else spec.fn.loc,
                                      f"inference says '{name}' is {inferred}, but running the function on these "
                                      f"arguments gave {t}", (f"checking {spec.fn.qualname} against a sandboxed run",))
    if obs.result is not None and not agrees(spec.return_type, obs.result):
        raise CompileError.at(spec.fn.loc, f"inference says the result is {spec.return_type}, but running the "
                                           f"function gave {obs.result}",
                              (f"checking {spec.fn.qualname} against a sandboxed run",))


@dataclass(frozen=True)
class Generated:
    """One entry function traced, typed and emitted: the translation unit and how to call it."""

    source: str
    symbol: str  # the C ABI entry, ep_call_<name>
    name: str  # the Python function's name
    signature: dict[str, Any]  # lowering.signature descriptor
    sites: tuple[Site, ...]  # operator call sites, in site-table order
    files: frozenset[str]  # every source file the call graph touched
    reads: tuple[Any, ...] = ()  # tracer.globals.GlobalRead: the module globals the build depends on


def generate(pyfunc: types.FunctionType, settings: Settings, call_types: tuple[Type | None, ...] | None = None,
             observation: Any = None, policy: PathPolicy | None = None) -> Generated:
    """Trace, type and emit (no build): the host build and every portable target share this."""
    program = trace_program(pyfunc)
    entry_fn = program.functions[program.entry]
    if policy is not None:  # a portable target (export, bundle): no Python at run time to read module arrays from
        _refuse_hidden(entry_fn, program.reads)
    arg_types, texts = _resolve_params(entry_fn, call_types)
    typer = ProgramTyper(program.functions)
    try:
        spec = typer.run(program.entry, arg_types)
    except CompileError as exc:  # errors inside library code are reported at the user's call
        raise in_user_code(exc, program).with_during(f"compiling {pyfunc.__qualname__}") from None
    _check_return(spec)
    if policy is not None:  # a portable target: no PIL at run time to make or read images
        from everypath.lowering.pil_images import refuse_portable

        refuse_portable(spec)
    from everypath.lowering.dict_params import check_dict_params

    check_dict_params(spec)  # dict arguments arrive as copies: compiled code may only read them
    from everypath.lowering.const_tables import check_const_tables

    check_const_tables(typer.order)  # so are module-global tables, captured at compile time
    from everypath.lowering.records import check_record_params

    check_record_params(spec, typer.order)  # so do mutable dataclass arguments: their fields are not stored into
    if observation is not None:
        check_observation(spec, observation)
    mutated = mutated_params(typer.order)[spec]
    sig = signature(spec, mutated, texts)
    symbol = f"ep_call_{entry_fn.name}"
    unit = translation_unit_parts(typer.order, [Entry(symbol, spec)], boundscheck=settings.boundscheck,
                                  policy=policy or PathPolicy.from_settings(settings))
    return Generated(unit.source, symbol, entry_fn.name, sig, unit.sites, frozenset(program.files()), program.reads)


def _refuse_hidden(entry_fn: Any, reads: tuple[Any, ...]) -> None:
    for r in reads:
        if r.hidden:
            loc = next(p.loc for p in entry_fn.params if p.name == r.hidden)
            raise CompileError.at(loc, f"module array '{r.name}' cannot be read by {entry_fn.qualname} in a portable "
                                       "build (export, bundle): there is no Python module to read it from at run "
                                       f"time; pass '{r.name}' as a parameter", ("building for a portable target",))


def compile_function(pyfunc: types.FunctionType, settings: Settings,
                     call_types: tuple[Type | None, ...] | None = None, observation: Any = None,
                     key: str | None = None) -> CompiledModule:
    """Trace, type, emit and build (callers look in the cache first: see CompiledFunction.build)."""
    if key is None:
        key = cache.front_key(pyfunc, call_types, settings)
    gen = generate(pyfunc, settings, call_types, observation)
    source, symbol, sig = gen.source, gen.symbol, gen.signature
    back = hashlib.sha256("\x00".join([source, " ".join(settings.cxx_flags() + settings.link_flags()),
                                       compiler_version(settings.cxx, str(settings.cache_dir)),
                                       headers_digest()]).encode()).hexdigest()
    so_path = settings.cache_dir / "so" / back[:2] / f"{back}.so"
    if not so_path.exists():
        build_shared(source, so_path, settings)
    module = CompiledModule(so_path, symbol, sig, so_path.with_suffix(".cpp"), key, from_cache=False, globals=gen.reads)
    cache.store(settings, key, module, {f: cache.file_digest(f) for f in gen.files}, pyfunc.__globals__)
    return module


def ir_text(pyfunc: types.FunctionType, call_types: tuple[Type | None, ...] | None = None, typed: bool = True) -> str:
    """The canonical IR of every function reachable from pyfunc (typed when the types are known)."""
    program = trace_program(pyfunc)
    if typed:
        arg_types, _ = _resolve_params(program.functions[program.entry], call_types)
        typer = ProgramTyper(program.functions)
        typer.run(program.entry, arg_types)
        out = []
        for s in typer.order:
            if s.fn.is_closure:
                continue
            for n, t in s.types.items():
                if t is not None:
                    n.meta["type"] = t
            out.append(str(s.fn))
        return "\n\n".join(out)
    return "\n\n".join(str(f) for f in program.functions.values())

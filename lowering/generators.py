"""Generator functions in typing and C++: C++20 coroutines (variants/include/everypath/generator.hpp).

A function whose body yields returns `GenT(item)`: the one type of everything it yields (mixed yields are
refused, since CPython would hand back each value's own type). It is emitted as a coroutine returning
`ep::generator<T>`: `yield v` is `co_yield v;`, `return` is `co_return;`. Compiled code consumes one with
`for` (`while (g.next())`), which also serves `yield from` and any/all/sum/... (tracer/generators.py); an
entry point hands it to Python as a lazy iterator (EP_KIND_GEN, lowering/runtime/generators.cpp). Numeric
kernels never see any of this: nothing here runs unless a function yields.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from everypath.base.cpp import ctype
from everypath.base.errors import CompileError, TypingError
from everypath.base.types import DictT, GenT, ListT, NoneT, SetT, TupleT, Type
from everypath.tracer.ir import Node

if TYPE_CHECKING:
    from everypath.lowering.emit import FunctionEmitter
    from everypath.lowering.infer import ProgramTyper, TypedFunction
    from everypath.lowering.unit import Entry

HEADER = "everypath/generator.hpp"
CALLS = frozenset({"ep.yield", "ep.default"})  # pseudo-calls of tracer/generators.py


def strict_join(a: Type | None, b: Type | None) -> Type | None:
    """The type two values share exactly (None: they differ). Unlike base.types.join, an int and a float
    do not meet: CPython would yield each with its own type. Only unknown parts (an empty list) fill in."""
    if a is None:
        return b
    if b is None or a == b:
        return a
    if isinstance(a, ListT) and isinstance(b, ListT):
        e = strict_join(a.elem, b.elem)
        return ListT(e) if e is not None else None
    if isinstance(a, SetT) and isinstance(b, SetT):
        e = strict_join(a.elem, b.elem)
        return SetT(e) if e is not None else None
    if isinstance(a, DictT) and isinstance(b, DictT):
        k, v = strict_join(a.key, b.key), strict_join(a.value, b.value)
        known = (a.key is None or b.key is None or k is not None) and (a.value is None or b.value is None or v is not None)
        return DictT(k, v) if known else None
    if isinstance(a, TupleT) and isinstance(b, TupleT) and len(a.items) == len(b.items):
        items = tuple(strict_join(x, y) for x, y in zip(a.items, b.items))
        return None if any(i is None for i in items) else TupleT(items)  # type: ignore[arg-type]
    return None


def consumer_error(target: Any) -> str:
    """Why a generator cannot be handed to this call (only `for` and the reducers consume one)."""
    what = f"{target.split('.')[-1]}()" if isinstance(target, str) and not target.startswith("ep.") else \
        "this call" if not isinstance(target, str) else "this operation"
    return (f"{what} of a generator is not supported in compiled code: iterate it with 'for x in gen(...)', or give "
            "the call straight to sum/any/all/max/min/list/sorted")


# ---- typing (lowering/infer.py calls these) ------------------------------------------------------------
def type_call(typer: "ProgramTyper", spec: "TypedFunction", n: Node, arg_types: list[Type]) -> Type | None:
    if n.target == "ep.yield":
        return _type_yield(spec, n, arg_types[0])
    items = spec.var_types.get(n.meta.get("items") or "")  # max(..., default=d), next(g, d): the items' type
    if items is not None and strict_join(items, arg_types[0]) is None:
        raise TypingError(f"the default of type {arg_types[0]} differs from the items' type {items}: the result's "
                          "type would depend on whether there are items; give a default of the items' type")
    return arg_types[0]


def _type_yield(spec: "TypedFunction", n: Node, t: Type) -> Type:
    if not spec.fn.is_generator:  # a pseudo-call the frontend emits only inside generator functions
        raise TypingError("'yield' outside a generator function")
    if isinstance(t, GenT):
        raise TypingError("yielding a generator is not supported in compiled code; use 'yield from'")
    cur = spec.return_type.item if isinstance(spec.return_type, GenT) else None
    new = strict_join(cur, t)
    if new is None:
        raise TypingError(f"this generator yields {t} here but {cur} elsewhere; compiled generators yield one "
                          "type (CPython would keep each value's own type): convert the values to one type")
    spec.return_type = GenT(new)
    return NoneT()


def type_return(typer: "ProgramTyper", spec: "TypedFunction") -> None:
    """`return` in a generator function ends it (its value is None: tracer/generators.py)."""
    if typer.final and spec.return_type is None and not typer.errors:  # (not as the echo of another error)
        raise TypingError("no 'yield' of this generator function can run, so the type of its items is unknown")


# ---- C++ (lowering/emit.py calls these) ---------------------------------------------------------------
def emit_call(fe: "FunctionEmitter", n: Node) -> None:
    if n.target == "ep.default":
        fe.exprs[n] = fe.value(n.args[0])
        return
    rt = fe.spec.return_type
    assert isinstance(rt, GenT)
    fe.mark(n)
    fe.line(f"co_yield {fe._convert(fe.value(n.args[0]), fe.ty(n.args[0]), rt.item)};")
    fe.exprs[n] = "ep::None{}"


def emit_return(fe: "FunctionEmitter", n: Node) -> None:
    fe.mark(n)
    fe.line("co_return;")


def emit_for(fe: "FunctionEmitter", n: Node) -> None:
    """`for x in gen(...)`: resume the coroutine until it finishes (its frame is freed with the scope)."""
    it = n.args[0]
    t = fe.ty(it)
    g = fe.value(it)
    if not g.isidentifier():  # always a named value (emit.py materialises calls); keep it one
        g = fe.fresh("gen")
        fe.line(f"auto {g} = {fe.value(it)};")
    fe.line(f"while ({g}.next()) {{")
    fe.depth += 1
    fe.bind(n.target, (f"{g}.value()", t.item))
    fe.depth -= 1
    fe.nested(n.blocks[0])
    fe.line("}")


# ---- the entry point (lowering/unit.py) -----------------------------------------------------------------
def entry_lines(e: "Entry", args: str, put_results: Callable[[str, Type, list[int], list[str]], None]) -> list[str]:
    """An entry that returns a generator: the C-ABI call makes it (EP_KIND_GEN) and a `next` function,
    whose address travels with it, resumes it and puts each item in the results, as a return would."""
    rt = e.spec.return_type
    assert isinstance(rt, GenT)
    puts: list[str] = []
    try:
        put_results("r", rt.item, [0], puts)
    except TypeError as exc:
        raise CompileError.at(e.spec.fn.loc, f"the items of this generator: {exc} yet") from None
    item = ctype(rt.item)
    nxt = f"{e.symbol}__next"
    return [
        f"static int {nxt}(void* owner, ep_value* results, ep_error* err) {{",
        f"  return ep::gen_next<{item}>(owner, results, err, [&](ep_value* results, const {item}& r) {{",
        "    (void)results; (void)r;",
        *["    " + p for p in puts],
        "  });",
        "}",
        "",
        f"EP_EXPORT int {e.symbol}(const ep_value* args, int64_t nargs, ep_value* results, int64_t nresults, "
        "ep_error* err) {",
        "  (void)nargs; (void)nresults;",
        f"  return ep::guarded(err, [&] {{ ep::put_generator(results[0], {e.spec.symbol}({args}), &{nxt}); }});",
        "}",
        "",
    ]


def check_return(spec: "TypedFunction", compatible: Callable[[Any, Any], bool],
                 crossable: Callable[[Any], str | None]) -> None:
    """A generator entry's items must cross the ABI; an annotation must be Iterator/Iterable/Generator[T]."""
    rt = spec.return_type
    assert isinstance(rt, GenT)
    why = crossable(rt.item)
    if why is not None:
        raise CompileError.at(spec.fn.loc, f"the items of this generator: {why}",
                              (f"checking the return type of {spec.fn.qualname}",))
    ann = spec.fn.returns
    if ann is None:
        return
    import collections.abc
    import typing

    from everypath.base.annotations import Annotation, annotation_text, to_type

    origin, args = typing.get_origin(ann.obj), typing.get_args(ann.obj)
    kinds = (collections.abc.Iterator, collections.abc.Iterable, collections.abc.Generator)
    if origin not in kinds or not args:
        raise CompileError.at(ann.loc, f"this generator function is annotated '{ann.text}': annotate it "
                                       f"Iterator[{annotation_text(rt.item)}] (or Iterable / Generator)",
                              (f"checking the return type of {spec.fn.qualname}",))
    want = to_type(Annotation(args[0], ann.text, ann.loc))
    if not compatible(want, rt.item):
        raise CompileError.at(ann.loc, f"this generator yields {annotation_text(rt.item)} but is annotated "
                                       f"'{ann.text}'", (f"checking the return type of {spec.fn.qualname}",))


def is_generator_result(t: Type | None) -> bool:
    return isinstance(t, GenT)


__all__ = ["CALLS", "HEADER", "strict_join", "type_call", "type_return", "emit_call", "emit_for", "emit_return",
           "entry_lines", "check_return", "consumer_error", "is_generator_result"]

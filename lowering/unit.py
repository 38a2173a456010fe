"""One C++ translation unit per compiled module: every specialisation reachable
from the exported entry points, plus one C-ABI wrapper per entry point."""
from __future__ import annotations

import os
from dataclasses import dataclass

from everypath.base.errors import CompileError
from everypath.base.cpp import ctype
from everypath.lowering.emit import FunctionEmitter, return_ctype
from everypath.lowering.dispatch import PathPolicy
from everypath.lowering.infer import TypedFunction
from everypath.lowering.borrowed import borrowed_params
from everypath.lowering.helper_clones import HelperClones
from everypath.lowering.loop_counters import small_leaf
from everypath.base.cpp import struct_name
from everypath.base.types import (
    ArrayT, DictT, DType, EnumT, GenT, ImageT, ListT, NoneT, RecordT, ScalarT, SetT, StrT, TupleT, Type,
)
from everypath.lowering import records
from everypath.base.types import UnionT

from everypath.lowering.cache import FORMAT_VERSION
from everypath.lowering.sites import Site, SiteTable

CORE_HEADER = "everypath/everypath.hpp"


@dataclass(frozen=True)
class Entry:
    """An exported function: the C symbol and the typed specialisation it calls."""

    symbol: str
    spec: TypedFunction



# runtime headers of value kinds, included when the generated body names one of their markers (a type, or a
# factory a display lowers to without naming the type: `{"a": 1}[s]` is only `ep::make_dict(...)`)
VALUE_HEADERS: dict[str, tuple[str, ...]] = {
    "everypath/dict.hpp": ("ep::Dict<", "ep::make_dict"),
    "everypath/union.hpp": ("ep::Union<",),
    "everypath/set.hpp": ("ep::Set<", "ep::make_set"),
}

def _arg_exprs(t: Type, slot: list[int]) -> str:
    if isinstance(t, ImageT):  # the array np.asarray(img) gave (lowering/pil_boundary.py)
        t = t.array
    if isinstance(t, ScalarT):
        i = slot[0]
        slot[0] += 1
        return f"ep::arg_scalar<{t.dtype.cpp}>(args[{i}])"
    if isinstance(t, ArrayT):
        i = slot[0]
        slot[0] += 1
        return f"ep::arg_array<{t.dtype.cpp}, {t.ndim}>(args[{i}])"
    if isinstance(t, TupleT):
        return "std::make_tuple(" + ", ".join(_arg_exprs(x, slot) for x in t.items) + ")"
    if isinstance(t, NoneT):
        return "ep::None{}"
    if isinstance(t, EnumT):  # its index (lowering/records.py)
        i = slot[0]
        slot[0] += 1
        return records.arg_enum(f"ep::arg_scalar<int64_t>(args[{i}])", t)
    if isinstance(t, RecordT):  # its fields' slots, in order: one struct (shared when mutable)
        value = f"{struct_name(t)}{{" + ", ".join(_arg_exprs(x, slot) for x in t.items) + "}"
        return value if t.frozen else f"std::make_shared<{struct_name(t)}>({value})"
    if isinstance(t, StrT):
        i = slot[0]
        slot[0] += 1
        return f"ep::arg_str(args[{i}])"
    if isinstance(t, DictT) and all(isinstance(x, (ScalarT, StrT)) for x in (t.key, t.value)):
        i = slot[0]  # a copy made from the caller's dict: lowering/dict_params.py keeps it read-only
        slot[0] += 1
        return f"ep::arg_dict<{ctype(t.key)}, {ctype(t.value)}>(args[{i}])"  # type: ignore[arg-type]
    if isinstance(t, UnionT):  # its tag, then every member's slots (lowering/unions.py)
        from everypath.lowering.unions import arg_union

        return arg_union(t, slot, _arg_exprs)
    raise TypeError(f"parameter type {t} cannot cross the C ABI")


def _entry_args(spec: TypedFunction) -> str:
    """The C++ arguments of an entry point read from the ABI's values, one parameter after another."""
    slot = [0]
    out = []
    for i, t in enumerate(spec.arg_types):
        try:
            out.append(_arg_exprs(t, slot))
        except TypeError:
            param = spec.fn.params[i] if i < len(spec.fn.params) else None
            loc, name = (param.loc, param.name) if param is not None else (spec.fn.loc, f"#{i}")
            raise CompileError.at(loc, f"parameter '{name}' of type {t} cannot cross the C ABI yet "
                                  "(pass a NumPy array, a scalar, a str, a tuple or a dict of scalars/str)") from None
    return ", ".join(out)


def _put_results(expr: str, t: Type, slot: list[int], out: list[str], depth: int = 0) -> None:
    if isinstance(t, ImageT):  # its array: lowering/pil_boundary.py makes the image
        t = t.array
    if isinstance(t, ScalarT):
        out.append(f"ep::put_scalar(results[{slot[0]}], {expr}, {t.dtype.abi});")
        slot[0] += 1
    elif isinstance(t, ArrayT):
        out.append(f"ep::put_array(results[{slot[0]}], {expr}, {t.dtype.abi});")
        slot[0] += 1
    elif isinstance(t, StrT):
        out.append(f"ep::put_str(results[{slot[0]}], {expr});")
        slot[0] += 1
    elif isinstance(t, EnumT):  # the member's index: the runtime returns the member itself
        out.append(f"ep::put_scalar(results[{slot[0]}], {records.put_enum(expr, t)}, {DType.INT64.abi});")
        slot[0] += 1
    elif isinstance(t, RecordT):  # field by field; the runtime calls the class with them
        if not t.frozen:  # a shared struct's address first: the runtime makes one Python object of one struct
            out.append(f"ep::put_scalar(results[{slot[0]}], ep::identity({expr}), {DType.INT64.abi});")
            slot[0] += 1
        for name, item in zip(t.fields, t.items):
            _put_results(records.field(expr, t, name), item, slot, out, depth)
    elif isinstance(t, ListT) and t.elem is not None and not isinstance(t.elem, (ScalarT, StrT)):
        item = f"k_{depth}"  # one EP_KIND_SEQ slot of items (records.hpp put_seq)
        inner: list[str] = []
        per = [0]
        _put_results(item, t.elem, per, inner, depth + 1)
        out.append(f"ep::put_seq(results[{slot[0]}], {expr}, {per[0]}, [&](ep_value* results, const auto& {item}) "
                   f"{{ {' '.join(inner)} }});")
        slot[0] += 1
    elif isinstance(t, ListT) and isinstance(t.elem, StrT):
        out.append(f"ep::put_str_list(results[{slot[0]}], {expr});")
        slot[0] += 1
    elif isinstance(t, ListT):
        if not isinstance(t.elem, ScalarT):
            raise TypeError(f"result type {t} cannot cross the C ABI")
        out.append(f"ep::put_list(results[{slot[0]}], {expr}, {t.elem.dtype.abi});")
        slot[0] += 1
    elif isinstance(t, DictT) and t.key is not None and t.value is not None:
        # one EP_KIND_SEQ slot (dict.hpp put_dict): each entry's key and value put into slots of their own
        key, value = f"k_{depth}", f"v_{depth}"  # a nested dict's names differ from its parent's
        inner: list[str] = []
        per = [0]
        _put_results(key, t.key, per, inner, depth + 1)
        _put_results(value, t.value, per, inner, depth + 1)
        out.append(f"ep::put_dict(results[{slot[0]}], {expr}, {per[0]}, [&](ep_value* results, const auto& {key}, "
                   f"const auto& {value}) {{ {' '.join(inner)} }});")
        slot[0] += 1
    elif isinstance(t, SetT) and t.elem is not None:  # one EP_KIND_SEQ slot of its items (dict.hpp put_set)
        item = f"k_{depth}"
        inner = []
        per = [0]
        _put_results(item, t.elem, per, inner, depth + 1)
        out.append(f"ep::put_set(results[{slot[0]}], {expr}, {per[0]}, [&](ep_value* results, const auto& {item}) "
                   f"{{ {' '.join(inner)} }});")
        slot[0] += 1
    elif isinstance(t, TupleT):
        for i, item in enumerate(t.items):
            _put_results(f"std::get<{i}>({expr})", item, slot, out, depth)
    elif isinstance(t, NoneT):
        pass
    elif isinstance(t, UnionT):  # its tag, then each member's slots (lowering/unions.py)
        from everypath.lowering.unions import put_results

        put_results(expr, t, slot, out, depth, _put_results)
    else:
        raise TypeError(f"result type {t} cannot cross the C ABI")


def _signature(spec: TypedFunction, symbol: str | None = None) -> str:
    borrowed = borrowed_params(spec)
    params = ", ".join(f"const {ctype(t)}& __restrict__ a_{p.name}" if p.name in borrowed else f"{ctype(t)} a_{p.name}"
                       for p, t in zip(spec.fn.params, spec.arg_types))
    inline = "[[gnu::always_inline]] inline " if small_leaf(spec) else ""
    return f"{inline}static {return_ctype(spec)} {symbol or spec.symbol}({params})"


@dataclass(frozen=True)
class TranslationUnit:
    source: str
    paths: frozenset[str]  # the implementation paths the unit calls into
    sites: tuple[Site, ...]  # its operator call sites, in site-table order


def translation_unit(specs: list[TypedFunction], entries: list[Entry], boundscheck: bool = True,
                     policy: PathPolicy | None = None) -> str:
    return translation_unit_parts(specs, entries, boundscheck, policy).source


def translation_unit_parts(specs: list[TypedFunction], entries: list[Entry], boundscheck: bool = True,
                           policy: PathPolicy | None = None) -> TranslationUnit:

    top = [s for s in specs if not s.fn.is_closure]
    sites = SiteTable()
    body: list[str] = []
    paths: set[str] = set()
    headers: set[str] = set()
    clones = HelperClones(policy)  # helpers' copies with the calling loop's proven indices unchecked
    for s in top:
        fe = FunctionEmitter(s, policy=policy, sites=sites, clones=clones)
        lines = fe.function_body()
        paths |= fe.used_paths
        headers |= fe.used_headers
        body.append(f"// {s.fn.qualname} from {os.path.basename(s.fn.filename)}:{s.fn.loc.lineno}")
        body.append(_signature(s) + " {")
        body.extend(lines)
        if s.return_type is None:
            body.append("  return ep::None{};")
        body.append("}")
        body.append("")
    out = ["// Generated by everypath. Do not edit: regenerate from the Python source.",
           f"// format version {FORMAT_VERSION}"]
    if not boundscheck:  # checked unless told otherwise: hand-built portable units include the headers too
        out.append("#define EP_UNCHECKED 1")
    # the paths this unit calls into: their macros select code in the headers, and
    # variants.paths.build_flags reads these lines back to add compiler/linker flags
    out += [f"#define EP_HAVE_{p.upper()} 1" for p in sorted(paths - {"loops"})]
    if "ep::str_" in "\n".join(body):  # str operations written outside the registry (repr() of a str in a message)
        from everypath.variants.ops.strings import HEADER as STR_HEADER

        headers.add(STR_HEADER)
    text = "\n".join(body)
    headers.update(h for h, markers in VALUE_HEADERS.items() if any(m in text for m in markers))
    structs = records.struct_definitions(top)  # one struct per record class, before anything uses it
    if records.needs_header(top, [e.spec.return_type for e in entries]):
        headers.add(records.HEADER)
    if "ep::generator<" in "\n".join(body):  # generator functions: C++20 coroutines (lowering/generators.py)
        from everypath.lowering.generators import HEADER as GEN_HEADER

        headers.add(GEN_HEADER)
    out += ["#include <everypath/everypath.hpp>"]
    out += [f"#include <{h}>" for h in sorted(headers - {CORE_HEADER})]
    out += ["", "EP_DEFINE_ABI()", *sites.preamble(), *structs, ""]
    for c in clones.clones():  # no sites, no paths, no headers of their own (lowering/helper_clones.py)
        body += [f"// {c.spec.fn.qualname}, indices proven by its caller's loop", _signature(c.spec, c.symbol) + " {",
                 *c.lines, *(["  return ep::None{};"] if c.spec.return_type is None else []), "}", ""]
    for s in top:
        out.append(_signature(s) + ";")
    out += [_signature(c.spec, c.symbol) + ";" for c in clones.clones()]
    out.append("")
    out += body
    for e in entries:
        args = _entry_args(e.spec)
        if isinstance(e.spec.return_type, GenT):  # a lazy iterator for Python (EP_KIND_GEN)
            from everypath.lowering.generators import entry_lines

            out += entry_lines(e, args, _put_results)
            continue
        out.append(f'EP_EXPORT int {e.symbol}(const ep_value* args, int64_t nargs, ep_value* results, '
                   "int64_t nresults, ep_error* err) {")
        out.append("  (void)nargs; (void)nresults;")
        out.append("  return ep::guarded(err, [&] {")
        rt = e.spec.return_type
        if rt is None or isinstance(rt, NoneT):
            out.append(f"    {e.spec.symbol}({args});")
        else:
            out.append(f"    auto r = {e.spec.symbol}({args});")
            puts: list[str] = []
            try:
                _put_results("r", rt, [0], puts)
            except TypeError as exc:  # located: at the function, whose return crosses the ABI
                raise CompileError.at(e.spec.fn.loc, f"{exc} yet (return a NumPy array or a tuple)") from None
            out += ["    " + p for p in puts]
        out.append("  });")
        out.append("}")
        out.append("")
    out += sites.table()
    out.append("")
    return TranslationUnit("\n".join(out), frozenset(paths), tuple(sites.sites))

"""Enums and records in compiled code: their typing rules, their C++ (one struct per record class) and
their crossing of the C ABI (docs/semantics.md, "Enums" and "Records").

An enum member is an int64 in C++: its index among the class's members, or for an IntEnum its value (so
IntEnum arithmetic is int arithmetic). A record is a struct; a frozen dataclass or a NamedTuple is a value,
a non-frozen dataclass a std::shared_ptr to one, so that two names for one object see each other's stores,
as in Python. The runtime boxes results back into the user's own class (lowering/runtime/results.cpp).
"""
from __future__ import annotations

from typing import Any

from everypath.base.annotations import Annotation, record_type
from everypath.base.classes import RecordInfo, record_info, resolve_class
from everypath.base.cpp import c_string, literal, struct_name
from everypath.base.types import (
    BOOL, FLOAT, INT, NONE, DictT, EnumT, ListT, RecordT, ScalarT, SetT, StrT, TupleT, Type, UnionT,
)
from everypath.tracer.ir import Node, Opcode
from everypath.variants.registry import TypingError

NEW = "ep.record:"  # CALL target prefix of a record construction: ep.record:<module>:<qualname> (tracer)
SETATTR = "ep.setattr"  # r.x = v: (record, field name, value)
HEADER = "everypath/records.hpp"
NOT_MINE = object()
_COMPARE = ("operator.eq", "operator.ne", "operator.is_", "operator.is_not")


def field(expr: str, t: RecordT, name: str) -> str:
    return f"({expr}){'.' if t.frozen else '->'}f_{name}"


def _info(t: RecordT) -> RecordInfo:
    cls = resolve_class(t.module, t.qualname)
    if cls is None:
        raise TypingError(f"record class '{t.qualname}' is not defined in module '{t.module}'")
    return record_info(cls)


# ---- typing ----------------------------------------------------------------------------------------
def as_int(t: Type | None) -> Type | None:
    """An IntEnum member where an int is used (arithmetic, indexing, comparison with ints): its value."""
    return INT if isinstance(t, EnumT) and t.by_value else t


def attribute_type(base: EnumT | RecordT, name: str) -> Type:
    if isinstance(base, RecordT):
        if name not in base.fields:
            raise TypingError(f"'{base.qualname}' object has no attribute '{name}'")
        return base.field_type(name)
    if name == "name":
        return StrT()
    if name == "value":
        kinds = {type(v) for v in base.values}
        if len(kinds) != 1 or not base.values:
            raise TypingError(f"'{base.qualname}.value' is supported when every member's value is of one type, "
                              "int, float, bool or str")
        return {int: INT, float: FLOAT, bool: BOOL, str: StrT()}[kinds.pop()]
    raise TypingError(f"enum member attribute '{name}' is not supported (only .name and .value)")


def index_type(base: RecordT, idx: Node) -> Type:
    if base.kind != "namedtuple":
        raise TypingError(f"'{base.qualname}' object is not subscriptable")
    i = _const_index(base, idx)
    return base.items[i]


def _const_index(base: RecordT, idx: Node) -> int:
    if idx.op is not Opcode.CONST or type(idx.target) is not int:
        raise TypingError(f"a {base.qualname} is indexed by an int constant only in compiled code")
    i = idx.target + len(base.fields) if idx.target < 0 else idx.target
    if not 0 <= i < len(base.fields):
        raise TypingError("tuple index out of range")
    return i


def _same(field_t: Type, given: Type) -> bool:
    """A field keeps the very type of what is stored (CPython does not convert to the annotation)."""
    if field_t == given:
        return True
    if isinstance(field_t, ListT) and isinstance(given, ListT):  # [] given for a list field
        return given.elem is None
    if isinstance(field_t, (DictT, SetT)) and isinstance(given, type(field_t)):
        return str(given).count("?") > 0
    return False


def _check_field(t: RecordT, name: str, given: Type) -> None:
    want = t.field_type(name)
    if not _same(want, given):
        raise TypingError(f"field '{name}' of {t.qualname} is annotated {want} but given {given} here: a compiled "
                          "field holds its annotated type, and CPython would keep the value's own type; convert "
                          "the value first")


def construct_type(n: Node, arg_types: list[Type], kw_types: dict[str, Type]) -> RecordT:
    module, qualname = n.target[len(NEW):].split(":", 1)
    cls = resolve_class(module, qualname)
    if cls is None:
        raise TypingError(f"record class '{qualname}' is not defined in module '{module}'")
    t = record_type(cls, Annotation(cls, qualname, n.loc))
    assert isinstance(t, RecordT)
    info = record_info(cls)
    init = f"{qualname}.__new__()" if t.kind == "namedtuple" else f"{qualname}.__init__()"
    if len(arg_types) > len(t.fields):
        raise TypingError(f"{init} takes {len(t.fields) + 1} positional arguments but {len(arg_types) + 1} were given")
    given: dict[str, Type] = dict(zip(t.fields, arg_types))
    for k, v in kw_types.items():
        if k not in t.fields:
            raise TypingError(f"{init} got an unexpected keyword argument '{k}'")
        if k in given:
            raise TypingError(f"{init} got multiple values for argument '{k}'")
        given[k] = v
    missing = [f for f in t.fields if f not in given and info.missing(info.default(f))]
    if missing:
        names = " and ".join(f"'{m}'" for m in missing) if len(missing) <= 2 else ", ".join(f"'{m}'" for m in missing)
        raise TypingError(f"{init} missing {len(missing)} required positional argument{'s' if len(missing) > 1 else ''}: "
                          f"{names}")
    from everypath.lowering.infer import const_type

    for name in t.fields:
        if name in given:
            _check_field(t, name, given[name])
        else:
            _check_field(t, name, const_type(info.default(name)))
    return t


def enum_compare(target: Any, types: list[Any]) -> bool:
    """==, !=, is, is not with an enum member (an IntEnum's == and != compare ints: the registry's)."""
    return target in _COMPARE and any(isinstance(t, EnumT) and not (t.by_value and target in _COMPARE[:2])
                                      for t in types)


def call_type(n: Node, arg_types: list[Type], kw_types: dict[str, Type]) -> Any:
    """The type of a call these rules own (NOT_MINE otherwise)."""
    target = n.target
    if not isinstance(target, str):
        return NOT_MINE
    if target.startswith(NEW):
        return construct_type(n, arg_types, kw_types)
    if target == SETATTR:
        base, name, value = arg_types[0], n.args[1].target, arg_types[2]
        if not isinstance(base, RecordT):
            raise TypingError(f"assigning attribute '{name}' of a {base} value is not supported")
        if name not in base.fields:
            raise TypingError(f"'{base.qualname}' object has no field '{name}': adding attributes is not supported")
        if base.kind == "namedtuple":
            raise TypingError(f"cannot assign to field '{name}' of NamedTuple '{base.qualname}' (CPython raises "
                              "AttributeError: can't set attribute)")
        if base.frozen:
            raise TypingError(f"cannot assign to field '{name}' of frozen dataclass '{base.qualname}' (CPython raises "
                              f"dataclasses.FrozenInstanceError: cannot assign to field '{name}')")
        _check_field(base, name, value)
        return NONE
    if enum_compare(target, arg_types):
        return BOOL
    return NOT_MINE


# ---- C++ -------------------------------------------------------------------------------------------
def _table(values: tuple[Any, ...], t: Type) -> str:
    cpp = "const char*" if isinstance(t, StrT) else {INT: "int64_t", FLOAT: "double", BOOL: "bool"}[t]  # type: ignore[index]
    items = ", ".join(c_string(v) if isinstance(v, str) else literal(v, t) for v in values)
    return f"std::array<{cpp}, {len(values)}>{{{items}}}"


def _index_of(expr: str, t: EnumT) -> str:
    if not t.by_value:
        return expr
    values = ", ".join(f"int64_t({v}LL)" for v in t.values)
    return f"ep::enum_index<{len(t.values)}>({{{values}}}, {expr})"


def emit_attribute(base_t: Type, expr: str, name: str, result: Type) -> str | None:
    if isinstance(base_t, RecordT):
        return field(expr, base_t, name)
    if not isinstance(base_t, EnumT):
        return None
    if name == "value" and base_t.by_value:
        return expr
    table = _table(base_t.names if name == "name" else base_t.values, result)
    pick = f"{table}[static_cast<size_t>({_index_of(expr, base_t)})]"
    return f"ep::Str({pick})" if isinstance(result, StrT) else pick


def emit_getitem(base_t: Type, expr: str, idx: Node) -> str | None:
    if not isinstance(base_t, RecordT):
        return None
    return field(expr, base_t, base_t.fields[_const_index(base_t, idx)])


def emit_call(fe: Any, n: Node) -> str | None:
    target = n.target
    if not isinstance(target, str):
        return None
    if target.startswith(NEW):
        t: RecordT = fe.spec.type_of(n)
        info = _info(t)
        given = dict(zip(t.fields, n.args)) | dict(n.kwargs)
        parts = [fe.value(given[f]) if f in given else literal(info.default(f), t.field_type(f)) for f in t.fields]
        value = f"{struct_name(t)}{{{', '.join(parts)}}}"
        return value if t.frozen else f"std::make_shared<{struct_name(t)}>({value})"
    if target == SETATTR:
        base_t = fe.spec.type_of(n.args[0])
        return f"({field(fe.value(n.args[0]), base_t, n.args[1].target)} = {fe.value(n.args[2])}, ep::None{{}})"
    if enum_compare(target, [fe.spec.type_of(a) for a in n.args]):
        a, b = (fe.spec.type_of(x) for x in n.args)
        if a != b:  # members of different classes, or a member and another value: never equal, never identical
            return "false" if target in ("operator.eq", "operator.is_") else "true"
        op = "==" if target in ("operator.eq", "operator.is_") else "!="
        return f"({fe.value(n.args[0])} {op} {fe.value(n.args[1])})"
    return None


def _walk(t: Any, out: dict[RecordT, None]) -> None:
    """Record types inside t, each after the records its fields hold (a struct needs its members complete)."""
    if isinstance(t, RecordT):
        if t in out:
            return
        for item in t.items:
            _walk(item, out)
        out[t] = None
    elif isinstance(t, (TupleT,)):
        for item in t.items:
            _walk(item, out)
    elif isinstance(t, (ListT, SetT)):
        _walk(t.elem, out)
    elif isinstance(t, DictT):
        _walk(t.key, out)
        _walk(t.value, out)


def struct_definitions(specs: list[Any]) -> list[str]:
    """One struct per record class the unit uses, in dependency order ([] when there is none)."""
    from everypath.base.cpp import ctype as cpp_type

    found: dict[RecordT, None] = {}
    for s in specs:
        for t in (*s.arg_types, s.return_type, *s.types.values(), *s.var_types.values()):
            _walk(t, found)
    out: list[str] = []
    for t in found:
        members = " ".join(f"{cpp_type(i)} f_{name};" for name, i in zip(t.fields, t.items))
        out.append(f"struct {struct_name(t)} {{ {members} }};  // {t.module}.{t.qualname}")
    return out


def _has(t: Any) -> bool:
    if isinstance(t, (EnumT, RecordT)):
        return True
    if isinstance(t, TupleT):
        return any(_has(i) for i in t.items)
    if isinstance(t, (ListT, SetT)):
        return _has(t.elem)
    if isinstance(t, DictT):
        return _has(t.key) or _has(t.value)
    if isinstance(t, UnionT):  # `Box | None`: a record result needs ep::identity
        return any(_has(m) for m in t.members)
    return False


def _seq_result(t: Any) -> bool:
    """Whether a result holds, at any depth, a list of composite items (put_seq): (rows, boxes) of lists too."""
    if isinstance(t, ListT):
        return t.elem is not None and (not isinstance(t.elem, (ScalarT, StrT)) or _seq_result(t.elem))
    if isinstance(t, (TupleT, UnionT)):
        return any(_seq_result(i) for i in (t.items if isinstance(t, TupleT) else t.members))
    if isinstance(t, DictT):
        return _seq_result(t.value)
    return False


def needs_header(specs: list[Any], results: list[Any]) -> bool:
    """records.hpp only where enums, records or lists of composite items are used: other units are unchanged."""
    seq = any(_seq_result(r) for r in results)
    return seq or any(_has(t) for s in specs for t in (*s.arg_types, s.return_type, *s.var_types.values(),
                                                        *s.types.values()))


def put_enum(expr: str, t: EnumT) -> str:
    """The index an enum result crosses the ABI as."""
    return _index_of(expr, t)


def arg_enum(expr: str, t: EnumT) -> str:
    """What compiled code holds for an enum argument that crossed as its index."""
    if not t.by_value:
        return expr
    return f"{_table(t.values, INT)}[static_cast<size_t>({expr})]"


def check_record_params(entry: Any, specs: list[Any]) -> None:
    """A mutable dataclass given by the caller arrives as a struct of its own (its fields converted): a store into
    such a record would not reach the caller's object, which CPython would change. So wherever the entry takes one,
    no compiled code may store into a record of that class (a loud refusal, never a silently lost store)."""
    from everypath.base.errors import CompileError

    given: dict[RecordT, str] = {}
    for p, t in zip(entry.fn.params, entry.arg_types):
        found: dict[RecordT, None] = {}
        _walk(t, found)
        for r in found:
            if not r.frozen:
                given.setdefault(r, p.name)
    if not given:
        return
    for s in specs:
        for n in s.fn.body.walk():
            if n.op is Opcode.CALL and n.target == SETATTR:
                t = s.types.get(n.args[0])
                if isinstance(t, RecordT) and t in given:
                    raise CompileError.at(n.loc, f"parameter '{given[t]}' takes a {t.qualname} from the caller, which "
                                          "compiled code receives as a copy of its fields: assigning a field of a "
                                          f"{t.qualname} is not supported here (CPython would change the caller's "
                                          f"object); build a new {t.qualname} and return it",
                                          (f"checking {s.fn.qualname}",))

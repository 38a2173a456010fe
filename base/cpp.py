"""C++ spellings of compile-time types and constants."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from everypath.base.const_tables import ConstTable
from everypath.base.types import (
    ArrayT, DictT, DType, DTypeT, EllipsisT, FuncT, IterT, ListT, NoneT, RangeT, ScalarT, SliceT, StrT, TupleT, Type,
)


class EmitError(Exception):
    """The emitter met something the typer accepted but lowering cannot do yet (a CompileError at the node)."""


def ctype(t: Type) -> str:
    if isinstance(t, ScalarT):
        return t.dtype.cpp
    if isinstance(t, ArrayT):
        return f"ep::Array<{t.dtype.cpp}, {t.ndim}>"
    if isinstance(t, TupleT):
        return "std::tuple<" + ", ".join(ctype(i) for i in t.items) + ">"
    if isinstance(t, ListT):
        if t.elem is None:
            raise EmitError("cannot infer the element type of an empty list (append to it or give values)")
        return f"ep::List<{ctype(t.elem)}>"
    from everypath.base.types import DictT, SetT

    if isinstance(t, SetT):
        if t.elem is None:
            raise EmitError("cannot infer the item type of an empty set (add to it first)")
        return f"ep::Set<{ctype(t.elem)}>"  # variants/include/everypath/set.hpp
    if isinstance(t, DictT):
        if t.key is None or t.value is None:
            raise EmitError("cannot infer the key and value types of an empty dict (store into it or give items)")
        return f"ep::Dict<{ctype(t.key)}, {ctype(t.value)}>"  # variants/include/everypath/dict.hpp
    if isinstance(t, (NoneT, DTypeT)):
        return "ep::None"
    if isinstance(t, EllipsisT):
        return "ep::Ellipsis"
    from everypath.base.types import UnionT

    if isinstance(t, UnionT):  # variants/include/everypath/union.hpp
        return "ep::Union<" + ", ".join(ctype(m) for m in t.members) + ">"
    if isinstance(t, StrT):
        return "ep::Str"  # variants/include/everypath/str.hpp
    if isinstance(t, RangeT):
        return "ep::Range"
    if isinstance(t, SliceT):
        return "ep::Slice"
    from everypath.base.types import GeneratorT

    if isinstance(t, GeneratorT):
        return "ep::Generator"  # variants/include/everypath/ops/random_core.hpp
    from everypath.base.types import GenT

    if isinstance(t, GenT):
        return f"ep::generator<{ctype(t.item)}>"  # variants/include/everypath/generator.hpp
    from everypath.base.types import EnumT, RecordT

    if isinstance(t, EnumT):  # the member's index, or an IntEnum's value (lowering/records.py)
        return "int64_t"
    if isinstance(t, RecordT):  # one struct per class; a mutable dataclass is shared, as in Python
        return struct_name(t) if t.frozen else f"std::shared_ptr<{struct_name(t)}>"
    from everypath.base.types import ImageT

    if isinstance(t, ImageT):  # a PIL image is the array np.asarray(img) gives (lowering/pil_images.py)
        return ctype(t.array)
    if isinstance(t, (FuncT, IterT)):
        raise EmitError(f"a {t} value cannot be stored here")
    raise EmitError(f"no C++ type for {t}")


def struct_name(t: Any) -> str:
    """The C++ struct of a record class (lowering/records.py): its qualname and a digest of where it lives."""
    import hashlib

    tag = hashlib.sha256(f"{t.module}:{t.qualname}".encode()).hexdigest()[:8]
    return "ep_rec_" + "".join(c if c.isalnum() else "_" for c in t.qualname) + "_" + tag


def float_literal(x: float, cpp: str = "double") -> str:
    if math.isnan(x):
        return f"std::numeric_limits<{cpp}>::quiet_NaN()"
    if math.isinf(x):
        return f"{'-' if x < 0 else ''}std::numeric_limits<{cpp}>::infinity()"
    text = repr(float(x))
    if "e" not in text and "." not in text:
        text += ".0"
    return f"{cpp}({text})"


def int_literal(x: int, cpp: str = "int64_t") -> str:
    if cpp == "int64_t" and x == -(2**63):
        return "std::numeric_limits<int64_t>::min()"
    if cpp == "uint64_t":
        return f"uint64_t({x}ULL)"
    return f"{cpp}({x}LL)" if cpp != "int64_t" else f"int64_t({x}LL)"


def string_literal(s: str) -> str:
    return f"std::string({c_string(s)})"


def c_string(s: str) -> str:
    """A C string literal (escaped; non-ASCII as UTF-8 byte escapes)."""
    out = []
    for ch in s:
        code = ord(ch)
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif 32 <= code < 127:
            out.append(ch)
        else:  # UTF-8 bytes as escapes; split with "" so following hex digits are not swallowed
            out.append("".join(f'\\x{b:02x}""' for b in ch.encode("utf-8")))
    return '"' + "".join(out) + '"'


def literal(value: Any, t: Type) -> str:
    """A C++ expression for a compile-time constant of type t."""
    if isinstance(t, NoneT):
        return "ep::None{}"
    if isinstance(t, EllipsisT):  # an index item (variants/include/everypath/index.hpp)
        return "ep::Ellipsis{}"
    if isinstance(t, DTypeT):
        return "ep::None{}"
    if isinstance(t, StrT):
        if "\0" in value:  # the length given: a C string would stop at the NUL
            return f"std::string({c_string(value)}, {len(value.encode('utf-8'))})"
        return string_literal(value)  # a std::string becomes an ep::Str where a str value is needed
    if isinstance(t, FuncT):
        raise EmitError("a function cannot be used as a value here")
    if isinstance(t, TupleT):
        return "std::make_tuple(" + ", ".join(literal(v, it) for v, it in zip(value, t.items)) + ")"
    if isinstance(t, ScalarT):
        return scalar_literal(value, t.dtype)
    from everypath.base.types import EnumT

    if isinstance(t, EnumT):  # Color.RED: its index (an IntEnum: its value)
        return f"int64_t({value.value if t.base == 'int' else t.names.index(value.name)}LL)"
    if isinstance(t, ArrayT):
        raise EmitError("array constants are not supported")
    if isinstance(value, ConstTable):
        return table_literal(value, t)
    raise EmitError(f"constant of type {t} is not supported")


def table_literal(table: ConstTable, t: Type) -> str:
    """A module-global table (base/const_tables.py): built once per process, on first use (a function-local
    static: thread-safe initialisation), each read a handle to it (compiled code never changes it)."""
    if isinstance(t, DictT):
        kv = f"std::tuple<{ctype(t.key)}, {ctype(t.value)}>"  # type: ignore[arg-type]
        items = ", ".join(f"{kv}{{{literal(k, t.key)}, {literal(v, t.value)}}}" for k, v in table.items)  # type: ignore[arg-type]
        build = f"ep::make_dict<{ctype(t.key)}, {ctype(t.value)}>({{{items}}})"  # type: ignore[arg-type]
    else:
        elem = t.elem  # type: ignore[union-attr]
        maker = "make_list" if isinstance(t, ListT) else "make_set"
        build = f"ep::{maker}<{ctype(elem)}>({{{', '.join(literal(x, elem) for x in table.items)}}})"
    return f"([]() {{ static const {ctype(t)} ep_table = {build}; return ep_table; }}())"


def scalar_literal(value: Any, dtype: DType) -> str:
    cpp = dtype.cpp
    if dtype is DType.BOOL:
        return "true" if bool(value) else "false"
    if dtype.is_integer:
        return int_literal(int(value), cpp)
    if dtype.is_float:
        return float_literal(float(value), cpp)
    c = complex(value)
    part = "float" if dtype is DType.COMPLEX64 else "double"
    return f"{cpp}({float_literal(c.real, part)}, {float_literal(c.imag, part)})"


def cast(expr: str, src: Type, dst_dtype: DType) -> str:
    """expr (of scalar type src) converted to dst_dtype; a no-op when types already match."""
    if isinstance(src, ScalarT) and src.dtype is dst_dtype:
        return expr
    if dst_dtype.is_complex:
        return f"{dst_dtype.cpp}({expr})"
    if isinstance(src, ScalarT) and src.dtype.is_complex:
        return f"static_cast<{dst_dtype.cpp}>(({expr}).real())"
    return f"static_cast<{dst_dtype.cpp}>({expr})"


def np_scalar(value: Any) -> bool:
    return isinstance(value, np.generic)

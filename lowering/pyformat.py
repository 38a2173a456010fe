"""C++ text of values as CPython writes them: f-string parts, str() of messages, repr() in containers."""
from __future__ import annotations

import enum

from everypath.base.cpp import EmitError, string_literal
from everypath.base.types import ArrayT, DType, DTypeT, ListT, NoneT, ScalarT, StrT, TupleT, Type


class Mode(enum.Enum):
    FORMAT = "format"  # format(v, ''): an f-string part (np.float32 goes through Python float)
    STR = "str"  # str(v): an exception message
    REPR = "repr"  # repr(v): an item of a tuple or list


def text(expr: str, t: Type, mode: Mode, depth: int = 0) -> str:
    """A C++ std::string expression: expr (of type t) written as Python writes it in mode."""
    if isinstance(t, StrT):
        if mode is Mode.REPR:  # variants/include/everypath/str_ops.hpp (lowering/unit.py includes it)
            from everypath.variants.ops.strings import tables_current

            return f"ep::str_repr<{'true' if tables_current() else 'false'}>({expr})"
        return f"std::string({expr})"
    if isinstance(t, NoneT):
        return string_literal("None")
    if isinstance(t, DTypeT):  # x.dtype: str 'float64', repr dtype('float64')
        name = t.dtype.np_name
        return string_literal(f"dtype('{name}')" if mode is Mode.REPR else name)
    if isinstance(t, ScalarT):
        return _scalar(expr, t, mode)
    if isinstance(t, TupleT):
        v = f"t{depth}_"
        items = [text(f"std::get<{i}>({v})", it, Mode.REPR, depth + 1) for i, it in enumerate(t.items)]
        body = ' + std::string(", ") + '.join(items) if items else 'std::string("")'
        close = ',)' if len(items) == 1 else ')'
        return f'[&](const auto& {v}) {{ return std::string("(") + {body} + std::string("{close}"); }}({expr})'
    if isinstance(t, ListT) and t.elem is not None:
        v = f"e{depth}_"
        elem = f"static_cast<{t.elem.dtype.cpp}>({v})" if isinstance(t.elem, ScalarT) else v  # bools are Bool8 slots
        item = text(elem, t.elem, Mode.REPR, depth + 1)
        return f"ep::py_list({expr}, [&](const auto& {v}) {{ return {item}; }})"
    if isinstance(t, ArrayT):
        raise EmitError("writing an array as text (str(), f-strings, messages) is not supported yet")
    raise EmitError(f"writing a {t} value as text is not supported yet")


def _scalar(expr: str, t: ScalarT, mode: Mode) -> str:
    dt = t.dtype
    if dt is DType.BOOL:
        if mode is Mode.REPR and not t.weak:
            return f'std::string(({expr}) ? "np.True_" : "np.False_")'
        return f'std::string(({expr}) ? "True" : "False")'
    if dt.is_complex:
        s = f"ep::py_complex({expr})"
        if mode is Mode.REPR and not t.weak:  # np.complex128(1+2j): NumPy drops the parentheses
            return f'std::string("np.{dt.np_name}(") + ep::strip_parens({s}) + std::string(")")'
        return s
    if dt.is_float:
        if dt is DType.FLOAT64 or (mode is Mode.FORMAT and not t.weak):
            s = f"ep::py_float(static_cast<double>({expr}))"
        else:
            s = f"ep::np_float({expr})"
    else:
        s = f"std::to_string({expr})"
    if mode is Mode.REPR and not t.weak:
        return f'std::string("np.{dt.np_name}(") + {s} + std::string(")")'
    return s


def format_call(parts: list[tuple[str, Type]]) -> str:
    """An f-string: the concatenation of its parts, each as format(part, '')."""
    if not parts:
        return 'std::string("")'
    return "(" + " + ".join(text(e, t, Mode.FORMAT) for e, t in parts) + ")"


def message(expr: str, t: Type) -> str:
    """str() of an exception's argument."""
    return text(expr, t, Mode.STR)

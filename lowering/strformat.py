"""format(value, spec) of an f-string part (f"{x:>8.2f}"): the spec is parsed and checked here, at compile
time, with CPython's rules and messages; variants/include/everypath/str_format.hpp writes the text."""
from __future__ import annotations

import re
from dataclasses import dataclass

from everypath.base.cpp import EmitError, c_string
from everypath.base.types import DType, ScalarT, StrT, Type

HEADER = "everypath/str_format.hpp"

_SPEC = re.compile(r"(?:(?P<fill>.)?(?P<align>[<>=^]))?(?P<sign>[-+ ])?(?P<z>z)?(?P<alt>#)?(?P<zero>0)?"
                   r"(?P<width>\d+)?(?P<grouping>[,_])?(?:\.(?P<prec>\d+))?(?P<type>[a-zA-Z%])?", re.S)


@dataclass(frozen=True)
class Spec:
    fill: str
    align: str  # '' when not given
    sign: str
    alt: bool
    zero: bool
    width: int
    grouping: str
    prec: int  # -1: none
    type: str  # '' when not given


def parse(spec: str) -> Spec:
    m = _SPEC.fullmatch(spec)
    if m is None:
        raise EmitError(f"invalid format specifier '{spec}'")
    if m["z"]:
        raise EmitError(f"the 'z' option of format specifier '{spec}' is not supported")
    return Spec(m["fill"] or "", m["align"] or "", m["sign"] or "", bool(m["alt"]), bool(m["zero"]),
                int(m["width"] or 0), m["grouping"] or "", int(m["prec"]) if m["prec"] is not None else -1,
                m["type"] or "")


def _char(c: str) -> str:
    return f"'{c}'" if c else "0"


def _layout(s: Spec, numeric: bool) -> tuple[str, str]:
    """(fill, align) as the C++ side takes them: '0' (zero padding) is fill '0' with '=' alignment."""
    fill, align = s.fill or " ", s.align
    if s.zero and not s.fill and not s.align:
        fill, align = "0", "=" if numeric else "<"
    return c_string(fill), align or (">" if numeric else "<")


def format_spec(expr: str, t: Type, spec: str) -> str:
    """A C++ std::string expression for format(expr, spec), expr of type t."""
    s = parse(spec)
    if isinstance(t, StrT):
        if s.type not in ("", "s"):
            raise EmitError(f"Unknown format code '{s.type}' for object of type 'str'")
        if s.sign:
            raise EmitError("Sign not allowed in string format specifier")
        if s.alt:
            raise EmitError("Alternate form (#) not allowed in string format specifier")
        if s.grouping:
            raise EmitError(f"Cannot specify '{s.grouping}' with 's'.")
        if s.align == "=":
            raise EmitError("'=' alignment not allowed in string format specifier")
        fill, align = _layout(s, False)
        return f"ep::fmt_str({expr}, {fill}, '{align}', {s.width}, {s.prec})"
    if not isinstance(t, ScalarT) or t.dtype.is_complex:
        raise EmitError(f"format specs for {t} values are not supported")
    if s.zero and s.grouping and s.width:
        raise EmitError(f"zero padding with a thousands separator (format specifier '{spec}') is not supported")
    fill, align = _layout(s, True)
    head = f"{fill}, '{align}', {_char(s.sign)}, {'true' if s.alt else 'false'}, {s.width}, {_char(s.grouping)}"
    if t.dtype.is_integer or t.dtype is DType.BOOL:
        if s.type in ("", "d", "x", "X", "o", "b"):
            if s.prec >= 0:
                raise EmitError("Precision not allowed in integer format specifier")
            if s.grouping == "," and s.type not in ("", "d"):
                raise EmitError(f"Cannot specify ',' with '{s.type}'.")
            return f"ep::fmt_int(int64_t({expr}), {head}, {_char(s.type)})"
        if s.type not in "eEfFgG%":
            raise EmitError(f"Unknown format code '{s.type}' for object of type 'int'")
        expr = f"double({expr})"  # int.__format__ with a float presentation type converts
    if s.type not in ("", "e", "E", "f", "F", "g", "G", "%"):
        raise EmitError(f"Unknown format code '{s.type}' for object of type 'float'")
    return f"ep::fmt_float(double({expr}), {head}, {s.prec}, {_char(s.type)})"

"""match statements in compiled code: each case runs the function uncompiled in CPython and compares the
value and exact type of the result (or the exception); refused patterns are located compile errors."""
from __future__ import annotations

import enum
import functools
from dataclasses import dataclass
from typing import Any, Callable, NamedTuple

import pytest

import everypath as ep
from everypath.errors import CompileError
from tests.corpus.values._compare import assert_like_cpython


class Color(enum.Enum):
    RED = 1
    GREEN = 2
    BLUE = 3


@dataclass(frozen=True)
class Point:
    x: int
    y: int


class Size(NamedTuple):
    w: float
    h: float


def command(line: str) -> str:
    """A command dispatcher over strings."""
    parts = line.split(" ", 1)
    verb = parts[0]
    match verb:
        case "quit" | "exit" | "q":
            return "bye"
        case "go":
            return "going " + (parts[1] if len(parts) > 1 else "nowhere")
        case "":
            return "empty"
        case other:
            return f"unknown command {other!r}"


def shape_kind(shape: tuple[int, int]) -> str:
    """A shape classifier over tuples."""
    match shape:
        case (0, _) | (_, 0):
            return "empty"
        case (1, 1):
            return "scalar"
        case (1, _) | (_, 1):
            return "vector"
        case (r, c) if r == c:
            return f"square {r}"
        case (r, c):
            return f"matrix {r}x{c}"


def rank_name(shape: tuple[int, int, int]) -> str:
    match shape:
        case (n,):
            return f"vector {n}"
        case (r, c):
            return f"matrix {r}x{c}"
        case (a, b, c):
            return f"volume {a * b * c}"
    return "other"


def http_status(code: int) -> str:
    match code:
        case 200 | 201 | 204:
            return "ok"
        case 404:
            return "not found"
        case -1:
            return "unset"
        case _:
            return "error"


def counts(xs: str) -> tuple[int, int, int]:
    a = b = other = 0
    for ch in xs:
        match ch:  # bodies that fall through: the next character
            case "a":
                a += 1
            case "b":
                b += 1
            case _:
                other += 1
    return a, b, other


def color_name(c: Color) -> str:
    match c:
        case Color.RED:
            return "red"
        case Color.GREEN | Color.BLUE:
            return "cool"
    return "none"


def where(p: Point) -> str:
    match p:
        case Point(x=0, y=0):
            return "origin"
        case Point(0, y):
            return f"on the y axis at {y}"
        case Point(x, 0):
            return f"on the x axis at {x}"
        case Point(x, y) if x == y:
            return "diagonal"
        case _:
            return "elsewhere"


def area(s: Size) -> float:
    match s:
        case Size(w=0.0) | Size(h=0.0):
            return 0.0
        case Size(w, h):
            return w * h


def unpack(s: Size) -> float:
    match s:
        case (w, h):
            return w - h
    return -1.0


def optional_flag(v: int, flag: bool) -> str:
    match flag:
        case True:
            out = "on"
        case False:
            out = "off"
    match v:
        case 0:
            out += " zero"
    return out


def scalar_kind(x: float) -> str:
    match x:
        case int():
            return "int"
        case float(f) if f < 0:
            return f"negative {f}"
        case float():
            return "float"
    return "?"


def no_match(x: int) -> int:
    y = 10
    match x:
        case 1:
            y = 1
        case 2:
            y = 2
    return y


def capture_then_guard(t: tuple[int, int]) -> int:
    match t:
        case (a, b) if a > b:
            return a
        case (a, b):
            return b


CASES: list[tuple[Callable[..., Any], tuple[Any, ...]]] = [
    (command, ("quit",)), (command, ("q",)), (command, ("go north",)), (command, ("go",)), (command, ("",)),
    (command, ("dance now",)),
    (shape_kind, ((0, 5),)), (shape_kind, ((3, 0),)), (shape_kind, ((1, 1),)), (shape_kind, ((4, 4),)),
    (shape_kind, ((2, 7),)), (shape_kind, ((-1, 3),)), (shape_kind, ((1, 6),)), (shape_kind, ((6, 1),)),
    (rank_name, ((2, 3, 4),)),
    (http_status, (200,)), (http_status, (204,)), (http_status, (404,)), (http_status, (-1,)), (http_status, (500,)),
    (counts, ("abcab",)), (counts, ("",)),
    (color_name, (Color.RED,)), (color_name, (Color.BLUE,)),
    (where, (Point(0, 0),)), (where, (Point(0, 5),)), (where, (Point(-3, 0),)), (where, (Point(2, 2),)),
    (where, (Point(1, 2),)),
    (area, (Size(0.0, 3.0),)), (area, (Size(2.0, 0.0),)), (area, (Size(2.0, 1.5),)),
    (unpack, (Size(5.0, 1.5),)),
    (optional_flag, (0, True)), (optional_flag, (3, False)),
    (scalar_kind, (-2.5,)), (scalar_kind, (2.5,)),
    (no_match, (1,)), (no_match, (2,)), (no_match, (3,)),
    (capture_then_guard, ((5, 2),)), (capture_then_guard, ((1, 9),)),
]


@functools.cache
def _compiled(fn: Callable[..., Any]) -> Callable[..., Any]:
    return ep.compile(fn)


@pytest.mark.parametrize(("fn", "args"), CASES, ids=[f"{f.__name__}-{i}" for i, (f, _) in enumerate(CASES)])
def test_matches_cpython(fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    assert_like_cpython(fn, _compiled(fn), args)


# ---- refused, located ------------------------------------------------------------------------------------
def mapping_pattern(d: dict[str, int]) -> int:
    match d:
        case {"a": v}:
            return v
    return 0


def star_pattern(t: tuple[int, int, int]) -> int:
    match t:
        case (first, *rest):  # noqa: F841 - refused before it binds
            return first
    return 0


def capture_in_alternatives(t: tuple[int, int]) -> int:
    match t:
        case (0, v) | (v, 0):
            return v
    return 0


def class_of_other(x: int) -> int:
    match x:
        case list():
            return 1
    return 0


@pytest.mark.parametrize(("fn", "args", "message"), [
    (mapping_pattern, ({"a": 1},), "mapping patterns ({...}) in match statements are not supported"),
    (star_pattern, ((1, 2, 3),), "star patterns (*rest) in match statements are not supported"),
    (capture_in_alternatives, ((0, 1),), "capture patterns inside '|' alternatives (v) are not supported"),
    (class_of_other, (1,), "class patterns are supported for dataclasses, NamedTuples, enums"),
])
def test_refusals_are_located(fn: Callable[..., Any], args: tuple[Any, ...], message: str) -> None:
    with pytest.raises(CompileError) as info:
        ep.compile(fn)(*args)
    text = str(info.value)
    assert message in text, text
    assert "test_match.py:" in text, text

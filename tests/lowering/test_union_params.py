"""Union parameters (`X | None`, Optional[X], `int | str`) and isinstance narrowing (issue 14; base/annotations.py,
lowering/runtime/arguments.cpp convert_union_arg, tracer/classinfo.py, lowering/type_tests.py): compiled results
against CPython, value and exact type; bad arguments and refusals with their exact, located messages."""
from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass
from typing import Literal, NamedTuple, Optional, Union

import numpy as np
import pytest

import everypath
from everypath.errors import CompileError
from tests.corpus.values._compare import assert_like_cpython


@dataclass(frozen=True)
class Box:
    w: int
    label: str


class Pair(NamedTuple):
    a: float
    b: float


def clamp(x: int, lo: int | None = None, hi: Optional[int] = None) -> int:
    if lo is not None and x < lo:
        return lo
    if hi is not None and x > hi:
        return hi
    return x


def echo(v: int | float | str | None):
    return v


def repeat(s: str | None, n: int) -> str:
    if s is None:
        return "-" * n
    return s * n


def first(t: tuple[int, str] | None):
    if t is None:
        return None
    k, name = t
    return name, k + 1


def width(b: Box | None) -> int:
    if b is None:
        return 0
    return b.w * 2


def scale(x: np.float32 | None, k: float):
    if x is None:
        return k
    return x * np.float32(2)


def union_spelling(x: Union[int, str]):
    return x


def kind_of(v: int | float | str | None) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "float"
    if isinstance(v, str):
        return "str"
    return "none"


def doubled(v: int | str) -> int:
    if isinstance(v, str):
        return len(v)
    return v * 2


def not_instance(v: int | None) -> int:
    if not isinstance(v, int):
        return -1
    return v + 1


def tuple_of_classes(v: int | float | str):
    if isinstance(v, (int, float)):
        return v * 2
    return v


def pipe_union(v: int | float | str | None):
    if isinstance(v, int | None):
        return 0
    return 1


def none_type(v: int | None) -> bool:
    return isinstance(v, type(None))


def records(v: Box | Pair | None) -> float:
    if isinstance(v, Box):
        return float(v.w)
    if isinstance(v, Pair):
        return v.a + v.b
    return -1.0


def static_answers(i: int, f: float, b: bool, s: str, g: np.int64, d: np.float64, p: Box):
    return (isinstance(i, int), isinstance(i, float), isinstance(f, float), isinstance(b, int),
            isinstance(b, bool), isinstance(s, str), isinstance(g, int), isinstance(g, np.integer),
            isinstance(d, float), isinstance(p, Box), isinstance(p, tuple), isinstance((i, s), tuple))


def in_loop(n: int):
    v = None
    total = 0
    for i in range(n):
        if isinstance(v, int):
            total += v
        v = i if i % 2 else None
    return total, v


CASES = [
    (clamp, (5,)), (clamp, (5, 7)), (clamp, (5, None, 3)), (clamp, (-4, -2, 9)), (clamp, (0, None, None)),
    (echo, (3,)), (echo, (2.5,)), (echo, ("é",)), (echo, (None,)), (echo, (-0.0,)), (echo, ("",)),
    (repeat, (None, 3)), (repeat, ("ab", 2)), (repeat, ("", 4)), (repeat, (None, 0)),
    (first, (None,)), (first, ((4, "x"),)),
    (width, (None,)), (width, (Box(3, "a"),)),
    (scale, (None, 1.5)), (scale, (np.float32(1.25), 1.5)),
    (union_spelling, (7,)), (union_spelling, ("s",)),
    (kind_of, (1,)), (kind_of, (1.0,)), (kind_of, ("1",)), (kind_of, (None,)),
    (doubled, ("abc",)), (doubled, (21,)), (doubled, ("",)),
    (not_instance, (None,)), (not_instance, (4,)),
    (tuple_of_classes, (3,)), (tuple_of_classes, (0.25,)), (tuple_of_classes, ("q",)),
    (pipe_union, (1,)), (pipe_union, (None,)), (pipe_union, (1.5,)), (pipe_union, ("a",)),
    (none_type, (None,)), (none_type, (0,)),
    (records, (Box(2, "b"),)), (records, (Pair(0.5, 0.25),)), (records, (None,)),
    (static_answers, (1, 2.0, True, "s", np.int64(3), np.float64(0.5), Box(1, "a"))),
    (in_loop, (0,)), (in_loop, (1,)), (in_loop, (6,)), (in_loop, (7,)),
]


@functools.cache
def _compiled(fn):  # noqa: ANN001, ANN202 - one build per function
    return everypath.compile(fn)


@pytest.mark.parametrize("fn, args", CASES, ids=[f"{f.__name__}-{i}" for i, (f, _) in enumerate(CASES)])
def test_matches_cpython(fn, args) -> None:  # noqa: ANN001
    assert_like_cpython(fn, _compiled(fn), args)


def test_keywords_and_defaults() -> None:
    c = _compiled(clamp)
    assert c(9, hi=4) == 4 and c(x=-1, lo=0) == 0 and c(2, lo=None, hi=None) == 2


@pytest.mark.parametrize("fn, args, message", [
    (clamp, (1, "0"), "clamp() argument 'lo': expected int | None, got str"),
    (clamp, (1, None, 2.5), "clamp() argument 'hi': expected Optional[int], got float"),
    (clamp, (1, True), "clamp() argument 'lo': expected int | None, got bool"),
    (repeat, (3, 1), "repeat() argument 's': expected str | None, got int"),
    (first, ((1, 2),), "first() argument 't[1]': expected str, got int"),  # the member of its own kind, checked
    (first, ((1,),), "first() argument 't': expected tuple[int, str] | None, got tuple of length 1"),
    (width, (Pair(1.0, 2.0),), "width() argument 'b': expected Box | None, got tuple of length 2"),
    (echo, ([1],), "echo() argument 'v': expected int | float | str | None, got list"),
])
def test_bad_arguments_name_the_parameter(fn, args, message: str) -> None:  # noqa: ANN001
    with pytest.raises(TypeError) as info:
        _compiled(fn)(*args)
    assert str(info.value) == message


def _line_of(fn, text: str) -> int:  # noqa: ANN001
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def list_member(x: list[int] | None) -> int:
    return 0


def literal_member(mode: Literal["a", "b"] | None = None) -> int:
    return 0


def none_is_no_class(v: int | None) -> bool:
    return isinstance(v, None)


def class_in_variable(v: int | None) -> bool:
    classes = int
    return isinstance(v, classes)


@pytest.mark.parametrize("fn, text, message", [
    (list_member, "def list_member", "union annotation 'list[int] | None': a union may hold scalars, str, None, "
                                     "tuples, enums and records, not list[int]"),
    (literal_member, "def literal_member", "Literal inside the union annotation 'Literal['a', 'b'] | None' is not "
                                           "supported yet"),
    (none_is_no_class, "isinstance(v, None)", "isinstance() arg 2 must be a type, a tuple of types, or a union"),
    (class_in_variable, "isinstance(v, classes)", "isinstance() arg 2 must be a class or a tuple of classes"),
])
def test_refusals_are_located(fn, text: str, message: str) -> None:  # noqa: ANN001
    with pytest.raises(CompileError) as info:
        _compiled(fn)(1)
    assert message in str(info.value), str(info.value)
    assert info.value.lineno == _line_of(fn, text), str(info.value)

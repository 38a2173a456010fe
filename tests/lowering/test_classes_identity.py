"""Plain classes, the remaining holes (issue 14): a read of `self.x` in `__init__` before it is assigned is a located
compile error (CPython raises AttributeError there; compiled code would read a zero), `Box | None` results,
one instance returned twice is one object for the caller (`r[0] is r[1]`), `@classmethod` constructors and
`max(a, b, key=f)` over positional values. Every result is compared with CPython running the same function
uncompiled: value, exact types, and which parts of the result are one object."""
from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
import pytest

import everypath as ep
from everypath.errors import CompileError
from tests.corpus.values._compare import assert_like_cpython


class Box:
    """A detection box, as a vision pipeline writes one."""

    MIN_SIDE = 1.0

    def __init__(self, x0: float, y0: float, x1: float, y1: float, score: float = 1.0) -> None:
        self.x0 = x0
        self.y0 = y0
        self.x1 = x1
        self.y1 = y1
        self.score = score

    @classmethod
    def from_xywh(cls, x: float, y: float, w: float, h: float = 1.0) -> "Box":
        return cls(x, y, x + w, y + h)

    @classmethod
    def square(cls, side: float) -> "Box":  # a classmethod calling another, and a class constant through cls
        return cls.from_xywh(0.0, 0.0, max(side, cls.MIN_SIDE), max(side, cls.MIN_SIDE))

    def area(self) -> float:
        return (self.x1 - self.x0) * (self.y1 - self.y0)


class Holder:
    def __init__(self, box: Box, tag: str) -> None:
        self.box = box
        self.tag = tag


@dataclass
class Track:
    ident: int
    hits: int = 0


class Stats:
    """Reads its own attributes in __init__ only after assigning them, on every path: compiles."""

    n: int
    centre: float
    label: str

    def __init__(self, xs: np.ndarray[tuple[int], np.dtype[np.float64]], robust: bool) -> None:
        self.n = xs.shape[0]
        if robust:
            self.centre = float(np.median(xs)) if self.n else 0.0
        else:
            self.centre = float(xs.mean()) if self.n else 0.0
        self.spread = 0.0
        for x in xs:
            self.spread = max(self.spread, abs(float(x) - self.centre))
        self.hits = 0
        self.reset_hits()
        self.label = f"{self.n} values around {self.centre}"

    def reset_hits(self) -> None:  # called once every attribute it reads is assigned
        self.hits = 0 if self.spread > 0 else self.n
        self.hits += 1


# ---- classes whose __init__ reads an attribute before assigning it (refused, located) ---------------------
class Accumulator:
    def __init__(self, start: float) -> None:
        self.total = self.total + start  # meant: self.total = start


class Histogram:
    def __init__(self, values: list[float], bins: int) -> None:
        for v in values:
            self.total += v  # CPython: AttributeError as soon as values is not empty
        self.total = 0.0
        self.bins = bins


class Normaliser:
    def __init__(self, lo: float, hi: float, clip: bool) -> None:
        if clip:
            self.scale = 1.0 / (hi - lo)
        self.offset = -lo * self.scale  # CPython: AttributeError when clip is False
        self.scale = 1.0 / (hi - lo)


class Buffer:
    def __init__(self, n: int) -> None:
        self.size = n
        self.clear()  # reads self.capacity, assigned below
        self.capacity = 2 * n

    def clear(self) -> None:
        self.used = min(self.size, self.capacity) * 0


class Nested:
    def __init__(self, n: int) -> None:
        self.n = n
        self.setup()
        self.limit = n

    def setup(self) -> None:
        self.steps = self.budget()

    def budget(self) -> int:
        return self.limit - self.n


class Ratio:
    def __init__(self, w: float, h: float) -> None:
        self.w = w
        self.aspect = self.wide  # the property reads self.h, not assigned yet
        self.h = h

    @property
    def wide(self) -> float:
        return self.w / self.h


def register(obj: object) -> None:
    pass


class Escapes:
    def __init__(self, n: int) -> None:
        self.n = n
        register(self)
        self.m = n


# ---- the functions, as a user writes them ----------------------------------------------------------------
def summarise(xs: np.ndarray[tuple[int], np.dtype[np.float64]], robust: bool) -> tuple[int, float, float, int, str]:
    s = Stats(xs, robust)
    return s.n, s.centre, s.spread, s.hits, s.label


def first_big(widths: np.ndarray[tuple[int], np.dtype[np.float64]], min_area: float) -> Box | None:
    for i, w in enumerate(widths):
        b = Box.from_xywh(float(i), 0.0, float(w), 2.0)
        if b.area() >= min_area:
            return b
    return None


def best_or_none(scores: np.ndarray[tuple[int], np.dtype[np.float64]], threshold: float) -> Optional[Box]:
    best = None
    for i, s in enumerate(scores):
        if s >= threshold and (best is None or s > best.score):
            best = Box(float(i), 0.0, float(i) + 1.0, 1.0, float(s))
    return best


def track_or_none(ident: int) -> Track | None:
    return Track(ident, 1) if ident >= 0 else None


def index_or_none(xs: np.ndarray[tuple[int], np.dtype[np.int64]], v: int) -> int | None:
    for i, x in enumerate(xs):
        if x == v:
            return i
    return None


def twice(a: float) -> tuple[Box, Box, Box]:
    b = Box(0.0, 0.0, a, a)
    return b, b, Box(0.0, 0.0, a, a)


def repeated_in_list(n: int) -> list[Box]:
    anchor = Box(0.0, 0.0, 1.0, 1.0)
    out = [anchor]
    for i in range(n):
        out.append(Box(0.0, 0.0, float(i), 1.0))
        out.append(anchor)
    return out


def by_name(a: float) -> dict[str, Box]:
    b = Box(0.0, 0.0, a, 1.0)
    return {"left": b, "right": Box(a, 0.0, 2.0 * a, 1.0), "best": b}


def holder_and_box(a: float) -> tuple[Holder, Box, Holder]:
    b = Box(0.0, 0.0, a, a)
    h = Holder(b, "h")
    return h, b, Holder(b, "other")


def maybe_twice(a: float) -> tuple[Box | None, Box]:
    b = Box(0.0, 0.0, a, a)
    return (b if a > 0 else None), b


def tracks(n: int) -> tuple[Track, Track, list[Track]]:
    t = Track(n)
    t.hits += 1
    return t, t, [t, Track(n + 1)]


def classmethods(x: float, w: float) -> tuple[Box, float, Box, Box, float]:
    b = Box.from_xywh(x, 0.0, w)
    c = b.from_xywh(0.0, 0.0, w, h=3.0)  # through an instance: cls is its class
    return b, c.area(), Box.square(w), Box.square(0.25), Box.from_xywh(x, x, w, w).area()


def widest(a: float, b: float, c: float) -> Box:
    boxes = (Box(0.0, 0.0, a, 1.0), Box(1.0, 0.0, 1.0 + b, 1.0), Box(2.0, 0.0, 2.0 + c, 1.0))
    return max(boxes[0], boxes[1], boxes[2], key=lambda bx: bx.area())  # ties: the first, as CPython


def smallest_name_and_extremes(x: float, y: float) -> tuple[str, float, int, Box]:
    return (min("pear", "fig", "kiwi", key=len), max(x, y, key=abs), min(3, -7, 5, key=lambda v: (v % 2, -v)),
            min(Box(0.0, 0.0, x, 1.0), Box(0.0, 0.0, y, 1.0), key=Box.area))


@functools.cache
def compiled(fn):  # noqa: ANN001, ANN201 - one build per function for the whole module
    return ep.compile(fn)


def _objects(value: Any, out: list[Any]) -> list[Any]:
    """Every instance of a user class inside a result, in traversal order."""
    if isinstance(value, dict):
        for v in value.values():
            _objects(v, out)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _objects(v, out)
    elif type(value).__module__ == __name__:
        out.append(value)
        _objects(list(vars(value).values()), out)
    return out


def aliasing(value: Any) -> list[int]:
    """For each instance in the result, the position of the first one it is (CPython's object identity)."""
    objs = _objects(value, [])
    return [next(j for j, o in enumerate(objs) if o is x) for x in objs]


B = np.array
CASES = [
    (summarise, (B([1.0, 4.0, 2.5]), False)), (summarise, (B([1.0, 4.0, 2.5, 10.0]), True)),
    (summarise, (B([]), True)), (summarise, (B([3.0]), False)),
    (first_big, (B([0.5, 3.0, 4.0]), 5.0)), (first_big, (B([0.5, 1.0]), 5.0)), (first_big, (B([]), 0.0)),
    (best_or_none, (B([0.2, 0.9, 0.7, 0.9]), 0.5)), (best_or_none, (B([0.1]), 0.5)),
    (track_or_none, (4,)), (track_or_none, (-1,)),
    (index_or_none, (B([3, -1, 7], dtype=np.int64), 7)), (index_or_none, (B([], dtype=np.int64), 7)),
    (twice, (2.0,)), (repeated_in_list, (3,)), (repeated_in_list, (0,)), (by_name, (1.5,)),
    (holder_and_box, (2.0,)), (maybe_twice, (1.0,)), (maybe_twice, (-1.0,)), (tracks, (7,)),
    (classmethods, (1.0, 2.0)), (classmethods, (-1.5, 0.5)),
    (widest, (1.0, 3.0, 2.0)), (widest, (2.0, 2.0, 1.0)), (widest, (-1.0, -2.0, -3.0)),
    (smallest_name_and_extremes, (-3.5, 2.0)), (smallest_name_and_extremes, (2.0, -2.0)),
]


@pytest.mark.parametrize(("fn", "args"), CASES, ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)])
def test_same_as_cpython(fn, args) -> None:  # noqa: ANN001
    assert_like_cpython(fn, compiled(fn), args)
    assert aliasing(compiled(fn)(*args)) == aliasing(fn(*args))  # one object where CPython has one


def test_one_instance_returned_twice_is_one_object() -> None:
    first, second, other = compiled(twice)(2.0)
    assert first is second and first is not other
    first.x1 = 9.0  # a store through one name is seen through the other, as in CPython
    assert second.x1 == 9.0 and other.x1 == 2.0
    h, b, h2 = compiled(holder_and_box)(1.0)
    assert h.box is b and h2.box is b
    t, t2, listed = compiled(tracks)(3)
    assert t is t2 is listed[0] and t.hits == 1


def _refused(fn, args, message: str, cls: type, line_text: str) -> None:  # noqa: ANN001
    """CPython raises AttributeError running the class; compiling it is a CompileError at the reading line."""
    with pytest.raises(CompileError) as err:
        ep.compile(fn)(*args)
    text = str(err.value)
    assert message in text.splitlines()[0]
    lines, first = inspect.getsourcelines(cls)
    line = first + next(i for i, s in enumerate(lines) if line_text in s)
    assert f"test_classes_identity.py:{line}:" in text.splitlines()[0]


def test_read_before_assignment_is_a_located_error() -> None:
    with pytest.raises(AttributeError, match="'Accumulator' object has no attribute 'total'"):
        Accumulator(1.0)

    def f(a: float) -> float:
        return Accumulator(a).total

    _refused(f, (1.0,), "self.total is read before __init__ assigns it (CPython raises AttributeError: "
                        "'Accumulator' object has no attribute 'total')", Accumulator, "self.total + start")


def test_read_in_a_loop_before_assignment() -> None:
    assert Histogram([], 4).total == 0.0  # CPython runs it when the loop does not run
    with pytest.raises(AttributeError, match="'Histogram' object has no attribute 'total'"):
        Histogram([1.0], 4)

    def f(n: int) -> float:
        return Histogram([1.0] * n, 4).total

    _refused(f, (2,), "self.total is read before __init__ assigns it", Histogram, "self.total += v")


def test_read_after_an_assignment_on_one_branch_only() -> None:
    assert Normaliser(0.0, 2.0, True).offset == -0.0
    with pytest.raises(AttributeError, match="'Normaliser' object has no attribute 'scale'"):
        Normaliser(0.0, 2.0, False)

    def f(clip: bool) -> float:
        return Normaliser(1.0, 3.0, clip).offset

    _refused(f, (True,), "self.scale is read before __init__ assigns it", Normaliser, "-lo * self.scale")


def test_read_in_a_method_called_from_init_is_located_at_the_call() -> None:
    with pytest.raises(AttributeError, match="'Buffer' object has no attribute 'capacity'"):
        Buffer(3)

    def f(n: int) -> int:
        return Buffer(n).used

    line = Buffer.clear.__code__.co_firstlineno + 1
    _refused(f, (3,), f"self.capacity is read before __init__ assigns it: clear() at {__file__}:{line} reads it",
             Buffer, "self.clear()")


def test_read_two_calls_deep_names_the_reader() -> None:
    with pytest.raises(AttributeError, match="'Nested' object has no attribute 'limit'"):
        Nested(2)

    def f(n: int) -> int:
        return Nested(n).steps

    _refused(f, (2,), "self.limit is read before __init__ assigns it: budget() at", Nested, "self.setup()")


def test_read_through_a_property_in_init() -> None:
    with pytest.raises(AttributeError, match="'Ratio' object has no attribute 'h'"):
        Ratio(2.0, 1.0)

    def f(w: float) -> float:
        return Ratio(w, 1.0).aspect

    _refused(f, (2.0,), "self.h is read before __init__ assigns it: wide() at", Ratio, "self.aspect = self.wide")


def test_self_passed_on_before_every_attribute_is_assigned() -> None:
    def f(n: int) -> int:
        return Escapes(n).m

    _refused(f, (1,), "self is used as a value before __init__ assigns self.m", Escapes, "register(self)")


def test_optional_result_annotation_still_checks_the_kinds() -> None:
    def f(n: int) -> Box | None:
        return n  # type: ignore[return-value]

    with pytest.raises(CompileError, match=r"function returns int but is annotated 'Box \| None'"):
        ep.compile(f)(1)


def test_max_with_key_over_positional_values_refuses_what_cpython_refuses() -> None:
    def with_default(a: int, b: int) -> int:
        return max(a, b, key=abs, default=0)  # type: ignore[call-overload]

    with pytest.raises(TypeError, match="Cannot specify a default for max"):
        with_default(1, 2)
    with pytest.raises(CompileError, match=r"Cannot specify a default for max\(\) with multiple positional arguments"):
        ep.compile(with_default)(1, 2)

    def mixed(a: int, b: float) -> float:
        return max(a, b, key=abs)

    with pytest.raises(CompileError, match=r"max\(\) with key= over values of different types \(int, float\) is "
                                           r"not supported"):
        ep.compile(mixed)(1, 2.0)

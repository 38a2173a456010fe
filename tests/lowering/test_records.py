"""Records in compiled code: @dataclass (frozen or not) and typing.NamedTuple classes constructed, read,
updated, passed in and returned, each result compared with CPython running the same function uncompiled
(value, exact class, equality), and what is refused, with its located error."""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import pytest

import everypath as ep
from everypath.errors import CompileError
from tests.corpus.values._compare import assert_same


@dataclass(frozen=True)
class Detection:
    box: tuple[float, float, float, float]
    score: float
    label: str


@dataclass
class Counter:
    name: str
    count: int = 0
    total: float = 0.0


class Point(NamedTuple):
    x: int
    y: int = 0


@dataclass(frozen=True)
class Segment:
    start: Point
    end: Point
    weights: np.ndarray[tuple[int], np.dtype[np.float64]]


@dataclass(frozen=True)
class Stats:
    mean: float
    peak: float
    where: int


@dataclass
class Base:
    x: int


@dataclass
class Derived(Base):
    y: int = 0


@dataclass
class WithFactory:
    items: list[int] = field(default_factory=list)


# ---- the functions, as a user writes them ------------------------------------------------------


def detect(scores: np.ndarray[tuple[int], np.dtype[np.float64]], threshold: float) -> list[Detection]:
    out = []
    for i in range(scores.shape[0]):
        if scores[i] >= threshold:
            box = (float(i), 0.0, float(i) + 1.0, 1.0)
            out.append(Detection(box, float(scores[i]), label=f"obj{i}"))
    return out


def best(dets: tuple[Detection, Detection]) -> Detection:
    a, b = dets
    return a if a.score >= b.score else b


def area(d: Detection) -> float:
    x0, y0, x1, y1 = d.box
    return (x1 - x0) * (y1 - y0) * d.score


def count_words(text: str) -> Counter:
    c = Counter("words")
    for w in text.split():
        c.count += 1
        c.total = c.total + len(w)
    return c


def aliasing(n: int) -> tuple[int, int]:
    a = Counter("a", n)
    b = a  # one object, two names: a store through b is seen through a
    b.count = b.count * 10
    return a.count, b.count


def bump(c: Counter) -> None:
    c.count += 1


def through_helper(n: int) -> int:
    c = Counter(name="h", count=n)
    bump(c)
    bump(c)
    return c.count


def mirror(p: Point) -> Point:
    x, y = p
    return Point(y, x)


def point_math(p: Point) -> tuple[int, int, int]:
    q = Point(p.x + 1)
    return p[0] + p[-1], q.y, q[0]


def segment(a: Point, b: Point, w: np.ndarray[tuple[int], np.dtype[np.float64]]) -> Segment:
    return Segment(start=a, end=b, weights=w * 2.0)


def seg_length(s: Segment) -> tuple[int, float]:
    return (s.end.x - s.start.x) ** 2 + (s.end.y - s.start.y) ** 2, float(s.weights.sum())


def summarise(x: np.ndarray[tuple[int], np.dtype[np.float64]]) -> Stats:
    return Stats(mean=float(x.mean()), peak=float(x.max()), where=int(np.argmax(x)))


@functools.cache
def compiled(fn):  # noqa: ANN001, ANN201 - one build per function for the whole module
    return ep.compile(fn)


def same(got: object, want: object) -> None:
    """Value and exact type at every level (tests/corpus/values/_compare.py, shared with the values corpus)."""
    assert_same(want, got)


D1 = Detection((0.0, 0.0, 2.0, 3.0), 0.75, "cat")
D2 = Detection((1.0, 1.0, 2.0, 2.0), 0.9, "dog")
W = np.array([0.5, 1.5, 2.0])
CASES = [
    (detect, (np.array([0.1, 0.8, 0.5, 0.95]), 0.5)), (detect, (np.array([0.1]), 0.5)),
    (best, ((D1, D2),)), (best, ((D2, D1),)), (area, (D1,)),
    (count_words, ("the quick brown fox",)), (count_words, ("",)),
    (aliasing, (3,)), (through_helper, (5,)),
    (mirror, (Point(1, 2),)), (point_math, (Point(3, 4),)), (point_math, (Point(3),)),
    (segment, (Point(0, 0), Point(3, 4), W)), (seg_length, (Segment(Point(1, 1), Point(4, 5), W),)),
    (summarise, (np.array([1.0, 5.0, 2.0]),)),
]


@pytest.mark.parametrize(("fn", "args"), CASES, ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)])
def test_same_as_cpython(fn, args) -> None:  # noqa: ANN001
    same(compiled(fn)(*args), fn(*args))


def test_results_are_real_instances_of_the_users_class() -> None:
    got = compiled(detect)(np.array([0.9, 0.2, 0.7]), 0.5)
    assert [type(d) for d in got] == [Detection, Detection]
    assert got == detect(np.array([0.9, 0.2, 0.7]), 0.5)
    assert repr(got[0]) == "Detection(box=(0.0, 0.0, 1.0, 1.0), score=0.9, label='obj0')"
    p = compiled(mirror)(Point(5, 6))
    assert type(p) is Point and p == (6, 5) and p._fields == ("x", "y")
    with pytest.raises(AttributeError):
        compiled(best)((D1, D2)).score = 0.0  # type: ignore[misc]  # still frozen: the class's own __setattr__


def test_record_parameter_of_the_wrong_class_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"^area\(\) argument 'd': expected Detection, got Counter$"):
        compiled(area)(Counter("x"))
    with pytest.raises(TypeError, match=r"^mirror\(\) argument 'p': expected Point, got tuple of length 2$"):
        compiled(mirror)((1, 2))
    with pytest.raises(TypeError, match=r"^area\(\) argument 'd\[1\]': expected float, got str$"):
        compiled(area)(Detection((0.0, 0.0, 1.0, 1.0), "high", "x"))  # type: ignore[arg-type]


def _refused(fn, args, pattern: str) -> None:  # noqa: ANN001
    with pytest.raises(CompileError, match=pattern) as err:
        ep.compile(fn)(*args)
    assert "test_records.py:" in str(err.value)  # located at the user's line


def test_assigning_a_frozen_field_is_refused() -> None:
    def f(d: Detection) -> float:
        d.score = 1.0  # type: ignore[misc]
        return d.score

    _refused(f, (D1,), r"cannot assign to field 'score' of frozen dataclass 'Detection'")


def test_assigning_a_namedtuple_field_is_refused() -> None:
    def f(p: Point) -> int:
        p.x = 3  # type: ignore[misc]
        return p.x

    _refused(f, (Point(1, 2),), r"cannot assign to field 'x' of NamedTuple 'Point'")


def test_dynamic_attributes_are_refused() -> None:
    def f(n: int) -> int:
        c = Counter("c")
        c.extra = n  # type: ignore[attr-defined]
        return c.count

    _refused(f, (1,), r"'Counter' object has no field 'extra': adding attributes is not supported")


def test_reading_a_missing_field_is_refused() -> None:
    def f(p: Point) -> int:
        return p.z  # type: ignore[attr-defined]

    _refused(f, (Point(1, 2),), r"'Point' object has no attribute 'z'")


def test_inheritance_is_refused() -> None:
    def f(d: Derived) -> int:
        return d.x

    _refused(f, (Derived(1, 2),), r"dataclass 'Derived' inherits from Base: inheritance is not supported")


def test_a_field_keeps_its_annotated_type() -> None:
    def f(n: int) -> Counter:
        return Counter("c", total=n)  # CPython would store the int

    _refused(f, (1,), r"field 'total' of Counter is annotated float but given int")


def test_missing_constructor_argument_is_refused() -> None:
    def f(n: int) -> Detection:
        return Detection((0.0, 0.0, 0.0, 0.0), 1.0)  # type: ignore[call-arg]

    _refused(f, (1,), r"Detection.__init__\(\) missing 1 required positional argument: 'label'")


def test_factory_defaults_are_refused_when_omitted() -> None:
    def f(n: int) -> int:
        WithFactory()
        return n

    _refused(f, (1,), r"WithFactory.__init__\(\) missing 1 required positional argument: 'items'")


def test_storing_into_a_mutable_record_from_the_caller_is_refused() -> None:
    def f(c: Counter) -> int:
        bump(c)  # CPython changes the caller's object; compiled code holds a copy of its fields
        return c.count

    _refused(f, (Counter("c"),), r"parameter 'c' takes a Counter from the caller, .* assigning a field of a Counter "
                                 r"is not supported here")

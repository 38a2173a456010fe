"""Plain classes (`class Box:` with __init__ and methods) and pydantic models in compiled code: constructed,
mutated through methods and aliases, passed in and returned, each result compared with CPython running the same
function uncompiled (attributes, their exact types, the exact class), and what is refused, with its located error."""
from __future__ import annotations

import functools
import math

import numpy as np
import pytest

import everypath as ep
from everypath.errors import CompileError
from tests.corpus.values._compare import assert_same

SCALE = 3


class Box:
    UNIT = 1.0
    NAME = "box"

    def __init__(self, x0: float, y0: float, x1: float, y1: float) -> None:
        self.x0 = x0
        self.y0 = y0
        self.x1 = x1
        self.y1 = y1

    def area(self) -> float:
        return self.width * (self.y1 - self.y0)

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    def grow(self, d: float = 1.0) -> None:
        self.x1 += d
        self.y1 += d

    def scaled(self, k: float) -> "Box":
        return Box(self.x0 * k, self.y0 * k, self.x1 * k, self.y1 * k)

    @staticmethod
    def unit() -> "Box":
        return Box(0.0, 0.0, Box.UNIT, Box.UNIT)

    def __repr__(self) -> str:
        return f"Box({self.x0}, {self.y0}, {self.x1}, {self.y1})"


class Counter:
    def __init__(self, name: str, start: int = 0) -> None:
        self.name = name
        self.count = start
        self.total = 0.0
        self.limit = SCALE * 2
        if start < 0:
            raise ValueError("negative start")

    def add(self, x: float) -> "Counter":
        self.count += 1
        self.total += x
        return self


class Point:
    def __init__(self, x: int, y: int) -> None:
        self.x = x
        self.y = y

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Point) and self.x == other.x and self.y == other.y


class Holder:
    """An attribute holding another instance: one object, reached two ways."""

    def __init__(self, box: Box, tag: str) -> None:
        self.box = box
        self.tag = tag


class Early:
    def __init__(self, n: int) -> None:
        if n < 0:
            self.n = 0
            return
        self.n = n


# refused classes (module level: a class defined in a function is refused for that alone)
class Meta(type):
    pass


class WithMeta(metaclass=Meta):
    def __init__(self) -> None:
        self.x = 1


class Child(Box):
    pass


class Slotted:
    __slots__ = ("x",)

    def __init__(self) -> None:
        self.x = 1


class Adds:
    def __init__(self, x: int) -> None:
        self.x = x

    def __add__(self, other: "Adds") -> "Adds":
        return Adds(self.x + other.x)


class Sometimes:
    def __init__(self, x: int) -> None:
        if x > 0:
            self.x = x


class Later:
    def __init__(self) -> None:
        self.x = 1

    def set_y(self) -> None:
        self.y = 2


class Untyped:
    def __init__(self, data: list[int]) -> None:
        self.items = [v for v in data]


class WithClassmethod:
    def __init__(self) -> None:
        self.x = 1

    @classmethod
    def make(cls) -> "WithClassmethod":
        return cls()


# ---- the functions, as a user writes them ------------------------------------------------------


def build(a: float) -> Box:
    return Box(0.0, 0.0, a, 2.0)


def box_area(a: float, b: float) -> float:
    return Box(0.0, 0.0, a, b).area()


def mutate_through_method(a: float) -> Box:
    b = Box(0.0, 0.0, a, a)
    b.grow()
    b.grow(0.5)
    return b


def aliasing(a: float) -> tuple[float, float]:
    b = Box(0.0, 0.0, a, a)
    c = b  # one object, two names: a store through c is seen through b
    c.x1 = 10.0
    c.grow(2.0)
    return b.x1, b.width


def alias_in_attribute(a: float) -> tuple[float, float]:
    b = Box(0.0, 0.0, a, a)
    h = Holder(b, "h")
    h.box.grow(1.0)  # the holder's box is b itself
    return b.x1, h.box.area()


def identity(a: float) -> tuple[bool, bool, bool]:
    b = Box(0.0, 0.0, a, a)
    c = b
    d = Box(0.0, 0.0, a, a)
    return b is c, b is d, b is not d


def user_eq(x: int) -> tuple[bool, bool]:
    return Point(x, 1) == Point(x, 1), Point(x, 1) != Point(x, 2)


def chained(xs: np.ndarray[tuple[int], np.dtype[np.float64]]) -> Counter:
    c = Counter("xs")
    for x in xs:
        c.add(float(x)).add(0.5)
    return c


def class_constants(a: float) -> tuple[float, str, float]:
    b = Box(0.0, 0.0, a, a)
    return b.UNIT + Box.UNIT, b.NAME, Box.unit().area()


def unbound_call(a: float) -> float:
    b = Box(0.0, 0.0, a, 1.0)
    return Box.area(b)


def boxes(n: int) -> list[Box]:
    out = []
    for i in range(n):
        out.append(Box(0.0, 0.0, float(i), 1.0).scaled(2.0))
    return out


def widest(bs: tuple[Box, Box]) -> Box:
    a, b = bs
    return a if a.width >= b.width else b


def read_in(b: Box) -> tuple[float, float]:
    return b.area(), b.width


def early(n: int) -> int:
    return Early(n).n


def raises_in_init(n: int) -> int:
    return Counter("c", n).count


def keyword_init(n: int) -> tuple[str, int, float, int]:
    c = Counter(start=n, name="kw")
    return c.name, c.count, c.total, c.limit


@functools.cache
def compiled(fn):  # noqa: ANN001, ANN201 - one build per function for the whole module
    return ep.compile(fn)


def same(got: object, want: object) -> None:
    """Value and exact type at every level; instances attribute by attribute (tests/corpus/values/_compare.py)."""
    assert_same(want, got)


B1, B2 = Box(0.0, 0.0, 2.0, 3.0), Box(1.0, 1.0, 5.0, 2.0)
CASES = [
    (build, (3.0,)), (box_area, (2.0, 3.5)), (box_area, (-1.0, 2.0)),
    (mutate_through_method, (1.5,)), (aliasing, (3.0,)), (alias_in_attribute, (2.0,)),
    (identity, (1.0,)), (user_eq, (4,)), (chained, (np.array([1.0, -2.5, 3.0]),)), (chained, (np.array([]),)),
    (class_constants, (2.0,)), (unbound_call, (4.0,)), (boxes, (3,)), (boxes, (0,)),
    (widest, ((B1, B2),)), (widest, ((B2, B1),)), (read_in, (B1,)), (early, (-3,)), (early, (7,)),
    (raises_in_init, (-1,)), (raises_in_init, (2,)), (keyword_init, (5,)),
]


@pytest.mark.parametrize(("fn", "args"), CASES, ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)])
def test_same_as_cpython(fn, args) -> None:  # noqa: ANN001
    try:
        want = ("ok", fn(*args))
    except ValueError as exc:
        want = ("raised", exc)
    if want[0] == "raised":
        with pytest.raises(type(want[1]), match=str(want[1])):
            compiled(fn)(*args)
        return
    same(compiled(fn)(*args), want[1])


def test_results_are_real_instances_made_without_running_init_again() -> None:
    got = compiled(mutate_through_method)(2.0)
    assert type(got) is Box and repr(got) == "Box(0.0, 0.0, 3.5, 3.5)"  # __init__ again would give 2.0
    assert list(vars(got)) == ["x0", "y0", "x1", "y1"]
    got.grow()  # a real instance: the class's own methods run on it
    assert got.x1 == 4.5
    listed = compiled(boxes)(2)
    assert [type(b) for b in listed] == [Box, Box] and listed[0] is not listed[1]


def test_parameters_are_read_by_attribute_and_checked() -> None:
    b = Box(0.0, 0.0, 2.0, 2.0)
    b.extra = 1  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match=r"^read_in\(\) argument 'b': Box instance has attribute 'extra', which its "
                                        r"__init__ does not set"):
        compiled(read_in)(b)
    c = Box(0.0, 0.0, 2.0, 2.0)
    del c.y1
    with pytest.raises(TypeError, match=r"^read_in\(\) argument 'b': Box instance has no attribute 'y1'"):
        compiled(read_in)(c)
    with pytest.raises(TypeError, match=r"^read_in\(\) argument 'b': expected Box, got Point"):
        compiled(read_in)(Point(1, 2))
    d = Box(0.0, 0.0, 2.0, 2.0)
    d.x1 = "3"  # type: ignore[assignment]  # a str where the attribute is a float
    with pytest.raises(TypeError, match=r"^read_in\(\) argument 'b\[2\]': expected float, got str$"):
        compiled(read_in)(d)
    assert compiled(read_in)(Box(0.0, 0.0, 2.0, 2.0)) == (4.0, 2.0)


def _refused(fn, args, pattern: str, where: str = "test_classes.py:") -> None:  # noqa: ANN001
    with pytest.raises(CompileError, match=pattern) as err:
        ep.compile(fn)(*args)
    assert where in str(err.value).splitlines()[0]  # located at the user's line


def test_metaclass_is_refused() -> None:
    def f() -> int:
        return WithMeta().x

    _refused(f, (), r"class 'WithMeta' has metaclass Meta: metaclasses are not supported")


def test_inheritance_is_refused() -> None:
    def f(b: Child) -> float:
        return b.x0

    _refused(f, (Child(0.0, 0.0, 1.0, 1.0),), r"class 'Child' inherits from Box: inheritance is not supported")


def test_slots_are_refused() -> None:
    def f() -> int:
        return Slotted().x

    _refused(f, (), r"class 'Slotted' defines __slots__")


def test_other_dunders_are_refused_by_name() -> None:
    def f(n: int) -> int:
        return Adds(n).x

    _refused(f, (1,), r"class 'Adds' defines __add__: dunder methods other than __init__, __repr__, __eq__ are not "
                      "supported")


def test_classmethods_construct_through_cls() -> None:
    def f() -> tuple[int, int]:
        return WithClassmethod.make().x, WithClassmethod().make().x

    assert compiled(f)() == f() == (1, 1)


def test_attribute_on_some_paths_is_refused_at_its_assignment() -> None:
    def f(n: int) -> int:
        return Sometimes(n).x

    with pytest.raises(CompileError, match=r"attribute 'x' of Sometimes is assigned on only some paths through "
                                           r"__init__") as err:
        ep.compile(f)(1)
    line = Sometimes.__init__.__code__.co_firstlineno + 2
    assert f"test_classes.py:{line}:" in str(err.value)


def test_attribute_outside_init_is_refused_at_its_assignment() -> None:
    def f() -> int:
        return Later().x

    with pytest.raises(CompileError, match=r"attribute 'y' of Later is assigned in Later.set_y but not in __init__"):
        ep.compile(f)()


def test_an_attribute_of_unknown_type_asks_for_an_annotation() -> None:
    def f(n: int) -> int:
        return len(Untyped([n]).items)

    _refused(f, (1,), r"cannot tell the type of attribute 'items' of Untyped from __init__: annotate it")


def test_adding_an_attribute_is_refused() -> None:
    def f(a: float) -> float:
        b = Box(0.0, 0.0, a, a)
        b.depth = 1.0  # type: ignore[attr-defined]
        return b.x1

    _refused(f, (1.0,), r"'Box' object has no field 'depth': adding attributes is not supported")


def test_reading_a_missing_attribute_is_refused() -> None:
    def f(a: float) -> float:
        return Box(0.0, 0.0, a, a).depth  # type: ignore[attr-defined]

    _refused(f, (1.0,), r"'Box' object has no attribute 'depth'")


def test_mutating_a_caller_instance_is_refused() -> None:
    def f(b: Box) -> float:
        b.grow()  # CPython changes the caller's object; compiled code holds a copy of its attributes
        return b.x1

    _refused(f, (Box(0.0, 0.0, 1.0, 1.0),), r"parameter 'b' takes a Box from the caller")


def test_attribute_keeps_its_type() -> None:
    def f(n: int) -> float:
        return Box(0.0, 0.0, n, 1.0).x1  # CPython keeps the int in x1

    _refused(f, (2,), r"field 'x1' of Box is annotated float but given int")


# ---- pydantic ----------------------------------------------------------------------------------
pydantic = pytest.importorskip("pydantic", reason="pydantic is not installed (the refs extra): model tests skipped")


class Summary(pydantic.BaseModel):
    mean: float
    count: int = pydantic.Field(ge=0)
    label: str = "all"


class Frozen(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(frozen=True)
    x: int
    y: int = 0


def summarise(xs: np.ndarray[tuple[int], np.dtype[np.float64]], n: int) -> Summary:
    m = float(xs.mean()) if xs.shape[0] else math.nan
    return Summary(mean=m, count=n)


def from_model(s: Summary) -> tuple[float, str]:
    return s.mean * s.count, s.label


def frozen_model(x: int) -> Frozen:
    f = Frozen(x=x)
    return Frozen(x=f.x + 1, y=f.y)


def test_pydantic_results_are_built_by_pydantic() -> None:
    for args in ((np.array([1.0, 2.0, 4.5]), 3), (np.array([]), 0)):
        got, want = compiled(summarise)(*args), summarise(*args)
        assert type(got) is Summary and got.model_dump().keys() == want.model_dump().keys()
        assert repr(got) == repr(want)
    same(compiled(frozen_model)(4), frozen_model(4))


def test_pydantic_validation_errors_surface_at_the_call() -> None:
    with pytest.raises(pydantic.ValidationError) as want:
        summarise(np.array([1.0]), -1)
    with pytest.raises(pydantic.ValidationError) as got:
        compiled(summarise)(np.array([1.0]), -1)
    assert got.value.errors()[0]["type"] == want.value.errors()[0]["type"] == "greater_than_equal"


def test_pydantic_parameters_are_read_by_field() -> None:
    s = Summary(mean=1.5, count=4, label="x")
    same(compiled(from_model)(s), from_model(s))
    with pytest.raises(TypeError, match=r"^from_model\(\) argument 's': expected Summary, got Frozen"):
        compiled(from_model)(Frozen(x=1))


def test_pydantic_models_take_keywords_only() -> None:
    def f(n: int) -> Frozen:
        return Frozen(n)  # type: ignore[misc]

    _refused(f, (1,), r"Frozen\(\) takes keyword arguments only")

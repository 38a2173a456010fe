"""Annotated, Literal and enum parameters and values in compiled code, each result compared with CPython
running the same function uncompiled: value, exact type, identity of enum members, and the errors a call
with a value outside a Literal or of the wrong enum class raises."""
from __future__ import annotations

import enum
import functools
from typing import Annotated, Literal

import numpy as np
import pytest

import everypath as ep
from everypath.errors import CompileError
from tests.corpus.values._compare import assert_same


class Color(enum.Enum):
    RED = 1
    GREEN = 2
    BLUE = 3


class Shade(enum.Enum):
    RED = "red"
    DARK = "dark"


class Level(enum.IntEnum):
    LOW = 10
    MID = 20
    HIGH = 30


class Unit(enum.StrEnum):
    METRE = "m"
    FOOT = "ft"


class Act(enum.Enum):
    RELU = enum.auto()
    SIGMOID = enum.auto()
    TANH = enum.auto()


class Perm(enum.Flag):
    R = 1
    W = 2


# ---- the functions, as a user writes them ------------------------------------------------------


def scaled(x: Annotated[float, "metres"], k: Annotated[int, {"min": 1}] = 2) -> Annotated[float, "metres"]:
    return x * k


def resize(img: np.ndarray[tuple[int, int], np.dtype[np.float64]],
           mode: Literal["bilinear", "nearest"]) -> np.ndarray[tuple[int, int], np.dtype[np.float64]]:
    h, w = img.shape
    out = np.zeros((2 * h - 1, 2 * w - 1))
    for i in range(2 * h - 1):
        for j in range(2 * w - 1):
            if mode == "nearest":
                out[i, j] = img[(i + 1) // 2, (j + 1) // 2]
            else:
                i0, j0 = i // 2, j // 2
                i1, j1 = (i + 1) // 2, (j + 1) // 2
                out[i, j] = 0.25 * (img[i0, j0] + img[i0, j1] + img[i1, j0] + img[i1, j1])
    return out


def pad_size(n: int, align: Literal[4, 8, 16] = 8) -> int:
    return (n + align - 1) // align * align


def flag_text(on: Literal[True]) -> str:
    return "on" if on else "off"


def next_color(c: Color) -> Color:
    if c is Color.RED:
        return Color.GREEN
    if c == Color.GREEN:
        return Color.BLUE
    return Color.RED


def describe(c: Color, s: Shade) -> tuple[int, str, str, str, bool, bool]:
    return c.value, c.name, s.value, s.name, c is not Color.BLUE, s != Shade.DARK


def level_math(lv: Level, n: int) -> tuple[int, bool, int, Level]:
    top = Level.HIGH
    return lv + n, lv >= Level.MID, lv * 2 - top, top if lv == 10 else lv


def unit_label(u: Unit = Unit.METRE) -> tuple[str, Unit, bool]:
    return u.value + "!", u, u is Unit.FOOT


def activate(x: np.ndarray[tuple[int], np.dtype[np.float64]], act: Act = Act.RELU) -> np.ndarray[tuple[int], np.dtype[np.float64]]:
    if act is Act.RELU:
        return np.maximum(x, 0.0)
    if act is Act.SIGMOID:
        return 1.0 / (1.0 + np.exp(-x))
    return np.tanh(x)


def colors_of(n: int) -> list[Color]:
    out = []
    for i in range(n):
        out.append(Color.RED if i % 2 == 0 else Color.BLUE)
    return out


@functools.cache
def compiled(fn):  # noqa: ANN001, ANN201 - one build per function for the whole module
    return ep.compile(fn)


def same(got: object, want: object) -> None:
    """Value and exact type at every level (tests/corpus/values/_compare.py, shared with the values corpus)."""
    assert_same(want, got, rtol=1e-15)  # transcendental functions: libmvec, within an ulp of NumPy


CASES = [
    (scaled, (1.5,), {}), (scaled, (1.5, 3), {}), (scaled, (2.0,), {"k": 5}),
    (resize, (np.arange(12.0).reshape(3, 4), "nearest"), {}),
    (resize, (np.arange(12.0).reshape(3, 4) ** 2, "bilinear"), {}),
    (pad_size, (13,), {}), (pad_size, (13, 4), {}), (pad_size, (17,), {"align": 16}),
    (flag_text, (True,), {}),
    (next_color, (Color.RED,), {}), (next_color, (Color.GREEN,), {}), (next_color, (Color.BLUE,), {}),
    (describe, (Color.BLUE, Shade.RED), {}), (describe, (Color.RED, Shade.DARK), {}),
    (level_math, (Level.LOW, 5), {}), (level_math, (Level.HIGH, -1), {}),
    (unit_label, (), {}), (unit_label, (Unit.FOOT,), {}),
    (activate, (np.linspace(-2, 2, 9),), {}), (activate, (np.linspace(-2, 2, 9), Act.SIGMOID), {}),
    (activate, (np.linspace(-2, 2, 9),), {"act": Act.TANH}),
    (colors_of, (5,), {}), (colors_of, (0,), {}),
]


@pytest.mark.parametrize(("fn", "args", "kwargs"), CASES, ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)])
def test_same_as_cpython(fn, args, kwargs) -> None:  # noqa: ANN001
    same(compiled(fn)(*args, **kwargs), fn(*args, **kwargs))


def test_enum_results_are_the_members_themselves() -> None:
    assert compiled(next_color)(Color.BLUE) is Color.RED
    assert compiled(unit_label)(Unit.FOOT)[1] is Unit.FOOT
    assert all(c is Color.RED for c in compiled(colors_of)(3)[::2])


def test_literal_value_outside_the_set_is_a_value_error() -> None:
    img = np.ones((2, 2))
    with pytest.raises(ValueError, match=r"^resize\(\): parameter 'mode' must be one of 'bilinear', 'nearest'; "
                                         r"got 'cubic'$"):
        compiled(resize)(img, "cubic")
    with pytest.raises(ValueError, match=r"^pad_size\(\): parameter 'align' must be one of 4, 8, 16; got 5$"):
        compiled(pad_size)(3, 5)
    with pytest.raises(ValueError, match=r"must be one of True; got False"):
        compiled(flag_text)(False)


def test_literal_of_the_wrong_type_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"^resize\(\) argument 'mode': expected Literal\['bilinear', 'nearest'\] "
                                        r"\(str\), got int$"):
        compiled(resize)(np.ones((2, 2)), 3)
    with pytest.raises(TypeError, match=r"pad_size\(\) argument 'align'"):
        compiled(pad_size)(3, 8.0)
    with pytest.raises(TypeError):  # Literal[4, 8, 16] does not take True, although True == 1
        compiled(pad_size)(3, True)


def test_enum_parameter_takes_a_member_of_exactly_its_class() -> None:
    with pytest.raises(TypeError, match=r"^next_color\(\) argument 'c': expected Color, got int$"):
        compiled(next_color)(1)
    with pytest.raises(TypeError, match=r"expected Color, got Shade"):
        compiled(next_color)(Shade.RED)
    with pytest.raises(TypeError, match=r"^level_math\(\) argument 'lv': expected Level, got int$"):
        compiled(level_math)(10, 1)  # an int equal to a member's value is not the member


def test_literal_with_none_is_refused_with_a_located_error() -> None:
    def f(mode: Literal["a", None]) -> int:
        return 1

    with pytest.raises(CompileError, match=r"Literal with None in .* is not supported yet") as err:
        ep.compile(f)("a")
    assert "test_literal_enum.py" in str(err.value)


def test_flag_enums_are_refused() -> None:
    def f(p: Perm) -> int:
        return 1

    with pytest.raises(CompileError, match=r"enum.Flag class 'Perm' is not supported"):
        ep.compile(f)(Perm.R)


def test_is_only_against_none_and_members() -> None:
    def f(c: Color, d: Color) -> bool:
        return c is d

    with pytest.raises(CompileError, match=r"'is' / 'is not' are only supported against None and enum members"):
        ep.compile(f)(Color.RED, Color.RED)

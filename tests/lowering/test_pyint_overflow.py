"""Python ints beyond int64 (issue 12): where CPython's exact result fits int64 the compiled one equals it;
where it does not, OverflowError located at the user's line, never a wrapped value. NumPy int64 scalars and
arrays keep wrapping exactly as NumPy does. Every case is compared with the uncompiled function."""
from __future__ import annotations

import inspect
import math
import traceback
import warnings
from typing import Any, Callable

import numpy as np
import pytest

import everypath
from everypath.lowering.infer import ProgramTyper
from everypath.lowering.pipeline import _resolve_params
from everypath.lowering.unit import Entry, translation_unit
from everypath.tracer.callgraph import trace_program

MAX, MIN = 2**63 - 1, -(2**63)
I64 = np.ndarray[tuple[int], np.dtype[np.int64]]
U8 = np.ndarray[tuple[int], np.dtype[np.uint8]]


def add(a: int, b: int) -> int:
    return a + b


def bools(a: bool, b: bool) -> int:
    return a + b - (not b) * 3


def sub(a: int, b: int) -> int:
    return a - b


def mul(a: int, b: int) -> int:
    return a * b


def floordiv(a: int, b: int) -> int:
    return a // b


def mod(a: int, b: int) -> int:
    return a % b


def div_mod(a: int, b: int) -> tuple[int, int]:
    return divmod(a, b)


def power(a: int, b: int) -> int:
    return a**b


def builtin_pow(a: int, b: int) -> int:
    return pow(a, b)


def lshift(a: int, b: int) -> int:
    return a << b


def rshift(a: int, b: int) -> int:
    return a >> b


def neg(a: int) -> int:
    return -a


def absolute(a: int) -> int:
    return abs(a)


def augmented(a: int, b: int) -> int:
    a *= 2
    a += b
    return a


def int_of_float(x: float) -> int:
    return int(x)


def rounded(x: float) -> int:
    return round(x)


def floored(x: float) -> int:
    return math.floor(x)


def total(a: int, b: int, c: int) -> int:
    return sum([a, b, c])


def total_range(a: int, b: int) -> int:
    return sum(range(a, b))


def int_of_u64(x: np.uint64) -> int:
    return int(x)


CASES: list[tuple[Callable[..., Any], tuple[Any, ...]]] = [
    (add, (MAX, 1)), (add, (MIN, -1)), (add, (MAX, MIN)), (add, (MAX - 1, 1)), (bools, (True, True)),
    (sub, (MIN, 1)), (sub, (MAX, -1)), (sub, (0, MIN)), (sub, (-1, MAX)), (sub, (MIN, MIN)),
    (mul, (3, 2**62)), (mul, (-1, MIN)), (mul, (MIN, 1)), (mul, (2**32, 2**31)), (mul, (-(2**32), 2**31)),
    (mul, (0, MIN)), (mul, (-3037000500, 3037000500)), (mul, (3037000499, 3037000499)),
    (floordiv, (MIN, -1)), (floordiv, (MIN, 1)), (floordiv, (MIN, 2)), (floordiv, (-7, 2)), (floordiv, (1, 0)),
    (mod, (MIN, -1)), (mod, (-7, 3)), (mod, (MAX, MIN)), (mod, (1, 0)),
    (div_mod, (MIN, -1)), (div_mod, (MIN, 3)), (div_mod, (-7, 2)), (div_mod, (1, 0)),
    (power, (3, 40)), (power, (3, 39)), (power, (-2, 63)), (power, (2, 63)), (power, (-2, 64)), (power, (2, 62)),
    (power, (0, 10**18)), (power, (1, 10**18)), (power, (-1, 10**18 + 1)), (power, (0, 0)), (power, (-3, 39)),
    (power, (2**32, 2)), (power, (3037000499, 2)),
    (builtin_pow, (3, 40)), (builtin_pow, (7, 22)),
    (lshift, (1, 63)), (lshift, (-1, 63)), (lshift, (1, 62)), (lshift, (3, 62)), (lshift, (0, 1000)),
    (lshift, (-(2**61), 2)), (lshift, (-(2**61) - 1, 2)), (lshift, (1, 64)), (lshift, (5, -1)),
    (rshift, (MIN, 64)), (rshift, (MIN, 63)), (rshift, (5, 100)), (rshift, (-5, 1)), (rshift, (5, -1)),
    (neg, (MIN,)), (neg, (MAX,)), (neg, (0,)),
    (absolute, (MIN,)), (absolute, (MIN + 1,)), (absolute, (-5,)),
    (augmented, (2**62, 0)), (augmented, (2**62 - 1, 1)), (augmented, (2**62 - 1, 2)), (augmented, (-(2**62), -1)),
    (int_of_float, (9.2e18,)), (int_of_float, (9.3e18,)), (int_of_float, (-9223372036854775808.0,)),
    (int_of_float, (1e300,)), (int_of_float, (-1e19,)), (int_of_float, (-2.5,)),
    (rounded, (9.3e18,)), (rounded, (2.5,)), (floored, (-1e19,)), (floored, (-2.5,)),
    (total, (MAX, 1, -5)), (total, (MAX - 5, 5, 0)), (total, (MIN, 0, -1)), (total, (MIN, MAX, 1)),
    (total_range, (MAX - 3, MAX)), (total_range, (0, 10**6)), (total_range, (5, 0)),
    (int_of_u64, (np.uint64(2**63),)), (int_of_u64, (np.uint64(2**63 - 1),)),
]
_COMPILED: dict[Callable[..., Any], Any] = {}


def _compiled(fn: Callable[..., Any]) -> Any:
    if fn not in _COMPILED:
        _COMPILED[fn] = everypath.compile(fn)
    return _COMPILED[fn]


def _raising_line(fn: Callable[..., Any], args: tuple[Any, ...]) -> int:
    """The line whose operation leaves int64: the last one, or in `augmented` the first that does."""
    if fn is augmented:
        return _line_of(fn, "a *=" if not MIN <= args[0] * 2 <= MAX else "a +=")
    lines, first = inspect.getsourcelines(fn)
    return first + len(lines) - 1


def _line_of(fn: Callable[..., Any], text: str) -> int:
    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, line in enumerate(lines) if text in line)


def _id(case: tuple[Callable[..., Any], tuple[Any, ...]]) -> str:
    fn, args = case
    return f"{fn.__name__}{args}"


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_like_cpython_or_overflow_error(case: tuple[Callable[..., Any], tuple[Any, ...]]) -> None:
    fn, args = case
    try:
        want: Any = fn(*args)
    except Exception as exc:  # noqa: BLE001 - CPython's own error is the expectation
        with pytest.raises(type(exc)):
            _compiled(fn)(*args)
        return
    values = want if isinstance(want, tuple) else (want,)
    if all(isinstance(v, int) and MIN <= v <= MAX for v in values):
        got = _compiled(fn)(*args)
        assert got == want and all(type(v) is int for v in (got if isinstance(got, tuple) else (got,)))
        return
    with pytest.raises(OverflowError, match="exceeds 64 bits") as info:
        _compiled(fn)(*args)
    last = traceback.extract_tb(info.value.__traceback__)[-1]
    assert last.filename == __file__
    assert last.lineno == _raising_line(fn, args)


def test_constant_beyond_int64_is_a_located_compile_error() -> None:
    def big() -> int:
        return 2**70 + 1

    with pytest.raises(everypath.CompileError, match="integer constant 1180591620717411303425 does not fit int64") \
            as info:
        everypath.compile(big)()
    assert f"{__file__}:{_line_of(big, '2**70')}:" in str(info.value)


def test_uint64_constant_beyond_int64_stays_numpy() -> None:
    def mask(x: np.ndarray[tuple[int], np.dtype[np.uint64]]):
        return x & 0xFFFF_FFFF_FFFF_FFF0

    x = np.array([2**64 - 1, 5, 2**63], dtype=np.uint64)
    np.testing.assert_array_equal(everypath.compile(mask)(x), mask(x))


# ---- NumPy integers keep NumPy's wrap-around -------------------------------------------------
def numpy_wrap(a: I64, k: int):
    v = a[0]
    return a * 3, a + k, v + k, v * v, -a, np.abs(a), a[1] - 1


def test_numpy_int64_wraps_like_numpy() -> None:
    a = np.array([MAX, MIN, 2**40], dtype=np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumPy warns on scalar overflow; the wrapped values are the reference
        want = numpy_wrap(a, 1)
    got = everypath.compile(numpy_wrap)(a, 1)
    for w, g in zip(want, got):
        np.testing.assert_array_equal(g, w)
        assert type(g) is type(w)


# ---- hash loops, as users write them ------------------------------------------------------------
def string_hash(s: str) -> int:
    h = 0
    for c in s:
        h = (h * 31 + ord(c)) & 0xFFFFFFFF
    return h


def fnv1a(data: U8) -> int:
    h = 2166136261
    for i in range(data.shape[0]):
        h = ((h ^ int(data[i])) * 16777619) % 2**32
    return h


def polynomial_hash(s: str) -> int:
    h = 7
    for c in s:
        h = h * 31 + ord(c)
    return h


def test_masked_hash_loops_never_raise_and_need_no_check() -> None:
    for s in ("", "a", "hello world" * 500, "ünïcødé ✓" * 50):
        assert everypath.compile(string_hash)(s) == string_hash(s)
    data = np.random.default_rng(0).integers(0, 256, 10_000).astype(np.uint8)
    assert everypath.compile(fnv1a)(data) == fnv1a(data)
    assert everypath.compile(fnv1a)(data[:0]) == fnv1a(data[:0])
    assert everypath.compile(fnv1a)(data[::-3]) == fnv1a(data[::-3])  # a view
    assert "ep::pyint::" not in _cpp(string_hash)
    assert "ep::pyint::" not in _cpp(fnv1a)


def test_unbounded_hash_raises_where_cpython_grows() -> None:
    c = everypath.compile(polynomial_hash)
    for short in ("", "abc", "z" * 11):
        assert c(short) == polynomial_hash(short)
    xs = "a longer text than thirteen characters"
    assert polynomial_hash(xs) > MAX  # CPython makes a big int here
    with pytest.raises(OverflowError, match=r"integer result of \* exceeds 64 bits") as info:
        c(xs)
    assert traceback.extract_tb(info.value.__traceback__)[-1].lineno == _line_of(polynomial_hash, "h * 31")


# ---- no checks where ranges are bounded -------------------------------------------------------
def loop_indices(a: np.ndarray[tuple[int, int], np.dtype[np.float64]]) -> float:
    h, w = a.shape
    s = 0.0
    for i in range(1, h - 1):
        for j in range(w):
            s += a[i - 1, j] + a[i + 1, j] + float(i - 1) + float(j + 1)
    return s


def test_loop_index_arithmetic_needs_no_check() -> None:
    a = np.arange(20.0).reshape(4, 5)
    assert everypath.compile(loop_indices)(a) == loop_indices(a)
    assert "ep::pyint::" not in _cpp(loop_indices)


def _cpp(fn: Callable[..., Any]) -> str:
    """The C++ the annotated fn becomes."""
    program = trace_program(fn)
    types, _ = _resolve_params(program.functions[program.entry], None)
    typer = ProgramTyper(program.functions)
    spec = typer.run(program.entry, types)
    return translation_unit(typer.order, [Entry(f"ep_call_{fn.__name__}", spec)])


def length_plus_one(a: U8) -> int:
    return len(a) + 1


def test_lengths_are_bounded_where_arrays_enter() -> None:
    """len(a) + 1 is unchecked because axes are at most 2**62; the one array that could be longer, a
    broadcast view of 1-byte items (NumPy keeps size * itemsize below 2**63), is refused at the call."""
    c = everypath.compile(length_plus_one)
    one = np.zeros(1, np.uint8)
    assert c(one[:0]) == 1
    assert c(np.broadcast_to(one, (2**62,))) == 2**62 + 1
    with pytest.raises(ValueError, match=r"axis of more than 2\*\*62"):
        c(np.broadcast_to(one, (2**63 - 1,)))
    assert "ep::pyint::" not in _cpp(length_plus_one)

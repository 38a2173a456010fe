"""Generators in compiled code: functions that yield (returned to Python as lazy iterators, or consumed by
compiled loops) and generator expressions given to any/all/max/min/sum/list. Every case runs the same
function uncompiled in CPython and compares each item's value and exact type, where the iteration stops,
and the exception (type and message) raised at the item that raises it."""
from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import everypath as ep
from everypath.errors import CompileError
from everypath.lowering._runtime import Generator
from tests.corpus.values._compare import assert_same

F32 = np.ndarray[tuple[int], np.dtype[np.float32]]
F64 = np.ndarray[tuple[int], np.dtype[np.float64]]
I64 = np.ndarray[tuple[int], np.dtype[np.int64]]
M64 = np.ndarray[tuple[int, int], np.dtype[np.float64]]


# ---- generator functions, the way post-processing code writes them -------------------------------------
def countdown(n: int) -> Iterator[int]:
    while n > 0:
        yield n
        n -= 1


def detections(scores: F32, threshold: float):  # noqa: ANN201 - unannotated result: inferred
    """Detections above a threshold: (index, score) pairs."""
    for i in range(len(scores)):
        if scores[i] > threshold:
            yield i, scores[i]


def evens_until(xs: I64, stop: int):  # noqa: ANN201
    for x in xs:
        if x == stop:
            return  # early return inside a loop
        if x % 2 == 0:
            yield int(x)


def pairs(n: int):  # noqa: ANN201
    for i in range(n):
        for j in range(i):
            if i * j > 6:
                return
            yield i, j


def chained(n: int):  # noqa: ANN201
    yield from countdown(n)  # another compiled generator
    yield from range(3)
    yield from [10, 20]
    yield -1


def words(text: str):  # noqa: ANN201
    for w in text.split():
        if w.isalpha():
            yield w.upper()
        else:
            yield from w  # a str: one-character strings


def naturals(start: int):  # noqa: ANN201
    i = start
    while True:
        yield i
        i += 1


def risky(a: F32):  # noqa: ANN201
    for i in range(len(a) + 1):  # reads one past the end: IndexError at the last step
        yield a[i]


def parse_ints(text: str):  # noqa: ANN201
    for part in text.split(","):
        p = part.strip()
        if not p.isdigit():
            raise ValueError(f"not a number: {p!r}")
        yield int(p)


def scaled(a: F32, k: np.float32):  # noqa: ANN201
    for x in a:
        yield x * k


def rows(m: M64):  # noqa: ANN201
    for i in range(m.shape[0]):
        yield m[i]


def ticks(n: int):  # noqa: ANN201
    for _ in range(n):
        yield


def tree(n: int):  # noqa: ANN201 - recursive yield from
    if n > 0:
        yield from tree(n - 1)
        yield n
        yield from tree(n - 1)


# ---- compiled consumers ----------------------------------------------------------------------------------
def reductions(a: F64, t: float) -> tuple[bool, bool, float, float, float, int, list[float]]:
    return (any(x > t for x in a), all(x > t for x in a), max((x for x in a), default=np.float64(-1.0)),
            min((x * 2.0 for x in a if x > 0.0), default=np.float64(0.5)), sum((float(x) for x in a if x > t), 0.0),
            sum(countdown(4)), list(x + 1.0 for x in a))


def nested_any(a: I64, b: I64, k: int) -> tuple[bool, bool, int]:
    hits = 0
    for x in a:
        hits += any(x * y == k for y in b)
    return any(x * y == k for x in a for y in b), all(x + y != k for x in a for y in b), hits


def max_of(a: F64) -> float:
    return max(x for x in a)


def min_of_gen(n: int) -> int:
    return min(countdown(n))


def consume(n: int) -> tuple[int, int, bool, list[int], list[int]]:
    total = 0
    for x in chained(n):
        if x == 20:
            break  # leaves the generator suspended: its frame is freed with the loop
        total += x
    return total, max(countdown(n), default=0), any(x > 2 for x in countdown(n)), list(evens_until(
        np.arange(10), 7)), sorted(countdown(n))


def first_big(a: F32, t: float) -> bool:
    return any(x > t for x in risky(a))  # stops before risky's IndexError when an early item is big


def first_word(text: str, prefix: str) -> tuple[str, int]:
    return next((w for w in text.split() if w.startswith(prefix)), ""), next(countdown(len(text)), -1)


def first_negative(a: F64) -> np.float64:
    return next(x for x in a if x < 0.0)  # StopIteration when there is none


# ---- checks ----------------------------------------------------------------------------------------------
def same(got: object, want: object) -> None:
    """Value and exact type at every level (tests/corpus/values/_compare.py, shared with the values corpus)."""
    assert_same(want, got)


@functools.cache
def compiled(fn):  # noqa: ANN001, ANN201 - one build per function for the whole module
    return ep.compile(fn)


def drain(it: Iterator[Any], limit: int = 1000) -> tuple[list[Any], BaseException | None]:
    """The items an iterator gives, and the exception that stopped it (None: it finished)."""
    out: list[Any] = []
    try:
        for x in itertools.islice(it, limit):
            out.append(x)
    except Exception as exc:  # noqa: BLE001 - compared with CPython's
        return out, exc
    return out, None


def run_both(fn, *args) -> list[Any]:  # noqa: ANN001
    want_items, want_exc = drain(fn(*args))
    it = compiled(fn)(*args)
    assert type(it) is Generator  # the kernel's own iterator, not a Python generator
    got_items, got_exc = drain(it)
    same(got_items, want_items)
    assert type(got_exc) is type(want_exc), (got_exc, want_exc)
    assert str(got_exc) == str(want_exc)
    return got_items


def call_both(fn, *args) -> None:  # noqa: ANN001
    try:
        want = fn(*args)
    except Exception as exc:  # noqa: BLE001 - the compiled call must raise the same
        with pytest.raises(type(exc)) as got:
            compiled(fn)(*args)
        assert str(got.value) == str(exc)
        return
    same(compiled(fn)(*args), want)


SCORES = np.array([0.1, 0.9, 0.45, 0.7, 0.2, 0.95], dtype=np.float32)


# ---- generators returned to Python -----------------------------------------------------------------------
@pytest.mark.parametrize("n", [5, 1, 0, -3])
def test_countdown(n: int) -> None:
    run_both(countdown, n)


@pytest.mark.parametrize(("scores", "threshold"), [(SCORES, 0.5), (SCORES, 2.0), (SCORES[:0], 0.0),
                                                   (SCORES[::-2], 0.15)])
def test_detections_above_a_threshold(scores: np.ndarray, threshold: float) -> None:
    items = run_both(detections, scores, threshold)
    assert all(type(i) is int and type(s) is np.float32 for i, s in items)


@pytest.mark.parametrize("stop", [7, 0, 100])
def test_early_return_inside_a_loop(stop: int) -> None:
    run_both(evens_until, np.arange(12, dtype=np.int64), stop)


@pytest.mark.parametrize("n", [0, 3, 6])
def test_return_inside_nested_loops(n: int) -> None:
    run_both(pairs, n)


@pytest.mark.parametrize("n", [3, 0])
def test_yield_from_generators_ranges_and_lists(n: int) -> None:
    run_both(chained, n)


@pytest.mark.parametrize("text", ["straße café 12 naïve", "", "ÀÉÎ 👋🌍 x1", "ok"])
def test_non_ascii_str_items(text: str) -> None:
    run_both(words, text)


def test_infinite_generator_consumed_lazily() -> None:
    want = list(itertools.islice(naturals(-2), 7))
    same(list(itertools.islice(compiled(naturals)(-2), 7)), want)


def test_laziness_items_before_the_error() -> None:
    a = np.array([1.5, -2.0, 3.25], dtype=np.float32)
    items = run_both(risky, a)  # three np.float32 items, then IndexError with NumPy's message
    assert len(items) == 3 and all(type(x) is np.float32 for x in items)
    g = compiled(risky)(a)
    assert next(g) == np.float32(1.5)  # nothing past the first item ran yet


@pytest.mark.parametrize("text", ["1, 2,3", "4, x, 5", "", "7"])
def test_value_error_raised_inside(text: str) -> None:
    run_both(parse_ints, text)


def test_float32_items_from_arrays() -> None:
    items = run_both(scaled, np.array([0.5, 1e-3, -7.25], dtype=np.float32), np.float32(3.0))
    assert all(type(x) is np.float32 for x in items)


def test_yielded_rows_are_views_of_the_argument() -> None:
    m = np.arange(12.0).reshape(3, 4)
    got = list(compiled(rows)(m))
    same(got, list(rows(m)))
    assert all(np.shares_memory(r, m) for r in got)
    g = compiled(rows)(m.copy())  # the argument is kept alive by the iterator, not by the caller
    import gc

    gc.collect()
    same(list(g), list(rows(m)))


def test_bare_yield_gives_none() -> None:
    run_both(ticks, 3)


@pytest.mark.parametrize("n", [0, 1, 3])
def test_recursive_yield_from(n: int) -> None:
    run_both(tree, n)


def test_exhausted_and_closed_generators() -> None:
    g, w = compiled(countdown)(2), countdown(2)
    same(list(g), list(w))
    same(list(g), list(w))  # exhausted: nothing more, again
    with pytest.raises(StopIteration):
        next(g)
    g, w = compiled(countdown)(5), countdown(5)
    same((next(g), next(g)), (next(w), next(w)))
    g.close()
    w.close()
    same(list(g), list(w))
    assert iter(g) is g


# ---- consumed inside compiled code -----------------------------------------------------------------------
@pytest.mark.parametrize("a", [np.array([0.5, 2.5, -1.0, 4.0]), np.array([]), np.array([3.0, np.nan, 1.0]),
                               np.array([np.nan, 7.0])])
def test_reductions_over_generator_expressions(a: np.ndarray) -> None:
    call_both(reductions, a, 1.0)


@pytest.mark.parametrize("k", [6, 7, 0])
def test_any_all_of_nested_generator_expressions(k: int) -> None:
    call_both(nested_any, np.arange(1, 5), np.arange(0, 4), k)


@pytest.mark.parametrize("a", [np.array([]), np.array([2.0, 9.0, 9.0, -1.0])])
def test_max_of_an_empty_generator_raises_cpythons_value_error(a: np.ndarray) -> None:
    call_both(max_of, a)


@pytest.mark.parametrize("n", [0, 4])
def test_min_of_a_compiled_generator(n: int) -> None:
    call_both(min_of_gen, n)


@pytest.mark.parametrize("n", [0, 2, 5])
def test_for_loops_and_reducers_over_compiled_generators(n: int) -> None:
    call_both(consume, n)


@pytest.mark.parametrize("t", [0.0, 10.0])
def test_any_stops_before_a_later_error(t: float) -> None:
    call_both(first_big, np.array([1.0, 2.0, 3.0], dtype=np.float32), t)  # t=10: IndexError from risky


@pytest.mark.parametrize(("text", "prefix"), [("apple banana avocado", "av"), ("apple", "z"), ("", "")])
def test_next_of_a_generator_with_a_default(text: str, prefix: str) -> None:
    call_both(first_word, text, prefix)


@pytest.mark.parametrize("a", [np.array([1.0, -2.0, -3.0]), np.array([1.0])])
def test_next_of_a_generator_without_a_default(a: np.ndarray) -> None:
    call_both(first_negative, a)


# ---- refused, with located errors ------------------------------------------------------------------------
def mixed_items(n: int):  # noqa: ANN201
    yield n
    yield "done"


def int_then_float(n: int):  # noqa: ANN201
    yield n
    yield 0.5


def sent_value(n: int):  # noqa: ANN201
    x = yield n
    yield x


def returns_value(n: int):  # noqa: ANN201
    yield n
    return n


def stores_generator(n: int) -> int:
    g = countdown(n)
    return sum(g)


def nested_generator(n: int) -> int:
    def inner():  # noqa: ANN202
        yield n
    return 0


def max_with_key(a: F64) -> float:
    return max((x for x in a), key=abs)


def enumerates_generator(n: int) -> int:
    t = 0
    for i, x in enumerate(countdown(n)):
        t += i * x
    return t


def wrongly_annotated(n: int) -> Iterator[str]:
    yield n


def annotated_int(n: int) -> int:
    yield n


@pytest.mark.parametrize(("fn", "message"), [
    (mixed_items, "this generator yields str here but int elsewhere"),
    (int_then_float, "this generator yields float here but int elsewhere"),
    (sent_value, "the value of a yield expression"),
    (returns_value, "a generator's return value (StopIteration.value) is not supported"),
    (stores_generator, "storing a generator in a variable is not supported"),
    (nested_generator, "generator functions defined inside a compiled function are not supported"),
    (enumerates_generator, "enumerate() of a generator is not supported"),
    (wrongly_annotated, "this generator yields int but is annotated 'Iterator[str]'"),
    (annotated_int, "this generator function is annotated 'int'"),
])
def test_refused_generators_are_located_compile_errors(fn, message: str) -> None:  # noqa: ANN001
    with pytest.raises(CompileError) as err:
        ep.compile(fn)(3)
    text = str(err.value)
    assert message in text and "test_generators.py:" in text and "^" in text, text


def test_max_key_of_a_generator_is_refused() -> None:
    with pytest.raises(CompileError) as err:
        ep.compile(max_with_key)(np.array([1.0]))
    assert "max(..., key=...) of a generator is not supported" in str(err.value)


def test_portable_targets_skip_generator_entries_with_the_reason() -> None:
    from everypath.base.settings import Settings
    from everypath.lowering import targets
    from everypath.lowering.dispatch import PathPolicy
    from everypath.lowering.pipeline import generate
    from everypath.lowering.portable import build_target

    settings = Settings()
    target = targets.get("wasm32-wasi")
    gen = generate(countdown, settings, policy=PathPolicy.for_target(target, settings))
    arts, skipped = build_target(gen, target, settings)
    assert arts == [] and skipped
    assert all("generators" in s.reason and "Python runtime" in s.reason for s in skipped)

"""try / except / else / finally in compiled code: every case runs the same function uncompiled in CPython
and compares the value and exact type of the result, or the exception (type, message, args) it raises."""
from __future__ import annotations

import functools
import statistics
from typing import Any, Callable

import numpy as np
import pytest

import everypath as ep
from everypath.errors import CompileError
from tests.corpus.values._compare import assert_like_cpython

F64 = np.ndarray[tuple[int], np.dtype[np.float64]]
M64 = np.ndarray[tuple[int, int], np.dtype[np.float64]]


# ---- the way user code writes it ------------------------------------------------------------------------
def parse_int_or(s: str, default: int) -> int:
    try:
        return int(s)
    except ValueError:
        return default


def lookup_or(d: dict[str, int], key: str, fallback: int) -> int:
    try:
        v = d[key]
    except KeyError:
        v = fallback
    return v


def safe_div(a: int, b: int) -> float:
    try:
        q = a // b
    except ZeroDivisionError as e:
        if str(e) != "integer division or modulo by zero":
            return -2.0
        return float("inf")
    else:
        return q * 1.0


def describe_error(s: str, d: dict[str, int], i: int) -> str:
    """Which error a step raised, through the base classes that catch it."""
    xs = [1, 2, 3]
    try:
        n = int(s)
        total = d[s] + xs[i] + n
    except LookupError as e:
        return f"lookup: {e}"
    except (ValueError, TypeError) as e:
        return "bad value: " + str(e)
    return f"ok {total}"


def arith(a: float, b: float) -> str:
    try:
        r = a ** b
        return f"{r}"
    except ArithmeticError as e:
        return f"arith {e}"


def count_parsed(line: str) -> tuple[int, int]:
    good = bad = 0
    for s in line.split(","):
        try:
            int(s)
        except ValueError:
            bad += 1
            continue
        good += 1
    return good, bad


def with_finally(n: int) -> list[int]:
    log: list[int] = []
    for i in range(n):
        try:
            if i == 2:
                continue
            if i == 5:
                break
            log.append(i)
        finally:
            log.append(100 + i)
    return log


def return_through_finally(x: int, log: list[int]) -> int:
    try:
        if x > 0:
            return x * 2
        log.append(1)
    finally:
        log.append(-1)
    return 0


def finally_results(x: int) -> tuple[int, int]:
    log = [0]
    r = return_through_finally(x, log)
    return r, len(log)


def nested_finally(x: int) -> list[int]:
    log: list[int] = []
    try:
        try:
            if x == 1:
                raise ValueError("inner")
            log.append(1)
        finally:
            log.append(2)
    except ValueError as e:
        log.append(len(str(e)))
    finally:
        log.append(3)
    return log


def reraise(s: str) -> int:
    try:
        return int(s)
    except ValueError:
        if s == "":
            return 0
        raise


def raise_inside(x: float) -> str:
    try:
        if x < 0:
            raise ValueError(f"negative: {x}")
        return "fine"
    except ValueError as e:
        return e.args[0]


def caught_in_caller(x: float) -> str:
    try:
        return raise_inside_helper(x)
    except ValueError as e:
        return "caller: " + str(e)


def raise_inside_helper(x: float) -> str:
    if x < 0:
        raise ValueError("helper says no")
    return "ok"


def not_caught(i: int) -> int:
    xs = [1, 2, 3]
    try:
        return xs[i]
    except KeyError:
        return -1


def raise_e(s: str) -> int:
    try:
        return int(s)
    except ValueError as e:
        raise e


def bare_except(a: F64, i: int) -> float:
    try:
        return float(a[i])
    except:  # noqa: E722 - what user code writes
        return -1.0


def except_exception(a: F64, i: int) -> float:
    try:
        return float(a[i])
    except Exception as e:
        return float(len(str(e)))


def library_error(data: F64) -> float:
    try:
        return mean_or_fail(data)
    except statistics.StatisticsError:
        return -1.0


def mean_or_fail(data: F64) -> float:
    if len(data) == 0:
        raise statistics.StatisticsError("no data")
    return float(np.mean(data))


def solve_or_zero(a: M64, b: F64) -> F64:
    try:
        return np.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        return np.zeros_like(b)


def else_and_finally(s: str) -> list[str]:
    out: list[str] = []
    try:
        v = int(s)
    except ValueError:
        out.append("except")
    else:
        out.append(f"else {v}")
    finally:
        out.append("finally")
    return out


def unbound_after(s: str) -> int:
    try:
        v = int(s)
    except ValueError:
        pass
    return v  # UnboundLocalError when the parse failed, as in CPython


def handler_raises(s: str, d: dict[str, int]) -> int:
    try:
        return int(s)
    except ValueError:
        return d[s]  # a KeyError here is not caught by this try


CASES: list[tuple[Callable[..., Any], tuple[Any, ...]]] = [
    (parse_int_or, ("42", 0)), (parse_int_or, (" -7 ", 0)), (parse_int_or, ("x1", -1)), (parse_int_or, ("", 5)),
    (lookup_or, ({"a": 1, "b": 2}, "b", 0)), (lookup_or, ({}, "z", 9)),
    (safe_div, (7, 2)), (safe_div, (-7, 2)), (safe_div, (1, 0)),
    (describe_error, ("1", {"1": 5}, 0)), (describe_error, ("1", {"2": 5}, 0)), (describe_error, ("x", {}, 0)),
    (describe_error, ("1", {"1": 5}, 3)), (describe_error, ("1", {"1": 5}, -4)),
    (arith, (2.0, 3.0)), (arith, (10.0, 400.0)),
    (count_parsed, ("1,x,2,,3_0",)), (count_parsed, ("",)),
    (with_finally, (8,)), (with_finally, (0,)), (with_finally, (3,)),
    (finally_results, (3,)), (finally_results, (-3,)),
    (nested_finally, (0,)), (nested_finally, (1,)),
    (reraise, ("12",)), (reraise, ("",)), (reraise, ("zz",)),
    (raise_inside, (1.0,)), (raise_inside, (-2.5,)),
    (caught_in_caller, (1.0,)), (caught_in_caller, (-1.0,)),
    (not_caught, (1,)), (not_caught, (7,)),
    (raise_e, ("3",)), (raise_e, ("q",)),
    (bare_except, (np.arange(3.0), 1)), (bare_except, (np.arange(3.0), 3)), (bare_except, (np.zeros(0), 0)),
    (except_exception, (np.arange(3.0), -1)), (except_exception, (np.arange(3.0), 5)),
    (library_error, (np.array([1.0, 2.0]),)), (library_error, (np.zeros(0),)),
    (solve_or_zero, (np.eye(2), np.array([1.0, 2.0]))), (solve_or_zero, (np.zeros((2, 2)), np.array([1.0, 2.0]))),
    (else_and_finally, ("5",)), (else_and_finally, ("five",)),
    (unbound_after, ("5",)), (unbound_after, ("five",)),
    (handler_raises, ("1", {"a": 1})), (handler_raises, ("a", {"a": 1})), (handler_raises, ("b", {"a": 1})),
]


@functools.cache
def _compiled(fn: Callable[..., Any]) -> Callable[..., Any]:
    return ep.compile(fn)


@pytest.mark.parametrize(("fn", "args"), CASES, ids=[f"{f.__name__}-{i}" for i, (f, _) in enumerate(CASES)])
def test_matches_cpython(fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    assert_like_cpython(fn, _compiled(fn), args)


def test_reraise_keeps_the_line_it_was_raised_at() -> None:
    import traceback

    with pytest.raises(ValueError) as info:
        _compiled(reraise)("zz")
    frames = traceback.extract_tb(info.value.__traceback__)
    assert frames[-1].name == "reraise" and frames[-1].lineno == reraise.__code__.co_firstlineno + 2


def test_numeric_kernels_without_try_are_unchanged() -> None:
    from everypath.lowering.pipeline import generate
    from everypath.base.settings import Settings

    def kernel(a: F64) -> float:
        s = 0.0
        for x in a:
            s += x * x
        return s

    src = generate(kernel, Settings()).source
    assert "everypath/exceptions.hpp" not in src and "catch (...)" not in src


# ---- refused, located ------------------------------------------------------------------------------------
def uses_e_otherwise(s: str) -> int:
    try:
        return int(s)
    except ValueError as e:
        return len(e)  # noqa: F841


def keyerror_args(d: dict[str, int], k: str) -> str:
    try:
        return str(d[k])
    except KeyError as e:
        return e.args[0]


def bare_raise_outside(s: str) -> int:
    raise


def try_in_generator(n: int):  # noqa: ANN201
    try:
        yield n
    except ValueError:
        pass


def except_star(s: str) -> int:
    n = 0
    try:
        n = int(s)
    except* ValueError:
        pass
    return n


def except_not_a_class(s: str, k: int) -> int:
    try:
        return int(s)
    except k:
        return 0


@pytest.mark.parametrize(("fn", "args", "message"), [
    (uses_e_otherwise, ("1",), "the caught exception 'e' can be used as str(e), e.args[0]"),
    (keyerror_args, ({"a": 1}, "b"), "e.args[0] of an exception that may be a KeyError"),
    (bare_raise_outside, ("1",), "bare 'raise' outside an except clause"),
    (try_in_generator, (1,), "try statements in generator functions are not supported yet"),
    (except_star, ("1",), "'except*' (exception groups) is not supported"),
    (except_not_a_class, ("1", 2), "an except clause takes exception classes"),
])
def test_refusals_are_located(fn: Callable[..., Any], args: tuple[Any, ...], message: str) -> None:
    with pytest.raises(CompileError) as info:
        r = ep.compile(fn)(*args)
        list(r) if hasattr(r, "__next__") else None
    text = str(info.value)
    assert message in text, text
    assert "test_exceptions.py:" in text, text


def test_wasm_targets_skip_try_with_the_location() -> None:
    from everypath.lowering.exceptions import portable_refusal
    from everypath.lowering.pipeline import generate
    from everypath.base.settings import Settings

    src = generate(parse_int_or, Settings()).source
    why = portable_refusal(src)
    line = parse_int_or.__code__.co_firstlineno + 1
    assert why is not None and why.startswith(f"test_exceptions.py:{line}:5: error: try/except needs C++ exceptions")

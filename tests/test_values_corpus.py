"""Differential tests of the values corpus group (tests/corpus/values, issue 14): every function compiled by
everypath against CPython running the same function: value and exact type at every level, dict key order,
exceptions by type, message and args. Functions marked REQUIRES wait for a feature being built (generators,
records, Literal, Enum, PIL): they are skipped only while the compiler refuses that feature with its located
"not supported" error, so they start running by themselves once it lands."""
from __future__ import annotations

import copy
import functools
import re

import pytest

import everypath
from everypath.errors import CompileError
from tests.corpus.values import ValueFunction, load
from tests.corpus.values._compare import assert_same, run, same_exception

FUNCTIONS = load()

# what the compiler's refusal of each feature names today (tracer/whitelist.py, base/annotations.py, the frontend)
REFUSAL = {
    "generators": r"generators \(yield( from)?\) are not supported|expression 'Yield(From)?' is not supported|"
                  r"calling builtin_function_or_method next is not supported",
    "records": r"calling type \w+ is not supported|unsupported annotation '\w+'|class definitions are not supported",
    "literal": r"unsupported annotation 'Literal\[",
    "enum": r"unsupported annotation '\w+'|attribute '\w+' of .* is not supported",
    "pil": r"unsupported annotation '(PIL\.)?(Image\.)?Image'|calling .*Image.* is not supported|cannot compile PIL\.|"
           r"attribute '\w+' of .*Image.* is not supported",
}


def _refused_feature(vf: ValueFunction, err: CompileError) -> bool:
    """The compiler's own located refusal of the feature the function waits for (any other error is a failure)."""
    located = err.filename == vf.module.__file__ and err.lineno > 0
    return bool(vf.requires and located and re.search(REFUSAL[vf.requires], err.message))


@functools.cache
def _compiled(vf: ValueFunction):  # noqa: ANN202 - one build per function
    return everypath.compile(vf.fn)


@pytest.mark.parametrize("vf", FUNCTIONS, ids=[vf.id for vf in FUNCTIONS])
def test_matches_cpython(vf: ValueFunction) -> None:
    try:
        _check(vf)
    except AssertionError as exc:
        # a compiler gap this function found (listed in its module's KNOWN): expected to fail with exactly that
        # text until it is fixed; then the function runs like the others and KNOWN should lose the entry
        if vf.known and vf.known in str(exc):
            pytest.xfail(f"known compiler gap: {vf.known}")
        raise


def _check(vf: ValueFunction) -> None:
    cases = vf.cases()
    assert cases, f"{vf.id}: no cases"
    compiled = _compiled(vf)
    for i, case in enumerate(cases):
        where = f"{vf.id} case {i} {case!r:.80}"
        want = run(vf.fn, copy.deepcopy(case))
        try:
            got = run(compiled, copy.deepcopy(case))
        except CompileError as err:  # run() re-raises nothing else; a CompileError can come on the first call
            got = ("raised", err)
        if got[0] == "raised" and isinstance(got[1], CompileError):
            if _refused_feature(vf, got[1]):
                pytest.skip(f"requires {vf.requires} (issue 14, in progress)")
            raise AssertionError(f"{where}: compile error\n{got[1]}")
        if want[0] == "raised":
            assert got[0] == "raised", f"{where}: CPython raised {want[1]!r}, everypath returned {got[1]!r}"
            same_exception(want[1], got[1], where)
            continue
        if got[0] == "raised":
            raise AssertionError(f"{where}: everypath raised {got[1]!r}, CPython returned {want[1]!r}") from got[1]
        assert_same(want[1], got[1], vf.rtol, where)


def test_group_size_and_format() -> None:
    """The issue's acceptance: at least 60 functions that must compile today, plus those waiting for a feature."""
    assert len([vf for vf in FUNCTIONS if vf.requires is None]) >= 60
    assert len({vf.id for vf in FUNCTIONS}) == len(FUNCTIONS)
    for vf in FUNCTIONS:
        for case in vf.cases():
            assert isinstance(case, tuple), vf.id
        if vf.bench is not None:
            assert isinstance(vf.bench(), tuple), vf.id


def test_comparison_catches_type_and_order_differences() -> None:
    import numpy as np

    for want, got in ((1, 1.0), (1.0, np.float64(1.0)), ([1], (1,)), ({"a": 1, "b": 2}, {"b": 2, "a": 1}),
                      ({"a": 1}, {"a": True}), (0.0, -0.0), ("a", "b"), (np.zeros(2), np.zeros(2, np.float32)),
                      ({1, 2}, {1, 3}), ((1, [2.0]), (1, [2])), (float("nan"), 1.0)):
        with pytest.raises(AssertionError):
            assert_same(want, got)
    assert_same({"a": [1, (2.5, "x")], "n": float("nan")}, {"a": [1, (2.5, "x")], "n": float("nan")})
    with pytest.raises(AssertionError):
        same_exception(KeyError("a"), KeyError("b"), "x")
    with pytest.raises(AssertionError):
        same_exception(KeyError("a"), LookupError("a"), "x")

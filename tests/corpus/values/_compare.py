"""Equality of two results, CPython's and a compiled function's: value AND exact type at every level."""
from __future__ import annotations

import dataclasses
import enum
import math
import types
from typing import Any

import numpy as np


def _drain(it: Any) -> tuple[list, BaseException | None]:
    """The items an iterator yields, and the exception that ended it (None for exhaustion)."""
    items = []
    try:
        for x in it:
            items.append(x)
    except Exception as exc:  # noqa: BLE001 - compared like a raised result
        return items, exc
    return items, None


def same_exception(want: BaseException, got: BaseException, where: str) -> None:
    assert type(got) is type(want), f"{where}: raised {type(got).__name__}({got}), CPython {type(want).__name__}({want})"
    assert str(got) == str(want), f"{where}: message {str(got)!r}, CPython {str(want)!r}"
    assert got.args == want.args, f"{where}: args {got.args!r}, CPython {want.args!r}"


def assert_same(want: Any, got: Any, rtol: float = 0.0, where: str = "result") -> None:
    """Raise AssertionError naming the path into the result where the two differ."""
    if isinstance(want, types.GeneratorType):
        # a compiled generator is an iterator of another class (CPython's generator type cannot be made from C)
        assert iter(got) is got and not isinstance(got, (list, tuple)), f"{where}: not an iterator: {type(got)}"
        w_items, w_exc = _drain(want)
        g_items, g_exc = _drain(got)
        assert_same(w_items, g_items, rtol, f"{where} (yielded)")
        assert (w_exc is None) == (g_exc is None), f"{where}: ended by {g_exc!r}, CPython by {w_exc!r}"
        if w_exc is not None:
            same_exception(w_exc, g_exc, f"{where} (while iterating)")
        return
    assert type(got) is type(want), f"{where}: type {type(got).__name__}, CPython {type(want).__name__} ({want!r})"
    if isinstance(want, np.ndarray):
        assert got.dtype == want.dtype and got.shape == want.shape, \
            f"{where}: {got.dtype}{got.shape}, CPython {want.dtype}{want.shape}"
        if want.dtype.kind in "fc":
            np.testing.assert_allclose(got, want, rtol=rtol, atol=0, equal_nan=True, err_msg=where)
        else:
            np.testing.assert_array_equal(got, want, err_msg=where)
    elif isinstance(want, dict):
        assert list(got) == list(want), f"{where}: keys {list(got)!r}, CPython {list(want)!r}"
        for (gk, gv), (wk, wv) in zip(got.items(), want.items()):
            assert_same(wk, gk, rtol, f"{where} key {wk!r}")
            assert_same(wv, gv, rtol, f"{where}[{wk!r}]")
    elif isinstance(want, (set, frozenset)):
        assert got == want, f"{where}: {got!r}, CPython {want!r}"
        by_value = {x: x for x in got}
        for w in want:
            assert_same(w, by_value[w], rtol, f"{where} item {w!r}")
    elif isinstance(want, (list, tuple)):  # NamedTuples too: their class was checked above
        assert len(got) == len(want), f"{where}: length {len(got)}, CPython {len(want)} ({got!r} vs {want!r})"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same(w, g, rtol, f"{where}[{i}]")
    elif dataclasses.is_dataclass(want):
        for f in dataclasses.fields(want):
            assert_same(getattr(want, f.name), getattr(got, f.name), rtol, f"{where}.{f.name}")
    elif isinstance(want, enum.Enum):
        assert got is want, f"{where}: {got!r}, CPython {want!r}"
    elif isinstance(want, (float, np.floating)):
        if math.isnan(want):
            assert math.isnan(got), f"{where}: {got!r}, CPython nan"
        elif rtol:
            assert math.isclose(got, want, rel_tol=rtol), f"{where}: {got!r}, CPython {want!r} (rtol {rtol})"
        else:
            assert repr(got) == repr(want), f"{where}: {got!r}, CPython {want!r}"  # repr: -0.0 differs from 0.0
    elif type(want).__module__.startswith("PIL."):
        assert (got.mode, got.size) == (want.mode, want.size), \
            f"{where}: image {got.mode} {got.size}, CPython {want.mode} {want.size}"
        assert got.tobytes() == want.tobytes(), f"{where}: image pixels differ"
    elif isinstance(getattr(want, "__dict__", None), dict) and type(want).__module__ != "builtins":
        # an instance of a plain class or pydantic model: attribute by attribute, in order (not the class's __eq__,
        # which for a plain class is identity)
        assert list(vars(got)) == list(vars(want)), f"{where}: attributes {list(vars(got))}, CPython {list(vars(want))}"
        for name, w in vars(want).items():
            assert_same(w, vars(got)[name], rtol, f"{where}.{name}")
    else:
        assert got == want, f"{where}: {got!r}, CPython {want!r}"


def run(fn: Any, args: tuple) -> tuple[str, Any]:
    try:
        return "ok", fn(*args)
    except Exception as exc:  # noqa: BLE001 - compared by type, message and args
        return "raised", exc


def assert_like_cpython(fn: Any, compiled: Any, args: tuple, rtol: float = 0.0) -> None:
    """Call CPython's fn and the compiled one on (copies of) args: the same value and exact types, or the same
    exception (type, message, args)."""
    import copy

    where = getattr(fn, "__name__", "result")
    want = run(fn, copy.deepcopy(args))
    got = run(compiled, copy.deepcopy(args))
    if want[0] == "raised":
        assert got[0] == "raised", f"{where}: returned {got[1]!r}, CPython raised {want[1]!r}"
        same_exception(want[1], got[1], where)
    else:
        assert got[0] == "ok", f"{where}: raised {got[1]!r}, CPython returned {want[1]!r}"
        assert_same(want[1], got[1], rtol, where)

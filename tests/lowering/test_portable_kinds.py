"""Values the portable glue (C header, npz, JNI, wasm) cannot carry yet are skipped with a reason naming the
function and the value, for every target and artifact kind, never a KeyError deep inside the glue."""
from __future__ import annotations

import enum
import os
from typing import NamedTuple

import numpy as np
import pytest

from everypath.base.settings import Settings
from everypath.lowering.portable import build_function
from everypath.lowering.targets import ArtifactKind, get


class Point(NamedTuple):
    x: int
    y: float


class Mode(enum.IntEnum):
    FAST = 1
    EXACT = 2


def make_point(a: int) -> Point:
    return Point(a, 2.0)


def by_mode(m: Mode, v: float) -> float:
    return v * 2.0 if m is Mode.FAST else v


def halve(x: np.ndarray[tuple[int], np.dtype[np.float16]]) -> np.ndarray[tuple[int], np.dtype[np.float16]]:
    return x * np.float16(0.5)


def shout(s: str) -> str:
    return s.upper()


def lookup(d: dict[str, int], k: str) -> int:
    return d.get(k, 0)


CASES = [(make_point, "dataclasses and NamedTuples"), (by_mode, "Enum and Literal values"),
         (halve, "float16 arrays and scalars"), (shout, "str"), (lookup, "dict")]


@pytest.mark.parametrize("fn, what", CASES, ids=[c[0].__name__ for c in CASES])
@pytest.mark.parametrize("target, kinds", [("linux-x86_64-baseline", None), ("web", (ArtifactKind.WASM,))])
def test_python_only_values_are_skipped_with_their_reason(fn, what: str, target: str, kinds) -> None:  # noqa: ANN001
    settings = Settings.from_env({**os.environ, "EVERYPATH_TELEMETRY": "0"})
    pf = build_function(fn, (get(target),), settings, **({"kinds": kinds} if kinds else {}))
    assert pf.artifacts == []
    want = set(kinds or get(target).kinds)
    assert {s.kind for s in pf.skipped} == want
    for s in pf.skipped:
        assert s.target == target and s.reason.startswith(f"{fn.__name__}: ") and what in s.reason, s.reason

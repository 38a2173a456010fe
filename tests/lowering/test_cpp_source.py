"""`CompiledFunction.cpp_source` reads the generated C++ without paying for a build, and is the text a build uses."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

import everypath
from everypath.base.settings import Settings

F1 = np.ndarray[tuple[int], np.dtype[np.float64]]


def clipped_norm(x: F1, cap: float) -> float:
    total = 0.0
    for v in x:
        total += min(v * v, cap)
    return total ** 0.5


def test_reading_the_source_builds_nothing_and_matches_the_build(tmp_path: Path) -> None:
    settings = dataclasses.replace(Settings.from_env(), cache_dir=tmp_path, telemetry=False)
    fn = everypath.compile(clipped_norm, settings=settings)
    src = fn.cpp_source
    assert "ep_call_clipped_norm" in src and "clipped_norm__0" in src
    assert not list(tmp_path.rglob("*.so")), "reading the source ran g++"
    x = np.array([3.0, 4.0, 100.0])
    assert fn(x, 50.0) == clipped_norm(x, 50.0)
    built = list(tmp_path.rglob("*.so"))
    assert len(built) == 1
    assert built[0].with_suffix(".cpp").read_text() == src  # the text read first is the text that was built
    again = everypath.compile(clipped_norm, settings=settings)
    assert again.cpp_source == src  # from the cache this time

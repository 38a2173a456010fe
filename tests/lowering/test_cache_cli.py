"""`everypath cache path | info | clear` on a private cache: a real build is counted, cleared (the next call
builds again) and zig's slow-to-remake folder survives a plain clear."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
from click.testing import CliRunner

import everypath
from everypath.base.settings import Settings
from everypath.cli import main


def scale(x: np.ndarray[tuple[int], np.dtype[np.float64]], k: float) -> float:
    return float((x * k).sum())


def _run(args: list[str], cache: Path) -> str:
    r = CliRunner().invoke(main, args, env={"EVERYPATH_CACHE": str(cache)})
    assert r.exit_code == 0, r.output
    return r.output


def test_info_counts_a_build_and_clear_removes_it(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    settings = dataclasses.replace(Settings.from_env({"EVERYPATH_TELEMETRY": "0"}), cache_dir=cache)
    f = everypath.compile(scale, settings=settings)
    assert f(np.arange(4.0), 2.0) == 12.0
    assert _run(["cache", "path"], cache).strip() == str(cache)
    info = json.loads(_run(["cache", "info", "--json"], cache))
    assert info["kinds"]["so"]["files"] >= 1 and info["kinds"]["fn"]["files"] >= 1
    (cache / "zig" / "lib").mkdir(parents=True)
    (cache / "zig" / "lib" / "libc.a").write_bytes(b"x" * 10)
    out = _run(["cache", "clear"], cache)
    assert "kept zig/" in out
    after = json.loads(_run(["cache", "info", "--json"], cache))["kinds"]
    assert after["so"]["files"] == 0 and after["fn"]["files"] == 0 and after["zig"]["files"] == 1
    g = everypath.compile(scale, settings=settings)  # a new process would see the same empty cache
    assert g.build().from_cache is False
    assert g(np.arange(4.0), 3.0) == 18.0
    _run(["cache", "clear", "--all"], cache)
    assert json.loads(_run(["cache", "info", "--json"], cache))["kinds"]["zig"]["files"] == 0


def test_info_prints_a_table(tmp_path: Path) -> None:
    out = _run(["cache", "info"], tmp_path / "empty")
    assert "precompiled headers" in out and "total" in out

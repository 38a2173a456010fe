"""The cache-hit path (issue 13): the first call of a function built earlier, in a fresh process.

A hit keys the function from stats and its own file: it opens no runtime header, asks inspect for no
source (linecache never sees the module), starts no process (the child's sys.addaudithook sees every
open and every process start) and imports none of what only a miss needs (subprocess, tempfile, shutil,
lowering.build), also with a selection table in force and no NVIDIA driver: a fake
nvidia-smi first on PATH would leave a marker file. Whatever the hit skips still changes the key: a
header or a compiler source edited in place (copies in tmp), another compiler binary, another
definition of the same name in one file. Results are checked against CPython running the same code.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import types
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.aot_kernels import SCALE_ADD

from everypath.base.settings import Settings
from everypath.lowering import cache
from everypath.lowering.build import INCLUDE_DIR

KERNELS = SCALE_ADD

# Audit events are raised before the action: the hook sees what the first calls open and start.
CHILD = textwrap.dedent("""
    import json, linecache, os, sys
    opened, started = [], []

    def hook(event, args):
        if event == "open" and isinstance(args[0], (str, bytes)):
            opened.append(os.fsdecode(args[0]))
        elif event in ("subprocess.Popen", "os.posix_spawn", "os.exec", "os.fork", "os.system", "os.spawn"):
            started.append(event)

    sys.addaudithook(hook)
    import numpy as np
    import hit_kernels as k
    from everypath.lowering import _runtime

    got = [k.scale(2.0, 3.0), k.add(np.ones(3), np.arange(3.0)).tolist()]
    loaded = [m for m in ("subprocess", "tempfile", "shutil", "everypath.lowering.build") if m in sys.modules]
    from everypath.lowering.build import INCLUDE_DIR
    want = [k.scale.py_function(2.0, 3.0), k.add.py_function(np.ones(3), np.arange(3.0)).tolist()]
    print(json.dumps({
        "got": got, "want": want, "from_cache": [k.scale._module.from_cache, k.add._module.from_cache],
        "headers_opened": [p for p in opened if p.startswith(str(INCLUDE_DIR))],
        "started": started,
        "sources_read": [f for f in linecache.cache if f.endswith("hit_kernels.py")],
        "tables": [v for v in _runtime.telemetry_table_versions() if v],
        "salt": os.path.exists(os.path.join(os.environ["EVERYPATH_LAKE"], ".salt")),
        "loaded": loaded,
    }))
""")

FAKE_SMI = '#!/bin/sh\necho started > "{marker}"\necho "GPU 0: Fake GPU 9000 (UUID: GPU-0000)"\n'


def _env(d: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("EVERYPATH_")}
    env.update(EVERYPATH_CACHE=str(d / "cache"), EVERYPATH_LAKE=str(d / "lake"),
               EVERYPATH_REGISTRY=str(d / "registry"), EVERYPATH_TELEMETRY="0", EVERYPATH_FLUSH_SECONDS="3600")
    env.update(extra)
    return env


def _child(d: Path, env: dict[str, str]) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, "-c", CHILD], cwd=d, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """hit_kernels.py built ahead of time into a private cache (the first process compiles)."""
    d = tmp_path_factory.mktemp("hit")
    (d / "hit_kernels.py").write_text(KERNELS)
    first = _child(d, _env(d))
    assert first["from_cache"] == [False, False] and first["got"] == first["want"]
    return d


def test_a_hit_opens_no_header_reads_no_source_and_starts_no_process(built: Path) -> None:
    out = _child(built, _env(built))
    assert out["from_cache"] == [True, True]
    assert out["got"] == out["want"] == [7.0, [1.0, 2.0, 3.0]]
    assert out["headers_opened"] == []  # the front key stats them; only a miss's back key reads them
    assert out["sources_read"] == []  # no inspect.getsource: the file's contents are in the key
    assert out["started"] == []  # no `g++ --version`, no nvidia-smi
    assert out["loaded"] == []  # what only a miss needs is not even imported


def test_a_selection_table_needs_no_subprocess_and_no_lake_before_the_first_publish(built: Path,
                                                                                   tmp_path: Path) -> None:
    if any(os.path.exists(p) for p in ("/proc/driver/nvidia", "/dev/nvidiactl")):
        pytest.skip("an NVIDIA driver is loaded here: nvidia-smi is rightly asked for the GPU's model")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    marker = tmp_path / "nvidia-smi-started"
    (bin_dir / "nvidia-smi").write_text(FAKE_SMI.format(marker=marker))
    (bin_dir / "nvidia-smi").chmod(0o755)
    table = tmp_path / "table.json"
    table.write_text(json.dumps({"format": 1, "version": "hit-test-1",
                                 "tables": {"*": [{"op": "numpy.add", "bounds": [], "variants": ["loops"]}]}}))
    env = _env(built, EVERYPATH_SELECTION_TABLE=str(table), EVERYPATH_TELEMETRY="1",
               EVERYPATH_LAKE=str(tmp_path / "lake"))
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    out = _child(built, env)
    assert out["tables"] == ["hit-test-1"]  # the table is in force for the first call
    assert out["from_cache"] == [True, True] and out["got"] == out["want"]
    assert out["started"] == [] and not marker.exists()
    assert out["salt"] is False  # the device id (the lake's salt) waits for the first publish


# ---- what the hit skips still changes the key -----------------------------------------------------


@pytest.fixture
def fresh_stamps() -> Iterator[None]:
    """The per-process stamps recomputed around a test that points them at copies."""
    cache.headers_stamp.cache_clear()
    cache.compiler_stamp.cache_clear()
    yield
    cache.headers_stamp.cache_clear()
    cache.compiler_stamp.cache_clear()


def _edit_in_place(p: Path) -> None:
    """One byte changed, the size kept, written over the file as an editor saving it does (its folder's
    mtime stays; the file's becomes now)."""
    data = bytearray(p.read_bytes())
    data[len(data) // 2] ^= 0x01
    with open(p, "r+b") as f:
        f.write(bytes(data))


def test_a_header_edited_in_place_changes_the_front_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        fresh_stamps: None) -> None:
    assert cache.INCLUDE_DIR == INCLUDE_DIR  # the headers the front key stamps are the ones builds include
    include = tmp_path / "include"
    shutil.copytree(INCLUDE_DIR, include)  # copy2: sizes and mtimes kept
    assert cache.include_stamp(include) == cache.include_stamp(INCLUDE_DIR) == cache.headers_stamp()
    monkeypatch.setattr(cache, "INCLUDE_DIR", include)
    settings = Settings(cache_dir=tmp_path / "cache")
    fn = _function_from(tmp_path / "k.py", "def f(x: float) -> float:\n    return x + 1.0\n", "f")
    before = cache.front_key(fn, None, settings)
    header = next(p for p in sorted(include.rglob("*.hpp")) if p.stat().st_size > 100)
    size = header.stat().st_size
    _edit_in_place(header)
    cache.headers_stamp.cache_clear()
    assert header.stat().st_size == size
    assert cache.front_key(fn, None, settings) != before
    (include / "everypath" / "new_op.hpp").write_text("#pragma once\n")  # a new header too
    assert cache.include_stamp(include) != cache.include_stamp(INCLUDE_DIR)


def test_a_compiler_source_edited_in_place_changes_its_stamp(tmp_path: Path) -> None:
    root = cache.ROOT
    assert root == Path(cache.__file__).resolve().parent.parent
    assert cache.compiler_digest.__wrapped__() == cache.sources_stamp(root)  # the key's stamp is this one
    for pkg in cache.COMPILER_PACKAGES:
        shutil.copytree(root / pkg, tmp_path / pkg, ignore=shutil.ignore_patterns("__pycache__", "include"))
    base = cache.sources_stamp(tmp_path)
    assert cache.sources_stamp(tmp_path) == base  # a stamp, not a clock
    (tmp_path / "lowering" / "__pycache__").mkdir(exist_ok=True)
    (tmp_path / "lowering" / "__pycache__" / "emit.cpython-311.pyc").write_bytes(b"\0")
    assert cache.sources_stamp(tmp_path) == base  # bytecode is not source
    _edit_in_place(tmp_path / "lowering" / "emit.py")
    assert cache.sources_stamp(tmp_path) != base


def test_another_or_a_changed_compiler_changes_its_stamp(tmp_path: Path, fresh_stamps: None) -> None:
    path = os.environ.get("PATH", "")
    gxx = shutil.which("g++")
    assert gxx is not None, "make setup installs g++"
    assert cache.compiler_stamp("g++", path).rsplit(":", 2)[0] == os.path.realpath(gxx)  # shutil.which's choice
    wrapper = tmp_path / "g++"
    wrapper.write_text(f'#!/bin/sh\nexec "{gxx}" "$@"\n')
    wrapper.chmod(0o755)
    shadowed = cache.compiler_stamp("g++", f"{tmp_path}{os.pathsep}{path}")
    assert shadowed.startswith(f"{wrapper.resolve()}:") and shadowed != cache.compiler_stamp("g++", path)
    wrapper.write_text(f'#!/bin/sh\nexec "{gxx}" -O0 "$@"\n')
    assert cache.compiler_stamp.__wrapped__("g++", f"{tmp_path}{os.pathsep}{path}") != shadowed
    assert cache.compiler_stamp("no-such-cxx-here", path) == "no-such-cxx-here: not found"


def _function_from(path: Path, source: str, name: str) -> types.FunctionType:
    path.write_text(source)
    ns: dict[str, Any] = {}
    exec(compile(source, str(path), "exec"), ns)  # noqa: S102 - our own test source
    return ns[name]


def test_two_definitions_of_one_name_in_a_file_have_two_keys(tmp_path: Path) -> None:
    src = ("def f(x: float) -> float:\n    return x + 1.0\n\n\nfirst = f\n\n\n"
           "def f(x: float) -> float:\n    return x + 2.0\n")
    second = _function_from(tmp_path / "twice.py", src, "f")
    ns: dict[str, Any] = {}
    exec(compile(src, str(tmp_path / "twice.py"), "exec"), ns)  # noqa: S102
    settings = Settings(cache_dir=tmp_path / "cache")
    assert first_key(ns["first"], settings) != first_key(second, settings)
    assert first_key(ns["f"], settings) == first_key(second, settings)  # the same definition, loaded again
    assert (ns["first"](1.0), second(1.0)) == (2.0, 3.0)


def test_a_function_without_a_readable_file_is_keyed_by_its_source(tmp_path: Path) -> None:
    import linecache

    settings = Settings(cache_dir=tmp_path / "cache")
    keys = []
    for cell, body in (("<cell-1>", "x + 1.0"), ("<cell-2>", "x + 2.0"), ("<cell-3>", "x + 2.0")):
        src = f"def f(x: float) -> float:\n    return {body}\n"
        linecache.cache[cell] = (len(src), None, src.splitlines(True), cell)  # as IPython registers a cell
        ns: dict[str, Any] = {}
        exec(compile(src, cell, "exec"), ns)  # noqa: S102
        keys.append(first_key(ns["f"], settings))
        del linecache.cache[cell]
    assert len(set(keys)) == 3  # other source, other key; same source in another cell: its name differs


def first_key(fn: types.FunctionType, settings: Settings) -> str:
    return cache.front_key(fn, None, settings)

"""One identity per function (issue 13): `everypath compile` and the program's first call share one build,
whatever name the module was imported under (script `__main__`, `import app`, `python -m pkg.app`, the
CLI's path import).

Every process here is a real subprocess with a private cache and a compiler wrapper (EVERYPATH_CXX) that
logs each start before it runs g++: "no build" means the log did not grow, so no compiler (not even
`--version`) was started, and the process itself reports its build from the cache (CompiledModule.from_cache).
Results are checked against the same arithmetic in CPython.
"""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

# a scalar loop reading a module constant and calling a helper of its own module: small to build
APP = textwrap.dedent("""\
    import json

    import everypath

    K = 3


    def helper(i: int) -> int:
        return i * K


    @everypath.compile
    def weighted(n: int) -> int:
        s = 0
        for i in range(n):
            s += helper(i) + SCALE
        return s


    def report(n: int) -> None:
        m = weighted.build()  # the lookup the first call does
        print(json.dumps({"from_cache": m.from_cache, "result": weighted(n)}))


    if __name__ == "__main__":
        report(10)
    """)


def reference(n: int, k: int, scale: int) -> int:
    return sum(i * k + scale for i in range(n))


@pytest.fixture
def project(tmp_path: Path) -> dict[str, object]:
    """tmp_path/app.py (a script), tmp_path/pkg/{__init__,app,consts}.py (a package module reading a
    constant of a sibling module through a relative import), a private cache and the logging compiler."""
    gxx = shutil.which("g++")
    assert gxx is not None, "make setup installs g++"
    (tmp_path / "app.py").write_text(APP.replace("SCALE", "2"))
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "consts.py").write_text("SCALE = 5\n")
    (pkg / "app.py").write_text("from . import consts\n" + APP.replace("SCALE", "consts.SCALE"))
    log = tmp_path / "cxx.log"
    log.write_text("")
    cxx = tmp_path / "logging-cxx"
    cxx.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec "{gxx}" "$@"\n')
    cxx.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("EVERYPATH_") and k != "PYTHONPATH"}
    env.update(EVERYPATH_CACHE=str(tmp_path / "cache"), EVERYPATH_CXX=str(cxx), EVERYPATH_TELEMETRY="0",
               EVERYPATH_LAKE=str(tmp_path / "lake"), EVERYPATH_REGISTRY=str(tmp_path / "registry"))
    return {"root": tmp_path, "log": log, "env": env, "compiler": _compiler_sources()}


def _compiler_sources() -> tuple[str, str]:
    """everypath's own Python and runtime headers as the cache keys see them, read now (not the
    values this process remembered first)."""
    from everypath.lowering.build import headers_digest
    from everypath.lowering.cache import compiler_digest

    return compiler_digest.__wrapped__(), headers_digest.__wrapped__()  # type: ignore[attr-defined]


def same_compiler(project: dict[str, object]) -> None:
    """A build is reused only by the same compiler: when everypath's own sources were edited while the test
    ran (a working tree someone is changing), a rebuild is right and proves nothing either way."""
    if _compiler_sources() != project["compiler"]:
        pytest.skip("everypath's compiler sources changed during the test: every key changed with them")


def run(project: dict[str, object], *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(list(args), cwd=cwd or project["root"], env=project["env"], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def everypath_cli() -> list[str]:
    exe = Path(sys.executable).with_name("everypath")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "everypath.cli"]


def compiler_starts(project: dict[str, object]) -> list[str]:
    return Path(str(project["log"])).read_text().splitlines()


def unit_builds(project: dict[str, object]) -> list[str]:
    """The compiler starts that built a generated unit (not `--version`, not a precompiled header)."""
    return [c for c in compiler_starts(project) if ".cpp -o " in c]


def first_call(project: dict[str, object], *args: str) -> Any:
    """Run a program and return what it printed, asserting it started no compiler."""
    before = compiler_starts(project)
    out = run(project, *args).stdout
    got = json.loads(out.strip().splitlines()[-1])
    cached = got["from_cache"] if isinstance(got, dict) else got[0]
    if compiler_starts(project) != before or cached is not True:
        same_compiler(project)
    assert compiler_starts(project) == before, f"{' '.join(args)} started the compiler"
    return got


def test_cli_build_is_the_scripts_first_call(project: dict[str, object]) -> None:
    root = project["root"]
    assert isinstance(root, Path)
    out = run(project, *everypath_cli(), "compile", "app.py", "--json").stdout
    [row] = json.loads(out)
    assert (row["function"], row["status"]) == ("weighted", "built")
    assert len(unit_builds(project)) == 1  # one g++ run made the artifact
    want = {"from_cache": True, "result": reference(10, 3, 2)}
    assert first_call(project, sys.executable, "app.py") == want  # __main__
    assert first_call(project, sys.executable, "-c", "import app; app.report(10)") == want  # import app
    other = root / "elsewhere"
    other.mkdir()
    (other / "runner.py").write_text(f"import sys\nsys.path.insert(0, {str(root)!r})\nimport app\napp.report(10)\n")
    assert first_call(project, sys.executable, str(other / "runner.py")) == want


def test_first_call_build_is_the_clis_and_a_package_importers(project: dict[str, object]) -> None:
    root = project["root"]
    assert isinstance(root, Path)
    built = run(project, sys.executable, "-m", "pkg.app").stdout  # python -m: the first call builds
    assert json.loads(built.strip().splitlines()[-1]) == {"from_cache": False, "result": reference(10, 3, 5)}
    starts = compiler_starts(project)
    assert starts, "the logging compiler was not used"
    out = run(project, *everypath_cli(), "compile", "pkg/app.py", "--json").stdout
    if compiler_starts(project) != starts or '"cached"' not in out:
        same_compiler(project)
    assert compiler_starts(project) == starts  # the CLI found that build: no compiler started
    [row] = json.loads(out)
    assert (row["function"], row["status"]) == ("weighted", "cached")
    want = {"from_cache": True, "result": reference(10, 3, 5)}
    assert first_call(project, sys.executable, "-c", "from pkg import app; app.report(10)") == want
    assert first_call(project, sys.executable, "-m", "pkg.app") == want
    # a changed constant of the sibling module is a different build, found by the same rules
    (root / "pkg" / "consts.py").write_text("SCALE = 7\n")
    again = run(project, sys.executable, "-m", "pkg.app").stdout
    assert json.loads(again.strip().splitlines()[-1]) == {"from_cache": False, "result": reference(10, 3, 7)}


THREE = textwrap.dedent("""\
    import everypath


    @everypath.compile
    def tri(n: int) -> int:
        s = 0
        for i in range(n):
            s += i
        return s


    @everypath.compile
    def squares(n: int) -> int:
        s = 0
        for i in range(n):
            s += i * i
        return s


    @everypath.compile
    def halves(x: float, n: int) -> float:
        for _ in range(n):
            x = x / 2.0
        return x
    """)


def test_compile_j2_builds_three_functions_with_progress(project: dict[str, object]) -> None:
    root = project["root"]
    assert isinstance(root, Path)
    (root / "three.py").write_text(THREE)
    proc = run(project, *everypath_cli(), "compile", "-j", "2", "--progress", "three.py")
    for name in ("tri", "squares", "halves"):
        assert any(name in line and "built" in line for line in proc.stdout.splitlines()), proc.stdout
    assert "3/3" in proc.stderr and "compiling" in proc.stderr, proc.stderr  # the bar's final state
    assert len(unit_builds(project)) == 3
    # each build is the one the functions' first calls use, and computes what CPython does
    probe = ("import json, three; ms = [f.build() for f in (three.tri, three.squares, three.halves)]; "
             "print(json.dumps([all(m.from_cache for m in ms), three.tri(7), three.squares(7), three.halves(8.0, 3)]))")
    got = first_call(project, sys.executable, "-c", probe)
    assert got == [True, sum(range(7)), sum(i * i for i in range(7)), 1.0]
    again = run(project, *everypath_cli(), "compile", "three.py", "--json")  # no --progress, not a terminal
    if '"built"' in again.stdout:
        same_compiler(project)
    assert [r["status"] for r in json.loads(again.stdout)] == ["cached"] * 3 and again.stderr == ""


def test_a_module_imported_under_another_name_is_found_by_its_file(tmp_path: Path) -> None:
    """A global's module is keyed by its file, so a cache hit finds it whatever it is called here."""
    from everypath.tracer.globals import SELF, namespace_of, origin, source_module

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    src = tmp_path / "pkg" / "consts.py"
    src.write_text("SCALE = 5\n")
    spec = importlib.util.spec_from_file_location("renamed_consts_for_test", src)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    try:
        spec.loader.exec_module(mod)
        where = origin(vars(mod), {})
        assert where == f"file:{os.path.realpath(src)}"
        assert namespace_of(where, "pkg.consts", {}) is vars(mod)  # recorded as pkg.consts elsewhere
        assert namespace_of(where, "renamed_consts_for_test", {}) is vars(mod)
        assert origin(vars(mod), vars(mod)) == SELF and namespace_of(SELF, "x", vars(mod)) is vars(mod)
        assert source_module(str(src), "fallback") == "pkg.consts"
        assert source_module(str(tmp_path / "pkg" / "__init__.py"), "fallback") == "pkg"
        assert source_module("<stdin>", "__main__") == "__main__"
    finally:
        del sys.modules[spec.name]

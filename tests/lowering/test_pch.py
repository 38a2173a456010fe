"""Precompiled headers (lowering/pch.py): a build that uses one gives the same function as one that
does not, g++ really takes the .gch, and a .gch older than a header it was made from is rebuilt.

References: NumPy for the results, the build without a precompiled header for the shared object
(byte for byte), g++'s own -H report for whether the .gch was used, ctypes for the stale-header case.
"""
from __future__ import annotations

import ctypes
import dataclasses
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import everypath
from everypath.base.settings import Settings
from everypath.lowering import pch
from everypath.lowering.build import INCLUDE_DIR, build_shared, precompiled
from everypath.variants.paths import build_flags

Vec = np.ndarray[tuple[int], np.dtype[np.float64]]


# three kernels calling the same operators: one header prefix, so the second one builds the .gch
def softmax_a(x: Vec) -> Vec:
    e = np.exp(x - np.max(x))
    return e / np.sum(e)


def softmax_b(x: Vec) -> Vec:
    e = np.exp(x * 0.5 - np.max(x))
    return e / np.sum(e)


def softmax_c(x: Vec) -> Vec:
    e = np.exp(x - np.max(x) - 1.0)
    return e / np.sum(e)


def _settings(tmp: Path, **kw: object) -> Settings:
    return dataclasses.replace(Settings.from_env(), cache_dir=tmp, telemetry=False, **kw)


def _gch_used(source: str, cpp: Path, settings: Settings) -> bool:
    """g++'s own account (-H prints '! <file>.gch' for a precompiled header it takes, 'x' for one it refuses)."""
    path_cxx, _ = build_flags(source)
    flags = [*settings.cxx_flags(), *path_cxx, f"-I{INCLUDE_DIR}"]  # build_shared's, in its order
    extra = precompiled(source, flags, settings)
    if not extra:
        return False
    proc = subprocess.run([settings.cxx, *flags, *extra, "-H", "-fsyntax-only", str(cpp)], capture_output=True,
                          text=True, check=True)
    return any(line.startswith("! ") and line.endswith(".gch") for line in proc.stderr.splitlines())


def test_pch_builds_match_plain_builds(tmp_path: Path) -> None:
    on, off = _settings(tmp_path / "on"), _settings(tmp_path / "off", pch=False)
    x = np.random.default_rng(7).standard_normal(1000) * 4.0
    for i, fn in enumerate((softmax_a, softmax_b, softmax_c)):
        with_pch, plain = everypath.compile(fn, settings=on), everypath.compile(fn, settings=off)
        got, want = with_pch(x.copy()), plain(x.copy())
        np.testing.assert_allclose(got, fn(x.copy()), rtol=1e-12, err_msg=fn.__name__)
        assert np.array_equal(got, want), fn.__name__
        mod_pch, mod_plain = with_pch.build(), plain.build()
        source = mod_pch.cpp_path.read_text()
        assert source == mod_plain.cpp_path.read_text()
        # the same object file: the precompiled header changes how long g++ takes, nothing else
        assert mod_pch.so_path.read_bytes() == mod_plain.so_path.read_bytes(), fn.__name__
        gch = list((tmp_path / "on" / "pch").glob("*/prefix.hpp.gch"))
        if i == 0:  # a prefix's first build makes no .gch (see pch.prepare)
            assert gch == []
        else:
            assert len(gch) == 1, "the three kernels share one header prefix"
            assert _gch_used(source, mod_pch.cpp_path, on), f"{fn.__name__}: g++ did not take the .gch"
    assert not (tmp_path / "off" / "pch").exists()


def _value_unit(header: Path) -> str:
    return f'#include "{header}"\nextern "C" __attribute__((visibility("default"))) int value() {{ return K; }}\n'


def _value(so: Path) -> int:
    return ctypes.CDLL(str(so)).value()


def test_stale_pch_is_rebuilt_not_used(tmp_path: Path) -> None:
    header = tmp_path / "inc" / "mini.hpp"
    header.parent.mkdir()
    header.write_text("#pragma once\nconstexpr int K = 1;\n")
    s = _settings(tmp_path / "cache")
    source = _value_unit(header)
    assert _value(build_shared(source, tmp_path / "1" / "u.so", s).path) == 1
    art = build_shared(source, tmp_path / "2" / "u.so", s)  # second build of the prefix: makes the .gch
    assert _value(art.path) == 1
    include = art.command[art.command.index("-include") + 1]
    gch = Path(include + ".gch")
    assert gch.exists()
    built = gch.stat().st_mtime_ns

    header.write_text("#pragma once\nconstexpr int K = 2;\n")
    st = header.stat()
    os.utime(header, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # a later mtime even on coarse clocks
    # what the check is for: g++ itself takes the old .gch without looking at the header again (the unit
    # here leaves the header to -include; one that includes it again fails: `#pragma once` sees a new file)
    body = tmp_path / "body.cpp"
    body.write_text(source.split("\n", 1)[1])
    raw = list(art.command)
    raw[raw.index("-o") + 1] = str(tmp_path / "raw.so")
    raw[raw.index("-o") - 1] = str(body)
    subprocess.run(raw, check=True, capture_output=True)
    assert _value(tmp_path / "raw.so") == 1

    art3 = build_shared(source, tmp_path / "3" / "u.so", s)
    assert _value(art3.path) == 2
    assert gch.stat().st_mtime_ns != built, "the stale .gch was not rebuilt"
    assert "-include" in art3.command


def test_unreadable_gch_does_not_break_the_build(tmp_path: Path) -> None:
    header = tmp_path / "mini.hpp"
    header.write_text("#pragma once\nconstexpr int K = 3;\n")
    s = _settings(tmp_path / "cache")
    source = _value_unit(header)
    build_shared(source, tmp_path / "1" / "u.so", s)
    art = build_shared(source, tmp_path / "2" / "u.so", s)
    gch = Path(art.command[art.command.index("-include") + 1] + ".gch")
    gch.write_bytes(gch.read_bytes()[:200])  # cut short: g++ stops with a fatal error on such a file
    art3 = build_shared(source, tmp_path / "3" / "u.so", s)
    assert _value(art3.path) == 3
    assert not gch.exists(), "the unreadable .gch is dropped so that the next build makes a new one"


@pytest.mark.parametrize("other", [{"sanitize": "address,undefined"}, {"march": "x86-64-v2"}, {"opt": "-O2"}])
def test_other_flags_get_their_own_pch(tmp_path: Path, other: dict[str, str]) -> None:
    base, changed = _settings(tmp_path), _settings(tmp_path, **other)
    prefix = "#include <everypath/everypath.hpp>\n"

    def folder(s: Settings) -> Path:
        flags = [f for f in s.cxx_flags() if f != "-shared"]
        return pch.header_for(prefix, flags, s.cxx, "g++ 12", "digest", s.cache_dir).folder

    assert folder(base) != folder(changed)


def test_unit_prefix() -> None:
    src = ("// Generated by everypath.\n// format version 1\n#define EP_HAVE_SIMD 1\n#include <everypath/everypath.hpp>\n"
           "#include <everypath/paths/simd/map.hpp>\n\nEP_DEFINE_ABI()\n#include <late.hpp>\n")
    assert pch.unit_prefix(src) == ("#define EP_HAVE_SIMD 1\n#include <everypath/everypath.hpp>\n"
                                    "#include <everypath/paths/simd/map.hpp>\n")
    assert pch.unit_prefix("#define X 1\nint f();\n") is None


def test_pch_setting_from_env() -> None:
    assert Settings.from_env({}).pch
    assert not Settings.from_env({"EVERYPATH_PCH": "0"}).pch


def test_eviction_keeps_the_newest_headers_within_the_byte_budget(tmp_path: Path) -> None:
    """Disk is bounded by Settings.pch_max_mb: the least recently used .gch go first, the newest always stays."""
    sizes = [300, 500, 200, 400]  # bytes, oldest first
    for i, size in enumerate(sizes):
        d = tmp_path / f"p{i}"
        d.mkdir()
        (d / (pch.PREFIX_NAME + ".gch")).write_bytes(b"x" * size)
        (d / "deps.json").write_text("[]")
        os.utime(d / "deps.json", ns=(10**18 + i, 10**18 + i))
    pch._evict(tmp_path, 650)
    left = sorted(d.name for d in tmp_path.iterdir() if (d / (pch.PREFIX_NAME + ".gch")).exists())
    assert left == ["p2", "p3"]  # 400 + 200 fit; adding 500 would not
    pch._evict(tmp_path, 10)
    assert [d.name for d in tmp_path.iterdir() if (d / (pch.PREFIX_NAME + ".gch")).exists()] == ["p3"]
    assert all((d / "deps.json").exists() for d in tmp_path.iterdir())  # the texts and stamps stay


def test_pch_budget_from_env() -> None:
    assert Settings.from_env({"EVERYPATH_PCH_MAX_MB": "256"}).pch_max_mb == 256
    with pytest.raises(ValueError, match="EVERYPATH_PCH_MAX_MB='lots'"):
        Settings.from_env({"EVERYPATH_PCH_MAX_MB": "lots"})

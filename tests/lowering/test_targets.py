"""The target table: names, what each target keeps, and why a target cannot be built here."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from everypath.base.settings import Settings
from everypath.lowering.dispatch import PathPolicy
from everypath.lowering.pipeline import generate
from everypath.lowering.portable import _operators
from everypath.lowering.targets import TARGETS, ArtifactKind, get, kind_status, parse_targets, status
from everypath.variants.availability import available_on
from everypath.variants.registry import Requirements, Variant

M = np.ndarray[tuple[int, int], np.dtype[np.float64]]


def gram(a: M) -> M:
    return a @ a.T + 1.0


def test_parse_targets_expands_isa_levels_and_names_unknown_ones() -> None:
    levels = [t.name for t in parse_targets("linux-x86_64")]
    assert levels == ["linux-x86_64-baseline", "linux-x86_64-v2", "linux-x86_64-v3", "linux-x86_64-v4"]
    assert [t.name for t in parse_targets("linux-arm64, wasm32-wasi")] == ["linux-arm64", "wasm32-wasi"]
    assert len(parse_targets(None)) == len(TARGETS)
    with pytest.raises(ValueError, match="unknown target 'linux-riscv'.*known: linux-x86_64-baseline"):
        parse_targets("linux-riscv")


def test_targets_without_an_sdk_say_which_and_how() -> None:
    ios = get("ios-arm64")
    st = status(ios, env={})
    assert not st.buildable and "IOS_SDK_SYSROOT" in (st.reason or "") and "iOS SDK" in (st.reason or "")
    st = status(ios, env={"IOS_SDK_SYSROOT": "/nonexistent/iPhoneOS.sdk"})
    assert not st.buildable and "not a directory" in (st.reason or "")
    android = get("android-arm64")
    assert kind_status(android, ArtifactKind.EXECUTABLE, env={}).buildable  # static aarch64: no NDK needed
    shared = kind_status(android, ArtifactKind.SHARED, env={})
    assert not shared.buildable and "ANDROID_NDK_SYSROOT" in (shared.reason or "")


def test_each_target_keeps_only_the_paths_it_can_run() -> None:
    assert get("wasm32-wasi").paths == {"loops"}  # no threads, xsimd 8 has no wasm arch
    assert get("linux-arm64").paths == {"loops", "simd", "threads"}
    assert all(not ({"blas", "opencv", "cuda"} & t.paths) for t in TARGETS.values())  # host-only libraries
    apple = Variant("accelerate", "x.hpp", Requirements(os=("darwin",)))
    assert available_on(apple, get("linux-arm64"))[0] is False  # path not kept, whatever the OS says
    arm_only = Variant("simd", "x.hpp", Requirements(arch=("aarch64",)))
    ok, why = available_on(arm_only, get("linux-x86_64-v3"))
    assert not ok and "needs arch aarch64" in (why or "")
    assert available_on(arm_only, get("macos-arm64"))[0]


def test_a_target_build_leaves_out_host_only_paths_and_says_why(tmp_path: Path) -> None:
    settings = Settings.from_env({"EVERYPATH_CACHE": str(tmp_path), "EVERYPATH_TELEMETRY": "0"})
    arm = get("linux-arm64")
    gen = generate(gram, settings, policy=PathPolicy.for_target(arm, settings))
    assert "EP_HAVE_BLAS" not in gen.source and "EP_HAVE_OPENCV" not in gen.source
    uses = {u.op: u for u in _operators(gen, arm)}
    matmul = uses["operator.matmul"]
    assert "blas" not in matmul.variants and "loops" in matmul.variants
    reasons = dict(matmul.left_out)
    assert "not built for linux-arm64" in reasons["blas"]
    assert "needs OS darwin" in reasons["accelerate"] or "not built" in reasons["accelerate"]
    wasm = get("wasm32-wasi")
    gen_w = generate(gram, settings, policy=PathPolicy.for_target(wasm, settings))
    assert "EP_HAVE_THREADS" not in gen_w.source and "EP_HAVE_SIMD" not in gen_w.source


def test_native_linux_targets_follow_the_cpus_level() -> None:
    from everypath.lowering.targets import native_linux

    assert [t.name for t in native_linux("x86_64", "x86-64-v3")] == [
        "linux-x86_64-baseline", "linux-x86_64-v2", "linux-x86_64-v3"]
    assert [t.name for t in native_linux("x86_64", "x86-64-v1")] == ["linux-x86_64-baseline"]
    assert [t.name for t in native_linux("aarch64", "armv8.2")] == ["linux-arm64"]  # a level above the table's
    assert native_linux("wasm32", "wasm32") == ()


def test_zig_builds_share_one_lib_folder_whatever_the_checkout(tmp_path: Path) -> None:
    """zig keys its libc/libc++ builds on its lib folder's path: the toolchain points every checkout's zig at
    one copy per zig version inside the zig cache, so a clean clone reuses the machine's libc/libc++ builds."""
    import importlib.metadata

    import ziglang

    from everypath.lowering.toolchain import stable_lib_dir, zig_env

    lib = stable_lib_dir(tmp_path)
    assert lib == tmp_path / f"lib-{importlib.metadata.version('ziglang')}" and (lib / ".complete").is_file()
    src = Path(ziglang.__file__).resolve().parent / "lib"
    assert sorted(p.name for p in src.iterdir()) == sorted(p.name for p in lib.iterdir() if p.name != ".complete")
    assert stable_lib_dir.__wrapped__(tmp_path) == lib  # a second process finds the copy and copies nothing
    assert [p.name for p in tmp_path.iterdir()] == [lib.name]  # no half copies left behind
    assert Path(zig_env()["ZIG_LIB_DIR"]).parent == Path(zig_env()["ZIG_GLOBAL_CACHE_DIR"])

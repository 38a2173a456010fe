"""Issue 11's acceptance matrix: a subset of the corpus built for every target and run outside Python —
each x86-64 ISA level this CPU has natively (every kernel on the lowest and the best, one on each level), linux-arm64 under qemu-user, wasm32-wasi under wasmtime —
every output equal to CPython's (dtype, shape, values; an exception's type and message); the artifacts of
targets that cannot run here checked for format, architecture and exported symbols."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from everypath.base.settings import Settings
from everypath.lowering.portable import PortableFunction, build_function
from everypath.lowering.targets import ArtifactKind, get, parse_targets
from tests.corpus._loader import default_atol, default_rtol, load_corpus
from tests.lowering.binfmt import describe

pytestmark = pytest.mark.slow

# a loop kernel, a fused whole-array kernel with axis reductions, a reduction, a sort (argsort, tuple
# result), and kernels that raise ValueError in compiled code
KERNELS = ("kadane_max_subarray", "softmax_rows_f32", "cosine_similarity", "permutation_scatter", "ewma_loop")
QEMU = shutil.which("qemu-aarch64-static")


def _settings() -> Settings:
    return Settings.from_env({**os.environ, "EVERYPATH_TELEMETRY": "0"})


def _host_levels() -> list[str]:
    from everypath.lowering.loader import host
    from everypath.lowering.targets import native_linux

    h = host()
    return [t.name for t in native_linux(h.arch, h.isa_level) if t.arch == "x86_64"]


def _put(out: dict[str, np.ndarray], name: str, t: dict[str, Any], value: Any) -> None:
    if t["kind"] == "tuple":
        for i, (it, v) in enumerate(zip(t["items"], value)):
            _put(out, f"{name}_{i}", it, v)
    elif t["kind"] == "array":
        out[name] = np.asarray(value)
    elif t["kind"] == "scalar":
        out[name] = np.asarray(value, dtype=t["dtype"])


def _expected(t: dict[str, Any], value: Any, name: str = "result") -> dict[str, np.ndarray]:
    """CPython's result as the executable writes it: tuples flattened, scalars 0-d of their dtype."""
    out: dict[str, np.ndarray] = {}
    if t["kind"] == "tuple":
        flat: list[tuple[dict[str, Any], Any]] = []

        def walk(tt: dict[str, Any], v: Any) -> None:
            if tt["kind"] == "tuple":
                for it, x in zip(tt["items"], v):
                    walk(it, x)
            elif tt["kind"] != "none":
                flat.append((tt, v))

        walk(t, value)
        for i, (tt, v) in enumerate(flat):
            out[f"{name}_{i}"] = np.asarray(v) if tt["kind"] == "array" else np.asarray(v, dtype=tt["dtype"])
    elif t["kind"] != "none":
        out[name] = np.asarray(value) if t["kind"] == "array" else np.asarray(value, dtype=t["dtype"])
    return out


def _check_outputs(want: dict[str, np.ndarray], got: dict[str, np.ndarray], where: str) -> None:
    assert sorted(got) == sorted(want), f"{where}: outputs {sorted(got)} != {sorted(want)}"
    for k, w in want.items():
        g = got[k]
        assert g.dtype == w.dtype and g.shape == w.shape, f"{where} {k}: {g.dtype}{g.shape} != {w.dtype}{w.shape}"
        if w.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, rtol=default_rtol(w.dtype), atol=default_atol(w.dtype), err_msg=where)
        else:
            np.testing.assert_array_equal(g, w, err_msg=where)


class Runner:
    """Runs an executable artifact with an npz of inputs: natively, under qemu or under wasmtime."""

    def __init__(self, target: str, exe: Path) -> None:
        self.target, self.exe = target, exe

    def __call__(self, inputs: Path, out: Path) -> tuple[int, str]:
        args = ["--inputs", str(inputs), "--out", str(out), "--no-telemetry"]
        if self.target == "wasm32-wasi":
            from everypath.lowering.wasm_runner import run_wasi_command

            rc, _, err = run_wasi_command(self.exe, args, [inputs.parent])
            return rc, err
        cmd = [QEMU, str(self.exe)] if self.target == "linux-arm64" else [str(self.exe)]
        p = subprocess.run([*map(str, cmd), *args], capture_output=True, text=True, timeout=120)
        return p.returncode, p.stderr


# every kernel runs on the lowest and the best x86-64 level this CPU has; the levels between differ from
# those only in -march, so one fused SIMD kernel covers them (CI time: each level is a build per kernel)
EVERY_LEVEL = ("softmax_rows_f32",)


def _targets(name: str) -> tuple[Any, ...]:
    levels = _host_levels()
    if name not in EVERY_LEVEL:
        levels = list(dict.fromkeys([levels[0], levels[-1]]))
    targets = tuple(get(n) for n in levels) + (get("wasm32-wasi"),)
    return targets + (get("linux-arm64"),) if QEMU else targets


@pytest.fixture(scope="module")
def built() -> dict[str, tuple[Any, PortableFunction]]:
    kinds = (ArtifactKind.EXECUTABLE, ArtifactKind.WASI_EXE)
    return {k.name: (k, build_function(k.entry, _targets(k.name), _settings(), kinds=kinds))
            for k in load_corpus(KERNELS)}


def _runners(pf: PortableFunction) -> list[Runner]:
    out = [Runner(a.target, a.path) for a in pf.artifacts if a.kind in (ArtifactKind.EXECUTABLE,
                                                                         ArtifactKind.WASI_EXE)]
    assert out, f"{pf.name}: nothing was built ({pf.skipped})"
    return out


@pytest.mark.parametrize("name", KERNELS)
def test_corpus_kernel_runs_on_every_target_like_cpython(name: str, built: dict, tmp_path: Path) -> None:
    kernel, pf = built[name]
    sig = pf.signature
    runners = _runners(pf)
    seen_targets = {r.target for r in runners}
    assert {t.name for t in _targets(name)} == seen_targets, f"{name}: built {seen_targets}; skipped {pf.skipped}"
    if QEMU:
        assert "linux-arm64" in seen_targets
    rng = np.random.default_rng(11)
    raised = 0
    for ci, case in enumerate(kernel.cases(rng)):
        inputs: dict[str, np.ndarray] = {}
        for p, v in zip(sig["params"], case):
            _put(inputs, p["name"], p["type"], v)
        npz = tmp_path / f"in{ci}.npz"
        np.savez(npz, **inputs)
        try:
            want = _expected(sig["result"], kernel.entry(*[np.copy(v) if isinstance(v, np.ndarray) else v
                                                           for v in case]))
            error = None
        except Exception as exc:  # noqa: BLE001 - the compiled code must raise the same
            want, error = {}, f"{type(exc).__name__}: {exc}"
        for run in runners:
            out = tmp_path / f"out{ci}-{run.target}.npz"
            rc, err = run(npz, out)
            where = f"{name} case {ci} on {run.target}"
            if error is not None:
                assert rc == 1 and error in err, f"{where}: wanted {error!r}, got rc={rc} {err!r}"
                raised += 1
                continue
            assert rc == 0, f"{where}: rc={rc} {err}"
            with np.load(out) as z:
                got = {k: z[k] for k in z.files}
            _check_outputs(want, got, where)
    if name in ("ewma_loop", "permutation_scatter"):
        assert raised >= len(runners)  # their cases include inputs that raise ValueError


def test_artifacts_of_targets_that_cannot_run_here_have_the_right_format(tmp_path: Path) -> None:
    kernel = load_corpus(["kadane_max_subarray"])[0]
    pf = build_function(kernel.entry, parse_targets("windows-x86_64,macos-arm64,macos-x86_64,android-arm64,ios-arm64"),
                        _settings())
    want = {("windows-x86_64", "shared"): ("pe", "x86_64", "shared"),
            ("windows-x86_64", "executable"): ("pe", "x86_64", "executable"),
            ("macos-arm64", "shared"): ("mach-o", "aarch64", "shared"),
            ("macos-arm64", "executable"): ("mach-o", "aarch64", "executable"),
            ("macos-x86_64", "shared"): ("mach-o", "x86_64", "shared"),
            ("macos-x86_64", "executable"): ("mach-o", "x86_64", "executable"),
            ("android-arm64", "executable"): ("elf", "aarch64", "executable")}
    got = {(a.target, a.kind.value): a for a in pf.artifacts}
    assert set(want) <= set(got), f"missing {set(want) - set(got)}; skipped: {pf.skipped}"
    for key, (fmt, arch, kind) in want.items():
        info = describe(got[key].path)
        assert (info.fmt, info.arch, info.kind) == (fmt, arch, kind), f"{key}: {info}"
        if kind == "shared":
            assert {f"ep_call_{pf.name}", "ep_abi_version", "ep_release"} <= info.exports, f"{key}: {info.exports}"
    skipped = {(s.target, s.kind.value): s.reason for s in pf.skipped}
    if not os.environ.get("IOS_SDK_SYSROOT"):
        assert "IOS_SDK_SYSROOT" in skipped[("ios-arm64", "static")]
    if not os.environ.get("ANDROID_NDK_SYSROOT"):
        assert "ANDROID_NDK_SYSROOT" in skipped[("android-arm64", "shared")]


if __name__ == "__main__":  # pragma: no cover - a quick manual run
    sys.exit(pytest.main([__file__, "-x", "-q"]))


@pytest.mark.parametrize("name", KERNELS)
def test_corpus_kernel_runs_under_node_like_cpython(name: str, tmp_path: Path) -> None:
    """The web target's ES module in Node: the same corpus cases, results compared with the corpus tolerances."""
    from tests.lowering.test_wasm import NODE, _from_json, _mjs, _node, _to_json

    if not NODE.is_file():
        pytest.skip(f"{NODE} is missing (Debian's nodejs; make setup installs it)")
    kernel = load_corpus([name])[0]
    pf = build_function(kernel.entry, (get("web"),), _settings(), kinds=(ArtifactKind.WASM,))
    cases = kernel.cases(np.random.default_rng(11))
    res = _node(_mjs(pf), [[_to_json(v) for v in case] for case in cases], tmp_path)
    for ci, (case, r) in enumerate(zip(cases, res)):
        where = f"{name} case {ci} under Node"
        try:
            want = kernel.entry(*[np.copy(v) if isinstance(v, np.ndarray) else v for v in case])
        except Exception as exc:  # noqa: BLE001 - the module must throw the same
            assert r.get("error", {}).get("name") == type(exc).__name__, f"{where}: {r}"
            assert r["error"]["message"] == str(exc), where
            continue
        assert "ok" in r, f"{where}: {r}"
        got = _from_json(r["ok"], pf.signature["result"])
        _check_outputs(_expected(pf.signature["result"], want), _expected(pf.signature["result"], got), where)

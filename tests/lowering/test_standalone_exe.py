"""The standalone executable (`NAME --inputs in.npz --out out.npz`, lowering/standalone.py):
functions written the way a user writes them, built for linux-x86_64 (run here), linux-arm64
(run under qemu-aarch64-static); inputs written by
np.savez / np.savez_compressed, outputs compared with CPython running the same function;
every input error. test_standalone_npz.py checks the .npz reader and writer on everything NumPy
writes; test_standalone_telemetry.py the spool, `everypath telemetry ingest`, the selection table
and the WASI command."""
from __future__ import annotations

import io
import json
import os
import re
import shutil
import struct
import traceback
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest
from everypath.base.settings import Settings
from everypath.lowering.portable import build_function
from everypath.lowering.targets import ArtifactKind, get, kind_status

QEMU = shutil.which("qemu-aarch64-static")
HOST = "linux-x86_64-v2"
INCLUDE = Path(__file__).resolve().parents[2] / "variants" / "include"

F64_2 = np.ndarray[tuple[int, int], np.dtype[np.float64]]
F64 = np.ndarray[tuple[int], np.dtype[np.float64]]
F32 = np.ndarray[tuple[int], np.dtype[np.float32]]
I64 = np.ndarray[tuple[int], np.dtype[np.int64]]


# ---- functions as a user writes them ---------------------------------------------------------

def standardize(x: F64_2, eps: float = 1e-8) -> F64_2:
    mu = np.mean(x, axis=0)
    sigma = np.std(x, axis=0)
    return (x - mu) / (sigma + eps)


def clipped_histogram(values: I64, nbins: int) -> I64:
    counts = np.zeros(nbins, dtype=np.int64)
    for i in range(values.shape[0]):
        v = values[i]
        if v < 0:
            v = 0
        if v >= nbins:
            v = nbins - 1
        counts[v] += 1
    return counts


def summary(x: F32) -> tuple[float, float, F32]:
    return float(np.min(x)), float(np.max(x)), np.cumsum(x)


def safe_log(x: F64) -> F64:
    if np.any(x <= 0.0):
        raise ValueError("safe_log: every value must be positive")
    return np.log(x)


def rescale(x: F64_2, factor: float = 2.0, clip: bool = False) -> F64_2:
    y = x * factor
    if clip:
        y = np.clip(y, 0.0, 1.0)
    return y


def shifted(pair: tuple[F64, float], shift: np.float32) -> tuple[F64, np.float32]:
    v, w = pair
    return v * w + shift, shift * np.float32(2)


FUNCS: dict[str, Callable[..., Any]] = {f.__name__: f for f in (standardize, clipped_histogram, summary, safe_log,
                                                                 rescale, shifted)}


# ---- building and running --------------------------------------------------------------------

def _settings() -> Settings:
    # the session's cache (EVERYPATH_CACHE under make): builds are keyed by content and reused
    return Settings.from_env({**os.environ, "EVERYPATH_TELEMETRY": "0"})


@dataclass(frozen=True)
class Exe:
    target: str
    path: Path

    def run(self, *args: object, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        cmd = ([QEMU] if self.target == "linux-arm64" else []) + [str(self.path), *map(str, args)]
        base = {k: v for k, v in os.environ.items() if not k.startswith(("EVERYPATH_", "XDG_DATA"))}
        # nothing lands in the user's data folder unless a test asks for telemetry
        return subprocess.run(cmd, capture_output=True, text=True, timeout=180,
                              env={**base, "EVERYPATH_TELEMETRY": "0", **(env or {})})


def _skip_reason(target: str) -> str | None:
    st = kind_status(get(target), ArtifactKind.EXECUTABLE)
    if not st.buildable:
        return st.reason
    if target == "linux-arm64" and QEMU is None:
        return "qemu-aarch64-static is not installed (apt-get install qemu-user-static; make setup does)"
    return None


_BUILT: dict[str, dict[str, Exe]] = {}


def built(target: str) -> dict[str, Exe]:
    if target not in _BUILT:
        why = _skip_reason(target)
        if why:
            pytest.skip(f"{target}: {why}")
        out = {}
        for name, fn in FUNCS.items():
            pf = build_function(fn, (get(target),), _settings(), kinds=(ArtifactKind.EXECUTABLE,))
            out[name] = Exe(target, pf.artifact(target, ArtifactKind.EXECUTABLE).path)
        _BUILT[target] = out
    return _BUILT[target]


@pytest.fixture(scope="module", params=[HOST, "linux-arm64"])
def exes(request: pytest.FixtureRequest) -> dict[str, Exe]:
    return built(request.param)


@pytest.fixture(scope="module")
def host() -> dict[str, Exe]:
    return built(HOST)


def expected_outputs(value: Any) -> dict[str, np.ndarray]:
    """CPython's result as the executable writes it: result, or result_0.. for (flattened) tuples."""
    flat: list[Any] = []

    def walk(v: Any) -> None:
        if isinstance(v, tuple):
            for x in v:
                walk(x)
        elif v is not None:
            flat.append(np.asarray(v))

    walk(value)
    if not isinstance(value, tuple):
        return {"result": flat[0]} if flat else {}
    return {f"result_{i}": a for i, a in enumerate(flat)}


def check_same(got: dict[str, np.ndarray], want: dict[str, np.ndarray], where: str) -> None:
    assert sorted(got) == sorted(want), where
    for k, w in want.items():
        g = got[k]
        assert (g.dtype, g.shape) == (w.dtype, w.shape), f"{where} {k}: {g.dtype}{g.shape} != {w.dtype}{w.shape}"
        if w.dtype.kind in "fc":
            single = w.dtype in (np.float32, np.complex64)
            np.testing.assert_allclose(g, w, rtol=1e-5 if single else 1e-12, atol=0, err_msg=f"{where} {k}")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"{where} {k}")


def call(exe: Exe, tmp: Path, npz: dict[str, Any], compressed: bool = False, *extra: str) -> tuple[
        subprocess.CompletedProcess[str], dict[str, np.ndarray]]:
    inp, out = tmp / "in.npz", tmp / "out.npz"
    (np.savez_compressed if compressed else np.savez)(inp, **npz)
    if out.exists():
        out.unlink()
    p = exe.run("--inputs", inp, "--out", out, *extra)
    got = {}
    if p.returncode == 0:
        with np.load(out) as z:
            got = {k: z[k] for k in z.files}
    return p, got


RNG = np.random.default_rng(7)
X2 = RNG.normal(3.0, 2.0, size=(64, 5))
VALS = RNG.integers(-5, 40, size=500)
X32 = RNG.random(1000).astype(np.float32)
POS = RNG.random(300) + 0.1
U = RNG.random((9, 4))

# (function, CPython keyword arguments, the .npz members the executable gets)
CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("standardize", {"x": X2}, {"x": X2}),
    ("standardize", {"x": X2, "eps": 0.25}, {"x": X2, "eps": np.float64(0.25)}),
    ("standardize", {"x": np.asfortranarray(X2), "eps": 1}, {"x": np.asfortranarray(X2), "eps": np.int64(1)}),
    ("standardize", {"x": X2[::3, ::-1]}, {"x": X2[::3, ::-1]}),  # NumPy writes the view C-ordered
    ("clipped_histogram", {"values": VALS, "nbins": 20}, {"values": VALS, "nbins": np.int64(20)}),
    ("clipped_histogram", {"values": VALS, "nbins": 7}, {"values": VALS, "nbins": np.uint8(7)}),
    ("clipped_histogram", {"values": VALS[:0], "nbins": 3}, {"values": VALS[:0], "nbins": np.int32(3)}),
    ("summary", {"x": X32}, {"x": X32}),
    ("safe_log", {"x": POS}, {"x": POS}),
    ("rescale", {"x": U}, {"x": U}),
    ("rescale", {"x": U, "factor": 3.0, "clip": True}, {"x": U, "factor": np.float32(3.0), "clip": np.bool_(True)}),
    ("rescale", {"x": U, "clip": True}, {"x": U, "clip": True}),
    ("shifted", {"pair": (POS[:10], 0.5), "shift": np.float32(1.5)},
     {"pair_0": POS[:10], "pair_1": np.float64(0.5), "shift": np.float32(1.5)}),
]


@pytest.mark.parametrize("compressed", [False, True], ids=["savez", "savez_compressed"])
@pytest.mark.parametrize("case", range(len(CASES)), ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_results_are_cpythons(exes: dict[str, Exe], case: int, compressed: bool, tmp_path: Path) -> None:
    name, kwargs, npz = CASES[case]
    p, got = call(exes[name], tmp_path, npz, compressed)
    assert p.returncode == 0, p.stderr
    check_same(got, expected_outputs(FUNCS[name](**kwargs)), f"{exes[name].target} {name}")


def test_an_exception_in_compiled_code_is_type_message_and_status_1(exes: dict[str, Exe], tmp_path: Path) -> None:
    x = POS.copy()
    x[17] = -1.0
    with pytest.raises(ValueError) as info:
        safe_log(x)
    p, _ = call(exes["safe_log"], tmp_path, {"x": x})
    assert p.returncode == 1
    last = traceback.extract_tb(info.value.__traceback__)[-1]  # CPython's traceback ends at the raise: so does ours
    # a shipped binary names the file only: no build machine's path reaches it
    assert p.stderr == (f'Traceback (most recent call last):\n  File "{os.path.basename(last.filename)}", '
                        f"line {last.lineno}, in {last.name}\nValueError: {info.value}\n")
    assert not (tmp_path / "out.npz").exists()


def test_help_lists_every_parameter_with_its_type(host: dict[str, Exe]) -> None:
    p = host["rescale"].run("--help")
    assert p.returncode == 0
    for text in ("--inputs", "--out", "--spool", "--no-telemetry", "x.npy", "a float64 array of rank 2",
                 "factor: float  [optional, default 2.0]", "clip: bool  [optional, default False]",
                 "a 0-d bool array", "result.npy"):
        assert text in p.stdout, text
    p = host["shifted"].run("--help")
    assert "pair_0.npy" in p.stdout and "pair_1.npy" in p.stdout and "a 0-d float32 array (np.float32)" in p.stdout
    assert "result_0.npy" in p.stdout and "result_1.npy" in p.stdout


# (function, members, the message's parts) -- every one exits with status 2
INPUT_ERRORS: list[tuple[str, dict[str, Any], tuple[str, ...]]] = [
    ("standardize", {}, ("missing input 'x' for parameter 'x'", "a float64 array of rank 2")),
    ("standardize", {"x": X2.astype(np.float32)},
     ("parameter 'x'", "expected a float64 array of rank 2", "got a float32 array of rank 2, shape (64, 5)")),
    ("standardize", {"x": X2[0]}, ("parameter 'x'", "expected a float64 array of rank 2", "got a float64 array of rank 1")),
    ("standardize", {"x": X2, "epsilon": np.float64(1)}, ("unknown input 'epsilon'", "takes x, eps")),
    ("standardize", {"x": X2, "eps": np.array([1.0])}, ("parameter 'eps'", "a 0-d float or integer array",
                                                      "got a float64 array of rank 1")),
    ("standardize", {"x": X2, "eps": np.bool_(True)}, ("parameter 'eps'", "got a 0-d bool array")),
    ("clipped_histogram", {"values": VALS, "nbins": np.float64(3)}, ("parameter 'nbins'", "a 0-d integer array",
                                                                    "got a 0-d float64 array")),
    ("clipped_histogram", {"values": VALS, "nbins": np.uint64(2**63)},
     ("parameter 'nbins'", "its value 9223372036854775808 does not fit in int64")),
    ("rescale", {"x": U, "clip": np.int64(1)}, ("parameter 'clip'", "a 0-d bool array (Python bool)", "got a 0-d int64")),
    ("shifted", {"pair_0": POS, "pair_1": np.float64(1), "shift": np.float64(1)},
     ("parameter 'shift'", "a 0-d float32 array (np.float32)", "got a 0-d float64 array")),
    ("shifted", {"pair_0": POS, "shift": np.float32(1)},
     ("parameter 'pair' item pair[1]", "missing input 'pair_1'", "pair_0, pair_1")),
    ("safe_log", {"x": POS.astype(np.float16)}, ("unsupported dtype '<f2'",)),
    ("safe_log", {"x": np.zeros(3, dtype=[("a", "<f8")])}, ("structured dtypes",)),
]


@pytest.mark.parametrize("case", range(len(INPUT_ERRORS)), ids=[f"{c[0]}-{i}" for i, c in enumerate(INPUT_ERRORS)])
def test_wrong_inputs_name_the_parameter_and_exit_2(host: dict[str, Exe], case: int, tmp_path: Path) -> None:
    name, npz, parts = INPUT_ERRORS[case]
    p, _ = call(host[name], tmp_path, npz)
    assert p.returncode == 2, p.stderr
    for part in parts:
        assert part in p.stderr, (part, p.stderr)
    assert not (tmp_path / "out.npz").exists()


def _stored_member_offset(path: Path, member: str) -> int:
    import zipfile

    with zipfile.ZipFile(path) as z:
        info = z.getinfo(member)
    raw = path.read_bytes()
    n, m = struct.unpack_from("<HH", raw, info.header_offset + 26)
    return info.header_offset + 30 + n + m


def test_bad_command_lines_and_unreadable_files_exit_2(host: dict[str, Exe], tmp_path: Path) -> None:
    exe = host["safe_log"]
    good = tmp_path / "good.npz"
    np.savez(good, x=POS)
    out = tmp_path / "o.npz"
    cases: list[tuple[list[object], str]] = [
        (["--out", out], "missing --inputs"),
        (["--inputs", good], "missing --out"),
        (["--inputs", good, "--out", out, "--fast"], "unknown argument '--fast'"),
        (["--inputs"], "--inputs needs a value"),
        (["--inputs", tmp_path / "nope.npz", "--out", out], "cannot open"),
        (["--inputs", good, "--out", tmp_path / "no" / "such" / "dir.npz"], "cannot create"),
    ]
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"this is not a zip file at all" * 10)
    cases.append((["--inputs", junk, "--out", out], "not a zip file"))
    half = tmp_path / "half.npz"
    half.write_bytes(good.read_bytes()[: len(good.read_bytes()) // 2])
    cases.append((["--inputs", half, "--out", out], "half.npz"))
    flipped = bytearray(good.read_bytes())
    flipped[_stored_member_offset(good, "x.npy") + 200] ^= 0x40  # inside the array data
    bad_crc = tmp_path / "crc.npz"
    bad_crc.write_bytes(bytes(flipped))
    cases.append((["--inputs", bad_crc, "--out", out], "member 'x.npy': CRC-32 mismatch"))
    comp = tmp_path / "comp.npz"
    np.savez_compressed(comp, x=POS)
    broken = bytearray(comp.read_bytes())
    at = _stored_member_offset(comp, "x.npy")
    for k in range(20, 60):
        broken[at + k] ^= 0xA5
    bad_deflate = tmp_path / "deflate.npz"
    bad_deflate.write_bytes(bytes(broken))
    cases.append((["--inputs", bad_deflate, "--out", out], "member 'x.npy'"))
    txt = tmp_path / "txt.npz"
    import zipfile

    with zipfile.ZipFile(txt, "w") as z:
        z.writestr("x.npy", _npy_bytes(POS))
        z.writestr("notes.txt", "hello")
    cases.append((["--inputs", txt, "--out", out], "member 'notes.txt' is not a .npy array"))
    for args, part in cases:
        p = exe.run(*args)
        assert p.returncode == 2 and part in p.stderr, (args, p.returncode, p.stderr)
        assert "--help" in p.stderr


def _npy_bytes(a: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, a)
    return buf.getvalue()


def test_the_device_block_describes_the_machine_it_runs_on(exes: dict[str, Exe]) -> None:
    from everypath.telemetry.device import device_class

    p = exes["safe_log"].run("--device")
    assert p.returncode == 0, p.stderr
    block = json.loads(p.stdout)
    assert block["runtime"] == "native-executable" and block["os"] == "linux" and block["gpu"] is None
    assert block["device_class"] == device_class(block)  # the class Python computes from these fields
    assert re.fullmatch(r"[0-9a-f]{64}", block["machine_key"])
    machine_id = Path("/etc/machine-id").read_text().strip() if Path("/etc/machine-id").exists() else ""
    assert not machine_id or machine_id not in p.stdout  # the raw id never leaves the process
    if exes["safe_log"].target == "linux-arm64":
        assert block["arch"] == "aarch64" and block["isa_level"] in ("armv8", "armv8.2", "armv9")
        assert block["isa_flags"].startswith("neon asimd")
    else:  # this machine, field by field as telemetry/device.py sees it
        from everypath.telemetry.device import device_fields

        mine = device_fields(runtime="native-executable")
        for k in ("arch", "os", "cpu_model", "isa_level", "isa_flags", "cores", "l1d_kib", "l2_kib", "l3_kib"):
            assert block[k] == mine[k], k  # (the gpu, which Python asks nvidia-smi about, is not a CPU program's)

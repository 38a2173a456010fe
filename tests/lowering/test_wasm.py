"""The wasm32-wasi WASM artifact (a WASI reactor) called from Python under wasmtime
(lowering.wasm_runner.WasmFunction) and the web target's NAME.mjs called from Node.js, for kernels
written the way users write them: every result compared with CPython's run of the same function
(dtype, shape, values; an exception's type and message), and the module still working after a
compiled-code exception trapped it."""
from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest
from numpy.typing import NDArray

from everypath.base.settings import Settings
from everypath.lowering import web
from everypath.lowering.portable import build_function
from everypath.lowering.targets import ArtifactKind, get, status
from everypath.lowering.wasm_runner import WasmFunction

pytestmark = pytest.mark.slow
NODE = Path("/usr/bin/node")
if not status(get("wasm32-wasi")).buildable:
    pytest.skip(f"wasm32-wasi is not buildable here: {status(get('wasm32-wasi')).reason}", allow_module_level=True)


# --- kernels -------------------------------------------------------------------------------------------

Vec = np.ndarray[tuple[int], np.dtype[np.float64]]
Mat = np.ndarray[tuple[int, int], np.dtype[np.float64]]
Vec32 = np.ndarray[tuple[int], np.dtype[np.float32]]
Mask = np.ndarray[tuple[int], np.dtype[np.bool_]]
CVec = np.ndarray[tuple[int], np.dtype[np.complex128]]


def leaky_relu(x: np.ndarray[tuple[int], np.dtype[np.float32]], slope: float) -> np.ndarray:
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        v = x[i]
        out[i] = v if v > 0 else v * slope
    return out


def blend(a: Mat, b: Mat, w: float) -> Mat:
    return np.where(a > b, np.sqrt(a * a + b * b) * w, 0.5 * (a + b) - w)


def rms(x: Vec) -> float:
    return float(np.sqrt(np.mean(x * x)))


def row_medians(x: np.ndarray[tuple[int, int], np.dtype[np.int64]]) -> NDArray[np.int64]:
    s = np.sort(x, axis=1)
    return s[:, s.shape[1] // 2]


def log_ratio(a: Vec, b: Vec) -> Vec:
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"length mismatch: {a.shape[0]} vs {b.shape[0]}")
    for i in range(b.shape[0]):
        if b[i] <= 0.0:
            raise ValueError(f"b[{i}] = {b[i]} is not positive")
    return a / b


def summarize(x: Vec32) -> tuple[int, float, Mask]:
    return int(np.argmax(x)), float(x.min()), x > x.mean()


def clamp_inplace(x: Vec, lo: float, hi: float) -> int:
    changed = 0
    for i in range(x.shape[0]):
        if x[i] < lo:
            x[i] = lo
            changed += 1
        elif x[i] > hi:
            x[i] = hi
            changed += 1
    return changed


def rotate(z: CVec, w: complex) -> CVec:
    return z * w + np.conj(z)


def head_reversed(x: Vec, k: int = 3) -> Vec:
    return x[::-1][:k]


RNG = np.random.default_rng(11)
F32 = RNG.standard_normal(37).astype(np.float32)
A2, B2 = RNG.standard_normal((5, 7)), RNG.standard_normal((5, 7))
I2 = RNG.integers(-1000, 1000, (6, 9))
POS = RNG.uniform(0.5, 2.0, 12)
Z = RNG.standard_normal(8) + 1j * RNG.standard_normal(8)

# (function, calls): each call is a tuple of arguments; CPython's run of the same call is the reference
CASES: dict[str, tuple[Callable[..., Any], list[tuple[Any, ...]]]] = {
    "leaky_relu": (leaky_relu, [(F32, 0.1), (F32[::3], 2.0), (np.zeros(0, np.float32), 0.5)]),
    "blend": (blend, [(A2, B2, 0.75), (A2.T, B2.T, -1.5)]),
    "rms": (rms, [(POS,), (A2[:, 1],)]),
    "row_medians": (row_medians, [(I2,), (I2[::-1, 1:],)]),
    "log_ratio": (log_ratio, [(POS[::-1], POS), (POS, np.concatenate([POS[:5], [-1.5], POS[6:]])),
                              (POS[:3], POS[:4]), (POS[:2], POS[:2])]),
    "summarize": (summarize, [(F32,), (F32[5:9],)]),
    "clamp_inplace": (clamp_inplace, [(A2[0].copy(), -0.5, 0.5)]),
    "rotate": (rotate, [(Z, 0.6 - 0.8j), (Z[::2], 2.0)]),
    "head_reversed": (head_reversed, [(POS,), (POS, 5), (POS[::2], 0)]),
}


def _settings() -> Settings:
    return Settings.from_env({**os.environ, "EVERYPATH_TELEMETRY": "0"})


def _reference(fn: Callable[..., Any], args: tuple[Any, ...]) -> tuple[str, Any, tuple[Any, ...]]:
    """("ok", result, args after the call) or ("raise", (type, message), args): CPython on copies."""
    copies = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    try:
        return "ok", fn(*copies), copies
    except Exception as e:  # noqa: BLE001 - the reference's exception is what the artifact must raise
        return "raise", (type(e), str(e)), copies


def _same(got: Any, want: Any, where: str) -> None:
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), f"{where}: {got!r} != {want!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            _same(g, w, f"{where}[{i}]")
        return
    assert type(got) is type(want), f"{where}: {type(got)} != {type(want)}"
    if isinstance(want, np.ndarray):
        assert got.dtype == want.dtype and got.shape == want.shape, f"{where}: {got.dtype}{got.shape} != " \
                                                                    f"{want.dtype}{want.shape}"
        if want.dtype.kind == "c":  # NumPy's complex loops round (a*c - b*d) differently (native builds too)
            np.testing.assert_allclose(got, want, rtol=4 * np.finfo(want.dtype).eps, atol=0, err_msg=where)
        else:  # bit-identical: no transcendental function here
            np.testing.assert_array_equal(got, want, err_msg=where)
    else:
        assert got == want, f"{where}: {got!r} != {want!r}"


@pytest.fixture(scope="module")
def built() -> dict[str, Any]:
    """One build per kernel and target (cached by content across runs)."""
    targets = (get("wasm32-wasi"), get("web"))
    return {name: build_function(fn, targets, _settings(), kinds=(ArtifactKind.WASM,))
            for name, (fn, _) in CASES.items()}


@pytest.mark.parametrize("name", list(CASES))
def test_wasmtime_matches_cpython(built: dict[str, Any], name: str) -> None:
    fn, calls = CASES[name]
    pf = built[name]
    art = pf.artifact("wasm32-wasi", ArtifactKind.WASM)
    f = WasmFunction(art.path, pf.signature)
    traps = 0
    for k, args in enumerate(calls):
        kind, want, after = _reference(fn, args)
        mine = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
        if kind == "raise":
            with pytest.raises(want[0]) as info:
                f(*mine)
            assert str(info.value) == want[1]
            traps += 1
        else:
            _same(f(*mine), want, f"{name} call {k}")
        for i, (m, a) in enumerate(zip(mine, after)):  # in-place writes reach the caller's arrays
            if isinstance(a, np.ndarray):
                np.testing.assert_array_equal(m, a, err_msg=f"{name} call {k} argument {i}")
    assert f.instances == 1 + traps  # each trap instantiated the module afresh


def test_wasmtime_views_of_arguments_stay_views(built: dict[str, Any]) -> None:
    """A result borrowed from an argument is a view of the caller's array, as the native runtime gives."""
    pf = built["head_reversed"]
    f = WasmFunction(pf.artifact("wasm32-wasi", ArtifactKind.WASM).path, pf.signature)
    x = POS.copy()
    r = f(x, 4)
    assert np.shares_memory(r, x) and r.strides == (-8,)
    x[-1] = 123.0
    assert r[0] == 123.0


def test_wasmtime_module_works_after_a_trap(built: dict[str, Any]) -> None:
    pf = built["log_ratio"]
    f = WasmFunction(pf.artifact("wasm32-wasi", ArtifactKind.WASM).path, pf.signature)
    bad = POS.copy()
    bad[3] = 0.0
    for _ in range(3):
        with pytest.raises(ValueError, match=r"^b\[3\] = 0\.0 is not positive$"):
            f(POS, bad)
        _same(f(POS, POS[::-1].copy()), log_ratio(POS, POS[::-1].copy()), "after the trap")
    assert f.instances == 4


def test_wasmtime_rejects_bad_arguments(built: dict[str, Any]) -> None:
    pf = built["leaky_relu"]
    f = WasmFunction(pf.artifact("wasm32-wasi", ArtifactKind.WASM).path, pf.signature)
    with pytest.raises(TypeError, match=r"leaky_relu\(\) argument 'x': expected np\.ndarray\[tuple\[int\], "
                                        r"np\.dtype\[np\.float32\]\], got ndarray of dtype float64 with ndim 1"):
        f(F32.astype(np.float64), 0.1)
    with pytest.raises(TypeError, match=r"argument 'slope': expected float, got complex"):
        f(F32, 1j)
    with pytest.raises(TypeError, match=r"leaky_relu\(\) missing 1 required positional argument: 'slope'"):
        f(F32)
    g = WasmFunction(built["clamp_inplace"].artifact("wasm32-wasi", ArtifactKind.WASM).path,
                     built["clamp_inplace"].signature)
    ro = A2[0].copy()
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="assignment destination is read-only"):
        g(ro, 0.0, 1.0)


def test_exports_and_imports(built: dict[str, Any]) -> None:
    """The reactor exports what hosts use, and imports only WASI functions the browser shim implements."""
    import wasmtime

    from everypath.lowering.wasm_runner import load_module

    shim = (web.RUNTIME_DIR / "wasi_shim.mjs").read_text()
    implemented = set(re.findall(r'"(\w+)"', re.search(r"WASI_IMPLEMENTED = \[(.*?)\];", shim, re.S).group(1)))
    js_names = re.search(r"LAYOUT_NAMES = \[(.*?)\];", (web.RUNTIME_DIR / "everypath.mjs").read_text(), re.S)
    assert re.findall(r'"(\w+)"', js_names.group(1)) == list(web.LAYOUT_ORDER)  # the JS reads ep_layout(i) by name
    for name, pf in built.items():
        for target in ("wasm32-wasi", "web"):
            m: wasmtime.Module = load_module(pf.artifact(target, ArtifactKind.WASM).path)
            exports = {e.name for e in m.exports}
            assert {"_initialize", "memory", f"ep_call_{name}", "ep_alloc", "ep_free", "ep_layout", "ep_release",
                    "ep_last_error", "ep_tele_configure", "ep_tele_drain", "ep_tele_rows"} <= exports, name
            imports = {(i.module, i.name) for i in m.imports}
            assert {mod for mod, _ in imports} == {"wasi_snapshot_preview1"}, imports
            assert {n for _, n in imports} <= implemented, f"{name}: shim lacks {set(n for _, n in imports) - implemented}"


# --- Node.js ---------------------------------------------------------------------------------------------

def _to_json(v: Any) -> Any:
    """An argument as the Node driver rebuilds it: arrays with dtype, shape and flat data."""
    if isinstance(v, tuple):
        return {"tuple": [_to_json(x) for x in v]}
    if isinstance(v, np.ndarray):
        flat = np.ascontiguousarray(v).reshape(-1)
        if v.dtype.kind == "c":
            flat = flat.view(np.float64 if v.dtype == np.complex128 else np.float32)
        data = [str(x) for x in flat.tolist()] if v.dtype.itemsize == 8 and v.dtype.kind in "iu" else flat.tolist()
        return {"dtype": v.dtype.name, "shape": list(v.shape), "data": data}
    if isinstance(v, complex):
        return {"re": v.real, "im": v.imag}
    return v


def _from_json(r: Any, t: dict[str, Any]) -> Any:
    """The driver's printed result back as Python values of the signature's types."""
    if t["kind"] == "tuple":
        return tuple(_from_json(x, it) for x, it in zip(r, t["items"]))
    if t["kind"] == "array":
        dt = np.dtype(t["dtype"])
        assert r["dtype"] == dt.name and len(r["shape"]) == t["ndim"], r
        assert r.get("bool", False) == (dt == np.bool_) and r.get("complex", False) == (dt.kind == "c"), r
        raw = np.array([int(x) for x in r["data"]] if r["typed"] in ("BigInt64Array", "BigUint64Array") else r["data"],
                       dtype={"c": np.float64 if dt == np.complex128 else np.float32}.get(dt.kind, dt))
        return (raw.view(dt) if dt.kind == "c" else raw).reshape(r["shape"])
    if t["kind"] == "scalar":
        v = (int(r["bigint"]) if "bigint" in r else complex(r["re"], r["im"])) if isinstance(r, dict) else r
        py = {"b": bool, "i": int, "u": int, "f": float, "c": complex}[np.dtype(t["dtype"]).kind]
        assert isinstance(v, py) or (py is float and isinstance(v, int)) or py is complex, (r, t)
        return py(v) if t["py"] else np.dtype(t["dtype"]).type(v)
    return None


def _node(module: Path, calls: list[Any], out_dir: Path) -> list[dict[str, Any]]:
    spec = out_dir / "calls.json"
    spec.write_text(json.dumps({"module": module.as_uri(), "calls": calls}))
    driver = out_dir / "driver.mjs"
    driver.write_text(NODE_DRIVER)
    p = subprocess.run([str(NODE), str(driver), str(spec)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


# reads {"module": URL, "calls": [[arg, ...], ...]}, prints one JSON list: {"ok": result} or {"error": ...}
NODE_DRIVER = r"""
import { readFileSync } from "node:fs";
const spec = JSON.parse(readFileSync(process.argv[2], "utf8"));
const mod = await import(spec.module);
const rows = [], aggs = [];
await mod.load(undefined, { onTelemetry: (r, a) => { rows.push(...r); aggs.push(...a); }, sample: 1.0,
                            deviceId: "test-device" });
const TYPED = { bool: Uint8Array, int8: Int8Array, int16: Int16Array, int32: Int32Array, int64: BigInt64Array,
  uint8: Uint8Array, uint16: Uint16Array, uint32: Uint32Array, uint64: BigUint64Array, float32: Float32Array,
  float64: Float64Array, complex64: Float32Array, complex128: Float64Array };
function arg(v) {
  if (v !== null && typeof v === "object" && "tuple" in v) return v.tuple.map(arg);
  if (v !== null && typeof v === "object" && "dtype" in v) {
    const C = TYPED[v.dtype], big = C === BigInt64Array || C === BigUint64Array;
    const data = C.from(v.data, big ? (x) => BigInt(x) : (x) => x);
    const complex = v.dtype.startsWith("complex");
    return v.shape.length === 1 && !complex ? data : { data, shape: v.shape, complex };
  }
  return v;
}
function out(r) {
  if (Array.isArray(r)) return r.map(out);
  if (typeof r === "bigint") return { bigint: r.toString() };
  if (ArrayBuffer.isView(r)) r = { data: r, shape: [r.length] };
  if (r !== null && typeof r === "object" && ArrayBuffer.isView(r.data)) {
    const big = typeof r.data[0] === "bigint";
    return { ...r, typed: r.data.constructor.name, data: Array.from(r.data, (x) => (big ? x.toString() : x)) };
  }
  return r === undefined ? null : r;
}
const results = [];
for (const call of spec.calls) {
  try {
    const args = call.map(arg);
    const ok = out(await mod.default(...args));
    const after = args.map((a, i) => {  // the arguments after the call, typed as the spec gave them
      const d = call[i] && call[i].dtype;
      return d ? { ...out(a), dtype: d, complex: d.startsWith("complex"), bool: d === "bool" } : null;
    });
    results.push({ ok, after });
  } catch (e) {
    results.push({ error: { name: e.name, message: e.message, js: e.constructor.name } });
  }
}
mod.flushTelemetry();  // the aggregates (every call counted) go out every few seconds or on a flush
results.push({ telemetry: rows.map((r) => ({ ...r, ts: r.ts.toString() })),
               aggregates: aggs.map((a) => ({ op: a.op, call_site: a.call_site, count: Number(a.count) })) });
console.log(JSON.stringify(results));
"""


def _mjs(pf: Any) -> Path:
    art = pf.artifact("web", ArtifactKind.WASM)
    mjs = [p for p in art.extra_files if p.suffix == ".mjs"]
    assert mjs and (mjs[0].parent / f"{pf.name}.wasm") == art.path, art
    return mjs[0]


needs_node = pytest.mark.skipif(not NODE.is_file(), reason=f"{NODE} is missing (Debian's nodejs)")


@needs_node
@pytest.mark.parametrize("name", list(CASES))
def test_node_matches_cpython(built: dict[str, Any], name: str, tmp_path: Path) -> None:
    from everypath.telemetry.device import device_class
    from everypath.telemetry.schema import CALLS_SCHEMA

    fn, calls = CASES[name]
    pf = built[name]
    res = _node(_mjs(pf), [[_to_json(a) for a in args] for args in calls], tmp_path)
    assert len(res) == len(calls) + 1
    ok = 0
    for k, (args, r) in enumerate(zip(calls, res)):
        kind, want, after = _reference(fn, args)
        where = f"{name} call {k} under Node"
        if kind == "raise":
            assert r.get("error") == {"name": want[0].__name__, "message": want[1], "js": "Error"}, where
            continue
        assert "ok" in r, f"{where}: {r}"
        _same(_from_json(r["ok"], pf.signature["result"]), want, where)
        for i, (p, a) in enumerate(zip(pf.signature["params"], after)):  # in-place writes reach the caller
            if isinstance(a, np.ndarray):
                np.testing.assert_array_equal(_from_json(r["after"][i], p["type"]), a, err_msg=f"{where} arg {i}")
        ok += 1
    rows, aggs = res[-1]["telemetry"], res[-1]["aggregates"]
    sites = {(o.op, o.call_site) for o in pf.artifact("web", ArtifactKind.WASM).operators}
    # every call that returned ran its operator sites, each counted in the aggregates (a trapped instance's
    # too: handed over before the fresh one starts); the raw rows are the timed share of them
    counted = sum(a["count"] for a in aggs)
    assert (counted >= ok and 0 < len(rows) <= counted) if sites else rows == aggs == [], (sites, rows, aggs)
    assert {(a["op"], a["call_site"]) for a in aggs} <= sites
    for row in rows:
        assert set(row) == set(CALLS_SCHEMA.names)
        assert (row["op"], row["call_site"]) in sites and row["function"].endswith(f".{name}")
        assert row["arch"] == "wasm32" and row["runtime"] == "node" and row["device_id"] == "test-device"
        assert row["variant"] == "loops" and row["latency_ns"] >= 0 and row["n_elements"] >= 0
        assert row["device_class"] == device_class(row)  # the same class hash the lake computes
        assert abs(int(row["ts"]) / 1e9 - __import__("time").time()) < 600


@needs_node
def test_node_rejects_bad_arguments(built: dict[str, Any], tmp_path: Path) -> None:
    pf = built["leaky_relu"]
    res = _node(_mjs(pf), [[_to_json(F32.astype(np.float64)), 0.1], [_to_json(F32), "0.1"], [_to_json(F32)],
                           [_to_json(F32), 0.1, 3]], tmp_path)
    errs = [r["error"] for r in res[:-1]]
    assert all(e["name"] == "TypeError" and e["js"] == "TypeError" for e in errs), errs
    assert errs[0]["message"].startswith("leaky_relu() argument 'x': expected a float32 array of rank 1"), errs[0]
    assert "got Float64Array of length 37" in errs[0]["message"]
    assert errs[1]["message"].startswith("leaky_relu() argument 'slope': expected float64"), errs[1]
    assert errs[2]["message"] == "leaky_relu() missing 1 required positional argument: 'slope'"
    assert errs[3]["message"] == "leaky_relu() takes 2 positional arguments but 3 were given"

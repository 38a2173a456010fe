"""Calling WASM artifacts from Python through wasmtime (PyPI `wasmtime`, with WASI).

`WasmFunction(path, signature)` loads a WASI reactor (ArtifactKind.WASM, built by zig with
-mexec-model=reactor: `_initialize` runs once per instance) and is called like the original Python
function: NumPy arrays and Python scalars in, NumPy arrays/scalars out with NumPy's dtype and shape.
Arguments are copied into the module's linear memory as ep_value descriptors (abi.h, wasm32 layout
lowering.web.LAYOUT); arrays the function mutates are copied back (also after a failure, as CPython
would leave them). An exception of the compiled code traps (wasm has no C++ exceptions): its type and
message come from the error slot and are re-raised as that Python exception, and the module is
instantiated afresh, since the trapped call abandoned its state mid-way.

`run_wasi_command(wasm_path, args, preopen_dirs)` runs a WASI command (ArtifactKind.WASI_EXE, the
standalone executable's `--inputs in.npz --out out.npz` CLI) with directories preopened.
"""
from __future__ import annotations

import builtins
import functools
import importlib
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import wasmtime

from everypath.lowering.web import LAYOUT, LAYOUT_ORDER
from everypath.lowering.tracebacks import split_message, synthetic_traceback


@functools.lru_cache(maxsize=1)
def _engine() -> wasmtime.Engine:
    return wasmtime.Engine()


@functools.lru_cache(maxsize=64)
def _module(path: str, mtime_ns: int, size: int) -> wasmtime.Module:
    """Compiled once per file version (Cranelift takes a while on modules with debug info)."""
    return wasmtime.Module.from_file(_engine(), path)


def load_module(path: Path) -> wasmtime.Module:
    st = Path(path).stat()
    return _module(str(Path(path).resolve()), st.st_mtime_ns, st.st_size)


def python_exception(type_name: str, message: str) -> BaseException:
    """The Python exception named by an error slot (builtins or module.Name), as the native runtime raises it."""
    exc_type: Any = getattr(builtins, type_name, None) if type_name else None
    if exc_type is None and "." in type_name:
        mod, _, attr = type_name.rpartition(".")
        try:
            exc_type = getattr(importlib.import_module(mod), attr, None)
        except ImportError:
            exc_type = None
    if not (isinstance(exc_type, type) and issubclass(exc_type, BaseException)):
        return RuntimeError(f"{type_name}: {message}" if type_name else message)
    try:
        return exc_type(message)
    except TypeError:  # UnicodeDecodeError and friends want more than a message
        return RuntimeError(f"{type_name}: {message}")


# abi.h's ep_dtype numbers
DTYPE_CODES = {"bool": 0, "int8": 1, "int16": 2, "int32": 3, "int64": 4, "uint8": 5, "uint16": 6, "uint32": 7,
               "uint64": 8, "float32": 9, "float64": 10, "complex64": 11, "complex128": 12}
L = LAYOUT
VALUE = np.dtype({"names": ["kind", "dtype", "ndim", "shape", "strides", "data", "owner", "scalar"],
                  "formats": ["<i4", "<i4", "<i4", ("<i8", 8), ("<i8", 8), "<u4", "<u4", ("u1", 16)],
                  "offsets": [L["value_kind"], L["value_dtype"], L["value_ndim"], L["value_shape"], L["value_strides"],
                              L["value_data"], L["value_owner"], L["value_scalar"]], "itemsize": L["value_size"]})
ERROR = np.dtype({"names": ["set", "type", "message"], "formats": ["<i4", "S64", "S1024"],
                  "offsets": [L["error_set"], L["error_type"], L["error_message"]], "itemsize": L["error_size"]})
_CATEGORY = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}  # bool < int < float < complex: a dtype takes a prefix


def _align(n: int) -> int:
    return (n + 15) // 16 * 16


def _describe(v: Any) -> str:
    if isinstance(v, np.ndarray):
        return f"ndarray of dtype {v.dtype} with ndim {v.ndim}"
    if isinstance(v, tuple):
        return f"tuple of length {len(v)}"
    t = type(v)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"


def bind(sig: dict[str, Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
    """Positional and keyword arguments -> one value per parameter (CPython's wording for mistakes)."""
    name, params = sig["name"], sig["params"]
    if len(args) > len(params):
        req = sum("default" not in p for p in params)
        takes = (f"from {req} to {len(params)} positional arguments" if req < len(params) else
                 f"{len(params)} positional argument{'s' if len(params) != 1 else ''}")
        raise TypeError(f"{name}() takes {takes} but {len(args)} {'was' if len(args) == 1 else 'were'} given")
    bound: dict[str, Any] = {p["name"]: a for p, a in zip(params, args)}
    for k, v in kwargs.items():
        if k not in {p["name"] for p in params}:
            raise TypeError(f"{name}() got an unexpected keyword argument {k!r}")
        if k in bound:
            raise TypeError(f"{name}() got multiple values for argument '{k}'")
        bound[k] = v
    missing = [p["name"] for p in params if p["name"] not in bound and "default" not in p]
    if missing:
        names = " and ".join(f"'{m}'" for m in missing) if len(missing) <= 2 else \
            ", ".join(f"'{m}'" for m in missing[:-1]) + f", and '{missing[-1]}'"
        raise TypeError(f"{name}() missing {len(missing)} required positional argument"
                        f"{'s' if len(missing) != 1 else ''}: {names}")
    return [bound[p["name"]] if p["name"] in bound else p["default"] for p in params]


@dataclass
class Slot:
    """One flattened argument: an array (copied C-contiguous into memory) or a scalar."""

    t: dict[str, Any]
    value: Any  # the caller's object
    data: np.ndarray | None = None  # arrays: what goes into memory
    mutated: bool = False
    at: int = 0  # arrays: the data's offset in the call's block


def _scalar_bytes(v: Any, t: dict[str, Any], name: str, label: str, fail: Any) -> bytes:
    dt = np.dtype(t["dtype"])
    if isinstance(v, (bool, np.bool_)):
        cat = 0
    elif isinstance(v, (int, np.integer)):
        cat = 1
    elif isinstance(v, (float, np.floating)):
        cat = 2
    elif isinstance(v, (complex, np.complexfloating)):
        cat = 3
    else:
        fail()
    if cat > _CATEGORY[dt.kind]:
        fail()
    if dt.kind in "iu":
        iv, info = int(v), np.iinfo(dt)
        if not info.min <= iv <= info.max:
            raise OverflowError(f"{name}() argument {label}: Python integer {iv!r} out of bounds for {dt.name}")
        return np.array(iv, dt).tobytes()
    if cat == 1 and dt.kind in "fc":
        try:
            float(int(v))
        except OverflowError:
            raise OverflowError(f"{name}() argument {label}: int too large to convert to {dt.name}") from None
    return np.array(v, dt).tobytes()


def flatten_arguments(sig: dict[str, Any], values: list[Any]) -> list[Slot | bytes]:
    """Parameter values -> ep_value slots (tuples depth-first), checked against the signature."""
    name, out = sig["name"], []

    def walk(v: Any, t: dict[str, Any], label: str, p: dict[str, Any], top: bool) -> None:
        def fail() -> None:
            expected = p.get("annotation") if top and p.get("annotation") else t.get("dtype", t["kind"])
            raise TypeError(f"{name}() argument {label}: expected {expected}, got {_describe(v)}")

        kind = t["kind"]
        if kind == "tuple":
            if not isinstance(v, tuple) or len(v) != len(t["items"]):
                fail()
            for i, (x, it) in enumerate(zip(v, t["items"])):
                walk(x, it, f"{label[:-1]}[{i}]'", p, False)
        elif kind == "none":
            if v is not None:
                fail()
        elif kind == "array":
            if not isinstance(v, np.ndarray) or v.dtype != np.dtype(t["dtype"]) or v.ndim != t["ndim"]:
                fail()
            if p["mutated"] and not v.flags.writeable:
                raise ValueError(f"{name}() argument {label}: assignment destination is read-only")
            out.append(Slot(t, v, np.ascontiguousarray(v, dtype=np.dtype(t["dtype"])), p["mutated"]))
        elif kind == "scalar":
            out.append(Slot(t, v, np.frombuffer(_scalar_bytes(v, t, name, label, fail), np.uint8)))
        else:
            raise TypeError(f"{name}(): parameter {label} of kind {kind} cannot be passed to WASM")

    for p, v in zip(sig["params"], values):
        walk(v, p["type"], f"'{p['name']}'", p, True)
    return out


def count_slots(t: dict[str, Any]) -> int:
    if t["kind"] == "tuple":
        return sum(count_slots(i) for i in t["items"])
    return 0 if t["kind"] == "none" else 1


@dataclass
class CallPlan:
    """One call's block of linear memory: argument and result descriptors, the error slot, array data."""

    slots: list[Slot]
    results_at: int
    error_at: int
    total: int

    @staticmethod
    def make(slots: list[Slot], nres: int) -> "CallPlan":
        error_at = _align((len(slots) + nres) * VALUE.itemsize)
        total = error_at + _align(ERROR.itemsize)
        for s in slots:
            if s.t["kind"] == "array":
                s.at, total = total, total + _align(s.data.nbytes)
        return CallPlan(slots, len(slots) * VALUE.itemsize, error_at, total)

    def write(self, mem: np.ndarray, base: int) -> None:
        desc = np.zeros(len(self.slots), VALUE)
        for d, s in zip(desc, self.slots):
            d["dtype"] = DTYPE_CODES[s.t["dtype"]]
            if s.t["kind"] == "scalar":
                d["kind"] = 1
                d["scalar"][: s.data.size] = s.data
                continue
            a = s.data
            d["kind"], d["ndim"], d["data"] = 2, a.ndim, base + s.at
            d["shape"][: a.ndim], d["strides"][: a.ndim] = a.shape, a.strides
            mem[base + s.at: base + s.at + a.nbytes] = a.reshape(-1).view(np.uint8)
        mem[base: base + self.error_at + ERROR.itemsize] = 0
        mem[base: base + desc.nbytes] = desc.view(np.uint8)

    def copy_back(self, mem: np.ndarray, base: int) -> None:
        """What the function wrote into arguments reaches the caller's arrays (in-place semantics)."""
        for s in self.slots:
            if s.mutated:
                s.value[...] = mem[base + s.at: base + s.at + s.data.nbytes].view(s.data.dtype).reshape(s.data.shape)


def read_error(mem: np.ndarray, ptr: int) -> tuple[str, str, str] | None:
    """(type, message, trace): the trace of the user's lines follows the message's NUL (array.hpp)."""
    if ptr == 0:
        return None
    e = mem[ptr: ptr + ERROR.itemsize].view(ERROR)[0]
    if e["set"] == 0:
        return None
    start = ptr + L["error_message"]
    return (e["type"].decode(errors="replace"), *split_message(bytes(mem[start: start + 1024])))


def read_results(sig: dict[str, Any], mem: np.ndarray, base: int, plan: CallPlan, owners: list[int]) -> Any:
    """Result descriptors -> Python values (arrays copied out; owners collected for ep_release)."""
    n = count_slots(sig["result"])
    desc = mem[base + plan.results_at: base + plan.results_at + n * VALUE.itemsize].view(VALUE)
    pos = iter(range(n))

    def scalar(raw: np.ndarray, t: dict[str, Any]) -> Any:
        x = raw[: np.dtype(t["dtype"]).itemsize].view(t["dtype"])[0]
        return x.item() if t.get("py") else x

    def array(d: np.void, dtype: str) -> np.ndarray:
        nd, ptr, owner = int(d["ndim"]), int(d["data"]), int(d["owner"])
        shape, strides = tuple(int(x) for x in d["shape"][:nd]), tuple(int(x) for x in d["strides"][:nd])
        if owner:
            owners.append(owner)
            return _gather(mem, ptr, shape, strides, np.dtype(dtype))
        return _borrowed(plan, base, ptr, shape, strides, mem, np.dtype(dtype))

    def walk(t: dict[str, Any]) -> Any:
        kind = t["kind"]
        if kind == "none":
            return None
        if kind == "tuple":
            return tuple(walk(i) for i in t["items"])
        d = desc[next(pos)]
        want = t["elem"] if kind == "list" else t
        if int(d["dtype"]) != DTYPE_CODES[want["dtype"]] or int(d["kind"]) != (1 if kind == "scalar" else 2):
            raise RuntimeError(f"internal error: {sig['name']}() returned kind {int(d['kind'])} dtype "
                               f"{int(d['dtype'])} where {want['dtype']} {kind} was expected")
        if kind == "scalar":
            return scalar(d["scalar"], t)
        a = array(d, want["dtype"])
        if kind == "list":
            return [x.item() if want.get("py") else x for x in a]
        return a

    return walk(sig["result"])


def _borrowed(plan: CallPlan, base: int, ptr: int, shape: tuple[int, ...], strides: tuple[int, ...],
              mem: np.ndarray, dt: np.dtype) -> np.ndarray:
    """A result in an argument's memory: the caller's array itself, a view of it, or (when the
    argument had to be copied to be passed) a copy, as the native runtime hands back views."""
    for s in plan.slots:
        if s.t["kind"] != "array":
            continue
        lo, a = base + s.at, s.data
        if not lo <= ptr <= lo + a.nbytes:
            continue
        if ptr == lo and shape == a.shape and strides == a.strides:
            return s.value  # `return x`: NumPy's identity
        if np.may_share_memory(a, s.value) and 0 not in shape:  # passed without a copy: a view of it
            k = (ptr - lo) // dt.itemsize
            return np.lib.stride_tricks.as_strided(s.value.reshape(-1)[k:], shape, strides)
        return _gather(mem, ptr, shape, strides, dt)
    raise RuntimeError("internal error: borrowed result not found in arguments")


def _gather(mem: np.ndarray, ptr: int, shape: tuple[int, ...], strides: tuple[int, ...], dt: np.dtype) -> np.ndarray:
    """A C-contiguous copy of the array at ptr (any strides: negative, zero)."""
    if 0 in shape:
        return np.empty(shape, dt)
    lo = ptr + sum((n - 1) * s for n, s in zip(shape, strides) if s < 0)
    hi = ptr + sum((n - 1) * s for n, s in zip(shape, strides) if s > 0) + dt.itemsize
    if lo < 0 or hi > mem.size:
        raise RuntimeError(f"internal error: a result array [{lo}, {hi}) lies outside WASM memory")
    view = np.lib.stride_tricks.as_strided(mem[ptr:], shape=(*shape, dt.itemsize), strides=(*strides, 1),
                                           writeable=False)
    return np.array(view, copy=True).view(dt).reshape(shape)  # a copy: the block is freed after the call


class WasmFunction:
    """One compiled function's WASM reactor module under wasmtime, callable like the Python function."""

    def __init__(self, path: Path | str, signature: dict[str, Any], symbol: str | None = None) -> None:
        self.path = Path(path)
        self.signature = signature
        self.name: str = signature["name"]
        self.symbol = symbol or f"ep_call_{self.name}"
        self._module = load_module(self.path)
        self._linker = wasmtime.Linker(_engine())
        self._linker.define_wasi()
        self.instances = 0  # how many times the module was instantiated (1 + one per trap)
        self._instantiate()

    def _instantiate(self) -> None:
        store = wasmtime.Store(_engine())
        wasi = wasmtime.WasiConfig()
        wasi.inherit_stdout()
        wasi.inherit_stderr()
        store.set_wasi(wasi)
        exports = self._linker.instantiate(store, self._module).exports(store)
        if "_initialize" in exports:
            exports["_initialize"](store)  # a reactor: C++ static constructors, libc set-up
        if self.symbol not in exports:
            raise ValueError(f"{self.path}: the module exports no {self.symbol}")
        if exports["ep_abi_version"](store) != 1:
            raise ValueError(f"{self.path}: C ABI version {exports['ep_abi_version'](store)}, this runner speaks 1")
        got = {k: exports["ep_layout"](store, i) for i, k in enumerate(LAYOUT_ORDER)}
        if got != LAYOUT:
            raise ValueError(f"{self.path}: ep_value layout {got} differs from lowering.web.LAYOUT")
        self._store, self._x, self.instances = store, exports, self.instances + 1
        self._memory: wasmtime.Memory = exports["memory"]

    def _call(self, name: str, *args: int | float) -> Any:
        return self._x[name](self._store, *args)

    def memory(self) -> np.ndarray:
        """The linear memory as a uint8 array (re-fetch after every call: memory.grow moves it)."""
        n = self._memory.data_len(self._store)
        return np.ctypeslib.as_array(self._memory.data_ptr(self._store), shape=(n,))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        slots = flatten_arguments(self.signature, bind(self.signature, args, kwargs))
        nres = count_slots(self.signature["result"])
        plan = CallPlan.make(slots, nres)
        base = self._call("ep_alloc", plan.total)
        if base == 0:
            raise MemoryError(f"{self.name}(): cannot allocate {plan.total} bytes of WASM memory")
        plan.write(self.memory(), base)
        try:
            self._call(self.symbol, base, len(slots), base + plan.results_at, nres, base + plan.error_at)
        except wasmtime.ExitTrap:
            raise
        except (wasmtime.Trap, wasmtime.WasmtimeError) as trap:
            mem = self.memory()
            err = read_error(mem, base + plan.error_at)
            if err is None and "ep_last_error" in self._x:
                err = read_error(mem, self._call("ep_last_error"))
            plan.copy_back(mem, base)
            self._instantiate()  # the trapped instance is abandoned mid-call: start afresh
            if err is None:
                raise RuntimeError(f"{self.name}(): the compiled code trapped: {trap}") from None
            raise python_exception(*err[:2]).with_traceback(synthetic_traceback(err[2])) from None
        mem = self.memory()
        plan.copy_back(mem, base)
        owners: list[int] = []
        try:
            return read_results(self.signature, mem, base, plan, owners)
        finally:
            for o in owners:
                self._call("ep_release", o)
            self._call("ep_free", base)


def run_wasi_command(wasm_path: Path | str, args: Sequence[str],
                     preopen_dirs: Sequence[Path | str] | Mapping[str, Path | str] = ()) -> tuple[int, str, str]:
    """Run a WASI command module (its `_start`) as `NAME args...`; returns (returncode, stdout, stderr).

    preopen_dirs: host directories the module may use, each visible under its own absolute path
    (so paths in `args` need no translation), or a {guest_path: host_dir} mapping. A trap (not an
    exit) gives returncode 134, like an aborted process, with the trap's message on stderr."""
    dirs = dict(preopen_dirs) if isinstance(preopen_dirs, Mapping) else {
        str(Path(d).absolute()): d for d in preopen_dirs}
    with tempfile.TemporaryDirectory(prefix="everypath-wasi-") as tmp:
        out, err = Path(tmp) / "stdout", Path(tmp) / "stderr"
        cfg = wasmtime.WasiConfig()
        cfg.argv = [Path(wasm_path).name, *map(str, args)]
        for guest, host in dirs.items():
            if not Path(host).is_dir():
                raise FileNotFoundError(f"preopen directory {host} does not exist")
            cfg.preopen_dir(str(Path(host).resolve()), guest)
        cfg.stdout_file = str(out)
        cfg.stderr_file = str(err)
        engine = _engine()
        store = wasmtime.Store(engine)
        store.set_wasi(cfg)
        linker = wasmtime.Linker(engine)
        linker.define_wasi()
        code, note = 0, ""
        try:
            instance = linker.instantiate(store, load_module(Path(wasm_path)))
            instance.exports(store)["_start"](store)
        except wasmtime.ExitTrap as e:
            code = e.code
        except (wasmtime.Trap, wasmtime.WasmtimeError) as e:
            code, note = 134, f"\nwasm trap: {e}\n"
        return code, out.read_text(errors="replace"), err.read_text(errors="replace") + note

// Calling an everypath WASM reactor module from JavaScript (browsers and Node.js): arguments are
// checked against the function's signature descriptor (lowering/signature.py), copied into the
// module's linear memory as ep_value descriptors (variants/include/everypath/abi.h), and results
// copied back out as typed arrays with their shapes. lowering/web.py inlines this file (and
// wasi_shim.mjs) into each NAME.mjs; lowering/wasm_runner.py does the same from Python.
//
// A trap (an exception raised by the compiled code: wasm has no C++ exceptions, ep::raise traps)
// leaves the instance mid-call: the error is read from the error slot, arrays the function
// mutates get what it wrote so far (as in CPython), and the module is instantiated afresh before
// the Error is thrown, so the next call starts from a clean state.
import { WasiExit, WasiShim } from "./wasi_shim.mjs";

// ep_layout(i) names, in the order lowering/web.py's LAYOUT_ORDER defines
export const LAYOUT_NAMES = [
  "value_size", "value_kind", "value_dtype", "value_ndim", "value_shape", "value_strides", "value_data",
  "value_owner", "value_scalar", "error_size", "error_set", "error_type", "error_message", "row_size", "row_ts",
  "row_latency", "row_n_elements", "row_shape", "row_site", "row_variant", "row_threads", "row_table",
  "row_ndim", "row_explore", "row_propensity", "row_inclusion", "agg_size", "agg_count", "agg_timed", "agg_sum",
  "agg_min", "agg_max", "agg_site", "agg_variant", "agg_bucket", "agg_bin_offset", "agg_nbins",
];

// UNIX-epoch nanoseconds (BigInt) of now, as the aggregates' interval bounds
function nowNs() {
  const perf = globalThis.performance;
  const ms = perf && perf.timeOrigin ? perf.timeOrigin + perf.now() : Date.now();
  return BigInt(Math.round(ms * 1000)) * 1000n;
}

// abi.h's ep_dtype numbers, the element size, and the typed array that holds the elements
export const DTYPES = {
  bool: { code: 0, size: 1, Array: Uint8Array },
  int8: { code: 1, size: 1, Array: Int8Array },
  int16: { code: 2, size: 2, Array: Int16Array },
  int32: { code: 3, size: 4, Array: Int32Array },
  int64: { code: 4, size: 8, Array: BigInt64Array },
  uint8: { code: 5, size: 1, Array: Uint8Array },
  uint16: { code: 6, size: 2, Array: Uint16Array },
  uint32: { code: 7, size: 4, Array: Uint32Array },
  uint64: { code: 8, size: 8, Array: BigUint64Array },
  float32: { code: 9, size: 4, Array: Float32Array },
  float64: { code: 10, size: 8, Array: Float64Array },
  complex64: { code: 11, size: 8, Array: Float32Array, complex: true },
  complex128: { code: 12, size: 16, Array: Float64Array, complex: true },
};
const KIND = { scalar: 1, array: 2 };
const INT_RANGE = {
  int8: [-(2n ** 7n), 2n ** 7n - 1n], int16: [-(2n ** 15n), 2n ** 15n - 1n], int32: [-(2n ** 31n), 2n ** 31n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n], uint8: [0n, 2n ** 8n - 1n], uint16: [0n, 2n ** 16n - 1n],
  uint32: [0n, 2n ** 32n - 1n], uint64: [0n, 2n ** 64n - 1n],
};

// An Error carrying the Python exception of compiled code: name = the Python type, e.g. "ValueError".
export function pythonError(type, message) {
  const e = new Error(message);
  e.name = type || "RuntimeError";
  return e;
}

// The trace compiled code leaves after the message's NUL (lowering/tracebacks.py reads the same):
// entries "file\x1fline\x1ffunction", innermost first, one per line.
function traceAfterMessage(buffer, ptr, size) {
  const bytes = new Uint8Array(buffer, ptr, size);
  const nul = bytes.indexOf(0);
  if (nul < 0) return [];
  const rest = bytes.subarray(nul + 1);
  const end = rest.indexOf(0);
  const text = new TextDecoder().decode(rest.subarray(0, end < 0 ? rest.length : end));
  const frames = [];
  for (const entry of text.split("\n")) {
    const [file, line, name] = entry.split("\x1f");
    if (name !== undefined && /^[0-9]+$/.test(line) && Number(line) > 0) frames.push({ file, line: Number(line), name });
  }
  return frames.reverse();  // outermost first, as Python prints them
}

// e.pythonTraceback: [{file, line, name}] outermost first; the stack starts with Python's own lines
function withTrace(e, frames) {
  e.pythonTraceback = frames;
  if (frames.length) {
    const tb = frames.map((f) => `  File "${f.file}", line ${f.line}, in ${f.name}`).join("\n");
    e.stack = `Traceback (most recent call last):\n${tb}\n${e.name}: ${e.message}\n${e.stack || ""}`;
  }
  return e;
}

function describe(v) {
  if (v === null) return "null";
  if (ArrayBuffer.isView(v)) return `${v.constructor.name} of length ${v.length}`;
  if (Array.isArray(v)) return `Array of length ${v.length}`;
  if (typeof v === "object" && v.data !== undefined) {
    const d = ArrayBuffer.isView(v.data) ? v.data.constructor.name : typeof v.data;
    return `{data: ${d}, shape: ${JSON.stringify(v.shape)}}`;
  }
  return typeof v === "object" ? "object" : `${typeof v} ${String(v)}`;
}

function expectedText(t, annotation) {
  const ann = annotation ? ` (${annotation})` : "";
  if (t.kind === "array") {
    const dt = DTYPES[t.dtype], dims = Array.from({ length: t.ndim }, (_, i) => `d${i}`).join(", ");
    const obj = `{data: ${dt.Array.name}, shape: [${dims}]${dt.complex ? ", complex: true" : ""}}`;
    const bare = t.ndim === 1 && !dt.complex ? `${dt.Array.name} or ` : "";
    return `a ${t.dtype} array of rank ${t.ndim}${ann}: ${bare}${obj}`;
  }
  if (t.kind === "scalar") {
    const what = t.dtype === "bool" ? "a boolean" : t.dtype.startsWith("complex") ? "a number or {re, im}"
      : t.dtype.includes("int") ? "an integer (Number or BigInt)" : "a number";
    return `${t.dtype}${ann}: ${what}`;
  }
  if (t.kind === "tuple") return `a tuple of ${t.items.length}${ann}: an Array of length ${t.items.length}`;
  return `${t.kind}${ann}`;
}

// Python's scalar categories: bool < int < float < complex; a dtype accepts its own and lower ones.
function scalarValue(v, t, fail, range) {
  const dt = t.dtype;
  if (typeof v === "boolean") return dt === "bool" ? v : dt.includes("int") ? BigInt(v) : Number(v);
  if (dt === "bool") fail();
  const isObj = v !== null && typeof v === "object" && typeof v.re === "number";
  if (dt.includes("int")) {
    if (typeof v === "number" && Number.isInteger(v)) v = BigInt(v);
    if (typeof v !== "bigint") fail();
    const [lo, hi] = INT_RANGE[dt];
    if (v < lo || v > hi) range(v);
    return v;
  }
  if (typeof v === "bigint") v = Number(v);
  if (dt.startsWith("complex")) {
    if (typeof v === "number") return { re: v, im: 0 };
    if (isObj) return { re: v.re, im: typeof v.im === "number" ? v.im : 0 };
    fail();
  }
  if (typeof v !== "number") fail();
  return v;
}

function arrayValue(v, t, fail) {
  const dt = DTYPES[t.dtype];
  let data, shape;
  if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
    if (t.ndim !== 1 || dt.complex) fail();
    data = v;
    shape = [v.length];
  } else if (v !== null && typeof v === "object" && ArrayBuffer.isView(v.data) && Array.isArray(v.shape)) {
    ({ data, shape } = v);
    if (Boolean(v.complex) !== Boolean(dt.complex)) fail();
  } else {
    fail();
  }
  if (data.constructor !== dt.Array || shape.length !== t.ndim) fail();
  if (!shape.every((d) => Number.isSafeInteger(d) && d >= 0)) fail();
  const n = shape.reduce((a, b) => a * b, 1);
  if (data.length !== n * (dt.complex ? 2 : 1)) fail(`, whose ${data.length} elements do not fill shape [${shape}]`);
  if (t.dtype === "bool" && data.some((x) => x > 1)) data = data.map((x) => (x ? 1 : 0));  // NumPy's bools are 0/1
  return { data, shape, original: v, n };
}

function flatCount(t) {
  if (t.kind === "tuple") return t.items.reduce((a, x) => a + flatCount(x), 0);
  return t.kind === "none" ? 0 : 1;
}

function cString(buffer, ptr) {
  if (!ptr) return null;
  const bytes = new Uint8Array(buffer, ptr);
  const end = bytes.indexOf(0);
  return new TextDecoder().decode(bytes.subarray(0, end < 0 ? 0 : end));
}

// Python's json.dumps(sort_keys=True) of the class features: telemetry/device.py's device_class.
function pyJson(obj) {
  const esc = (s) => JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return `{${Object.keys(obj).sort().map((k) => `${esc(k)}: ${obj[k] === null ? "null" : typeof obj[k] === "string" ? esc(obj[k]) : String(obj[k])}`).join(", ")}}`;
}

async function deviceFields(options) {
  const nav = globalThis.navigator, proc = globalThis.process;
  const node = !!(proc && proc.versions && proc.versions.node);
  const platform = (nav && nav.userAgentData && nav.userAgentData.platform) || (node ? proc.platform : "") ||
    (nav && (nav.platform || nav.userAgent)) || "";
  const p = platform.toLowerCase();
  // first match wins ("darwin" contains "win"); "web" when the browser does not say
  const os = [["android", "android"], ["iphone", "ios"], ["ipad", "ios"], ["mac", "darwin"], ["darwin", "darwin"],
    ["win", "windows"], ["cros", "chromeos"], ["chrome os", "chromeos"], ["linux", "linux"]]
    .find(([k]) => p.includes(k))?.[1] ?? "web";
  let cores = nav && Number.isInteger(nav.hardwareConcurrency) ? nav.hardwareConcurrency : null;
  if (cores === null && node) {  // Node 20 has no navigator
    const nodeOs = await import("node:os");
    cores = nodeOs.availableParallelism ? nodeOs.availableParallelism() : nodeOs.cpus().length;
  }
  const dev = {
    arch: "wasm32", os, cpu_model: null, isa_level: "simd128", isa_flags: null, cores,
    l1d_kib: null, l2_kib: null, l3_kib: null, gpu: null, runtime: node ? "node" : "web",
  };
  let deviceClass = null;
  const subtle = globalThis.crypto && globalThis.crypto.subtle;
  if (subtle) {  // absent outside secure contexts (https, localhost): device_class stays null there
    const digest = await subtle.digest("SHA-256", new TextEncoder().encode(pyJson(dev)));
    deviceClass = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("").slice(0, 12);
  }
  return { device_id: options.deviceId ?? null, device_class: deviceClass, ...dev };
}

// Streaming compilation where the server sends application/wasm, else from the bytes.
async function compileUrl(url) {
  if (url.protocol !== "file:" && typeof WebAssembly.compileStreaming === "function") {
    try {
      return await WebAssembly.compileStreaming(fetch(url));
    } catch (e) {
      if (!(e instanceof TypeError)) throw e;  // a wrong MIME type or a failed fetch: try the plain way
    }
  }
  return WebAssembly.compile(await fetchBytes(url));
}

async function fetchBytes(src) {
  if (src instanceof URL && src.protocol === "file:") {  // Node: fetch() has no file: URLs
    const fs = await import("node:fs/promises");
    return fs.readFile(src);
  }
  const resp = await fetch(src);
  if (!resp.ok) throw new Error(`cannot load ${src}: HTTP ${resp.status}`);
  return new Uint8Array(await resp.arrayBuffer());
}

// Telemetry rows or aggregates (as onTelemetry hands them) as JSON Lines for POST /v1/calls or
// /v1/aggregates (Content-Type application/x-ndjson): BigInt values (ts, start, large counts) are
// written as exact integer literals, which JSON.stringify alone refuses.
export function telemetryJSONLines(items) {
  const mark = (k, v) => (typeof v === "bigint" ? `\u0000big${v}\u0000` : v);
  return items.map((it) => JSON.stringify(it, mark).replace(/"\\u0000big(-?\d+)\\u0000"/g, "$1")).join("\n") +
    (items.length ? "\n" : "");
}

export class KernelModule {
  constructor(signature, defaultUrl) {
    this.sig = signature;
    this.symbol = `ep_call_${signature.name}`;
    this.defaultUrl = defaultUrl;
    this.loading = null;
    this.nres = flatCount(signature.result);
  }

  load(src, options) {
    if (!this.loading || src !== undefined || options !== undefined) {
      const p = this._load(src, options || {});
      this.loading = p;
      p.catch(() => {  // a failed load is not remembered: the next call tries again
        if (this.loading === p) this.loading = null;
      });
    }
    return this.loading;
  }

  async _load(src, options) {
    src = src ?? this.defaultUrl;
    if (src instanceof WebAssembly.Module) this.module = src;
    else if (ArrayBuffer.isView(src) || src instanceof ArrayBuffer) this.module = await WebAssembly.compile(src);
    else this.module = await compileUrl(src instanceof URL ? src : new URL(src, this.defaultUrl));
    this.options = options;
    this.sample = options.sample ?? 1.0;
    this.aggregateMs = 1000 * (options.aggregateSeconds ?? 5);
    this.aggStart = null;  // the pending aggregates' interval start (UNIX ns); null: none pending
    this.device = options.onTelemetry ? await deviceFields(options) : null;
    await this._instantiate();
    return this;
  }

  async _instantiate() {
    // a trap abandons the instance (its state stays readable): what it recorded goes out first
    if (this.x && this.sites && this.options.onTelemetry) this.flushTelemetry(true);
    this.aggStart = null;
    const shim = new WasiShim();
    const instance = await WebAssembly.instantiate(this.module, shim.imports(this.module));
    shim.bind(instance);
    const x = instance.exports;
    if (typeof x[this.symbol] !== "function") throw new Error(`the module exports no ${this.symbol}`);
    if (x._initialize) x._initialize();
    if (x.ep_abi_version() !== 1) throw new Error(`the module speaks C ABI ${x.ep_abi_version()}, this runtime 1`);
    this.L = {};
    LAYOUT_NAMES.forEach((k, i) => {
      this.L[k] = x.ep_layout(i);
      if (this.L[k] < 0) throw new Error(`the module has no layout entry ${k}: built by another everypath`);
    });
    this.x = x;
    this.memory = x.memory;
    this.sites = null;
    if (this.options.onTelemetry) {
      const n = x.ep_tele_configure(1, this.sample, this.options.explore ?? 0);
      this.sites = Array.from({ length: n }, (_, i) => {
        const f = (k) => cString(this.memory.buffer, x.ep_tele_site_field(i, k));
        return { function: f(0), op: f(1), call_site: f(2), dtype: f(3), variants: f(4).split(",") };
      });
    }
  }

  // arguments -> flat slots (tuples depth-first), checked against the signature
  _slots(args) {
    const name = this.sig.name, params = this.sig.params;
    if (args.length > params.length) {
      throw new TypeError(`${name}() takes ${params.length} positional argument${params.length === 1 ? "" : "s"} but ${args.length} ${args.length === 1 ? "was" : "were"} given`);
    }
    const slots = [], missing = [];
    params.forEach((p, i) => {
      let v = args[i];
      if (v === undefined) {
        if (!("default" in p)) return missing.push(`'${p.name}'`);
        v = p.default;
      }
      this._flatten(v, p.type, `'${p.name}'`, p, true, slots);
    });
    if (missing.length) throw new TypeError(`${name}() missing ${missing.length} required positional argument${missing.length === 1 ? "" : "s"}: ${missing.join(", ")}`);
    return slots;
  }

  _flatten(v, t, label, param, top, slots) {
    const fail = (extra = "") => {
      throw new TypeError(`${this.sig.name}() argument ${label}: expected ${expectedText(t, top ? param.annotation : "")}, got ${describe(v)}${extra}`);
    };
    if (t.kind === "tuple") {
      if (!Array.isArray(v) || v.length !== t.items.length) fail();
      t.items.forEach((item, i) => this._flatten(v[i], item, `${label.slice(0, -1)}[${i}]'`, param, false, slots));
    } else if (t.kind === "none") {
      if (v !== null && v !== undefined) fail();
    } else if (t.kind === "array") {
      slots.push({ kind: "array", t, mutated: param.mutated, ...arrayValue(v, t, fail) });
    } else if (t.kind === "scalar") {
      const range = (x) => {
        throw new RangeError(`${this.sig.name}() argument ${label}: integer ${x} out of bounds for ${t.dtype}`);
      };
      slots.push({ kind: "scalar", t, value: scalarValue(v, t, fail, range) });
    } else {
      throw new TypeError(`${this.sig.name}(): parameter ${label} of kind ${t.kind} cannot be passed to WASM`);
    }
  }

  async call(args) {
    if (!this.loading) this.load();
    await this.loading;
    const slots = this._slots(args);
    const L = this.L, x = this.x, VS = L.value_size;
    const nargs = slots.length, nres = this.nres;
    const al = (n) => Math.ceil(n / 16) * 16;
    const errOff = al((nargs + nres) * VS);
    let total = errOff + al(L.error_size);
    for (const s of slots) if (s.kind === "array") { s.off = total; total += al(s.data.byteLength); }
    const base = x.ep_alloc(total);
    if (!base) throw pythonError("MemoryError", `${this.sig.name}(): cannot allocate ${total} bytes of WASM memory`);
    let buf = this.memory.buffer;
    new Uint8Array(buf, base, errOff + L.error_size).fill(0);
    let dv = new DataView(buf);
    slots.forEach((s, i) => this._writeSlot(dv, buf, base, base + i * VS, s));
    const argsPtr = base, resPtr = base + nargs * VS, errPtr = base + errOff;
    let rc;
    try {
      rc = x[this.symbol](argsPtr, BigInt(nargs), resPtr, BigInt(nres), errPtr);
    } catch (e) {
      if (e instanceof WasiExit || !(e instanceof WebAssembly.RuntimeError)) throw e;
      const err = this._error(errPtr) || this._error(x.ep_last_error ? x.ep_last_error() : 0);
      this._copyBack(slots, base);
      // the trapped instance is abandoned mid-call: start afresh (later calls wait for it)
      this.loading = this._instantiate().then(() => this);
      await this.loading;
      throw err || pythonError("RuntimeError", `${this.sig.name}(): the compiled code trapped (${e.message})`);
    }
    buf = this.memory.buffer;
    dv = new DataView(buf);
    if (rc !== 0) {
      const err = this._error(errPtr);
      x.ep_free(base);
      throw err || pythonError("RuntimeError", `${this.sig.name}() failed with code ${rc}`);
    }
    this._copyBack(slots, base);
    const owners = [];
    const out = this._result(this.sig.result, { i: 0 }, resPtr, slots, base, owners);
    for (const o of owners) x.ep_release(o);
    x.ep_free(base);
    this.flushTelemetry();
    return out;
  }

  _writeSlot(dv, buf, base, at, s) {
    const L = this.L, dt = DTYPES[s.t.dtype];
    dv.setInt32(at + L.value_kind, KIND[s.kind], true);
    dv.setInt32(at + L.value_dtype, dt.code, true);
    if (s.kind === "array") {
      dv.setInt32(at + L.value_ndim, s.shape.length, true);
      let stride = dt.size;
      for (let k = s.shape.length - 1; k >= 0; --k) {
        dv.setBigInt64(at + L.value_shape + 8 * k, BigInt(s.shape[k]), true);
        dv.setBigInt64(at + L.value_strides + 8 * k, BigInt(stride), true);
        stride *= s.shape[k];
      }
      dv.setUint32(at + L.value_data, base + s.off, true);
      new Uint8Array(buf, base + s.off, s.data.byteLength).set(new Uint8Array(s.data.buffer, s.data.byteOffset, s.data.byteLength));
      return;
    }
    const p = at + L.value_scalar, v = s.value;
    switch (s.t.dtype) {
      case "bool": dv.setUint8(p, v ? 1 : 0); break;
      case "int8": dv.setInt8(p, Number(v)); break;
      case "int16": dv.setInt16(p, Number(v), true); break;
      case "int32": dv.setInt32(p, Number(v), true); break;
      case "int64": dv.setBigInt64(p, v, true); break;
      case "uint8": dv.setUint8(p, Number(v)); break;
      case "uint16": dv.setUint16(p, Number(v), true); break;
      case "uint32": dv.setUint32(p, Number(v), true); break;
      case "uint64": dv.setBigUint64(p, v, true); break;
      case "float32": dv.setFloat32(p, v, true); break;
      case "float64": dv.setFloat64(p, v, true); break;
      case "complex64": dv.setFloat32(p, v.re, true); dv.setFloat32(p + 4, v.im, true); break;
      case "complex128": dv.setFloat64(p, v.re, true); dv.setFloat64(p + 8, v.im, true); break;
    }
  }

  // in-place semantics: what the function wrote into an argument reaches the caller's array
  _copyBack(slots, base) {
    const buf = this.memory.buffer;
    for (const s of slots) {
      if (s.kind !== "array" || !s.mutated) continue;
      const target = ArrayBuffer.isView(s.original) ? s.original : s.original.data;
      new Uint8Array(target.buffer, target.byteOffset, target.byteLength).set(new Uint8Array(buf, base + s.off, s.data.byteLength));
    }
  }

  _error(ptr) {
    if (!ptr) return null;
    const dv = new DataView(this.memory.buffer), L = this.L;
    if (dv.getInt32(ptr + L.error_set, true) === 0) return null;
    const e = pythonError(cString(this.memory.buffer, ptr + L.error_type), cString(this.memory.buffer, ptr + L.error_message));
    return withTrace(e, traceAfterMessage(this.memory.buffer, ptr + L.error_message, L.error_size - L.error_message));
  }

  _scalar(dv, p, dtype) {
    const big = (v) => (v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v);
    switch (dtype) {
      case "bool": return dv.getUint8(p) !== 0;
      case "int8": return dv.getInt8(p);
      case "int16": return dv.getInt16(p, true);
      case "int32": return dv.getInt32(p, true);
      case "int64": return big(dv.getBigInt64(p, true));
      case "uint8": return dv.getUint8(p);
      case "uint16": return dv.getUint16(p, true);
      case "uint32": return dv.getUint32(p, true);
      case "uint64": return big(dv.getBigUint64(p, true));
      case "float32": return dv.getFloat32(p, true);
      case "float64": return dv.getFloat64(p, true);
      case "complex64": return { re: dv.getFloat32(p, true), im: dv.getFloat32(p + 4, true) };
      case "complex128": return { re: dv.getFloat64(p, true), im: dv.getFloat64(p + 8, true) };
    }
    throw pythonError("RuntimeError", `internal error: scalar of dtype ${dtype}`);
  }

  _result(t, pos, resPtr, slots, base, owners) {
    if (t.kind === "none") return undefined;
    if (t.kind === "tuple") return t.items.map((item) => this._result(item, pos, resPtr, slots, base, owners));
    const L = this.L, at = resPtr + pos.i++ * L.value_size, buf = this.memory.buffer, dv = new DataView(buf);
    const kind = dv.getInt32(at + L.value_kind, true), code = dv.getInt32(at + L.value_dtype, true);
    const want = t.kind === "list" ? t.elem : t;
    const bad = () => pythonError("RuntimeError", `internal error: ${this.sig.name}() returned kind ${kind} dtype ${code} where ${t.kind} ${want.dtype} was expected`);
    if (t.kind === "scalar") {
      if (kind !== KIND.scalar || code !== DTYPES[t.dtype].code) throw bad();
      return this._scalar(dv, at + L.value_scalar, t.dtype);
    }
    if (kind !== KIND.array || code !== DTYPES[want.dtype].code) throw bad();
    const ndim = dv.getInt32(at + L.value_ndim, true);
    const shape = [], strides = [];
    for (let k = 0; k < ndim; ++k) {
      shape.push(Number(dv.getBigInt64(at + L.value_shape + 8 * k, true)));
      strides.push(Number(dv.getBigInt64(at + L.value_strides + 8 * k, true)));
    }
    const data = dv.getUint32(at + L.value_data, true), owner = dv.getUint32(at + L.value_owner, true);
    if (owner) owners.push(owner);
    const dt = DTYPES[want.dtype];
    if (t.kind === "list") {
      return Array.from({ length: shape[0] }, (_, i) => this._scalar(dv, data + i * strides[0], want.dtype));
    }
    if (ndim !== t.ndim) throw bad();
    if (!owner) {  // borrowed: the argument itself comes back as the caller's own array
      for (const s of slots) {
        if (s.kind !== "array" || base + s.off !== data || s.shape.length !== ndim) continue;
        let c = dt.size, same = true;
        for (let k = ndim - 1; k >= 0; --k) { same = same && s.shape[k] === shape[k] && strides[k] === c; c *= shape[k]; }
        if (same) return this._wrap(ArrayBuffer.isView(s.original) ? s.original : s.original.data, shape, want.dtype);
      }
    }
    const n = shape.reduce((a, b) => a * b, 1);
    const out = new dt.Array(n * (dt.complex ? 2 : 1));
    const dst = new Uint8Array(out.buffer), src = new Uint8Array(buf);
    const idx = new Array(ndim).fill(0);
    for (let e = 0, off = data; e < n; ++e) {  // C-order gather over any strides (negative, zero)
      dst.set(src.subarray(off, off + dt.size), e * dt.size);
      for (let k = ndim - 1; k >= 0; --k) {
        off += strides[k];
        if (++idx[k] < shape[k]) break;
        off -= strides[k] * shape[k];
        idx[k] = 0;
      }
    }
    return this._wrap(out, shape, want.dtype);
  }

  _wrap(data, shape, dtype) {
    const r = { data, shape, dtype };
    if (dtype === "bool") r.bool = true;
    if (DTYPES[dtype].complex) r.complex = true;
    return r;
  }

  // rows of the lake's calls schema for every record since the last flush, and (every
  // aggregateMs, or now with `aggregates` true) the aggregates of every call, to onTelemetry
  flushTelemetry(aggregates = false) {
    if (!this.x || !this.sites || !this.options.onTelemetry) return [];
    const x = this.x, L = this.L, n = x.ep_tele_drain();
    if (this.aggStart === null) this.aggStart = nowNs();
    const now = nowNs();
    const aggs = aggregates || now - this.aggStart >= BigInt(this.aggregateMs) * 1000000n ? this._aggregates(now) : [];
    if (n === 0 && aggs.length === 0) return [];
    const dv = new DataView(this.memory.buffer), p0 = x.ep_tele_rows(), rows = [];
    for (let i = 0; i < n; ++i) {
      const p = p0 + i * L.row_size, site = this.sites[dv.getInt32(p + L.row_site, true)];
      const ndim = Math.min(dv.getInt8(p + L.row_ndim), 4), table = dv.getInt16(p + L.row_table, true);
      rows.push({
        ts: dv.getBigInt64(p + L.row_ts, true), function: site.function, bundle_id: this.options.bundleId ?? null,
        bundle_version: this.options.bundleVersion ?? null, op: site.op, call_site: site.call_site,
        variant: site.variants[dv.getInt16(p + L.row_variant, true)], dtype: site.dtype,
        shape: Array.from({ length: ndim }, (_, k) => Number(dv.getBigInt64(p + L.row_shape + 8 * k, true))),
        n_elements: Number(dv.getBigInt64(p + L.row_n_elements, true)),
        latency_ns: Number(dv.getBigInt64(p + L.row_latency, true)), threads: dv.getInt16(p + L.row_threads, true),
        explore: dv.getUint8(p + L.row_explore) !== 0, propensity: dv.getFloat32(p + L.row_propensity, true),
        table_version: table ? cString(this.memory.buffer, x.ep_tele_table_version(table)) : null,
        inclusion: dv.getFloat32(p + L.row_inclusion, true),
        third_dim: null,  // a product's inner dimension: the web shim does not record it yet (docs/telemetry.md)
        ...this.device,
      });
    }
    try {
      this.options.onTelemetry(rows, aggs);
    } catch (e) {
      console.error("everypath: the onTelemetry callback failed:", e);
    }
    return rows;
  }

  // the aggregates merged since the last take, as rows of the lake's aggregates table (interval
  // aggStart .. now); counts are exact, min/max those of the timed calls (0 where none was timed)
  _aggregates(now) {
    const x = this.x, L = this.L, k = x.ep_tele_take_aggregates(), start = this.aggStart;
    this.aggStart = now;
    if (k === 0) return [];
    const buf = this.memory.buffer, dv = new DataView(buf), p0 = x.ep_tele_aggs();
    const bins = x.ep_tele_agg_bins(), counts = x.ep_tele_agg_counts(), out = [];
    const num = (v) => (v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v);
    for (let i = 0; i < k; ++i) {
      const p = p0 + i * L.agg_size, site = this.sites[dv.getInt32(p + L.agg_site, true)];
      const off = dv.getInt32(p + L.agg_bin_offset, true), nb = dv.getInt32(p + L.agg_nbins, true);
      out.push({
        ts: now, start, function: site.function, bundle_id: this.options.bundleId ?? null,
        bundle_version: this.options.bundleVersion ?? null, op: site.op, call_site: site.call_site,
        variant: site.variants[dv.getInt16(p + L.agg_variant, true)], dtype: site.dtype,
        size_bucket: dv.getUint8(p + L.agg_bucket), count: num(dv.getBigInt64(p + L.agg_count, true)),
        timed: num(dv.getBigInt64(p + L.agg_timed, true)), sum_ns: num(dv.getBigInt64(p + L.agg_sum, true)),
        min_ns: num(dv.getBigInt64(p + L.agg_min, true)), max_ns: num(dv.getBigInt64(p + L.agg_max, true)),
        hist_bin: Array.from(new Int32Array(buf, bins + 4 * off, nb)),
        hist_count: Array.from(new BigInt64Array(buf, counts + 8 * off, nb), num),
        ...this.device,
      });
    }
    return out;
  }
}

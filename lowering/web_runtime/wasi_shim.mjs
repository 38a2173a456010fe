// A minimal WASI (wasi_snapshot_preview1) for everypath's reactor modules, in browsers and Node.js alike.
//
// zig's wasi-libc pulls in only a handful of imports for a compiled function (fd_write, fd_close,
// fd_seek, clock_time_get; random_get, proc_exit, environ/args where libc++ asks): those are
// implemented here, plus the few libc calls at start-up (fd_fdstat_get, fd_prestat_get for the
// preopen scan) with the errno a system without files gives. Anything else the module imports gets
// a stub returning ENOSYS, so instantiation never fails on an import nobody calls. No file system:
// stdout/stderr go to the console (process.stdout/stderr in Node), stdin is empty.

export const WASI_ERRNO = { SUCCESS: 0, BADF: 8, INVAL: 28, NOSYS: 52, SPIPE: 70 };

// the imports implemented below (everything else in wasi_snapshot_preview1 answers ENOSYS)
export const WASI_IMPLEMENTED = [
  "args_get", "args_sizes_get", "clock_res_get", "clock_time_get", "environ_get", "environ_sizes_get",
  "fd_close", "fd_fdstat_get", "fd_prestat_dir_name", "fd_prestat_get", "fd_read", "fd_seek", "fd_write",
  "proc_exit", "random_get", "sched_yield",
];

// proc_exit unwinds the wasm stack with this (there is no process to end).
export class WasiExit extends Error {
  constructor(code) {
    super(`the module called proc_exit(${code})`);
    this.name = "WasiExit";
    this.code = code;
  }
}

function nowRealtimeNs() {
  const perf = globalThis.performance;
  const ms = perf && perf.timeOrigin ? perf.timeOrigin + perf.now() : Date.now();
  return BigInt(Math.round(ms * 1e6));
}

function nowMonotonicNs() {
  const perf = globalThis.performance;
  return BigInt(Math.round((perf ? perf.now() : Date.now()) * 1e6));
}

// A line-buffered console sink per stdio fd: console.log/error want whole lines.
class LineSink {
  constructor(fd) {
    this.fd = fd;
    this.pending = "";
    this.decoder = new TextDecoder();
  }
  write(bytes) {
    const proc = globalThis.process;
    const stream = proc && (this.fd === 1 ? proc.stdout : proc.stderr);
    if (stream && typeof stream.write === "function") {  // Node: the process's own stream
      stream.write(bytes.slice());
      return;
    }
    this.pending += this.decoder.decode(bytes, { stream: true });
    let nl;
    while ((nl = this.pending.indexOf("\n")) >= 0) {
      (this.fd === 1 ? console.log : console.error)(this.pending.slice(0, nl));
      this.pending = this.pending.slice(nl + 1);
    }
  }
}

export class WasiShim {
  constructor() {
    this.memory = null;  // set once the instance exists (bind)
    this.sinks = { 1: new LineSink(1), 2: new LineSink(2) };
    this.warned = new Set();
  }

  bind(instance) {
    this.memory = instance.exports.memory;
  }

  view() {
    return new DataView(this.memory.buffer);  // fresh each time: memory.grow detaches old buffers
  }

  // The import object for `module`: wasi_snapshot_preview1 with a stub for anything unimplemented.
  imports(module) {
    const wasi = this.functions();
    for (const imp of WebAssembly.Module.imports(module)) {
      if (imp.module !== "wasi_snapshot_preview1" || imp.kind !== "function" || imp.name in wasi) continue;
      wasi[imp.name] = () => {
        if (!this.warned.has(imp.name)) {
          this.warned.add(imp.name);
          console.warn(`everypath WASI shim: ${imp.name} is not implemented (ENOSYS)`);
        }
        return WASI_ERRNO.NOSYS;
      };
    }
    return { wasi_snapshot_preview1: wasi };
  }

  functions() {
    const E = WASI_ERRNO;
    const stdio = (fd) => fd === 0 || fd === 1 || fd === 2;
    return {
      args_sizes_get: (argc, bufSize) => {
        const v = this.view();
        v.setUint32(argc, 0, true);
        v.setUint32(bufSize, 0, true);
        return E.SUCCESS;
      },
      args_get: () => E.SUCCESS,
      environ_sizes_get: (count, bufSize) => {
        const v = this.view();
        v.setUint32(count, 0, true);
        v.setUint32(bufSize, 0, true);
        return E.SUCCESS;
      },
      environ_get: () => E.SUCCESS,
      clock_res_get: (id, out) => {
        if (id > 3) return E.INVAL;
        this.view().setBigUint64(out, 1000n, true);
        return E.SUCCESS;
      },
      // 0 realtime, 1 monotonic, 2/3 process/thread CPU time (the monotonic clock stands in)
      clock_time_get: (id, _precision, out) => {
        if (id > 3) return E.INVAL;
        this.view().setBigUint64(out, id === 0 ? nowRealtimeNs() : nowMonotonicNs(), true);
        return E.SUCCESS;
      },
      fd_write: (fd, iovs, iovsLen, nwritten) => {
        const sink = this.sinks[fd];
        if (!sink) return E.BADF;
        const v = this.view();
        let total = 0;
        for (let i = 0; i < iovsLen; ++i) {
          const ptr = v.getUint32(iovs + 8 * i, true), len = v.getUint32(iovs + 8 * i + 4, true);
          sink.write(new Uint8Array(this.memory.buffer, ptr, len));
          total += len;
        }
        this.view().setUint32(nwritten, total, true);
        return E.SUCCESS;
      },
      fd_read: (fd, _iovs, _iovsLen, nread) => {  // stdin is empty
        if (fd !== 0) return E.BADF;
        this.view().setUint32(nread, 0, true);
        return E.SUCCESS;
      },
      fd_close: (fd) => (stdio(fd) ? E.SUCCESS : E.BADF),
      fd_seek: (fd) => (stdio(fd) ? E.SPIPE : E.BADF),
      fd_fdstat_get: (fd, out) => {  // stdio: character devices (no rights needed to write)
        if (!stdio(fd)) return E.BADF;
        const v = this.view();
        v.setUint8(out, 2);  // filetype CHARACTER_DEVICE
        v.setUint16(out + 2, 0, true);  // fdflags
        v.setBigUint64(out + 8, 0xffffffffffffffffn, true);  // rights base
        v.setBigUint64(out + 16, 0xffffffffffffffffn, true);  // rights inheriting
        return E.SUCCESS;
      },
      fd_prestat_get: () => E.BADF,  // no preopened directories: ends libc's scan at fd 3
      fd_prestat_dir_name: () => E.BADF,
      random_get: (buf, len) => {
        const bytes = new Uint8Array(this.memory.buffer, buf, len);
        for (let i = 0; i < len; i += 65536) globalThis.crypto.getRandomValues(bytes.subarray(i, Math.min(len, i + 65536)));
        return E.SUCCESS;
      },
      sched_yield: () => E.SUCCESS,
      proc_exit: (code) => {
        throw new WasiExit(code);
      },
    };
  }
}

"""The headers on targets without OpenMP or C++ exceptions (cross targets built with zig).

* The threads path's std::thread pool (paths/threads/pool.hpp), used when a build has no
  -fopenmp: its primitives directly, and a generated unit whose every operator runs on the
  threads path, built with and without OpenMP: both agree bit for bit and with NumPy; (slow)
  test_threads_paths.py's axis-kernel cases on the pool.
* The no-exception contract (abi.h): a unit built with -fno-exceptions -DEP_NO_EXCEPTIONS=1
  reports a raised Python exception through the error slot, the raise handler and a trap.
* (slow) Representative corpus kernels build with zig for aarch64-linux-musl and wasm32-wasi
  (tests/variants/portable_build.py builds the whole corpus for every target); under wasmtime
  the wasm build of a raising kernel traps with the error in its slot.
"""
from __future__ import annotations

import re
import shutil
import signal
import subprocess
from pathlib import Path

import numpy as np
import pytest

import everypath
from everypath.base.settings import Settings
from tests.variants import portable_build as pb

ROOT = Path(__file__).resolve().parents[2]
INCLUDE = ROOT / "variants" / "include"
FLAGS = ["-std=c++20", "-O2", "-fwrapv", "-fno-math-errno", "-ffp-contract=off", "-w", f"-I{INCLUDE}"]

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is required")

F1 = np.ndarray[tuple[int], np.dtype[np.float64]]
F2 = np.ndarray[tuple[int, int], np.dtype[np.float64]]
I1 = np.ndarray[tuple[int], np.dtype[np.int64]]


def _gxx(src: Path, exe: Path, *flags: str) -> None:
    proc = subprocess.run(["g++", *FLAGS, *flags, str(src), "-o", str(exe)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-6000:]


# ---- the pool's primitives -------------------------------------------------------------------

POOL_CHECK = r'''
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <everypath/array.hpp>
#include <everypath/paths/threads/pool.hpp>

#define CHECK(c) do { if (!(c)) { std::printf("FAIL line %d: %s\n", __LINE__, #c); return 1; } } while (0)

using ep::threads::parallel;

int main() {
#if defined(_OPENMP)
  std::printf("FAIL: built with OpenMP\n");
  return 1;
#endif
  CHECK(ep::threads::max_threads() == std::atoi(std::getenv("EVERYPATH_THREADS")));
  const auto caller = std::this_thread::get_id();
  for (int nt : {1, 2, 3, 7, 16}) {  // every share once: share 0 on the caller, the others on workers
    std::vector<std::atomic<int>> hits(nt);
    std::vector<std::thread::id> who(nt);
    parallel(nt, [&](int t) {
      hits[t]++;
      who[t] = std::this_thread::get_id();
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    });
    for (int t = 0; t < nt; ++t) CHECK(hits[t] == 1);
    CHECK(who[0] == caller);
    CHECK(static_cast<int>(std::set<std::thread::id>(who.begin(), who.end()).size()) == nt);
  }
  {  // nested regions run serially on the thread that starts them, in share order
    std::vector<std::atomic<int>> hits(4 * 5);
    std::atomic<int> bad{0};
    parallel(4, [&](int t) {
      const auto me = std::this_thread::get_id();
      int last = -1;
      parallel(5, [&](int u) {
        if (std::this_thread::get_id() != me || u != last + 1) bad++;
        last = u;
        hits[t * 5 + u]++;
      });
    });
    CHECK(bad == 0);
    for (auto& h : hits) CHECK(h == 1);
  }
  {  // an exception on a worker reaches the caller after every share finished; the pool still works
    std::atomic<int> done{0};
    bool caught = false;
    try {
      parallel(4, [&](int t) {
        if (t == 2) ep::raise("ValueError", "share 2 failed");
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        done++;
      });
    } catch (const ep::PyError& e) {
      caught = std::string(e.type) == "ValueError" && e.message == "share 2 failed";
    }
    CHECK(caught);
    CHECK(done == 3);
    caught = false;
    try {
      parallel(3, [&](int t) { if (t == 0) throw std::runtime_error("caller share"); });
    } catch (const std::runtime_error& e) {
      caught = std::string(e.what()) == "caller share";
    }
    CHECK(caught);
    std::atomic<int> n{0};
    parallel(4, [&](int) { n++; });
    CHECK(n == 4);
  }
  {  // two calling threads at once: both complete (the one finding the pool busy runs serially)
    std::atomic<long> total{0};
    auto work = [&] {
      for (int r = 0; r < 200; ++r) parallel(3, [&](int t) { total += t + 1; });
    };
    std::thread a(work), b(work);
    a.join();
    b.join();
    CHECK(total == 2L * 200 * 6);
  }
  {  // parallel_for: every index once; OpenMP's static split (the first n % nt threads one more)
    for (int64_t n : {0, 1, 5, 17, 1000}) {
      std::vector<std::atomic<int>> hits(static_cast<size_t>(n) + 1);
      ep::threads::parallel_for(3, 3 + n, 4, [&](int64_t i) { hits[static_cast<size_t>(i - 3)]++; });
      for (int64_t i = 0; i < n; ++i) CHECK(hits[static_cast<size_t>(i)] == 1);
    }
    int64_t at = 0;
    for (int t = 0; t < 4; ++t) {
      const auto r = ep::threads::static_range(10, t, 4);
      CHECK(r.lo == at && r.hi - r.lo == (t < 2 ? 3 : 2));
      at = r.hi;
    }
  }
  {  // many short regions back to back: workers sleep and wake every time
    std::atomic<long> s{0};
    for (int r = 0; r < 2000; ++r) parallel(4, [&](int t) { s += t; });
    CHECK(s == 2000L * 6);
  }
  std::printf("ok\n");
  return 0;
}
'''


@needs_gxx
def test_pool_primitives_without_openmp(tmp_path: Path) -> None:
    src = tmp_path / "pool_check.cpp"
    src.write_text(POOL_CHECK)
    exe = tmp_path / "pool_check"
    _gxx(src, exe, "-DEP_HAVE_THREADS=1", "-pthread")
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120,
                         env={"EVERYPATH_THREADS": "5", "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stdout + run.stderr


# ---- a generated unit on the threads path, with and without OpenMP ----------------------------

def threaded(x: F1, a: F2, v: I1):
    w = a.copy()
    w.sort(axis=0)
    return (np.sum(x), np.max(x), np.sort(x), np.argsort(x, kind="stable"), np.cumsum(v), a @ a,
            np.exp(x) * 0.5 + 1.0, a.sum(axis=0), np.argmax(a, axis=1), np.cumsum(a, axis=0), w, np.sum(v))


def _reference(x: np.ndarray, a: np.ndarray, v: np.ndarray) -> list[np.ndarray]:
    w = np.sort(a, axis=0)
    return [np.asarray(r) for r in (np.sum(x), np.max(x), np.sort(x), np.argsort(x, kind="stable"), np.cumsum(v),
                                    a @ a, np.exp(x) * 0.5 + 1.0, a.sum(axis=0), np.argmax(a, axis=1),
                                    np.cumsum(a, axis=0), w, np.sum(v))]


DRIVER = r'''
#include "unit.cpp"
#include <cstdio>
#include <string>

template <class T, int N>
ep::Array<T, N> load(const std::string& path, std::array<ep::index_t, N> shape) {
  auto a = ep::empty<T, N>(shape);
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f || std::fread(a.data, sizeof(T), static_cast<size_t>(a.size()), f) != static_cast<size_t>(a.size())) std::exit(3);
  std::fclose(f);
  return a;
}

static std::string dir;
static int count = 0;

static std::FILE* next_file() { return std::fopen((dir + "/r" + std::to_string(count++) + ".bin").c_str(), "wb"); }
template <class T>
void dump(const T& x) {
  std::FILE* f = next_file();
  std::fwrite(&x, sizeof(T), 1, f);
  std::fclose(f);
}
template <class T, int N>
void dump(const ep::Array<T, N>& a) {
  std::FILE* f = next_file();
  ep::for_each_offset(a, [&](ep::index_t o) { std::fwrite(a.data + o, sizeof(T), 1, f); });
  std::fclose(f);
}

int main(int argc, char** argv) {
  dir = argv[2];
  const std::string in = argv[1];
  auto x = load<double, 1>(in + "/x.bin", {NX});
  auto a = load<double, 2>(in + "/a.bin", {NA, NA});
  auto v = load<int64_t, 1>(in + "/v.bin", {NX});
  auto r = SYMBOL(x, a, v);
  std::apply([](const auto&... e) { (dump(e), ...); }, r);
  return 0;
}
'''


@needs_gxx
def test_threads_unit_without_openmp_matches_openmp_and_numpy(tmp_path: Path) -> None:
    settings = Settings.from_env({"EVERYPATH_TELEMETRY": "0", "EVERYPATH_FORCE_PATH": "threads"})
    src = everypath.compile(threaded, settings=settings).cpp_source
    for op in ("threads::sum_all", "threads::sort<", "threads::argsort<", "threads::cumsum_flat", "path::threads",
               "threads::map<", "threads::sum_axes", "threads::argmax_axis", "threads::cumsum_axis",
               "threads::sort_inplace"):
        assert op in src, op
    symbol = re.search(r"static \S.* (threaded__\d+)\(", src).group(1)  # type: ignore[union-attr]
    nx, na = 400_003, 301  # above every split threshold at 3 threads; odd sizes split unevenly
    (tmp_path / "unit.cpp").write_text(src)
    (tmp_path / "main.cpp").write_text(DRIVER.replace("SYMBOL", symbol).replace("NX", str(nx)).replace("NA", str(na)))
    rng = np.random.default_rng(7)
    x = rng.standard_normal(nx)
    x[rng.random(nx) < 0.05] = 0.25  # ties for the stable argsort
    a = rng.standard_normal((na, na))
    v = rng.integers(-1000, 1000, nx)
    for name, arr in (("x", x), ("a", a), ("v", v)):
        arr.tofile(tmp_path / f"{name}.bin")
    # -O3 as host builds (both builds then vectorise exp through libmvec alike); the two-pass
    # integer prefix from 2^16 elements
    common = ["-O3", "-DEP_THREADS_MIN_PREFIX=65536"]
    builds = {"pool": ("-pthread",), "openmp": ("-fopenmp",)}
    outs: dict[str, list[bytes]] = {}
    for kind, flags in builds.items():
        exe = tmp_path / f"prog_{kind}"
        _gxx(tmp_path / "main.cpp", exe, *common, *flags)
        out = tmp_path / f"out_{kind}"
        out.mkdir()
        env = {"PATH": "/usr/bin:/bin", "EVERYPATH_THREADS": "3", "OMP_NUM_THREADS": "3", "OMP_WAIT_POLICY": "passive"}
        run = subprocess.run([str(exe), str(tmp_path), str(out)], capture_output=True, text=True, timeout=300, env=env)
        assert run.returncode == 0, run.stderr
        outs[kind] = [(out / f"r{i}.bin").read_bytes() for i in range(12)]
    # the same static partitioning: bit-identical results, float sums included
    for i, (p, o) in enumerate(zip(outs["pool"], outs["openmp"])):
        assert p == o, f"result {i}: the pool build differs from the OpenMP build"
    for i, want in enumerate(_reference(x, a, v)):
        got = np.frombuffer(outs["pool"][i], dtype=want.dtype).reshape(want.shape)
        if want.dtype.kind == "f" and i in (0, 5, 6, 7):  # regrouped sums, matmul, exp: close
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=f"result {i}")
        else:
            np.testing.assert_array_equal(got, want, err_msg=f"result {i}")


# ---- the axis kernels (reduce_axis, scan, sort) on the pool, against NumPy ------------------------

@pytest.mark.slow
@needs_gxx
@pytest.mark.parametrize("family", ["reductions", "scans", "sorts"])
def test_threads_axis_kernels_on_the_pool(family: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """test_threads_paths.py's cases, built without -fopenmp and run on 3 pool threads."""
    from tests.variants import test_threads_paths as tp
    from tests.variants._sortkit import Kit, run_kit

    class PoolKit(tp.ThreadsKit):
        def run(self, tmp: Path, opt: str = "-O1", extra_flags: tuple[str, ...] = ()) -> dict[str, list[str]]:
            return Kit.run(self, tmp, opt, (*extra_flags, "-pthread", "-DEP_HAVE_THREADS=1",
                                            "-DEP_THREADS_MIN_PREFIX=65536"))

    monkeypatch.setenv("EVERYPATH_THREADS", "3")
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    p = PoolKit(f"pool_{family}", tmp_path)
    {"reductions": tp._reduction_cases, "scans": tp._scan_cases, "sorts": tp._sort_cases}[family](p)
    run_kit(p, tmp_path)


# ---- the no-exception contract -----------------------------------------------------------------

def checked_root(x: float) -> float:
    if x < 0.0:
        raise ValueError("negative input")
    return x ** 0.5


ERR_DRIVER = r'''
#include "unit.cpp"
#include <cstdio>
#include <cstdlib>
#include <cstring>

extern "C" const ep_error* ep_last_error(void);
extern "C" void ep_clear_error(void);

static ep_error call_err;

static void report(const ep_error* e) {  // the slot and the call's err both hold the error
  const ep_error* slot = ep_last_error();
  std::printf("handler %d %s|%s|%d %s|%s\n", slot == e, e->type, e->message, call_err.set, call_err.type,
              call_err.message);
  std::fflush(stdout);
  std::_Exit(7);
}

int main(int argc, char** argv) {
  const char* mode = argv[1];
  ep_value arg{}, res{};
  arg.kind = EP_KIND_SCALAR;
  arg.dtype = EP_FLOAT64;
  arg.scalar.f64 = std::atof(argv[2]);
  if (std::strcmp(mode, "slot") == 0) ep::set_raise_handler(report);
  if (std::strcmp(mode, "print") == 0) ep::set_raise_handler(ep::print_error_and_exit);
  if (ep_last_error()->set != 0) return 5;
  const int rc = ep_call_checked_root(&arg, 1, &res, 1, &call_err);
  std::printf("rc %d %.3f\n", rc, res.scalar.f64);
  return 0;
}
'''


@needs_gxx
def test_no_exceptions_errors_go_to_the_slot_and_trap(tmp_path: Path) -> None:
    settings = Settings.from_env({"EVERYPATH_TELEMETRY": "0", "EVERYPATH_PATHS": "loops"})
    src = everypath.compile(checked_root, settings=settings).cpp_source
    (tmp_path / "unit.cpp").write_text(src)
    (tmp_path / "main.cpp").write_text(ERR_DRIVER)
    exe = tmp_path / "prog"
    _gxx(tmp_path / "main.cpp", exe, "-fno-exceptions", "-DEP_NO_EXCEPTIONS=1")

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=60)

    ok = run("slot", "6.25")
    assert ok.returncode == 0 and ok.stdout.strip() == "rc 0 2.500", ok.stdout + ok.stderr
    slot = run("slot", "-1")
    assert slot.returncode == 7 and slot.stdout.strip() == "handler 1 ValueError|negative input|1 ValueError|negative input"
    printed = run("print", "-1")
    line = checked_root.__code__.co_firstlineno + 2  # the raise: Python's traceback entry, then the error
    assert printed.returncode == 1 and printed.stdout == "" and printed.stderr == (
        f'Traceback (most recent call last):\n  File "{__file__}", line {line}, in checked_root\n'
        "ValueError: negative input\n")
    trapped = run("trap", "-1")  # no handler: __builtin_trap (SIGILL on x86-64, SIGTRAP on arm64)
    assert trapped.returncode in (-signal.SIGILL, -signal.SIGTRAP), (trapped.returncode, trapped.stderr)
    # units built with exceptions do not export the slot
    ref = subprocess.run(["g++", *FLAGS, "-fPIC", "-shared", str(tmp_path / "unit.cpp"), "-o", str(tmp_path / "u.so")],
                         capture_output=True, text=True)
    assert ref.returncode == 0, ref.stderr
    syms = subprocess.run(["nm", "-D", "--defined-only", str(tmp_path / "u.so")], capture_output=True, text=True).stdout
    assert "ep_call_checked_root" in syms and "ep_last_error" not in syms


# ---- (slow) corpus kernels for aarch64-linux-musl and wasm32-wasi --------------------------------

# a loop kernel, a fused whole-array kernel, a reduction, a sort (np.sort), one that raises
REPRESENTATIVE = ("jacobi_loops", "black_scholes", "logsumexp", "binary_search", "gauss_solve")
CROSS = ("aarch64-linux-musl", "wasm32-wasi")


@pytest.mark.slow
@pytest.mark.skipif(not pb.zig_available(), reason="ziglang (PyPI) is not installed: no cross compiler")
def test_representative_kernels_build_for_cross_targets(tmp_path: Path) -> None:
    failures = []
    for k in pb.load_kernels(REPRESENTATIVE):
        for r in pb.build_function(k.entry, CROSS, tmp_path / k.name, k.name):
            if not r.ok:
                failures.append(f"{k.name} for {r.target}:\n{r.log[-4000:]}")
            elif r.target == "wasm32-wasi":
                assert r.output is not None and r.output.read_bytes()[:4] == b"\0asm"
            else:
                assert r.output is not None and r.output.read_bytes()[:4] == b"\x7fELF"
    assert not failures, "\n\n".join(failures)


WASM_ERR = r'''
#include "unit.cpp"
// one call of the kernel: 0 on success; a raised exception traps (abi.h)
EP_EXPORT int ep_test_call(double x) {
  static ep_value arg, res;
  static ep_error err;
  arg.kind = EP_KIND_SCALAR;
  arg.dtype = EP_FLOAT64;
  arg.scalar.f64 = x;
  return ep_call_checked_root(&arg, 1, &res, 1, &err);
}
'''


@pytest.mark.slow
@pytest.mark.skipif(not pb.zig_available(), reason="ziglang (PyPI) is not installed: no cross compiler")
def test_wasm_raise_traps_with_the_error_in_the_slot(tmp_path: Path) -> None:
    wasmtime = pytest.importorskip("wasmtime", reason="wasmtime (PyPI) runs the wasm module")
    src = pb.unit_source(checked_root, "loops")
    (tmp_path / "unit.cpp").write_text(src)
    r = pb.build(WASM_ERR, "wasm32-wasi", tmp_path, "err")
    assert r.ok, r.log
    engine = wasmtime.Engine()
    store = wasmtime.Store(engine)
    linker = wasmtime.Linker(engine)
    linker.define_wasi()
    store.set_wasi(wasmtime.WasiConfig())
    inst = linker.instantiate(store, wasmtime.Module.from_file(engine, str(r.output)))
    ex = inst.exports(store)
    if "_initialize" in ex:
        ex["_initialize"](store)
    assert ex["ep_test_call"](store, 4.0) == 0
    assert ex["ep_last_error"](store) != 0 and _slot(store, ex)["set"] == 0
    with pytest.raises(wasmtime.Trap):
        ex["ep_test_call"](store, -1.0)
    slot = _slot(store, ex)
    assert slot == {"set": 1, "type": "ValueError", "message": "negative input"}
    ex["ep_clear_error"](store)
    assert _slot(store, ex)["set"] == 0


def _slot(store, ex) -> dict:
    mem = ex["memory"]
    at = ex["ep_last_error"](store)
    raw = bytes(mem.read(store, at, at + 4 + 64 + 1024))
    return {"set": int.from_bytes(raw[:4], "little"), "type": raw[4:68].split(b"\0")[0].decode(),
            "message": raw[68:].split(b"\0")[0].decode()}


def step(x: F1):
    return np.tanh(x) * 0.5 + 1.0


WASM_STANDALONE = r'''
#include "unit.cpp"
#include <everypath/telemetry_standalone.hpp>
#include <cstdio>

int main() {
  ep::set_raise_handler(ep::print_error_and_exit);
  ep::tele::SpoolHost host;  // no background thread on wasm: poll() writes the records so far
  if (ep_telemetry_attach(host.hub()) != 1) return 3;
  if (!host.start("/out/run.spool", 1.0, 0.0, 20)) {
    std::fprintf(stderr, "spool: %s\n", host.error().c_str());
    return 4;
  }
  auto x = ep::empty<double, 1>({1000});
  for (int i = 0; i < 1000; ++i) x.data[i] = i * 0.001;
  double check = 0;
  for (int i = 0; i < 50; ++i) {
    auto r = SYMBOL(x);
    check += r.data[3];
    host.poll();
  }
  host.stop();
  std::printf("%.6f\n", check);
  std::fflush(stdout);
  ep::empty<double, 1>({-1});  // ValueError: the handler prints it and exits 1
  return 0;
}
'''


@pytest.mark.slow
@pytest.mark.skipif(not pb.zig_available(), reason="ziglang (PyPI) is not installed: no cross compiler")
def test_wasm_standalone_program_spools_and_reports_errors(tmp_path: Path) -> None:
    """A WASI command (no threads, no exceptions) records calls into a spool through SpoolHost
    and reports a raised exception through its handler."""
    wasmtime = pytest.importorskip("wasmtime", reason="wasmtime (PyPI) runs the wasm module")
    from everypath.telemetry.spool import read

    src = pb.unit_source(step, "loops")
    symbol = re.search(r"static \S.* (step__\d+)\(", src).group(1)  # type: ignore[union-attr]
    (tmp_path / "unit.cpp").write_text(src)
    wasi = pb.Target("wasm32-wasi", ("-mcpu=generic+simd128", "-fno-exceptions", "-DEP_NO_EXCEPTIONS=1"), "loops",
                     ".wasm")  # a command: main() is its _start
    r = pb.build(WASM_STANDALONE.replace("SYMBOL", symbol), wasi, tmp_path, "prog")
    assert r.ok, r.log
    out = tmp_path / "out"
    out.mkdir()
    engine = wasmtime.Engine()
    store = wasmtime.Store(engine)
    linker = wasmtime.Linker(engine)
    linker.define_wasi()
    cfg = wasmtime.WasiConfig()
    cfg.preopen_dir(str(out), "/out")
    cfg.stdout_file = str(tmp_path / "stdout.txt")
    cfg.stderr_file = str(tmp_path / "stderr.txt")
    store.set_wasi(cfg)
    inst = linker.instantiate(store, wasmtime.Module.from_file(engine, str(r.output)))
    with pytest.raises(wasmtime.ExitTrap) as exit_:
        inst.exports(store)["_start"](store)
    assert exit_.value.code == 1
    err = (tmp_path / "stderr.txt").read_text()
    assert err.strip().splitlines()[-1] == "ValueError: negative dimensions are not allowed"
    assert err.startswith('Traceback (most recent call last):\n  File "'), err  # the user's line comes first
    want = 50 * (np.tanh(0.003) * 0.5 + 1.0)
    assert abs(float((tmp_path / "stdout.txt").read_text()) - want) < 1e-5
    spool = read(out / "run.spool")
    raw = spool.raw
    assert spool.runtime == "native-executable" and len(spool.sites) == 1 and 0 < len(raw.site) <= 50
    # every call counted in the spool's aggregates; a share of them timed, so recorded raw (inclusion <= 1)
    assert sum(int(a.count.sum()) for a in spool.aggregates) == 50
    assert set(raw.n_elements.tolist()) == {1000} and np.all(raw.inclusion <= 1)

#!/usr/bin/env python
"""Per-call overhead of a compiled function (issue 13: <= 0.3 us for two scalars, <= 0.5 us for two arrays).

    python bench/call_bench.py [--rounds N] [--json OUT]

Times, in one process and interleaved (the best of N rounds of 20 000 calls each, so that a busy machine
affects every row alike): f(x, y) = x * y + 1 on two floats and g(a, b) = float(a[0] + b[0]) on two 1-d
float64 arrays, compiled by everypath (positional, keyword, an open signature, a module global guard, a
module array), next to the same functions in plain Python and as a minimal pybind11 function (built here
with the environment's pybind11 and g++) and a raw METH_FASTCALL C function (the floor: CPython's own call).
Overhead = everypath's time minus the raw C function's; the ratio to the issue's goal is printed (below 1.0
meets it). No pass/fail.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import sysconfig
import tempfile
import textwrap
import timeit
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

KERNELS = '''
import numpy as np
import everypath

Vec = np.ndarray[tuple[int], np.dtype[np.float64]]
K = 1.0
TABLE = np.arange(8.0)


@everypath.compile
def f(x: float, y: float) -> float:
    return x * y + 1.0


@everypath.compile
def g(a: Vec, b: Vec) -> float:
    return float(a[0] + b[0])


@everypath.compile
def g_open(a: np.ndarray, b: np.ndarray) -> float:
    return float(a[0] + b[0])


@everypath.compile
def f_global(x: float, y: float) -> float:
    return x * y + K


@everypath.compile
def f_table(x: float, i: int) -> float:
    return x * float(TABLE[i])


def py_f(x, y):
    return x * y + 1.0


def py_g(a, b):
    return float(a[0] + b[0])
'''

PYBIND = r'''
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
namespace py = pybind11;

static PyObject* raw_f(PyObject*, PyObject* const* args, Py_ssize_t n) {
  if (n != 2 || !PyFloat_CheckExact(args[0]) || !PyFloat_CheckExact(args[1])) {
    PyErr_SetString(PyExc_TypeError, "raw_f(float, float)");
    return nullptr;
  }
  return PyFloat_FromDouble(PyFloat_AS_DOUBLE(args[0]) * PyFloat_AS_DOUBLE(args[1]) + 1.0);
}

static PyObject* raw_g(PyObject*, PyObject* const* args, Py_ssize_t n) {
  auto& api = py::detail::npy_api::get();
  if (n != 2 || !api.PyArray_Check_(args[0]) || !api.PyArray_Check_(args[1])) {
    PyErr_SetString(PyExc_TypeError, "raw_g(ndarray, ndarray)");
    return nullptr;
  }
  auto* a = py::detail::array_proxy(args[0]);
  auto* b = py::detail::array_proxy(args[1]);
  return PyFloat_FromDouble(reinterpret_cast<double*>(a->data)[0] + reinterpret_cast<double*>(b->data)[0]);
}

static PyMethodDef raw[] = {{"raw_f", (PyCFunction)(void (*)(void))raw_f, METH_FASTCALL, ""},
                            {"raw_g", (PyCFunction)(void (*)(void))raw_g, METH_FASTCALL, ""},
                            {nullptr, nullptr, 0, nullptr}};

PYBIND11_MODULE(call_bench_pb, m) {
  m.def("pb_f", [](double x, double y) { return x * y + 1.0; });
  m.def("pb_g", [](py::array_t<double, 0> a, py::array_t<double, 0> b) { return a.data()[0] + b.data()[0]; });
  PyModule_AddFunctions(m.ptr(), raw);
}
'''

GOALS_NS = {"scalars": 300.0, "arrays": 500.0}


def _import(path: Path, name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _pybind_module(work: Path) -> Any:
    import pybind11

    src = work / "call_bench_pb.cpp"
    src.write_text(PYBIND)
    so = work / f"call_bench_pb{sysconfig.get_config_var('EXT_SUFFIX')}"
    subprocess.run(["g++", "-O2", "-shared", "-fPIC", "-std=c++20", f"-I{pybind11.get_include()}",
                    f"-I{sysconfig.get_paths()['include']}", str(src), "-o", str(so)], check=True)
    return _import(so, "call_bench_pb")


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="ep-call-bench-") as tmp:
        work = Path(tmp)
        os.environ.setdefault("EVERYPATH_CACHE", str(work / "cache"))
        (work / "call_bench_kernels.py").write_text(textwrap.dedent(KERNELS))
        k = _import(work / "call_bench_kernels.py", "call_bench_kernels")
        pb = _pybind_module(work)
        import numpy as np

        a, b = np.arange(4.0), np.arange(4.0)
        ns = {"k": k, "pb": pb, "a": a, "b": b, "x": 2.0, "y": 3.0}
        rows = {
            "python f(x, y)": "k.py_f(x, y)", "pybind11 f(x, y)": "pb.pb_f(x, y)", "raw C f(x, y)": "pb.raw_f(x, y)",
            "everypath f(x, y)": "k.f(x, y)", "everypath f(x=x, y=y)": "k.f(x=x, y=y)",
            "everypath f, module global": "k.f_global(x, y)", "everypath f, module array": "k.f_table(x, 3)",
            "python g(a, b)": "k.py_g(a, b)", "pybind11 g(a, b)": "pb.pb_g(a, b)", "raw C g(a, b)": "pb.raw_g(a, b)",
            "everypath g(a, b)": "k.g(a, b)", "everypath g, open signature": "k.g_open(a, b)",
        }
        for stmt in rows.values():  # build (or load) everything before timing
            eval(stmt, ns)
        timers = {name: timeit.Timer(stmt, globals=ns) for name, stmt in rows.items()}
        best = dict.fromkeys(rows, float("inf"))
        n = 20_000
        for _ in range(args.rounds):
            for name, t in timers.items():
                best[name] = min(best[name], t.timeit(n) / n * 1e9)
    print(f"per call, best of {args.rounds} rounds x {n} calls (ns):")
    for name, v in best.items():
        print(f"  {name:30s} {v:8.1f}")
    out: dict[str, Any] = {"ns": best}
    for kind, ep, floor in (("scalars", "everypath f(x, y)", "raw C f(x, y)"), ("arrays", "everypath g(a, b)",
                                                                                  "raw C g(a, b)")):
        over = best[ep] - best[floor]
        out[f"overhead_{kind}_ns"] = over
        print(f"overhead, two {kind}: {over:6.1f} ns over the raw C call  "
              f"(goal {GOALS_NS[kind]:.0f} ns: ratio {over / GOALS_NS[kind]:.2f})")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
    return out


if __name__ == "__main__":
    main()

"""NAME.h (lowering/cheader.py): a C11 program compiled with gcc against the header and the shared
library alone (copied into an empty folder) calls the compiled function and prints its results,
which must be CPython's; the header's own example compiles and runs; the documentation names every
slot; targets without exceptions declare the error slot."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from everypath.base.settings import Settings
from everypath.lowering.cheader import c_header
from everypath.lowering.pipeline import generate
from everypath.lowering.portable import build_function
from everypath.lowering.targets import ArtifactKind, get, kind_status

TARGET = "linux-x86_64-v2"
F64 = np.ndarray[tuple[int], np.dtype[np.float64]]
I32_2 = np.ndarray[tuple[int, int], np.dtype[np.int32]]


def blend(x: F64, w: F64, bias: float, repeats: int) -> tuple[F64, float]:
    y = x * w + bias
    total = 0.0
    for _ in range(repeats):
        total += float(np.sum(y))
    return y, total


def row_sums(m: I32_2, scale: np.int32) -> np.ndarray[tuple[int], np.dtype[np.int64]]:
    if scale == 0:
        raise ValueError("row_sums: scale must not be zero")
    return np.sum(m.astype(np.int64), axis=1) * scale


@pytest.fixture(scope="module")
def libs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    st = kind_status(get(TARGET), ArtifactKind.SHARED)
    if not st.buildable or shutil.which("gcc") is None:
        pytest.skip(st.reason or "gcc is not installed")
    import os

    settings = Settings.from_env({**os.environ, "EVERYPATH_TELEMETRY": "0"})
    out = {}
    for fn in (blend, row_sums):
        pf = build_function(fn, (get(TARGET),), settings, kinds=(ArtifactKind.SHARED,))
        art = pf.artifact(TARGET, ArtifactKind.SHARED)
        d = tmp_path_factory.mktemp(fn.__name__)  # only the artifact and its header: nothing else to find
        shutil.copy(art.path, d)
        (header,) = [p for p in art.extra_files if p.suffix == ".h"]
        shutil.copy(header, d)
        out[fn.__name__] = d
    return out


def compile_and_run(folder: Path, name: str, source: str) -> subprocess.CompletedProcess[str]:
    src = folder / f"{name}_main.c"
    src.write_text(source)
    exe = folder / f"{name}_main"
    subprocess.run(["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", f"-I{folder}", str(src),
                    f"-L{folder}", f"-l{name}", f"-Wl,-rpath,{folder}", "-o", str(exe)], check=True,
                   capture_output=True, text=True)
    return subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)


BLEND_MAIN = r'''
#include <stdio.h>
#include <string.h>
#include "blend.h"

int main(void) {
  double x[5] = {1.0, -2.5, 3.25, 0.0, 7.0}, w[10] = {0};
  int64_t n = 5, stride = 2 * sizeof(double), repeats = 3;
  double bias = 0.125;
  for (int i = 0; i < 5; ++i) w[2 * i] = 0.5 * i - 1.0;  /* every other double: a strided argument */
  ep_value args[EP_BLEND_NARGS], results[EP_BLEND_NRESULTS];
  ep_error err = {0};
  args[0] = ep_array(EP_FLOAT64, sizeof(double), 1, &n, NULL, x);
  args[1] = ep_array(EP_FLOAT64, sizeof(double), 1, &n, &stride, w);
  args[2] = ep_scalar(EP_FLOAT64, &bias, sizeof bias);
  args[3] = ep_scalar(EP_INT64, &repeats, sizeof repeats);
  if (ep_abi_version() != EP_ABI_VERSION) return 3;
  if (ep_call_blend(args, EP_BLEND_NARGS, results, EP_BLEND_NRESULTS, &err) != 0) {
    printf("%s: %s\n", err.type, err.message);
    return 1;
  }
  printf("%d %d %lld\n", results[0].kind, results[0].dtype, (long long)results[0].shape[0]);
  for (int64_t i = 0; i < results[0].shape[0]; ++i)
    printf("%.17g\n", *(const double*)((const char*)results[0].data + i * results[0].strides[0]));
  double total;
  memcpy(&total, results[1].scalar.bytes, sizeof total);
  printf("%d %d %.17g\n", results[1].kind, results[1].dtype, total);
  if (results[0].owner) ep_release(results[0].owner);
  return 0;
}
'''

ROW_SUMS_MAIN = r'''
#include <stdio.h>
#include <string.h>
#include "row_sums.h"

static int run(int32_t scale) {
  int32_t m[2][3] = {{1, 2, 3}, {-4, 5, 2147483647}};
  int64_t shape[2] = {2, 3};
  ep_value args[2], results[1];
  ep_error err = {0};
  args[0] = ep_array(EP_INT32, sizeof(int32_t), 2, shape, NULL, m);
  args[1] = ep_scalar(EP_INT32, &scale, sizeof scale);
  if (ep_call_row_sums(args, 2, results, 1, &err) != 0) {
    printf("error %d %s: %s\n", err.set, err.type, err.message);
    return 1;
  }
  for (int64_t i = 0; i < results[0].shape[0]; ++i)
    printf("%lld\n", (long long)*(const int64_t*)((const char*)results[0].data + i * results[0].strides[0]));
  if (results[0].owner) ep_release(results[0].owner);
  return 0;
}

int main(void) { return run(3) + run(0) == 1 ? 0 : 2; }
'''


def test_a_c_program_gets_cpythons_results(libs: dict[str, Path]) -> None:
    p = compile_and_run(libs["blend"], "blend", BLEND_MAIN)
    assert p.returncode == 0, p.stdout + p.stderr
    x = np.array([1.0, -2.5, 3.25, 0.0, 7.0])
    w = 0.5 * np.arange(5) - 1.0
    y, total = blend(x, w, 0.125, 3)
    lines = p.stdout.split()
    assert lines[:3] == ["2", "10", "5"]  # EP_KIND_ARRAY, EP_FLOAT64, shape
    assert [float(v) for v in lines[3:8]] == y.tolist()
    assert lines[8:10] == ["1", "10"] and float(lines[10]) == total  # a Python float: scalar float64


def test_a_raising_call_fills_the_error_slot(libs: dict[str, Path]) -> None:
    p = compile_and_run(libs["row_sums"], "row_sums", ROW_SUMS_MAIN)
    assert p.returncode == 0, p.stdout + p.stderr
    m = np.array([[1, 2, 3], [-4, 5, 2147483647]], dtype=np.int32)
    want = row_sums(m, np.int32(3))
    with pytest.raises(ValueError) as info:
        row_sums(m, np.int32(0))
    out = p.stdout.splitlines()
    assert [int(v) for v in out[:2]] == want.tolist()
    assert out[2] == f"error 1 ValueError: {info.value}"


def _example(header: str) -> str:
    body = header.split(" * Example (C11; link with the library beside this header):\n *\n", 1)[1]
    body = body.split("\n */", 1)[0]
    return "\n".join(line[5:] for line in body.splitlines())


@pytest.mark.parametrize("name", ["blend", "row_sums"])
def test_the_headers_example_compiles_and_runs(libs: dict[str, Path], name: str) -> None:
    header = (libs[name] / f"{name}.h").read_text()
    p = compile_and_run(libs[name], f"{name}", _example(header))
    # zero-filled data: blend returns, row_sums raises (scale 3 in the example: it returns too)
    assert p.returncode == 0, p.stdout + p.stderr


def test_the_header_documents_every_slot_and_stands_alone(libs: dict[str, Path]) -> None:
    h = (libs["blend"] / "blend.h").read_text()
    assert set(re.findall(r'#include [<"]([^>"]+)[>"]', h.split("*/", 1)[1])) <= {"stdint.h", "stddef.h", "string.h"}
    for text in ("args[0]  x            array  EP_FLOAT64 = 10, rank 1, elements double",
                 "annotation: F64 (np.ndarray[tuple[int], np.dtype[np.float64]])",  # the alias, expanded
                 "args[2]  bias         scalar EP_FLOAT64 = 10 (a Python scalar), double in scalar.bytes",
                 "args[3]  repeats      scalar EP_INT64 = 4 (a Python scalar)", "annotation: int",
                 "results[0]  result[0]    array  EP_FLOAT64 = 10, rank 1",
                 "results[1]  result[1]    scalar EP_FLOAT64 = 10", "ep_release(owner) once",
                 "err->type holds the Python exception's name", "int ep_call_blend(const ep_value* args",
                 "int ep_abi_version(void);", "void ep_release(void* owner);",
                 "int32_t ep_telemetry_attach(ep_telemetry_hub* hub);", "ep_call_blend(args, 4, results, 2, &err)",
                 "args[0] = ep_array(EP_FLOAT64, 8, 1, x_shape, NULL, x);"):
        assert text in h, text
    assert "ep_last_error" not in h.split("*/")[-1]  # this target has exceptions: errors arrive in err


def test_targets_without_exceptions_declare_the_error_slot(tmp_path: Path) -> None:
    gen = generate(row_sums, Settings.from_env({"EVERYPATH_TELEMETRY": "0"}))
    h = c_header(gen, get("wasm32-wasi"))
    assert "const ep_error* ep_last_error(void);" in h and "void ep_clear_error(void);" in h
    assert "a raising call does not return" in h
    (tmp_path / "row_sums.h").write_text(h)
    (tmp_path / "use.c").write_text('#include "row_sums.h"\nint main(void) { return ep_last_error() != 0; }\n')
    subprocess.run(["gcc", "-std=c11", "-Wall", "-Werror", "-pedantic", "-fsyntax-only", f"-I{tmp_path}",
                    str(tmp_path / "use.c")], check=True, capture_output=True, text=True)

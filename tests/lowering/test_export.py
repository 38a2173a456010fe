"""`everypath export`: the README's "ship it" commands, pasted as a new user would — a C program against
the library and header, a Java program through the JNI binding, a Node script importing the ES module —
each printing CPython's result."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from everypath.cli import main as cli

pytestmark = pytest.mark.slow

APP = '''import numpy as np
import everypath

Vec = np.ndarray[tuple[int], np.dtype[np.float32]]


@everypath.compile
def normalize(x: Vec, eps: float = 1e-6) -> Vec:
    n = np.sqrt(np.sum(x * x))
    if n < eps:
        raise ValueError(f"cannot normalize a vector of norm {n}")
    return x / n
'''
C_MAIN = r'''#include <stdio.h>
#include "normalize.h"
int main(void) {
  float x[4] = {3, 0, 4, 12};
  int64_t shape[1] = {4};
  double eps = 1e-6;
  ep_value args[2] = {ep_array(EP_FLOAT32, 4, 1, shape, NULL, x), ep_scalar(EP_FLOAT64, &eps, sizeof eps)};
  ep_value out[1];
  ep_error err = {0};
  if (ep_call_normalize(args, 2, out, 1, &err) != 0) { printf("%s: %s\n", err.type, err.message); return 1; }
  const float* y = out[0].data;
  printf("%.9g %.9g %.9g %.9g\n", y[0], y[1], y[2], y[3]);
  ep_release(out[0].owner);
  float z[4] = {0};
  args[0] = ep_array(EP_FLOAT32, 4, 1, shape, NULL, z);
  if (ep_call_normalize(args, 2, out, 1, &err) != 0) { printf("%s: %s\n", err.type, err.message); return 0; }
  return 2;
}
'''
JAVA_MAIN = '''import everypath.NDArray;
import everypath.PythonException;
import everypath.generated.Normalize;
public class Main {
  public static void main(String[] a) {
    Normalize.load(a[0]);
    NDArray y = Normalize.normalize(NDArray.of(new float[] {3, 0, 4, 12}, 4));
    System.out.println(y.getFloat(0) + " " + y.getFloat(1) + " " + y.getFloat(2) + " " + y.getFloat(3));
    try { Normalize.normalize(NDArray.of(new float[] {0, 0}, 2)); }
    catch (PythonException e) { System.out.println(e.pythonType() + ": " + e.pythonMessage()); }
  }
}
'''
NODE_MAIN = '''import { readFile } from "node:fs/promises";
import { load, normalize } from "./out/web/normalize.mjs";
await load(await readFile("./out/web/normalize.wasm"));
const y = await normalize(new Float32Array([3, 0, 4, 12]));
console.log(Array.from(y.data).map((v) => Math.fround(v).toPrecision(9)).join(" "));
try { await normalize(new Float32Array([0, 0])); } catch (e) { console.log(`${e.name}: ${e.message}`); }
'''


def test_export_gives_c_java_and_web_files_that_answer_like_cpython(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(APP)
    res = CliRunner().invoke(cli, ["export", str(tmp_path / "app.py") + ":normalize", "-o", str(tmp_path / "out")]
                             + ([] if shutil.which("javac") else ["--no-java"]))
    assert res.exit_code == 0, res.output
    x = np.array([3, 0, 4, 12], np.float32)
    want = x / np.sqrt(np.sum(x * x))
    try:
        n = np.sqrt(np.sum(np.zeros(2, np.float32) ** 2))
        raise ValueError(f"cannot normalize a vector of norm {n}")
    except ValueError as exc:
        error = f"ValueError: {exc}"

    def close(line: str) -> None:
        np.testing.assert_array_equal(np.array(line.split(), dtype=np.float32), want)

    (tmp_path / "main.c").write_text(C_MAIN)
    out = tmp_path / "out"
    subprocess.run(["gcc", "-std=c11", "main.c", f"-I{out}/c", f"-L{out}/c", "-lnormalize", f"-Wl,-rpath,{out}/c",
                    "-o", "main"], cwd=tmp_path, check=True, capture_output=True)
    lines = subprocess.run(["./main"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout.splitlines()
    close(lines[0])
    assert lines[1] == error
    (tmp_path / "main.mjs").write_text(NODE_MAIN)
    node = subprocess.run(["node", "main.mjs"], cwd=tmp_path, capture_output=True, text=True)
    assert node.returncode == 0, node.stderr
    close(node.stdout.splitlines()[0])
    assert node.stdout.splitlines()[1] == error
    if shutil.which("javac") is None:
        pytest.skip("no JDK: the C and web parts passed; the Java part needs javac (make setup installs it)")
    (tmp_path / "Main.java").write_text(JAVA_MAIN)
    subprocess.run(["javac", "-d", "classes", "-sourcepath", "out/java", "Main.java"], cwd=tmp_path, check=True,
                   capture_output=True)
    java = subprocess.run(["java", "-cp", "classes", "Main", str(out / "java" / "libnormalize_jni.so")], cwd=tmp_path,
                          capture_output=True, text=True, check=True).stdout.splitlines()
    close(java[0])
    assert java[1] == error

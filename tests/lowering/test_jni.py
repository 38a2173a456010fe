"""lowering.jni: a Java binding of a compiled function's shared library, run on the host JVM.

Each function below is built once for linux-x86_64-v2 as a shared library (lowering.portable), its JNI
glue compiled with gcc against the JDK's headers and linked to it, the generated Java compiled with javac
beside a Main written here, and what Java prints is compared with CPython running the same functions.
"""
from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from everypath.base.settings import Settings
from everypath.lowering import jni, portable
from everypath.lowering.dispatch import PathPolicy
from everypath.lowering.pipeline import generate
from everypath.lowering.targets import ArtifactKind, get

TARGET = "linux-x86_64-v2"
Image = np.ndarray[tuple[int, int], np.dtype[np.float32]]
Vec = np.ndarray[tuple[int], np.dtype[np.float64]]


# ---- functions written the way users write them --------------------------------------------------------

def loan_payment(principal: float, months: int, insured: bool, rate_percent: float = 5.0) -> float:
    r = rate_percent / 1200.0
    pay = principal * r / (1.0 - (1.0 + r) ** -months)
    if insured:
        pay += principal * 0.0002
    return pay


def collatz_steps(n: int) -> int:
    if n <= 0:
        raise ValueError(f"collatz_steps needs a positive start, got {n}")
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def normalize_image(img: Image, gain: float) -> Image:
    lo = img.min()
    hi = img.max()
    return (img - lo) / (hi - lo) * np.float32(gain)


def downsample(img: Image) -> Image:
    return img[::2, ::-3]  # a strided view of the argument: the binding copies it out


def summarize(x: Vec, threshold: float) -> tuple[float, int, bool]:
    above = 0
    for v in x:
        if v > threshold:
            above += 1
    return float(x.mean()), above, bool(np.all(x > 0.0))


def clip_in_place(x: Vec, hi: float) -> None:
    for i in range(x.shape[0]):
        if x[i] > hi:
            x[i] = hi


def threshold(img: np.ndarray[tuple[int, int], np.dtype[np.uint8]], level: np.uint8) -> int:
    return int((img > level).sum())


def phasor_report(z: complex, gain: np.uint32, window: tuple[int, float],
                  w: np.ndarray[tuple[int], np.dtype[np.complex128]], order: np.int8 = 3, damping: float = 0.5,
                  ) -> tuple[complex, np.uint8, list[int], np.float32, tuple[np.int16, bool]]:
    total = 0
    taps = []
    for i in range(window[0]):
        taps.append(i * int(gain))
        total += i
    acc = z * damping + w.sum()
    return acc, np.uint8(total % 256), taps, np.float32(window[1]), (np.int16(order) * np.int16(2), total > 3)


BUILT = (loan_payment, collatz_steps, normalize_image, downsample, summarize, clip_in_place, phasor_report)
JAVA_ONLY = (threshold,)  # its class is compiled and called with a bad argument; no library needed

RNG = np.random.default_rng(11)
IMG = RNG.uniform(-3.0, 5.0, size=(5, 7)).astype(np.float32)
X = RNG.normal(0.4, 1.0, size=13)


def _f32(a: np.ndarray) -> str:
    return ", ".join(f"Float.intBitsToFloat(0x{v:08x})" for v in a.ravel().view(np.uint32))


def _f64(a: np.ndarray) -> str:
    return ", ".join(f"Double.longBitsToDouble(0x{v:016x}L)" for v in a.ravel().view(np.uint64))


MAIN = """
import everypath.DType;
import everypath.NDArray;
import everypath.PythonException;
import everypath.generated.*;

public final class Main {
    static void out(String key, String value) { System.out.println(key + "=" + value); }
    static String bits(double v) { return Long.toHexString(Double.doubleToRawLongBits(v)); }

    static String array(NDArray a) {
        StringBuilder s = new StringBuilder(a.dtype() + ";" + java.util.Arrays.toString(a.shape()) + ";");
        for (float v : a.toFloatArray()) s.append(Integer.toHexString(Float.floatToRawIntBits(v))).append(',');
        if (a.dtype() == DType.FLOAT64) {
            s.setLength(0);
            s.append(a.dtype() + ";" + java.util.Arrays.toString(a.shape()) + ";");
            for (double v : a.toDoubleArray()) s.append(bits(v)).append(',');
        }
        return s.toString();
    }

    interface Call { Object run(); }

    static void attempt(String key, Call c) {
        try {
            out(key, "returned " + c.run());
        } catch (PythonException e) {
            StackTraceElement top = e.getStackTrace()[0];
            out(key, "PythonException|" + e.pythonType() + "|" + e.pythonMessage());
            out(key + "_at", top.getFileName() + ":" + top.getLineNumber() + ":" + top.getMethodName());
        } catch (IllegalArgumentException e) {
            out(key, "IllegalArgumentException|" + e.getMessage());
        }
    }

    public static void main(String[] args) {
        NDArray img = NDArray.of(new float[] {@IMG@}, 5, 7);
        NDArray x = NDArray.of(new double[] {@X@});
        LoanPayment.load(System.getProperty("glue.dir") + "/libloan_payment_jni.so");  // System.load; the rest: loadLibrary
        out("loan", bits(LoanPayment.loanPayment(250000.0, 360L, true, 4.25)));
        out("loan_default", bits(LoanPayment.loanPayment(1800.5, 12L, false)));
        out("collatz", Long.toString(CollatzSteps.collatzSteps(27L)));
        out("normalize", array(NormalizeImage.normalizeImage(img, 2.5)));
        out("downsample", array(Downsample.downsample(img)));
        Summarize.Result s = Summarize.summarize(x, 0.25);
        out("summary", bits(s.item0) + "," + s.item1 + "," + s.item2);
        NDArray y = NDArray.of(new double[] {@X@});
        ClipInPlace.clipInPlace(y, 0.5);
        out("clipped", array(y));
        out("input_untouched", array(img));
        NDArray w = NDArray.zeros(DType.COMPLEX128, 3);
        for (int i = 0; i < 3; ++i) w.buffer().putDouble(16 * i, 0.5 * i).putDouble(16 * i + 8, -1.0 / (i + 1));
        PhasorReport.Result p = PhasorReport.phasorReport(new double[] {1.5, -2.0}, 7L, 5L, 1.1, w);
        out("phasor", bits(p.item0[0]) + "," + bits(p.item0[1]) + "," + p.item1 + ","
                + java.util.Arrays.toString(p.item2.toLongArray()) + "," + p.item2.dtype() + ","
                + Integer.toHexString(Float.floatToRawIntBits(p.item3)) + "," + p.item4.item0 + "," + p.item4.item1);
        attempt("bad_complex", () -> PhasorReport.phasorReport(new double[] {1.0}, 7L, 5L, 1.1, w));
        attempt("raise", () -> CollatzSteps.collatzSteps(-4L));
        attempt("bad_dtype", () -> NormalizeImage.normalizeImage(NDArray.of(new int[] {1, 2, 3, 4}, 2, 2), 1.0));
        attempt("bad_rank", () -> NormalizeImage.normalizeImage(NDArray.of(new float[] {1f, 2f}), 1.0));
        attempt("bad_null", () -> Summarize.summarize(null, 0.0));
        attempt("bad_uint", () -> Threshold.threshold(NDArray.zeros(DType.UINT8, 2, 2), (short) 256));
    }
}
"""


def _main_source() -> str:
    return MAIN.replace("@IMG@", _f32(IMG)).replace("@X@", _f64(X))


@pytest.fixture(scope="module")
def java_output(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    javac, java, gcc = shutil.which("javac"), shutil.which("java"), shutil.which("gcc")
    if javac is None or java is None:
        pytest.skip("no JDK here (javac/java not on PATH): apt-get install -y openjdk-17-jdk-headless")
    if gcc is None:
        pytest.skip("gcc is needed to compile the JNI glue")
    work = tmp_path_factory.mktemp("jni")
    settings = Settings.from_env({"EVERYPATH_TELEMETRY": "0",
                                  "EVERYPATH_CACHE": str(Path("/tmp") / "everypath-test-jni-cache")})
    target = get(TARGET)
    include = [f"-I{d}" for d in jni.jni_include_dirs()]
    java_files: dict[str, str] = {}
    for fn in BUILT + JAVA_ONLY:
        gen = generate(fn, settings, policy=PathPolicy.for_target(target, settings))
        binding = jni.jni_binding(gen)
        java_files.update(binding.java_files())
        if fn in JAVA_ONLY:
            continue
        pf = portable.build_function(fn, (target,), settings, kinds=(ArtifactKind.SHARED,))
        lib = pf.artifact(TARGET, ArtifactKind.SHARED).path
        c = work / f"{gen.name}_jni.c"
        c.write_text(binding.c_source)
        cmd = [gcc, "-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-O2", "-fPIC", "-shared",
               *include, str(c), "-o", str(work / f"lib{binding.library}.so"), f"-L{lib.parent}",
               f"-l{gen.name}", f"-Wl,-rpath,{lib.parent}"]
        done = subprocess.run(cmd, capture_output=True, text=True)
        assert done.returncode == 0, f"gcc failed on the glue of {gen.name}:\n{done.stderr}"
    src = work / "java"
    for rel, text in {**java_files, "Main.java": _main_source()}.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(text, encoding="utf-8")
    classes = work / "classes"
    done = subprocess.run([javac, "-encoding", "UTF-8", "-Xlint:all", "-Werror", "-d", str(classes),
                           *map(str, sorted(src.rglob("*.java")))], capture_output=True, text=True)
    assert done.returncode == 0, f"javac failed:\n{(done.stdout + done.stderr)[:4000]}"
    run = subprocess.run([java, "-Xcheck:jni", f"-Djava.library.path={work}", f"-Dglue.dir={work}", "-cp", str(classes), "Main"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, f"java failed:\n{run.stdout}{run.stderr}"
    assert "WARNING" not in run.stderr, run.stderr
    # -Xcheck:jni reports JNI misuse (an unchecked exception, a leaked local reference) on stdout
    stray = [line for line in run.stdout.splitlines() if "=" not in line]
    assert not stray, run.stdout
    return dict(line.split("=", 1) for line in run.stdout.splitlines())


def _bits(v: float) -> str:
    return f"{struct.unpack('<Q', struct.pack('<d', v))[0]:x}"


def _array(a: npt.NDArray) -> str:
    shape = "[" + ", ".join(str(d) for d in a.shape) + "]"
    if a.dtype == np.float64:
        vals = "".join(f"{v:x}," for v in np.ascontiguousarray(a).ravel().view(np.uint64))
    else:
        vals = "".join(f"{v:x}," for v in np.ascontiguousarray(a, dtype=np.float32).ravel().view(np.uint32))
    return f"{a.dtype};{shape};{vals}"


def test_scalars_in_and_out(java_output: dict[str, str]) -> None:
    assert java_output["loan"] == _bits(loan_payment(250000.0, 360, True, 4.25))
    assert java_output["loan_default"] == _bits(loan_payment(1800.5, 12, False))  # the Python default, 5.0
    assert java_output["collatz"] == str(collatz_steps(27)) == "111"


def test_float32_image_in_array_out(java_output: dict[str, str]) -> None:
    want = normalize_image(IMG.copy(), 2.5)
    assert want.dtype == np.float32 and want.shape == (5, 7)
    assert java_output["normalize"] == _array(want)
    assert java_output["downsample"] == _array(downsample(IMG.copy()))  # a reversed, strided view
    assert java_output["input_untouched"] == _array(IMG)


def test_tuple_result(java_output: dict[str, str]) -> None:
    mean, above, positive = summarize(X.copy(), 0.25)
    assert not positive and 0 < above < X.size  # the data exercises both outcomes
    assert java_output["summary"] == f"{_bits(mean)},{above},{str(positive).lower()}"


def test_mutated_argument_is_written_in_place(java_output: dict[str, str]) -> None:
    y = X.copy()
    clip_in_place(y, 0.5)
    assert not np.array_equal(y, X)
    assert java_output["clipped"] == _array(y)


def test_numpy_scalars_complex_tuples_lists_and_defaults(java_output: dict[str, str]) -> None:
    w = np.array([0.5 * i - 1j / (i + 1) for i in range(3)])
    acc, total, taps, last, (twice, big) = phasor_report(1.5 - 2.0j, np.uint32(7), (5, 1.1), w)
    assert isinstance(total, np.uint8) and isinstance(last, np.float32) and isinstance(twice, np.int16)
    want = [_bits(acc.real), _bits(acc.imag), str(int(total)), str(taps), "int64",
            f"{np.float32(last).view(np.uint32):x}", str(int(twice)), str(big).lower()]
    assert java_output["phasor"] == ",".join(want)
    assert java_output["bad_complex"] == ("IllegalArgumentException|phasor_report() argument 'z': expected complex "
                                          "as double[] {re, im}, got a double[] of length 1")


def test_exception_raised_in_compiled_code(java_output: dict[str, str]) -> None:
    with pytest.raises(ValueError) as info:
        collatz_steps(-4)
    assert java_output["raise"] == f"PythonException|ValueError|{info.value}"
    tb = info.value.__traceback__
    while tb.tb_next is not None:  # the innermost frame: where CPython raised
        tb = tb.tb_next
    # the first Java frame is the Python line (the portable build names the file by its base name)
    assert java_output["raise_at"] == f"{Path(tb.tb_frame.f_code.co_filename).name}:{tb.tb_lineno}:collatz_steps"


def test_bad_arguments_name_the_parameter(java_output: dict[str, str]) -> None:
    assert java_output["bad_dtype"] == (
        "IllegalArgumentException|normalize_image() argument 'img': expected a float32 NDArray of rank 2 "
        "(Image (np.ndarray[tuple[int, int], np.dtype[np.float32]])), got an int32 NDArray of rank 2")
    assert java_output["bad_rank"].startswith("IllegalArgumentException|normalize_image() argument 'img': "
                                              "expected a float32 NDArray of rank 2")
    assert java_output["bad_rank"].endswith("got a float32 NDArray of rank 1")
    assert java_output["bad_null"].startswith("IllegalArgumentException|summarize() argument 'x': expected a "
                                              "float64 NDArray of rank 1")
    assert java_output["bad_uint"] == ("IllegalArgumentException|threshold() argument 'level': expected a uint8 "
                                       "(0..255), got 256")


def test_names_and_literals() -> None:
    assert jni.camel("normalize_image", True) == "NormalizeImage"
    assert jni.camel("_private_fn2", False) == "privateFn2"
    assert jni.jni_mangle("com.my_app.Kernel") == "com_my_1app_Kernel"
    assert jni.jni_mangle("é") == "_000e9"
    assert jni.java_string('a"\\\n\u00e9') == '"a\\"\\\\\\012\\u00e9"'  # no \\u000a: javac unescapes it first
    assert jni.java_ident("new") == "new_" and jni.java_ident("load") == "load_"

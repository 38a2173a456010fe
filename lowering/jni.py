"""A Java (JNI) binding for one compiled function's shared library: a Java class and its C glue.

`jni_binding(gen)` gives the Java class (package `everypath.generated` by default, named from the function
in CamelCase) with one static method per entry point, the shared `everypath.*` support classes (NDArray,
DType, PythonException, Arguments) and the plain C11 + JNI glue that implements the class's native
methods on top of the C ABI (abi.h, embedded): it builds ep_value descriptors from the Java arguments,
calls `ep_call_<name>` of the library it is linked against, copies results into Java-owned memory,
releases every owner and turns the ABI's ep_error into `everypath.PythonException`. No C++ standard
library, so the same glue links with any toolchain (the Android app loads the same binding).

Java types: Python int/bool/float -> long/boolean/double; NumPy scalars exactly (int8..int64 ->
byte..long, uint8/16/32 -> short/int/long with a range check, uint64 -> a long holding the unsigned bits as
Java's own Long.*Unsigned methods do, float32 -> float, complex -> double[2] {re, im}); arrays and list
results -> everypath.NDArray (a direct, native-order ByteBuffer, C-contiguous); a tuple result -> one small
final class per tuple with typed fields item0, item1, ... (typed where Object[] needs casts, and no record
so Android's D8 needs no desugaring); tuple parameters are flattened into one Java parameter per item
(x_0, x_1). Result arrays are always copied into a fresh NDArray (also when the kernel returned a view of
an argument) and the kernel's owner released at once: no finalizer, no leak if the Java side drops it.
Arguments are passed without a copy, so an array the function mutates is written in place.
"""
from __future__ import annotations

import math
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from everypath.lowering.pipeline import Generated

ABI_H = Path(__file__).resolve().parent.parent / "variants" / "include" / "everypath" / "abi.h"

# numpy name -> (ep_dtype, Java type, class the glue boxes it in, C type in the slot, JNI type, unsigned range)
_SCALARS: dict[str, tuple[str, str, str, str, str, tuple[int, int] | None]] = {
    "bool": ("EP_BOOL", "boolean", "Boolean", "uint8_t", "jboolean", None),
    "int8": ("EP_INT8", "byte", "Byte", "int8_t", "jbyte", None),
    "int16": ("EP_INT16", "short", "Short", "int16_t", "jshort", None),
    "int32": ("EP_INT32", "int", "Integer", "int32_t", "jint", None),
    "int64": ("EP_INT64", "long", "Long", "int64_t", "jlong", None),
    "uint8": ("EP_UINT8", "short", "Short", "uint8_t", "jshort", (0, 0xFF)),
    "uint16": ("EP_UINT16", "int", "Integer", "uint16_t", "jint", (0, 0xFFFF)),
    "uint32": ("EP_UINT32", "long", "Long", "uint32_t", "jlong", (0, 0xFFFFFFFF)),
    "uint64": ("EP_UINT64", "long", "Long", "uint64_t", "jlong", None),
    "float32": ("EP_FLOAT32", "float", "Float", "float", "jfloat", None),
    "float64": ("EP_FLOAT64", "double", "Double", "double", "jdouble", None),
    "complex64": ("EP_COMPLEX64", "double[]", "double[]", "float", "jdoubleArray", None),
    "complex128": ("EP_COMPLEX128", "double[]", "double[]", "double", "jdoubleArray", None),
}
_INT_RANGE = {"byte": (-2**7, 2**7 - 1), "short": (-2**15, 2**15 - 1), "int": (-2**31, 2**31 - 1),
              "long": (-2**63, 2**63 - 1)}
_JAVA_KEYWORDS = frozenset("""abstract assert boolean break byte case catch char class const continue default do
double else enum extends final finally float for goto if implements import instanceof int interface long native
new package private protected public return short static strictfp super switch synchronized this throw throws
transient try void volatile while true false null var record yield sealed permits _""".split())
# names the generated class uses itself: a parameter or method spelled like one gets a trailing _
_TAKEN = frozenset({"load", "ensureLoaded", "checkAbi", "nativeCall", "nativeAbiVersion", "LIBRARY",
                    "ABI_VERSION", "loaded", "NDArray", "DType", "Arguments", "PythonException", "Object"})


@dataclass(frozen=True)
class JniBinding:
    java_source: str  # the generated class
    java_path: str  # its place under a source root: everypath/generated/RowMeans.java
    c_source: str  # the glue: build it into lib<library>.so linked to the function's library
    class_name: str = ""  # fully qualified
    library: str = ""  # what System.loadLibrary loads ("row_means_jni")
    support: tuple[tuple[str, str], ...] = ()  # (path, source): the everypath.* classes every binding shares

    def java_files(self) -> dict[str, str]:
        return {**dict(self.support), self.java_path: self.java_source}

    def write(self, java_root: Path, c_path: Path) -> list[Path]:
        """Every Java file under java_root and the glue at c_path; returns the Java files."""
        out = []
        for rel, text in self.java_files().items():
            p = java_root / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")
            out.append(p)
        c_path.parent.mkdir(parents=True, exist_ok=True)
        c_path.write_text(self.c_source, encoding="utf-8")
        return out


def jni_include_dirs(java_home: str | None = None) -> list[Path]:
    """$JAVA_HOME/include and include/<os> (JAVA_HOME from the environment or from javac's real path)."""
    home = java_home or os.environ.get("JAVA_HOME")
    if not home:
        javac = shutil.which("javac")
        if javac is None:
            raise FileNotFoundError("no JDK: set JAVA_HOME or put javac on PATH (apt-get install "
                                    "openjdk-17-jdk-headless)")
        home = str(Path(javac).resolve().parent.parent)
    inc = Path(home) / "include"
    if not (inc / "jni.h").exists():
        raise FileNotFoundError(f"{inc}/jni.h not found: JAVA_HOME={home} is not a JDK")
    return [inc, *[p for p in inc.iterdir() if p.is_dir() and (p / "jni_md.h").exists()]]


# -- names and literals --------------------------------------------------------------------------------------

def camel(name: str, upper: bool) -> str:
    parts = [p for p in name.split("_") if p]
    if not parts:
        return "Fn" if upper else "fn"
    words = [p[:1].upper() + p[1:] for p in parts]
    return "".join(words) if upper else parts[0] + "".join(words[1:])


def java_ident(name: str) -> str:
    return name + "_" if name in _JAVA_KEYWORDS or name in _TAKEN else name


def jni_mangle(name: str) -> str:
    """A Java name as JNI spells it in a native method's symbol (_1 for _, _0xxxx for non-ASCII)."""
    out = []
    for ch in name:
        if ch in "._;[":
            out.append({".": "_", "_": "_1", ";": "_2", "[": "_3"}[ch])
        elif ch.isascii() and ch.isalnum():
            out.append(ch)
        else:
            b = ch.encode("utf-16-be")
            out += [f"_0{b[i]:02x}{b[i + 1]:02x}" for i in range(0, len(b), 2)]
    return "".join(out)


def java_string(s: str) -> str:
    """A Java string literal: non-ASCII as \\uXXXX, control characters as octal escapes (a \\u000a escape
    would become a real line break before javac lexes the literal)."""
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif o < 0x20 or o == 0x7F:
            out.append(f"\\{o:03o}")
        elif o < 0x80:
            out.append(ch)
        else:
            b = ch.encode("utf-16-be")
            out += [f"\\u{b[i]:02x}{b[i + 1]:02x}" for i in range(0, len(b), 2)]
    return "".join(out) + '"'


def _comment(s: str) -> str:
    """Text safe inside /** */: no terminator, no unicode-escape or line-break surprises."""
    s = "".join(ch if 0x20 <= ord(ch) < 0x7F else " " for ch in s)
    return s.replace("*/", "*&#47;").replace("\\", "\\\\")


def c_string(s: str) -> str:
    out = ['"']
    for byte in s.encode("utf-8"):
        ch = chr(byte)
        if ch in '"\\':
            out.append("\\" + ch)
        elif 0x20 <= byte < 0x7F and ch != "?":  # ? too: no trigraphs
            out.append(ch)
        else:
            out.append(f"\\{byte:03o}")
    return "".join(out) + '"'


def _java_literal(value: Any, dtype: str) -> str | None:
    """The Java expression for a parameter's Python default, or None when it has none (no overload then)."""
    jt = _SCALARS[dtype][1]
    if dtype == "bool":
        return ("true" if value else "false") if isinstance(value, bool) else None
    if isinstance(value, bool):
        return None
    if dtype.startswith("complex"):
        if not isinstance(value, (int, float, complex)):
            return None
        c = complex(value)
        re, im = _double_literal(c.real), _double_literal(c.imag)
        return f"new double[] {{{re}, {im}}}"
    if jt == "float" or jt == "double":
        if not isinstance(value, (int, float)):
            return None
        lit = _double_literal(float(value))
        return f"(float) {lit}" if jt == "float" else lit
    if not isinstance(value, int):
        return None
    lo, hi = _SCALARS[dtype][5] or _INT_RANGE[jt]
    if not lo <= value <= hi:
        return None
    return f"{value}L" if jt == "long" else (str(value) if jt == "int" else f"({jt}) {value}")


def _double_literal(x: float) -> str:
    if math.isnan(x):
        return "Double.NaN"
    if math.isinf(x):
        return "Double.POSITIVE_INFINITY" if x > 0 else "Double.NEGATIVE_INFINITY"
    return repr(x)


# -- the signature, flattened into ABI slots ----------------------------------------------------------------

@dataclass(frozen=True)
class _Param:
    """One ep_value argument slot: a top-level parameter or one item of a flattened tuple parameter."""

    java: str  # Java parameter name
    where: str  # "f() argument 'x[1]'", as the Python runtime names it in errors
    t: dict[str, Any]
    annotation: str
    mutated: bool
    default: str | None  # a Java literal, for top-level scalars with a representable default


def _describe(t: dict[str, Any]) -> str:
    if t["kind"] == "array":
        return f"{t['dtype']} array of rank {t['ndim']}"
    if t["kind"] == "list":
        return f"list[{_describe(t['elem'])}]"
    if t["kind"] == "tuple":
        return "tuple[" + ", ".join(_describe(i) for i in t["items"]) + "]"
    if t["kind"] == "none":
        return "None"
    py = {"int64": "int", "float64": "float", "bool": "bool", "complex128": "complex"}
    return py.get(t["dtype"], t["dtype"]) if t.get("py") else f"np.{t['dtype']}"


def _flat_params(sig: dict[str, Any]) -> list[_Param]:
    out: list[_Param] = []
    fn = sig["name"]

    def walk(t: dict[str, Any], java: str, label: str, p: dict[str, Any], top: bool) -> None:
        if t["kind"] == "tuple":
            for i, item in enumerate(t["items"]):
                walk(item, f"{java}_{i}", f"{label}[{i}]", p, False)
        elif t["kind"] in ("scalar", "array"):
            ann = (p.get("annotation") or _describe(t)) if top else _describe(t)
            default = None
            if top and t["kind"] == "scalar" and "default" in p:
                default = _java_literal(p["default"], t["dtype"])
            out.append(_Param(java_ident(java), f"{fn}() argument '{label}'", t, ann, bool(p.get("mutated")),
                              default))
        elif t["kind"] != "none":  # None takes no slot: the compiled code is handed ep::None{}
            raise TypeError(f"{fn}(): parameter '{label}' ({_describe(t)}) cannot be passed from Java")

    for p in sig["params"]:
        walk(p["type"], p["name"], p["name"], p, True)
    return out


def _result_slots(t: dict[str, Any], out: list[dict[str, Any]]) -> None:
    if t["kind"] == "tuple":
        for item in t["items"]:
            _result_slots(item, out)
    elif t["kind"] == "list":  # the ABI hands a list back as a 1-d array of its elements
        out.append({"kind": "array", "dtype": t["elem"]["dtype"], "ndim": 1})
    elif t["kind"] in ("scalar", "array"):
        out.append(t)
    elif t["kind"] != "none":
        raise TypeError(f"a result of kind {t['kind']} cannot be returned to Java")


# -- the Java class -----------------------------------------------------------------------------------------

class _Results:
    """Java types and unpacking expressions for the result tree; one nested class per tuple."""

    def __init__(self, fn: str, tuple_name: str) -> None:
        self.fn = fn
        self.tuple_name = tuple_name
        self.classes: list[str] = []
        self.slot = 0

    def convert(self, t: dict[str, Any], path: str) -> tuple[str, str]:
        k = t["kind"]
        if k == "none":
            return "Object", "null"
        if k in ("array", "list"):
            i, self.slot = self.slot, self.slot + 1
            return "NDArray", f"(NDArray) ep$r[{i}]"
        if k == "scalar":
            i, self.slot = self.slot, self.slot + 1
            jt, box = _SCALARS[t["dtype"]][1], _SCALARS[t["dtype"]][2]
            return jt, (f"(double[]) ep$r[{i}]" if jt == "double[]" else f"(({box}) ep$r[{i}]).{jt}Value()")
        name = self.tuple_name + path
        items = [self.convert(item, f"{path}_{j}" if path else str(j)) for j, item in enumerate(t["items"])]
        fields = [f"        public final {jt} item{j};" for j, (jt, _) in enumerate(items)]
        ctor_params = ", ".join(f"{jt} item{j}" for j, (jt, _) in enumerate(items))
        sets = [f"            this.item{j} = item{j};" for j in range(len(items))]
        shown = ' + ", " + '.join(f"java.util.Arrays.toString(item{j})" if jt == "double[]" else f"item{j}"
                                  for j, (jt, _) in enumerate(items))
        self.classes.append("\n".join([
            f"    /** A result of {_comment(self.fn)}: {_comment(_describe(t))}. */",
            f"    public static final class {name} {{", *fields, "",
            f"        {name}({ctor_params}) {{", *sets, "        }", "",
            "        @Override",
            f'        public String toString() {{ return "(" + {shown or chr(34) + chr(34)} + ")"; }}',
            "    }", ""]))
        return name, f"new {name}(" + ", ".join(e for _, e in items) + ")"


def _java_type(p: _Param) -> str:
    return "NDArray" if p.t["kind"] == "array" else _SCALARS[p.t["dtype"]][1]


def _checks(p: _Param) -> list[str]:
    where = java_string(p.where)
    if p.t["kind"] == "array":
        return [f"        Arguments.array({where}, {p.java}, DType.{p.t['dtype'].upper()}, {p.t['ndim']}, "
                f"{'true' if p.mutated else 'false'}, {java_string(p.annotation)});"]
    rng = _SCALARS[p.t["dtype"]][5]
    if rng is not None:
        return [f"        Arguments.range({where}, {p.java}, {rng[0]}L, {rng[1]}L, {java_string(p.t['dtype'])});"]
    if _SCALARS[p.t["dtype"]][1] == "double[]":
        return [f"        Arguments.complex({where}, {p.java}, {java_string(p.annotation)});"]
    return []


def _java_class(gen: Generated, package: str, cls: str, library: str, params: list[_Param]) -> str:
    sig = gen.signature
    fn = sig["name"]
    method = java_ident(camel(fn, False))
    res = _Results(fn, "Tuple" if cls == "Result" else "Result")
    rtype, rexpr = res.convert(sig["result"], "")
    if sig["result"]["kind"] == "none":
        rtype = "void"
    shown = ", ".join(f"{p['name']}: {p.get('annotation') or _describe(p['type'])}" for p in sig["params"])
    doc = _comment(f"{fn}({shown}) -> {_describe(sig['result'])}")
    decl = ", ".join(f"{_java_type(p)} {p.java}" for p in params)
    names = ", ".join(p.java for p in params)
    body = [f"    /** Calls the compiled {doc}.",
            "     * @throws PythonException what the Python function raised (its type and message)",
            "     * @throws IllegalArgumentException an argument of the wrong dtype, rank or range */",
            f"    public static {rtype} {method}({decl}) {{",
            ]
    for p in params:
        body += _checks(p)
    body.append("        ensureLoaded();")  # after the checks: a bad argument is reported even without the library
    if rtype == "void":
        body += [f"        nativeCall({names});", "    }", ""]
    else:
        body += [f"        Object[] ep$r = nativeCall({names});", f"        return {rexpr};", "    }", ""]
    # Python defaults as overloads: the trailing parameters that have one may be left out
    k = len(params)
    while k > 0 and params[k - 1].default is not None:
        k -= 1
        args = ", ".join([p.java for p in params[:k]] + [p.default or "" for p in params[k:]])
        keep = ", ".join(f"{_java_type(p)} {p.java}" for p in params[:k])
        ret = "" if rtype == "void" else "return "
        body += [f"    /** {method} with the Python defaults of its last {len(params) - k} parameter(s). */",
                 f"    public static {rtype} {method}({keep}) {{ {ret}{method}({args}); }}", ""]
    abi = _abi_version()
    native = ", ".join(f"{_java_type(p)} {p.java}" for p in params)
    lines = [
        "// Generated by everypath from the Python source: do not edit, regenerate.",
        *([f"package {package};", ""] if package else []),
        "import everypath.Arguments;", "import everypath.DType;", "import everypath.NDArray;",
        "import everypath.PythonException;", "",
        f"/** The compiled Python function {doc}. */",
        f"public final class {cls} {{",
        f"    /** The JNI glue System.loadLibrary loads on the first call: lib{library}.so, linked to "
        f"lib{gen.name}.so. */",
        f"    public static final String LIBRARY = {java_string(library)};",
        f"    private static final int ABI_VERSION = {abi};",
        "    private static volatile boolean loaded;", "",
        f"    private {cls}() {{}}", "",
        "    /** Loads the glue from an explicit file (System.load) instead of java.library.path. */",
        "    public static void load(String path) {",
        f"        synchronized ({cls}.class) {{",
        "            if (loaded) return;", "            System.load(path);", "            checkAbi();",
        "            loaded = true;", "        }", "    }", "",
        "    private static void ensureLoaded() {",
        "        if (loaded) return;",
        f"        synchronized ({cls}.class) {{",
        "            if (loaded) return;", "            System.loadLibrary(LIBRARY);", "            checkAbi();",
        "            loaded = true;", "        }", "    }", "",
        "    private static void checkAbi() {",
        "        int v = nativeAbiVersion();",
        "        if (v != ABI_VERSION) {",
        '            throw new UnsatisfiedLinkError(LIBRARY + ": the library speaks everypath ABI " + v + ", this '
        'class was generated for " + ABI_VERSION);',
        "        }", "    }", "",
        *res.classes, *body,
        "    private static native int nativeAbiVersion();", "",
        f"    private static native Object[] nativeCall({native});",
        "}", ""]
    return "\n".join(lines)


def _abi_version() -> int:
    for line in ABI_H.read_text().splitlines():
        if line.startswith("#define EP_ABI_VERSION"):
            return int(line.split()[2])
    raise RuntimeError(f"{ABI_H} defines no EP_ABI_VERSION")


# -- the C glue ---------------------------------------------------------------------------------------------

def _c_param(p: _Param, i: int) -> tuple[str, list[str]]:
    """The JNI parameter and the statements that fill args[i] from it (0 on a pending exception)."""
    if p.t["kind"] == "array":
        code = _SCALARS[p.t["dtype"]][0]
        return f"jobject a{i}", [f"  if (!epj_arg_array(env, a{i}, {code}, {p.t['ndim']}, {c_string(p.where)}, "
                                 f"&args[{i}])) return NULL;"]
    code, jt, _, ct, jni, _ = _SCALARS[p.t["dtype"]]
    if jt == "double[]":
        return f"{jni} a{i}", [f"  if (!epj_arg_complex(env, a{i}, {code}, &args[{i}])) return NULL;"]
    conv = f"a{i} ? 1 : 0" if jt == "boolean" else f"({ct})a{i}"
    return f"{jni} a{i}", [f"  {{ {ct} x = {conv}; epj_arg_scalar(&args[{i}], {code}, &x, sizeof x); }}"]


def _c_glue(gen: Generated, qualified: str, params: list[_Param], slots: list[dict[str, Any]]) -> str:
    prefix = "Java_" + jni_mangle(qualified) + "_"
    nargs, nres = len(params), len(slots)
    decl, fill = ["JNIEnv* env", "jclass cls"], []
    for i, p in enumerate(params):
        d, stmts = _c_param(p, i)
        decl.append(d)
        fill += stmts
    want = ", ".join(f"{{EP_KIND_{s['kind'].upper()}, {_SCALARS[s['dtype']][0]}, {s.get('ndim', 0)}}}"
                     for s in slots) or "{0, 0, 0}"
    abi = ABI_H.read_text()
    return "\n".join([
        f"/* Generated by everypath: the JNI glue of {qualified}, the compiled Python function {gen.name}.",
        f" * Plain C11 + JNI: build it into lib{gen.name}_jni.so linked to lib{gen.name}.so. Do not edit. */",
        "#include <jni.h>", "#include <stdint.h>", "#include <stdio.h>", "#include <string.h>", "",
        "/* ---- everypath/abi.h, as this glue was generated against ---- */", abi,
        "extern int ep_abi_version(void);", "extern void ep_release(void* owner);",
        f"extern int {gen.symbol}(const ep_value* args, int64_t nargs, ep_value* results, int64_t nresults, "
        "ep_error* err);", "", _C_HELPERS, "",
        f"JNIEXPORT jint JNICALL {prefix}nativeAbiVersion(JNIEnv* env, jclass cls) {{",
        "  (void)env; (void)cls;", "  return (jint)ep_abi_version();", "}", "",
        f"static const epj_slot epj_want[] = {{{want}}};", "",
        f"JNIEXPORT jobjectArray JNICALL {prefix}nativeCall({', '.join(decl)}) {{",
        f"  ep_value args[{max(nargs, 1)}], results[{max(nres, 1)}];", "  ep_error err;", "  jobjectArray out;",
        "  (void)cls;",
        "  memset(args, 0, sizeof args); memset(results, 0, sizeof results); memset(&err, 0, sizeof err);",
        *fill,
        f"  if ({gen.symbol}(args, {nargs}, results, {nres}, &err) != 0) {{",
        f"    epj_release_all(results, {nres});", "    epj_throw_python(env, &err);", "    return NULL;", "  }",
        f"  out = epj_results(env, results, epj_want, {nres}, {c_string(gen.name)});",
        f"  epj_release_all(results, {nres});", "  return out;", "}", ""])


_C_HELPERS = r"""
/* the helpers a function without arrays (or complex numbers) leaves unused must not warn */
#if defined(__GNUC__) || defined(__clang__)
#define EPJ_HELPER static __attribute__((unused))
#else
#define EPJ_HELPER static
#endif
typedef struct epj_slot { int32_t kind, dtype, ndim; } epj_slot;
static const int64_t epj_itemsize[13] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 4, 8, 8, 16};
static double epj_empty[2]; /* the address of a zero-size argument */

EPJ_HELPER void epj_throw(JNIEnv* env, const char* cls, const char* msg) {
  jclass c = (*env)->FindClass(env, cls);
  if (c != NULL) (*env)->ThrowNew(env, c, msg);
}

/* Classes, methods and fields the glue uses, looked up once when the JVM loads the library (JNI_OnLoad
 * runs with the loading class's class loader, which is what finds everypath.* on Android too). */
static struct {
  jclass object, ndarray, python_exception, box[11];
  jmethodID for_result, exception_init, value_of[11];
  jfieldID data, shape;
} epj;

EPJ_HELPER jclass epj_class(JNIEnv* env, const char* name) {
  jclass local = (*env)->FindClass(env, name);
  if (local == NULL) return NULL;
  jclass global = (jclass)(*env)->NewGlobalRef(env, local);
  (*env)->DeleteLocalRef(env, local);
  return global;
}

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM* vm, void* reserved) {
  static const char* box[11] = {"java/lang/Boolean", "java/lang/Byte", "java/lang/Short", "java/lang/Integer",
                                "java/lang/Long", "java/lang/Short", "java/lang/Integer", "java/lang/Long",
                                "java/lang/Long", "java/lang/Float", "java/lang/Double"};
  static const char* sig[11] = {"(Z)Ljava/lang/Boolean;", "(B)Ljava/lang/Byte;", "(S)Ljava/lang/Short;",
                                "(I)Ljava/lang/Integer;", "(J)Ljava/lang/Long;", "(S)Ljava/lang/Short;",
                                "(I)Ljava/lang/Integer;", "(J)Ljava/lang/Long;", "(J)Ljava/lang/Long;",
                                "(F)Ljava/lang/Float;", "(D)Ljava/lang/Double;"};
  JNIEnv* env;
  (void)reserved;
  if ((*vm)->GetEnv(vm, (void**)&env, JNI_VERSION_1_6) != JNI_OK) return JNI_ERR;
  if ((epj.object = epj_class(env, "java/lang/Object")) == NULL) return JNI_ERR;
  if ((epj.ndarray = epj_class(env, "everypath/NDArray")) == NULL) return JNI_ERR;
  if ((epj.python_exception = epj_class(env, "everypath/PythonException")) == NULL) return JNI_ERR;
  epj.for_result = (*env)->GetStaticMethodID(env, epj.ndarray, "forResult", "(I[J)Leverypath/NDArray;");
  epj.data = (*env)->GetFieldID(env, epj.ndarray, "data", "Ljava/nio/ByteBuffer;");
  epj.shape = (*env)->GetFieldID(env, epj.ndarray, "shape", "[J");
  epj.exception_init = (*env)->GetMethodID(env, epj.python_exception, "<init>",
                                           "(Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;)V");
  if (!epj.for_result || !epj.data || !epj.shape || !epj.exception_init) return JNI_ERR;
  for (int i = 0; i < 11; ++i) {
    if ((epj.box[i] = epj_class(env, box[i])) == NULL) return JNI_ERR;
    epj.value_of[i] = (*env)->GetStaticMethodID(env, epj.box[i], "valueOf", sig[i]);
    if (epj.value_of[i] == NULL) return JNI_ERR;
  }
  return JNI_VERSION_1_6;
}

/* UTF-8 (maybe cut mid-character by ep_error's fixed buffers) to a String through UTF-16: NewStringUTF
 * takes modified UTF-8 and rejects the 4-byte sequences a Python message may hold. */
EPJ_HELPER jstring epj_string(JNIEnv* env, const char* s, size_t cap) {
  jchar buf[1100];
  size_t n = 0, i = 0, len = 0;
  while (len < cap && len < 1024 && s[len] != 0) ++len;
  while (i < len) {
    unsigned char c = (unsigned char)s[i++];
    uint32_t cp = c;
    int extra = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : -1;
    if (extra < 0) cp = 0xFFFD;
    else if (extra > 0) cp = c & (0x3F >> extra);
    for (int k = 0; k < extra; ++k) {
      if (i >= len || ((unsigned char)s[i] & 0xC0) != 0x80) { cp = 0xFFFD; break; }
      cp = (cp << 6) | ((unsigned char)s[i++] & 0x3F);
    }
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp < 0xE000)) cp = 0xFFFD;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      buf[n++] = (jchar)(0xD800 + (cp >> 10));
      buf[n++] = (jchar)(0xDC00 + (cp & 0x3FF));
    } else {
      buf[n++] = (jchar)cp;
    }
  }
  return (*env)->NewString(env, buf, (jsize)n);
}

EPJ_HELPER void epj_throw_python(JNIEnv* env, const ep_error* err) {
  const char* type = err->set ? err->type : "RuntimeError";
  const char* msg = err->set ? err->message : "compiled code failed without reporting an error";
  jstring t = epj_string(env, type, sizeof err->type);
  jstring m = t == NULL ? NULL : epj_string(env, msg, sizeof err->message);
  if (m == NULL) return;
  /* the trace compiled code leaves after the message's NUL (lowering/tracebacks.py): "file\x1fline\x1fname" lines */
  size_t used = 0;
  while (err->set && used < sizeof err->message && err->message[used] != 0) ++used;
  used = err->set ? used + 1 : sizeof err->message;
  jstring tr = used < sizeof err->message ? epj_string(env, err->message + used, sizeof err->message - used)
                                          : (*env)->NewStringUTF(env, "");
  if (tr == NULL) return;
  jobject e = (*env)->NewObject(env, epj.python_exception, epj.exception_init, t, m, tr);
  if (e != NULL) (*env)->Throw(env, (jthrowable)e);
}

/* An NDArray (checked by Arguments.array on the Java side) as an array slot: C-contiguous, in place. */
EPJ_HELPER int epj_arg_array(JNIEnv* env, jobject array, int32_t dtype, int32_t ndim, const char* where,
                         ep_value* v) {
  char msg[512];
  jobject buf = (*env)->GetObjectField(env, array, epj.data);
  jlongArray shape = (jlongArray)(*env)->GetObjectField(env, array, epj.shape);
  if (buf == NULL || shape == NULL || (*env)->GetArrayLength(env, shape) != ndim || ndim > EP_MAX_NDIM) {
    snprintf(msg, sizeof msg, "%s: expected an NDArray of rank %d", where, (int)ndim);
    epj_throw(env, "java/lang/IllegalArgumentException", msg);
    return 0;
  }
  jlong dims[EP_MAX_NDIM];
  (*env)->GetLongArrayRegion(env, shape, 0, ndim, dims);
  const int64_t itemsize = epj_itemsize[dtype];
  int64_t count = 1;
  for (int k = 0; k < ndim; ++k) count *= dims[k];
  void* data = (*env)->GetDirectBufferAddress(env, buf);
  const jlong cap = (*env)->GetDirectBufferCapacity(env, buf);
  if (cap != count * itemsize || (data == NULL && cap != 0)) {
    snprintf(msg, sizeof msg, "%s: the array needs a direct buffer of %lld bytes, it has %lld", where,
             (long long)(count * itemsize), (long long)cap);
    epj_throw(env, "java/lang/IllegalArgumentException", msg);
    return 0;
  }
  if (data == NULL) data = epj_empty;
  if ((uintptr_t)data % (uintptr_t)(itemsize > 8 ? 8 : itemsize) != 0) {
    snprintf(msg, sizeof msg, "%s: the buffer is not aligned to its %lld-byte elements", where,
             (long long)itemsize);
    epj_throw(env, "java/lang/IllegalArgumentException", msg);
    return 0;
  }
  v->kind = EP_KIND_ARRAY;
  v->dtype = dtype;
  v->ndim = ndim;
  int64_t stride = itemsize;
  for (int k = ndim - 1; k >= 0; --k) {
    v->shape[k] = dims[k];
    v->strides[k] = stride;
    stride *= dims[k];
  }
  v->data = data;
  (*env)->DeleteLocalRef(env, buf);
  (*env)->DeleteLocalRef(env, shape);
  return 1;
}

EPJ_HELPER void epj_arg_scalar(ep_value* v, int32_t dtype, const void* bytes, size_t n) {
  v->kind = EP_KIND_SCALAR;
  v->dtype = dtype;
  memcpy(v->scalar.bytes, bytes, n);
}

EPJ_HELPER int epj_arg_complex(JNIEnv* env, jdoubleArray a, int32_t dtype, ep_value* v) {
  jdouble c[2];
  (*env)->GetDoubleArrayRegion(env, a, 0, 2, c);
  if ((*env)->ExceptionCheck(env)) return 0;
  if (dtype == EP_COMPLEX64) {
    float f[2] = {(float)c[0], (float)c[1]};
    epj_arg_scalar(v, dtype, f, sizeof f);
  } else {
    double d[2] = {c[0], c[1]};
    epj_arg_scalar(v, dtype, d, sizeof d);
  }
  return 1;
}

EPJ_HELPER jobject epj_value_of(JNIEnv* env, int32_t dtype, jvalue x) {
  jobject out = (*env)->CallStaticObjectMethodA(env, epj.box[dtype], epj.value_of[dtype], &x);
  return (*env)->ExceptionCheck(env) ? NULL : out;
}

/* A scalar result boxed as the generated class unboxes it (unsigned types in the next wider type). */
EPJ_HELPER jobject epj_box(JNIEnv* env, const ep_value* v) {
  const unsigned char* b = v->scalar.bytes;
  jvalue x;
  memset(&x, 0, sizeof x);
  switch (v->dtype) {
    case EP_BOOL: x.z = b[0] != 0; return epj_value_of(env, v->dtype, x);
    case EP_INT8: { int8_t i; memcpy(&i, b, 1); x.b = i; return epj_value_of(env, v->dtype, x); }
    case EP_INT16: { int16_t i; memcpy(&i, b, 2); x.s = i; return epj_value_of(env, v->dtype, x); }
    case EP_INT32: { int32_t i; memcpy(&i, b, 4); x.i = i; return epj_value_of(env, v->dtype, x); }
    case EP_INT64: { int64_t i; memcpy(&i, b, 8); x.j = i; return epj_value_of(env, v->dtype, x); }
    case EP_UINT8: { uint8_t i; memcpy(&i, b, 1); x.s = (jshort)i; return epj_value_of(env, v->dtype, x); }
    case EP_UINT16: { uint16_t i; memcpy(&i, b, 2); x.i = (jint)i; return epj_value_of(env, v->dtype, x); }
    case EP_UINT32: { uint32_t i; memcpy(&i, b, 4); x.j = (jlong)i; return epj_value_of(env, v->dtype, x); }
    case EP_UINT64: { uint64_t i; memcpy(&i, b, 8); x.j = (jlong)i; return epj_value_of(env, v->dtype, x); }
    case EP_FLOAT32: { float f; memcpy(&f, b, 4); x.f = f; return epj_value_of(env, v->dtype, x); }
    case EP_FLOAT64: { double d; memcpy(&d, b, 8); x.d = d; return epj_value_of(env, v->dtype, x); }
    case EP_COMPLEX64:
    case EP_COMPLEX128: {
      jdouble c[2];
      if (v->dtype == EP_COMPLEX64) { float f[2]; memcpy(f, b, 8); c[0] = f[0]; c[1] = f[1]; }
      else memcpy(c, b, 16);
      jdoubleArray out = (*env)->NewDoubleArray(env, 2);
      if (out != NULL) (*env)->SetDoubleArrayRegion(env, out, 0, 2, c);
      return out;
    }
    default: epj_throw(env, "java/lang/IllegalStateException", "everypath: a result of unknown dtype"); return NULL;
  }
}

/* Strided (possibly negative or 0 strides: a view, a broadcast) into C order at dst. */
EPJ_HELPER void epj_copy(char* dst, const ep_value* v, int64_t itemsize) {
  int64_t count = 1;
  for (int k = 0; k < v->ndim; ++k) count *= v->shape[k];
  if (count == 0) return;
  int contiguous = 1;
  int64_t s = itemsize;
  for (int k = v->ndim - 1; k >= 0; --k) {
    if (v->shape[k] != 1 && v->strides[k] != s) contiguous = 0;
    s *= v->shape[k];
  }
  if (contiguous || v->ndim == 0) { memcpy(dst, v->data, (size_t)(count * itemsize)); return; }
  int64_t idx[EP_MAX_NDIM] = {0};
  const char* row = (const char*)v->data;
  const int last = v->ndim - 1;
  for (;;) {
    const char* p = row;
    for (int64_t i = 0; i < v->shape[last]; ++i, p += v->strides[last], dst += itemsize) {
      memcpy(dst, p, (size_t)itemsize);
    }
    int k = last - 1;
    for (; k >= 0; --k) {
      row += v->strides[k];
      if (++idx[k] < v->shape[k]) break;
      row -= v->strides[k] * v->shape[k];
      idx[k] = 0;
    }
    if (k < 0) return;
  }
}

/* An array result copied into a fresh, Java-owned NDArray (NDArray.forResult allocates it). */
EPJ_HELPER jobject epj_array(JNIEnv* env, const ep_value* v) {
  jlong dims[EP_MAX_NDIM];
  int64_t count = 1;
  for (int k = 0; k < v->ndim; ++k) { dims[k] = (jlong)v->shape[k]; count *= v->shape[k]; }
  if (count > 0 && v->data == NULL) {
    epj_throw(env, "java/lang/IllegalStateException", "everypath: the compiled code returned a NULL array");
    return NULL;
  }
  jlongArray shape = (*env)->NewLongArray(env, v->ndim);
  if (shape == NULL) return NULL;
  (*env)->SetLongArrayRegion(env, shape, 0, v->ndim, dims);
  jobject a = (*env)->CallStaticObjectMethod(env, epj.ndarray, epj.for_result, (jint)v->dtype, shape);
  if (a == NULL || (*env)->ExceptionCheck(env)) return NULL;
  jobject buf = (*env)->GetObjectField(env, a, epj.data);
  char* dst = buf == NULL ? NULL : (char*)(*env)->GetDirectBufferAddress(env, buf);
  if (dst != NULL) epj_copy(dst, v, epj_itemsize[v->dtype]);
  (*env)->DeleteLocalRef(env, buf);
  (*env)->DeleteLocalRef(env, shape);
  return a;
}

/* The flat result slots as Object[]: each checked against the signature, then boxed or copied. */
EPJ_HELPER jobjectArray epj_results(JNIEnv* env, const ep_value* results, const epj_slot* want, int64_t n,
                                const char* fn) {
  jobjectArray out = (*env)->NewObjectArray(env, (jsize)n, epj.object, NULL);
  if (out == NULL) return NULL;
  for (int64_t i = 0; i < n; ++i) {
    const ep_value* v = &results[i];
    if (v->kind != want[i].kind || v->dtype != want[i].dtype || v->dtype < 0 || v->dtype > 12 ||
        (v->kind == EP_KIND_ARRAY && v->ndim != want[i].ndim)) {
      char msg[256];
      snprintf(msg, sizeof msg, "%s(): internal error: result %lld does not match the signature", fn, (long long)i);
      epj_throw(env, "java/lang/IllegalStateException", msg);
      return NULL;
    }
    jobject x = v->kind == EP_KIND_ARRAY ? epj_array(env, v) : epj_box(env, v);
    if (x == NULL) return NULL;
    (*env)->SetObjectArrayElement(env, out, (jsize)i, x);
    (*env)->DeleteLocalRef(env, x);
  }
  return out;
}

EPJ_HELPER void epj_release_all(ep_value* results, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if (results[i].owner != NULL) { ep_release(results[i].owner); results[i].owner = NULL; }
  }
}
""".strip()


# -- the everypath.* classes every binding shares ------------------------------------------------------------

_DTYPE_JAVA = """\
package everypath;

/** Element types of the everypath C ABI; the codes are abi.h's ep_dtype numbers. */
public enum DType {
    BOOL(0, 1, "bool"), INT8(1, 1, "int8"), INT16(2, 2, "int16"), INT32(3, 4, "int32"), INT64(4, 8, "int64"),
    UINT8(5, 1, "uint8"), UINT16(6, 2, "uint16"), UINT32(7, 4, "uint32"), UINT64(8, 8, "uint64"),
    FLOAT32(9, 4, "float32"), FLOAT64(10, 8, "float64"), COMPLEX64(11, 8, "complex64"),
    COMPLEX128(12, 16, "complex128");

    public final int code;
    public final int itemSize;
    /** NumPy's name for it. */
    public final String numpyName;

    DType(int code, int itemSize, String numpyName) {
        this.code = code;
        this.itemSize = itemSize;
        this.numpyName = numpyName;
    }

    public boolean isComplex() { return this == COMPLEX64 || this == COMPLEX128; }

    public boolean isFloating() { return this == FLOAT32 || this == FLOAT64; }

    public static DType of(int code) {
        for (DType d : values()) {
            if (d.code == code) return d;
        }
        throw new IllegalArgumentException("unknown everypath dtype code " + code);
    }

    @Override
    public String toString() { return numpyName; }
}
"""

_EXCEPTION_JAVA = """\
package everypath;

/** An exception the compiled Python function raised: its Python type name and message, and the Python
 *  lines it came from as the first frames of its stack trace (file.py:LINE, innermost first). */
public class PythonException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String pythonType;
    private final String pythonMessage;

    public PythonException(String pythonType, String pythonMessage) {
        this(pythonType, pythonMessage, "");
    }

    /** trace: "file, line, function" (0x1f between) entries, one per line, innermost first (as compiled code writes it). */
    public PythonException(String pythonType, String pythonMessage, String trace) {
        super(pythonType + ": " + pythonMessage);
        this.pythonType = pythonType;
        this.pythonMessage = pythonMessage;
        java.util.List<StackTraceElement> frames = new java.util.ArrayList<>();
        for (String entry : trace.split("\\n")) {
            String[] p = entry.split("\\u001f");
            if (p.length == 3 && p[1].matches("[0-9]+")) frames.add(new StackTraceElement("python", p[2], p[0],
                                                                                 Integer.parseInt(p[1])));
        }
        if (!frames.isEmpty()) {
            frames.addAll(java.util.Arrays.asList(getStackTrace()));
            setStackTrace(frames.toArray(new StackTraceElement[0]));
        }
    }

    /** "ValueError", "ZeroDivisionError", or module.Name for an imported exception type. */
    public String pythonType() { return pythonType; }

    public String pythonMessage() { return pythonMessage; }
}
"""

_ARGUMENTS_JAVA = """\
package everypath;

/** The checks generated bindings run on their arguments (not an API for users). */
public final class Arguments {
    private Arguments() {}

    private static String an(DType d) { return (d.numpyName.startsWith("i") ? "an " : "a ") + d; }

    public static void array(String where, NDArray a, DType dtype, int ndim, boolean mutated, String annotation) {
        String want = an(dtype) + " NDArray of rank " + ndim + " (" + annotation + ")";
        if (a == null) throw new IllegalArgumentException(where + ": expected " + want + ", got null");
        if (a.dtype != dtype || a.shape.length != ndim) {
            throw new IllegalArgumentException(where + ": expected " + want + ", got " + an(a.dtype)
                    + " NDArray of rank " + a.shape.length);
        }
        if (mutated && a.data.isReadOnly()) {
            throw new IllegalArgumentException(where + ": the function writes into this array, its buffer is read-only");
        }
    }

    public static void range(String where, long value, long lo, long hi, String dtype) {
        if (value < lo || value > hi) {
            throw new IllegalArgumentException(where + ": expected a " + dtype + " (" + lo + ".." + hi + "), got "
                    + value);
        }
    }

    public static void complex(String where, double[] c, String annotation) {
        if (c == null || c.length != 2) {
            throw new IllegalArgumentException(where + ": expected " + annotation + " as double[] {re, im}, got "
                    + (c == null ? "null" : "a double[] of length " + c.length));
        }
    }
}
"""

_NDARRAY_JAVA = """\
package everypath;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * An n-d array for compiled functions: C-contiguous elements of one DType in a direct ByteBuffer in native
 * byte order, which the compiled code reads (and, for a parameter it mutates, writes) in place.
 * Results are always fresh NDArrays the JVM owns.
 */
public final class NDArray {
    final DType dtype;
    final long[] shape;
    final ByteBuffer data; // the JNI glue reads these three fields

    /** Wraps data without a copy: direct, native order, exactly size() * itemSize bytes. */
    public NDArray(DType dtype, ByteBuffer data, long... shape) {
        if (dtype == null || data == null || shape == null) throw new IllegalArgumentException("NDArray: null argument");
        long bytes = count(shape) * dtype.itemSize;
        if (!data.isDirect()) throw new IllegalArgumentException("NDArray: the buffer must be direct (ByteBuffer.allocateDirect)");
        if (data.order() != ByteOrder.nativeOrder()) {
            throw new IllegalArgumentException("NDArray: the buffer must be in native byte order (.order(ByteOrder.nativeOrder()))");
        }
        if (data.capacity() != bytes) {
            throw new IllegalArgumentException("NDArray: shape " + Arrays.toString(shape) + " of " + dtype + " needs "
                    + bytes + " bytes, the buffer has " + data.capacity());
        }
        this.dtype = dtype;
        this.shape = shape.clone();
        this.data = data;
    }

    public static NDArray zeros(DType dtype, long... shape) {
        long bytes = count(shape) * dtype.itemSize;
        if (bytes > Integer.MAX_VALUE) throw new IllegalArgumentException("NDArray: " + bytes + " bytes do not fit one ByteBuffer");
        return new NDArray(dtype, ByteBuffer.allocateDirect((int) bytes).order(ByteOrder.nativeOrder()), shape);
    }

    static NDArray forResult(int code, long[] shape) { return zeros(DType.of(code), shape); }

    public static NDArray of(float[] v, long... shape) {
        NDArray a = zeros(DType.FLOAT32, fit(v.length, shape));
        a.data.asFloatBuffer().put(v);
        return a;
    }
    public static NDArray of(double[] v, long... shape) {
        NDArray a = zeros(DType.FLOAT64, fit(v.length, shape));
        a.data.asDoubleBuffer().put(v);
        return a;
    }
    public static NDArray of(byte[] v, long... shape) {
        NDArray a = zeros(DType.INT8, fit(v.length, shape));
        a.data.duplicate().put(v);
        return a;
    }
    public static NDArray of(short[] v, long... shape) {
        NDArray a = zeros(DType.INT16, fit(v.length, shape));
        a.data.asShortBuffer().put(v);
        return a;
    }
    public static NDArray of(int[] v, long... shape) {
        NDArray a = zeros(DType.INT32, fit(v.length, shape));
        a.data.asIntBuffer().put(v);
        return a;
    }
    public static NDArray of(long[] v, long... shape) {
        NDArray a = zeros(DType.INT64, fit(v.length, shape));
        a.data.asLongBuffer().put(v);
        return a;
    }

    public static NDArray of(boolean[] v, long... shape) {
        NDArray a = zeros(DType.BOOL, fit(v.length, shape));
        for (int i = 0; i < v.length; ++i) a.data.put(i, (byte) (v[i] ? 1 : 0));
        return a;
    }

    public DType dtype() { return dtype; }
    public long[] shape() { return shape.clone(); }
    public long shape(int axis) { return shape[axis]; }
    public int ndim() { return shape.length; }
    public long size() { return count(shape); }

    /** A view of the elements (writes reach the array), positioned at 0, in native order. */
    public ByteBuffer buffer() { return data.duplicate().order(ByteOrder.nativeOrder()); }

    public double getDouble(long... index) { return readDouble(offset(index)); }
    public float getFloat(long... index) { return (float) readDouble(offset(index)); }
    /** Integer and bool elements exactly (uint64: the unsigned bits); floats truncated like a Java cast. */
    public long getLong(long... index) { return readLong(offset(index)); }
    public int getInt(long... index) { return (int) readLong(offset(index)); }
    public boolean getBoolean(long... index) { return readLong(offset(index)) != 0; }

    public double[] getComplex(long... index) {
        int o = offset(index);
        if (dtype == DType.COMPLEX64) return new double[] {data.getFloat(o), data.getFloat(o + 4)};
        if (dtype == DType.COMPLEX128) return new double[] {data.getDouble(o), data.getDouble(o + 8)};
        return new double[] {readDouble(o), 0.0};
    }

    public void set(double value, long... index) {
        int o = offset(index);
        switch (dtype) {
            case FLOAT32: data.putFloat(o, (float) value); break;
            case FLOAT64: data.putDouble(o, value); break;
            case COMPLEX64: data.putFloat(o, (float) value); data.putFloat(o + 4, 0f); break;
            case COMPLEX128: data.putDouble(o, value); data.putDouble(o + 8, 0.0); break;
            default: writeLong(o, (long) value);
        }
    }

    public void set(long value, long... index) {
        if (dtype.isFloating() || dtype.isComplex()) set((double) value, index); else writeLong(offset(index), value);
    }

    public void set(boolean value, long... index) { set(value ? 1L : 0L, index); }

    public double[] toDoubleArray() {
        double[] out = new double[flat()];
        for (int i = 0; i < out.length; ++i) out[i] = readDouble(i * dtype.itemSize);
        return out;
    }

    public float[] toFloatArray() {
        float[] out = new float[flat()];
        for (int i = 0; i < out.length; ++i) out[i] = (float) readDouble(i * dtype.itemSize);
        return out;
    }

    public long[] toLongArray() {
        long[] out = new long[flat()];
        for (int i = 0; i < out.length; ++i) out[i] = readLong(i * dtype.itemSize);
        return out;
    }

    public int[] toIntArray() {
        int[] out = new int[flat()];
        for (int i = 0; i < out.length; ++i) out[i] = (int) readLong(i * dtype.itemSize);
        return out;
    }

    public boolean[] toBooleanArray() {
        boolean[] out = new boolean[flat()];
        for (int i = 0; i < out.length; ++i) out[i] = readLong(i * dtype.itemSize) != 0;
        return out;
    }


    @Override
    public String toString() { return "NDArray(" + dtype + ", shape=" + Arrays.toString(shape) + ")"; }

    private double readDouble(int o) {
        switch (dtype) {
            case FLOAT32: case COMPLEX64: return data.getFloat(o);
            case FLOAT64: case COMPLEX128: return data.getDouble(o);
            case UINT64: { long v = data.getLong(o); return v >= 0 ? (double) v : (double) (v >>> 1) * 2.0 + (v & 1); }
            default: return readLong(o);
        }
    }

    private long readLong(int o) {
        switch (dtype) {
            case BOOL: case INT8: return data.get(o);
            case UINT8: return data.get(o) & 0xFFL;
            case INT16: return data.getShort(o);
            case UINT16: return data.getShort(o) & 0xFFFFL;
            case INT32: return data.getInt(o);
            case UINT32: return data.getInt(o) & 0xFFFFFFFFL;
            case INT64: case UINT64: return data.getLong(o);
            default: return (long) readDouble(o);
        }
    }

    private void writeLong(int o, long v) {
        switch (dtype.itemSize) {
            case 1: data.put(o, dtype == DType.BOOL ? (byte) (v != 0 ? 1 : 0) : (byte) v); break;
            case 2: data.putShort(o, (short) v); break;
            case 4: data.putInt(o, (int) v); break;
            default: data.putLong(o, v);
        }
    }

    private int flat() { return (int) count(shape); }

    private int offset(long[] index) {
        if (index.length != shape.length) {
            throw new IllegalArgumentException("NDArray: " + index.length + " indices for an array of rank " + shape.length);
        }
        long o = 0;
        for (int k = 0; k < shape.length; ++k) {
            long i = index[k] < 0 ? index[k] + shape[k] : index[k];
            if (i < 0 || i >= shape[k]) {
                throw new IndexOutOfBoundsException("index " + index[k] + " is out of bounds for axis " + k + " with size " + shape[k]);
            }
            o = o * shape[k] + i;
        }
        return (int) (o * dtype.itemSize);
    }

    private static long count(long[] shape) {
        if (shape.length > 8) throw new IllegalArgumentException("NDArray: rank " + shape.length + " is above the ABI's 8");
        long n = 1;
        for (long d : shape) {
            if (d < 0) throw new IllegalArgumentException("NDArray: negative dimension in " + Arrays.toString(shape));
            n = Math.multiplyExact(n, d);
        }
        return n;
    }

    private static long[] fit(int n, long[] shape) {
        if (shape.length == 0) return new long[] {n};
        if (count(shape) != n) {
            throw new IllegalArgumentException("NDArray.of: " + n + " values do not fill shape " + Arrays.toString(shape));
        }
        return shape;
    }
}
"""

JAVA_SUPPORT: tuple[tuple[str, str], ...] = (
    ("everypath/DType.java", _DTYPE_JAVA), ("everypath/NDArray.java", _NDARRAY_JAVA),
    ("everypath/PythonException.java", _EXCEPTION_JAVA), ("everypath/Arguments.java", _ARGUMENTS_JAVA))


def jni_binding(gen: Generated, package: str = "everypath.generated") -> JniBinding:
    """The Java class, the shared everypath.* classes and the JNI glue for one compiled function."""
    params = _flat_params(gen.signature)
    slots: list[dict[str, Any]] = []
    _result_slots(gen.signature["result"], slots)
    cls = camel(gen.name, True)
    qualified = f"{package}.{cls}" if package else cls
    library = f"{gen.name}_jni"
    java = _java_class(gen, package, cls, library, params)
    return JniBinding(java, qualified.replace(".", "/") + ".java", _c_glue(gen, qualified, params, slots), qualified,
                      library, JAVA_SUPPORT)

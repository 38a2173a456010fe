"""lowering._runtime: calling C-ABI kernels (abi.h) from Python.

The kernels are hand-written in runtime_fixture.cpp and compiled with the real
g++ once per session; no mocks.
"""
from __future__ import annotations

import ctypes
import gc
import shutil
import subprocess
import sys
import threading
import timeit
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

from everypath.lowering import _runtime

REPO = Path(__file__).resolve().parents[2]
FIXTURE_SRC = Path(__file__).with_name("runtime_fixture.cpp")

Sig = dict[str, Any]


# --------------------------------------------------------------------------
# Building the fixture libraries


def _compile(out: Path, *defines: str) -> Path:
    cxx = shutil.which("g++")
    assert cxx is not None, "g++ is required to build the runtime fixture"
    cmd = [cxx, "-O1", "-std=c++20", "-shared", "-fPIC", "-I", str(REPO / "variants" / "include"),
           *defines, str(FIXTURE_SRC), "-o", str(out)]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return out


@pytest.fixture(scope="session")
def lib_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _compile(tmp_path_factory.mktemp("runtime") / "fixture.so")


@pytest.fixture(scope="session")
def lib(lib_path: Path) -> _runtime.Library:
    return _runtime.Library(str(lib_path))


class Counters:
    """The fixture's owner counters, read through ctypes (same loaded library)."""

    def __init__(self, path: Path) -> None:
        self._cdll = ctypes.CDLL(str(path))
        for name in ("fixture_released", "fixture_allocated"):
            getattr(self._cdll, name).restype = ctypes.c_int64

    @property
    def released(self) -> int:
        return self._cdll.fixture_released()

    @property
    def allocated(self) -> int:
        return self._cdll.fixture_allocated()

    def outstanding(self) -> int:
        gc.collect()
        return self.allocated - self.released


@pytest.fixture(scope="session")
def counters(lib: _runtime.Library, lib_path: Path) -> Counters:
    return Counters(lib_path)


# --------------------------------------------------------------------------
# Signature descriptors, as the compiler builds them


def arr(dtype: str = "float64", ndim: int = 1) -> Sig:
    return {"kind": "array", "dtype": dtype, "ndim": ndim}


def sc(dtype: str, py: bool = True) -> Sig:
    return {"kind": "scalar", "dtype": dtype, "py": py}


def tup(*items: Sig) -> Sig:
    return {"kind": "tuple", "items": list(items)}


def lst(elem: Sig) -> Sig:
    return {"kind": "list", "elem": elem}


NONE: Sig = {"kind": "none"}

_PY_NAMES = {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex"}


def annotation(t: Sig) -> str:
    """The annotation text the runtime prints for a type (same rules as the runtime module)."""
    if t["kind"] == "array":
        dims = ", ".join(["int"] * t["ndim"]) or "()"
        return f"np.ndarray[tuple[{dims}], np.dtype[{annotation(sc(t['dtype'], py=False))}]]"
    if t["kind"] == "scalar":
        if t["py"]:
            return _PY_NAMES[np.dtype(t["dtype"]).kind]
        return "np.bool_" if t["dtype"] == "bool" else f"np.{t['dtype']}"
    if t["kind"] == "tuple":
        return "tuple[" + (", ".join(annotation(i) for i in t["items"]) or "()") + "]"
    if t["kind"] == "list":
        return f"list[{annotation(t['elem'])}]"
    return "None"


def param(name: str, type_: Sig, *, mutated: bool = False, **default: Any) -> Sig:
    try:
        text = annotation(type_)
    except (KeyError, TypeError):  # deliberately malformed types in signature tests
        text = "?"
    p: Sig = {"name": name, "type": type_, "annotation": text, "mutated": mutated}
    if "default" in default:
        p["default"] = default["default"]
    return p


def sig(name: str, params: list[Sig], result: Sig) -> Sig:
    return {"name": name, "params": params, "result": result}


def echo(lib: _runtime.Library, types: list[Sig], result: Sig | None = None) -> _runtime.Function:
    """ep_call_echo copies argument slots to result slots one to one."""
    params = [param(f"a{i}", t) for i, t in enumerate(types)]
    if result is None:
        result = types[0] if len(types) == 1 else tup(*types)
    return lib.bind("ep_call_echo", sig("echo", params, result))


@pytest.fixture(scope="session")
def add(lib: _runtime.Library) -> _runtime.Function:
    return lib.bind("ep_call_add_scalars",
                    sig("add", [param("a", sc("int64")), param("b", sc("float64"))], sc("float64")))


# --------------------------------------------------------------------------
# Library and bind


def test_library_loads_and_reports_abi(lib: _runtime.Library, lib_path: Path) -> None:
    assert lib.path == str(lib_path)
    assert lib.abi_version == _runtime.ABI_VERSION == 1
    assert _runtime.MAX_NDIM == 8


def test_missing_library_raises_import_error_with_dlerror(tmp_path: Path) -> None:
    missing = tmp_path / "nope.so"
    with pytest.raises(ImportError, match="cannot open shared object file"):
        _runtime.Library(str(missing))


def test_wrong_abi_version_raises_import_error(tmp_path: Path) -> None:
    path = _compile(tmp_path / "abi999.so", "-DFIXTURE_ABI_VERSION=999")
    with pytest.raises(ImportError) as info:
        _runtime.Library(str(path))
    message = str(info.value)
    assert "version 999" in message and "version 1" in message and str(path) in message


def test_library_without_ep_release_is_rejected(tmp_path: Path) -> None:
    path = _compile(tmp_path / "norelease.so", "-DFIXTURE_NO_RELEASE")
    with pytest.raises(ImportError, match="ep_release"):
        _runtime.Library(str(path))


def test_missing_symbol_raises_attribute_error(lib: _runtime.Library) -> None:
    with pytest.raises(AttributeError, match="ep_call_nothing_here"):
        lib.bind("ep_call_nothing_here", sig("f", [], NONE))


def test_function_exposes_signature_and_name(lib: _runtime.Library) -> None:
    s = sig("add", [param("a", sc("int64")), param("b", sc("float64"))], sc("float64"))
    fn = lib.bind("ep_call_add_scalars", s)
    assert fn.signature is s
    assert fn.__name__ == "add"
    assert "add" in repr(fn)


@pytest.mark.parametrize(
    ("signature", "field"),
    [
        ({"params": [], "result": NONE}, "signature['name']"),
        ({"name": "f", "result": NONE}, "signature['params']"),
        ({"name": "f", "params": []}, "signature['result']"),
        (sig("f", [param("x", {"kind": "array", "dtype": "float128", "ndim": 1})], NONE),
         "signature['params'][0]['type']['dtype']"),
        (sig("f", [param("x", {"kind": "array", "dtype": "float64", "ndim": 9})], NONE),
         "signature['params'][0]['type']['ndim']"),
        (sig("f", [param("x", {"kind": "array", "dtype": "float64"})], NONE),
         "signature['params'][0]['type']['ndim']"),
        (sig("f", [param("x", {"kind": "matrix"})], NONE), "signature['params'][0]['type']['kind']"),
        (sig("f", [param("x", lst(sc("int64")))], NONE), "signature['params'][0]['type']['kind']"),
        (sig("f", [], lst(arr())), "signature['result']['elem']"),
        (sig("f", [param("x", tup(sc("int64"), {"kind": "scalar"}))], NONE),
         "signature['params'][0]['type']['items'][1]['dtype']"),
        (sig("f", [param("x", sc("int64")), param("x", sc("int64"))], NONE),
         "signature['params'][1]['name']"),
        (sig("f", [{"type": sc("int64")}], NONE), "signature['params'][0]['name']"),
        (sig("f", [param("x", sc("int64"), mutated=1)], NONE),  # type: ignore[arg-type]
         "signature['params'][0]['mutated']"),
        (sig("f", [], {"kind": "scalar", "dtype": "int64", "py": "yes"}), "signature['result']['py']"),
    ],
)
def test_bad_signature_raises_value_error_naming_field(
    lib: _runtime.Library, signature: Sig, field: str
) -> None:
    with pytest.raises(ValueError) as info:
        lib.bind("ep_call_echo", signature)
    assert field in str(info.value)


# --------------------------------------------------------------------------
# Binding arguments: positional, keyword, defaults, CPython's messages


def test_add_scalars_positional_and_keyword(add: _runtime.Function) -> None:
    assert add(2, 0.5) == 2.5
    assert add(2, b=0.5) == 2.5
    assert add(b=0.5, a=2) == 2.5
    assert type(add(1, 1.0)) is float


def test_explicit_dunder_call(add: _runtime.Function) -> None:
    assert add.__call__(2, 0.5) == 2.5
    assert add.__call__(2, b=0.5) == 2.5
    with pytest.raises(TypeError, match=r"^add\(\) missing 1 required positional argument: 'b'$"):
        add.__call__(1)


def test_defaults_are_filled(lib: _runtime.Library) -> None:
    fn = lib.bind("ep_call_add_scalars", sig("add", [
        param("a", sc("int64")), param("b", sc("float64"), default=0.25)], sc("float64")))
    assert fn(1) == 1.25
    assert fn(1, 2.0) == 3.0
    assert fn(a=1) == 1.25


def _python_twin(call: Callable[[Callable[..., Any]], Any], has_default: bool) -> str:
    """The message CPython gives for the same mistake on a pure-Python twin."""
    if has_default:
        def add(a, b=0.25):  # type: ignore[no-untyped-def]
            return None
    else:
        def add(a, b):  # type: ignore[no-untyped-def]
            return None
    add.__qualname__ = "add"  # CPython names functions by qualname in these messages
    with pytest.raises(TypeError) as info:
        call(add)
    return str(info.value)


@pytest.mark.parametrize("has_default", [False, True])
@pytest.mark.parametrize(
    "call",
    [
        lambda f: f(),
        lambda f: f(b=1.0),
        lambda f: f(1, 2.0, 3),
        lambda f: f(1, 2.0, 3, 4),
        lambda f: f(1, 2.0, z=3),
        lambda f: f(1, 2.0, a=3),
        lambda f: f(1, 2.0, b=3),
    ],
    ids=["none", "only-b", "three", "four", "unexpected-kw", "multiple-a", "multiple-b"],
)
def test_binding_errors_match_cpython(
    lib: _runtime.Library, call: Callable[[Callable[..., Any]], Any], has_default: bool
) -> None:
    b = param("b", sc("float64"), **({"default": 0.25} if has_default else {}))
    fn = lib.bind("ep_call_add_scalars", sig("add", [param("a", sc("int64")), b], sc("float64")))
    expected = _python_twin(call, has_default)
    with pytest.raises(TypeError) as info:
        call(fn)
    assert str(info.value) == expected


def test_binding_error_messages_spelled_out(add: _runtime.Function, lib: _runtime.Library) -> None:
    with pytest.raises(TypeError, match=r"^add\(\) missing 1 required positional argument: 'b'$"):
        add(1)
    with pytest.raises(TypeError, match=r"^add\(\) takes 2 positional arguments but 3 were given$"):
        add(1, 2.0, 3)
    with pytest.raises(TypeError, match=r"^add\(\) got an unexpected keyword argument 'z'$"):
        add(1, 2.0, z=1)
    with pytest.raises(TypeError, match=r"^add\(\) got multiple values for argument 'a'$"):
        add(1, 2.0, a=1)
    three = lib.bind("ep_call_echo", sig("three", [param(n, sc("int64")) for n in "xyz"],
                                         tup(sc("int64"), sc("int64"), sc("int64"))))
    with pytest.raises(TypeError, match=r"^three\(\) missing 3 required positional arguments: "
                                        r"'x', 'y', and 'z'$"):
        three()
    assert three(1, z=3, y=2) == (1, 2, 3)


# --------------------------------------------------------------------------
# Scalar arguments


INT_BOUNDS = {
    name: (int(np.iinfo(name).min), int(np.iinfo(name).max))
    for name in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
}


@pytest.mark.parametrize("dtype", sorted(INT_BOUNDS))
def test_integer_scalars_round_trip_and_overflow(lib: _runtime.Library, dtype: str) -> None:
    lo, hi = INT_BOUNDS[dtype]
    fn = echo(lib, [sc(dtype)])
    for value in (lo, hi, 0, 1, np.int8(5), np.uint64(7), getattr(np, dtype)(hi)):
        out = fn(value)
        assert type(out) is int and out == int(value)
    for flag in (True, np.bool_(True)):  # CPython would keep a bool a bool: refused, not silently an int
        with pytest.raises(TypeError, match=r"^echo\(\) argument 'a0': expected int, got "):
            fn(flag)
    for bad in (lo - 1, hi + 1, 2**200, -(2**200)):
        with pytest.raises(OverflowError, match=rf"^echo\(\) argument 'a0': Python integer {bad} "
                                                rf"out of bounds for {dtype}$"):
            fn(bad)
    np_fn = echo(lib, [sc(dtype, py=False)])
    out = np_fn(hi)
    assert type(out) is getattr(np, dtype) and out == hi


def test_numpy_integer_out_of_range_is_overflow(lib: _runtime.Library) -> None:
    with pytest.raises(OverflowError, match="argument 'a0'"):
        echo(lib, [sc("int64")])(np.uint64(2**64 - 1))
    with pytest.raises(OverflowError, match="argument 'a0'"):
        echo(lib, [sc("uint8")])(np.int16(-1))


@pytest.mark.parametrize(
    ("dtype", "accepted", "rejected"),
    [
        ("bool", [True, False, np.bool_(True), np.bool_(False)],
         [1, 0, 1.0, np.int8(1), 1j, "True", None]),
        ("int64", [3, np.int32(-4), np.uint16(9)],
         [True, np.bool_(True), 3.0, np.float64(3.0), np.float32(1), 1j, "3", None, np.array(3), [3], (3,)]),
        ("float64", [1.5, 3, np.float32(0.5), np.float16(2.0), np.int8(-2), np.float64(2.5)],
         [False, 1j, np.complex64(1), "1.5", None, np.array(1.5), [1.5]]),
        ("float32", [1.5, 7, np.float64(0.25), np.longdouble(0.5)], [1j, "x"]),
        ("complex128", [1 + 2j, 1.5, 3, np.complex64(1 - 1j), np.float32(2), np.clongdouble(1j)],
         [True, "1j", None, np.array(1j)]),
        ("complex64", [1 + 2j, 0.5, np.complex128(3j)], [b"1", object()]),
    ],
)
def test_scalar_acceptance_by_dtype(
    lib: _runtime.Library, dtype: str, accepted: list[Any], rejected: list[Any]
) -> None:
    fn = echo(lib, [sc(dtype)])
    for value in accepted:
        out = fn(value)
        assert out == np.dtype(dtype).type(value), value
        assert type(out) is _PY_TYPES[np.dtype(dtype).kind]
    for value in rejected:
        with pytest.raises(TypeError) as info:
            fn(value)
        got = _describe(value)
        assert str(info.value) == f"echo() argument 'a0': expected {annotation(sc(dtype))}, got {got}"


_PY_TYPES = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


def _describe(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"ndarray of dtype {value.dtype} with ndim {value.ndim}"
    if isinstance(value, tuple):
        return f"tuple of length {len(value)}"
    t = type(value)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"


def test_float_scalars_keep_their_precision(lib: _runtime.Library) -> None:
    assert echo(lib, [sc("float64")])(0.1) == 0.1
    out32 = echo(lib, [sc("float32", py=False)])(0.1)
    assert type(out32) is np.float32 and out32 == np.float32(0.1)
    assert echo(lib, [sc("complex64", py=False)])(0.1 + 0.2j) == np.complex64(0.1 + 0.2j)


def test_huge_int_to_float_is_overflow(lib: _runtime.Library) -> None:
    with pytest.raises(OverflowError, match="argument 'a0'"):
        echo(lib, [sc("float64")])(10**400)


def test_scalar_result_kinds(lib: _runtime.Library) -> None:
    def six(py: bool) -> list[Sig]:
        return [sc("float32", py), sc("int8", py), sc("uint64", py), sc("bool", py),
                sc("complex64", py), sc("complex128", py)]

    fn = lib.bind("ep_call_scalar_kinds", sig("kinds", [], tup(*six(False), *six(True))))
    out = fn()
    numpy_half, python_half = out[:6], out[6:]
    assert [type(v) for v in numpy_half] == [np.float32, np.int8, np.uint64, np.bool_,
                                             np.complex64, np.complex128]
    assert [type(v) for v in python_half] == [float, int, int, bool, complex, complex]
    expected = [1.5, -7, 2**64 - 1, True, 1 + 2j, 3 - 4j]
    assert list(numpy_half) == expected and list(python_half) == expected


# --------------------------------------------------------------------------
# Array arguments


def test_array_type_errors(lib: _runtime.Library) -> None:
    fn = lib.bind("ep_call_identity", sig("kernel", [param("x", arr("float64", 2))], arr("float64", 2)))
    expected = "np.ndarray[tuple[int, int], np.dtype[np.float64]]"
    cases = [
        (np.zeros(3, dtype=np.int64), "ndarray of dtype int64 with ndim 1"),
        (np.zeros((2, 2), dtype=np.float32), "ndarray of dtype float32 with ndim 2"),
        (np.zeros(3), "ndarray of dtype float64 with ndim 1"),
        (np.zeros((1,) * 9), "ndarray of dtype float64 with ndim 9"),
        (3, "int"),
        ([[1.0]], "list"),
        (None, "NoneType"),
        (np.float64(1.0), "numpy.float64"),
    ]
    for value, got in cases:
        with pytest.raises(TypeError) as info:
            fn(value)
        assert str(info.value) == f"kernel() argument 'x': expected {expected}, got {got}"


def test_zero_dimensional_arrays(lib: _runtime.Library) -> None:
    fn = echo(lib, [arr("float64", 0)])
    x = np.array(2.5)
    assert fn(x) is x
    with pytest.raises(TypeError, match=r"expected np\.ndarray\[tuple\[\(\)\], np\.dtype\[np\.float64\]\], "
                                        r"got float$"):
        fn(2.5)


def test_integer_aliases_are_accepted(lib: _runtime.Library) -> None:
    # 'q' (long long) and 'l' (long) are both int64 on LP64 platforms.
    fn = echo(lib, [arr("int64")])
    for code in ("q", "l"):
        x = np.arange(3, dtype=np.dtype(code))
        if x.dtype.itemsize == 8:
            assert fn(x) is x


def test_strided_aligned_array_is_passed_without_copy(lib: _runtime.Library) -> None:
    fn = lib.bind("ep_call_layout", sig("layout", [param("x", arr("float64", 2))],
                                        tup(sc("float64"), lst(sc("int64")))))
    base = np.arange(24, dtype=np.float64).reshape(4, 6)
    x = base[::-2, ::3]
    total, (aligned, s0, s1) = fn(x)
    assert total == x.sum() and aligned == 1
    assert (s0, s1) == x.strides == (-96, 24)
    zero_stride = np.broadcast_to(np.arange(3.0), (4, 3))
    total, (_, s0, s1) = fn(zero_stride)
    assert total == zero_stride.sum() and (s0, s1) == (0, 8)


def _misaligned(values: np.ndarray) -> np.ndarray:
    buf = np.zeros(values.nbytes + 1, dtype=np.uint8)
    x = np.frombuffer(buf.data, dtype=values.dtype, count=values.size, offset=1)
    x[...] = values
    assert not x.flags.aligned
    return x


@pytest.mark.parametrize("make", ["misaligned", "byteswapped", "odd-stride"])
def test_unusual_layouts_are_passed_as_contiguous_copies(lib: _runtime.Library, make: str) -> None:
    fn = lib.bind("ep_call_layout", sig("layout", [param("x", arr("float64", 1))],
                                        tup(sc("float64"), lst(sc("int64")))))
    values = np.array([1.0, 2.0, 4.0, 8.0])
    if make == "misaligned":
        x = _misaligned(values)
    elif make == "byteswapped":
        x = values.astype(">f8")
    else:
        raw = np.zeros(4 * 12, dtype=np.uint8)
        x = np.lib.stride_tricks.as_strided(raw.view(np.float64)[:1], shape=(4,), strides=(12,))
        x[...] = values
        assert x.strides[0] % 8 != 0
    total, (aligned, stride) = fn(x)
    assert total == 15.0 and aligned == 1 and stride == 8
    # `return x` still hands back the caller's object.
    ident = lib.bind("ep_call_identity", sig("ident", [param("x", arr())], arr()))
    assert ident(x) is x


def test_mutated_argument_is_written_in_place(lib: _runtime.Library) -> None:
    fn = lib.bind("ep_call_inplace", sig("kernel", [param("x", arr("float64", 2), mutated=True)], NONE))
    x = np.arange(6, dtype=np.float64).reshape(2, 3)
    assert fn(x) is None
    np.testing.assert_array_equal(x, np.arange(6).reshape(2, 3) * 2)
    view = x[:, ::-2]  # strided view: written through its strides
    fn(view)
    np.testing.assert_array_equal(x, [[0, 2, 8], [12, 8, 20]])


def test_mutated_read_only_array_is_rejected(lib: _runtime.Library) -> None:
    fn = lib.bind("ep_call_inplace", sig("kernel", [param("x", arr("float64", 1), mutated=True)], NONE))
    x = np.ones(3)
    x.flags.writeable = False
    with pytest.raises(ValueError, match=r"^kernel\(\) argument 'x': assignment destination is read-only$"):
        fn(x)
    # A non-mutated parameter happily takes read-only arrays.
    ident = lib.bind("ep_call_identity", sig("ident", [param("x", arr())], arr()))
    assert ident(x) is x


def test_mutated_unusual_layout_is_rejected(lib: _runtime.Library) -> None:
    fn = lib.bind("ep_call_inplace", sig("kernel", [param("x", arr("float64", 1), mutated=True)], NONE))
    for x in (_misaligned(np.ones(3)), np.ones(3).astype(">f8")):
        with pytest.raises(ValueError, match=r"^kernel\(\) argument 'x': cannot be written in place"):
            fn(x)


def test_array_default_argument(lib: _runtime.Library) -> None:
    default = np.arange(3.0)
    fn = lib.bind("ep_call_identity", sig("ident", [param("x", arr(), default=default)], arr()))
    assert fn() is default


# --------------------------------------------------------------------------
# Tuple and None parameters


def test_tuple_parameter_is_flattened(lib: _runtime.Library) -> None:
    pair = tup(arr("float64", 1), tup(sc("int64"), sc("float64")))
    fn = lib.bind("ep_call_echo", sig("kernel", [param("p", pair), param("k", sc("int32"))],
                                      tup(arr("float64", 1), sc("int64"), sc("float64"), sc("int32"))))
    x = np.arange(3.0)
    out = fn((x, (4, 0.5)), 7)
    assert out[0] is x and out[1:] == (4, 0.5, 7)


def test_tuple_parameter_errors_name_item(lib: _runtime.Library) -> None:
    pair = tup(arr("float64", 1), tup(sc("int64"), sc("float64")))
    fn = lib.bind("ep_call_echo", sig("kernel", [param("p", pair)], NONE))
    x = np.arange(3.0)
    with pytest.raises(TypeError) as info:
        fn([x, (4, 0.5)])
    assert str(info.value) == f"kernel() argument 'p': expected {annotation(pair)}, got list"
    with pytest.raises(TypeError) as info:
        fn((x, (4, 0.5), 1))
    assert str(info.value) == f"kernel() argument 'p': expected {annotation(pair)}, got tuple of length 3"
    with pytest.raises(TypeError) as info:
        fn((x, (4.5, 0.5)))
    assert str(info.value) == "kernel() argument 'p[1][0]': expected int, got float"
    with pytest.raises(TypeError) as info:
        fn((x.astype(np.int64), (4, 0.5)))
    assert str(info.value) == ("kernel() argument 'p[0]': expected np.ndarray[tuple[int], "
                               "np.dtype[np.float64]], got ndarray of dtype int64 with ndim 1")
    with pytest.raises(OverflowError, match=r"argument 'p\[1\]\[0\]'"):
        fn((x, (2**63, 0.5)))


def test_mutated_tuple_parameter(lib: _runtime.Library) -> None:
    fn = lib.bind("ep_call_inplace", sig("kernel", [param("p", tup(arr(), arr()), mutated=True)], NONE))
    a, b = np.ones(2), np.full(3, 3.0)
    fn((a, b))
    assert a.tolist() == [2, 2] and b.tolist() == [6, 6, 6]
    b.flags.writeable = False
    with pytest.raises(ValueError, match=r"^kernel\(\) argument 'p\[1\]': assignment destination is read-only$"):
        fn((a, b))


def test_none_parameter_takes_no_slot(lib: _runtime.Library) -> None:
    fn = lib.bind("ep_call_echo", sig("kernel", [param("a", sc("int64")), param("n", NONE, default=None),
                                                 param("b", sc("float64"))], tup(sc("int64"), sc("float64"))))
    assert fn(1, None, 2.5) == (1, 2.5)
    assert fn(1, b=2.5) == (1, 2.5)
    with pytest.raises(TypeError, match=r"^kernel\(\) argument 'n': expected None, got int$"):
        fn(1, 0, 2.5)


# --------------------------------------------------------------------------
# Array results: borrowed and owned


def test_return_x_is_identity(lib: _runtime.Library) -> None:
    fn = lib.bind("ep_call_identity", sig("ident", [param("x", arr())], arr()))
    x = np.arange(5.0)
    assert fn(x) is x
    strided = x[::-2]
    assert fn(strided) is strided
    empty = np.zeros(0)
    assert fn(empty) is empty


def test_borrowed_view_has_argument_as_base(lib: _runtime.Library) -> None:
    fn = lib.bind("ep_call_slice_view", sig("tail", [param("x", arr())], arr()))
    x = np.arange(5.0)
    out = fn(x)
    assert out.base is x
    assert out.tolist() == [1, 2, 3, 4] and out.flags.writeable
    out[0] = 100
    assert x[1] == 100
    # NumPy collapses view chains: the base is the array owning the memory.
    view = x[1:]
    assert fn(view).base is x
    single = np.ones(1)
    tail = fn(single)
    assert tail.shape == (0,) and tail.base is single
    readonly = np.arange(3.0)
    readonly.flags.writeable = False
    assert not fn(readonly).flags.writeable  # a view can't grant more than its base


def test_borrowed_result_not_in_arguments_is_an_error(lib: _runtime.Library) -> None:
    fn = lib.bind("ep_call_bad_borrow", sig("bad", [param("x", arr())], arr()))
    with pytest.raises(RuntimeError, match=r"^internal error: borrowed result not found in arguments$"):
        fn(np.zeros(2))


def test_owned_array_is_released_exactly_once(lib: _runtime.Library, counters: Counters) -> None:
    fn = lib.bind("ep_call_new_array", sig("make", [param("n", sc("int64"))], arr()))
    before = counters.released
    out = fn(4)
    assert out.tolist() == [0, 1, 2, 3] and out.dtype == np.float64 and out.flags.writeable
    out[0] = 42  # kernel memory is ours to write
    view = out[1:]
    del out
    gc.collect()
    assert counters.released == before  # the view keeps the buffer alive
    assert view.tolist() == [1, 2, 3]
    del view
    gc.collect()
    assert counters.released == before + 1
    assert counters.outstanding() == 0
    empty = fn(0)
    assert empty.shape == (0,)
    del empty
    assert counters.outstanding() == 0


def test_owned_array_outlives_library_object(lib_path: Path, counters: Counters) -> None:
    fn = _runtime.Library(str(lib_path)).bind("ep_call_new_array",
                                              sig("make", [param("n", sc("int64"))], arr()))
    out = fn(3)
    del fn
    gc.collect()
    assert out.tolist() == [0, 1, 2]
    del out
    assert counters.outstanding() == 0


def test_tuple_result(lib: _runtime.Library, counters: Counters) -> None:
    result = tup(sc("float64"), tup(arr(), sc("int64")), arr())
    fn = lib.bind("ep_call_tuple_result",
                  sig("kernel", [param("x", arr()), param("k", sc("int64"))], result))
    x = np.array([1.0, 2.0, 3.0])
    total, (scaled, k), same = fn(x, 3)
    assert total == 6.0 and k == 3 and same is x
    assert scaled.tolist() == [3.0, 6.0, 9.0]
    assert counters.allocated - counters.released >= 1
    del scaled
    assert counters.outstanding() == 0


def test_list_results(lib: _runtime.Library, counters: Counters) -> None:
    ints = lib.bind("ep_call_list_result", sig("ints", [param("n", sc("int64"))], lst(sc("int64"))))
    out = ints(4)
    assert out == [0, 10, 20, 30] and all(type(v) is int for v in out)
    assert ints(0) == []
    floats = lib.bind("ep_call_list_f32", sig("floats", [param("n", sc("int64"))],
                                              lst(sc("float32", py=False))))
    out32 = floats(3)
    assert out32 == [0.5, 1.5, 2.5] and all(type(v) is np.float32 for v in out32)
    py_floats = lib.bind("ep_call_list_f32", sig("floats", [param("n", sc("int64"))], lst(sc("float32"))))
    assert py_floats(2) == np.arange(2, dtype=np.float32).__add__(np.float32(0.5)).tolist()
    assert counters.outstanding() == 0


def test_wrong_result_from_kernel_is_reported(lib: _runtime.Library) -> None:
    fn = lib.bind("ep_call_wrong_result", sig("kernel", [], sc("int64")))
    with pytest.raises(RuntimeError, match="internal error"):
        fn()


# --------------------------------------------------------------------------
# Errors raised by kernels


@pytest.mark.parametrize(
    ("code", "exc_type", "message"),
    [
        (0, IndexError, "index 5 is out of bounds for axis 0 with size 3"),
        (1, ZeroDivisionError, "division by zero"),
        (2, RuntimeError, "print: not an exception type"),
        (3, RuntimeError, "NoSuchError: unknown name"),
        (4, RuntimeError, "UnicodeDecodeError: needs five arguments"),
        (5, RuntimeError, "kernel() failed with code 1: no type given"),
        (6, RuntimeError, "kernel() failed with code 7"),
    ],
)
def test_kernel_errors_raise_python_exceptions(
    lib: _runtime.Library, counters: Counters, code: int, exc_type: type[BaseException], message: str
) -> None:
    fn = lib.bind("ep_call_raise", sig("kernel", [param("code", sc("int64"))], tup(arr(), arr())))
    before_released = counters.released
    with pytest.raises(BaseException) as info:
        fn(code)
    assert type(info.value) is exc_type
    assert str(info.value) == message
    # The array the kernel filled before failing was handed back.
    assert counters.released == before_released + 1
    assert counters.outstanding() == 0


# --------------------------------------------------------------------------
# GIL and call overhead


def test_gil_is_released_during_the_call(lib: _runtime.Library) -> None:
    fn = lib.bind("ep_call_wait_flag", sig("wait", [param("flag", arr("int64"), mutated=True)], sc("bool")))
    flag = np.zeros(1, dtype=np.int64)
    result: list[bool] = []
    worker = threading.Thread(target=lambda: result.append(fn(flag)))
    worker.start()
    # Runs only if the kernel call released the GIL; the kernel sees the write.
    while worker.is_alive() and not result:
        flag[0] = 1
        worker.join(0.01)
    worker.join()
    assert result == [True]


def test_call_overhead_report(lib: _runtime.Library, add: _runtime.Function) -> None:
    """Prints per-call cost (run with -s to see it); never asserts timing."""
    ident = lib.bind("ep_call_identity", sig("ident", [param("x", arr())], arr()))
    inplace = lib.bind("ep_call_inplace", sig("ip", [param("a", arr(), mutated=True),
                                                     param("b", arr(), mutated=True)], NONE))
    x, y = np.zeros(4), np.zeros(4)

    def py_add(a: int, b: float) -> float:
        return a + b

    n = 200_000
    timings = {
        "python def add(1, 2.0)": lambda: py_add(1, 2.0),
        "add(1, 2.0) scalars -> float": lambda: add(1, 2.0),
        "add(a=1, b=2.0) keywords": lambda: add(a=1, b=2.0),
        "ident(x) array -> same array": lambda: ident(x),
        "inplace(x, y) 2 arrays -> None": lambda: inplace(x, y),
    }
    lines = []
    for label, call in timings.items():
        best = min(timeit.repeat(call, number=n, repeat=5)) / n
        lines.append(f"  {label:34s} {best * 1e9:7.0f} ns")
    print("\nlowering._runtime call overhead (best of 5):\n" + "\n".join(lines), file=sys.stderr)

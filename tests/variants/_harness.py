"""Test kit for operator families: typing rules called on hand-built call sites,
and their lowerings compiled into one C++ program per family, run, and
compared with NumPy (values, dtype, shape, view-or-copy, exceptions).

No emitter is involved: each case builds the IR call node itself, runs the
operator's ``infer`` and ``lower``, and wraps the C++ expression in
``EPT_CASE`` (tests/variants/cpp/check.hpp).
"""
from __future__ import annotations

import math
import shutil
import subprocess
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from everypath.base.errors import SourceLocation
from everypath.base.annotations import describe_value_type
from everypath.base.cpp import ctype
from everypath.lowering.infer import const_type
from everypath.base.types import ArrayT, DType, ListT, ScalarT, TupleT, Type
from everypath.tracer.ir import Node, Opcode
from everypath.variants.registry import LowerSite, Site, TypingError, registry

REPO = Path(__file__).resolve().parents[2]
INCLUDE = REPO / "variants" / "include"
CHECK_DIR = Path(__file__).resolve().parent / "cpp"
LOC = SourceLocation("t.py", 1, 0)


# ---- argument kinds ----------------------------------------------------------------


@dataclass
class Const:
    """A compile-time constant argument (a CONST node)."""

    value: Any


@dataclass
class Dyn:
    """A run-time argument: an array, a scalar (Python scalars are weak) or a tuple/list of them."""

    value: Any


@dataclass
class View:
    """A non-contiguous view of a base array: base[index] (basic slicing) or base.T."""

    base: np.ndarray
    index: Any = None  # tuple of slices / ints; None with transpose=True
    transpose: bool = False

    @property
    def value(self) -> np.ndarray:
        v = self.base.T if self.transpose else self.base[self.index]
        return v


Arg = Any


def _as_arg(a: Arg) -> Const | Dyn | View:
    return a if isinstance(a, (Const, Dyn, View)) else Dyn(a)


def value_type(v: Any) -> Type:
    if isinstance(v, View):
        return value_type(v.value)
    if isinstance(v, list):
        if not v:
            return ListT(None)
        return ListT(value_type(v[0]))
    if isinstance(v, tuple):
        return TupleT(tuple(value_type(x) for x in v))
    if isinstance(v, np.generic):  # before describe_value_type: np.float64 is a subclass of float
        return ScalarT(DType.of(v.dtype))
    t = describe_value_type(v)
    assert t is not None, v
    return t


def _node(a: Const | Dyn | View, name: str) -> Node:
    if isinstance(a, Const):
        v = a.value
        if isinstance(v, type) or (isinstance(v, np.dtype)):
            v = np.dtype(v)
        return Node(Opcode.CONST, v, (), {}, LOC)
    return Node(Opcode.PARAM, name, (), {}, LOC)


def _type(a: Const | Dyn | View, node: Node) -> Type:
    if isinstance(a, Const):
        return const_type(node.target)
    return value_type(a.value)


def build_site(key: str, args: tuple[Arg, ...], kwargs: dict[str, Arg]) -> tuple[Site, list, dict]:
    pa = [_as_arg(a) for a in args]
    pk = {k: _as_arg(v) for k, v in kwargs.items()}
    an = [_node(a, f"p{i}") for i, a in enumerate(pa)]
    kn = {k: _node(v, f"k_{k}") for k, v in pk.items()}
    call = Node(Opcode.CALL, key, tuple(an), kn, LOC)
    site = Site(key, call, [_type(a, n) for a, n in zip(pa, an)], {k: _type(pk[k], kn[k]) for k in pk})
    return site, pa, pk


def infer(key: str, *args: Arg, **kwargs: Arg) -> Type:
    site, _, _ = build_site(key, args, kwargs)
    return registry().ops[key].infer(site)


def typing_error(key: str, *args: Arg, **kwargs: Arg) -> str:
    try:
        t = infer(key, *args, **kwargs)
    except TypingError as exc:
        return str(exc)
    raise AssertionError(f"{key} typed as {t}, expected a TypingError")


# ---- the reference ---------------------------------------------------------------------


def py_value(a: Const | Dyn | View) -> Any:
    """The value NumPy is called with: a copy, so in-place references leave the C++ inputs alone."""
    if isinstance(a, View):
        return View(a.base.copy(), a.index, a.transpose).value
    return _copied(a.value)


def _copied(v: Any) -> Any:
    if isinstance(v, View):
        return View(v.base.copy(), v.index, v.transpose).value
    if isinstance(v, np.ndarray):
        return v.copy()
    if isinstance(v, tuple):
        return tuple(_copied(x) for x in v)
    if isinstance(v, list):
        return [_copied(x) for x in v]
    return v


def reference_for(key: str) -> Callable[..., Any]:
    if key.startswith("ndarray."):
        return getattr(np.ndarray, key.split(".", 1)[1])
    if key == "operator.matmul":
        import operator

        return operator.matmul
    op = registry().ops[key]
    return op.reference


def run_reference(key: str, args: list, kwargs: dict, ref: Callable[..., Any] | None) -> tuple[str, Any, list]:
    """(status, result or (exception type, message), the arrays NumPy was given)."""
    fn = ref or reference_for(key)
    pa = [py_value(a) for a in args]
    pk = {k: py_value(v) for k, v in kwargs.items()}
    given = _flat_arrays([*pa, *pk.values()])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return "ok", fn(*pa, **pk), given
    except Exception as exc:  # noqa: BLE001 - the exception is the expected result
        return "error", (type(exc).__name__, str(exc)), given


# ---- C++ values ------------------------------------------------------------------------------


def _scalar_cpp(v: Any, dt: DType) -> str:
    if dt is DType.BOOL:
        return "true" if bool(v) else "false"
    if dt.is_integer:
        return f"{dt.cpp}({int(v)}{'ULL' if dt is DType.UINT64 else 'LL'})"
    if dt.is_float:
        x = float(v)
        if math.isnan(x):
            return f"std::numeric_limits<{dt.cpp}>::quiet_NaN()"
        if math.isinf(x):
            return f"{'-' if x < 0 else ''}std::numeric_limits<{dt.cpp}>::infinity()"
        return f"{dt.cpp}({x!r})"
    c = complex(v)
    part = DType.FLOAT32 if dt is DType.COMPLEX64 else DType.FLOAT64
    return f"{dt.cpp}({_scalar_cpp(c.real, part)}, {_scalar_cpp(c.imag, part)})"


class Program:
    """One C++ program holding many cases of one family."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.decls: list[str] = []
        self.body: list[str] = []
        self.cases: dict[str, "Case"] = {}
        self.headers: set[str] = set()  # of the operators used, beyond everypath.hpp
        self._arrays: dict[int, tuple[np.ndarray, str]] = {}
        self._n = 0

    def _fresh(self, hint: str) -> str:
        self._n += 1
        return f"{hint}{self._n}"

    def array(self, a: np.ndarray) -> str:
        if id(a) in self._arrays:
            return self._arrays[id(a)][1]
        dt = DType.of(a.dtype)
        name = self._fresh("in")
        shape = ", ".join(str(d) for d in a.shape)
        vals = ", ".join(_scalar_cpp(x, dt) for x in np.ascontiguousarray(a).ravel())
        self.decls.append(f"  auto {name} = ept::input<{dt.cpp}, {a.ndim}>({{{shape}}}, {{{vals}}});")
        self._arrays[id(a)] = (a, name)  # holding a keeps its id unique
        return name

    def value(self, v: Any) -> str:
        if isinstance(v, View):
            return self.arg(v, None, None)  # type: ignore[arg-type]
        if isinstance(v, np.ndarray):
            return self.array(v)
        if isinstance(v, tuple):
            return "std::make_tuple(" + ", ".join(self.value(x) for x in v) + ")"
        if isinstance(v, list):
            t = value_type(v)
            assert isinstance(t, ListT) and t.elem is not None
            items = ", ".join(self.value(x) for x in v)
            return f"ep::make_list<{ctype(t.elem)}>({{{items}}})"
        t = value_type(v)
        assert isinstance(t, ScalarT), v
        return _scalar_cpp(v, t.dtype)

    def arg(self, a: Const | Dyn | View, node: Node, t: Type) -> str:
        if isinstance(a, Const):
            from everypath.base.cpp import literal

            return literal(node.target, t)
        if isinstance(a, View):
            base = self.array(a.base)
            if a.transpose:
                return f"ep::transpose({base})"
            items = []
            for it in a.index:
                if isinstance(it, slice):
                    parts = [("ep::None{}" if p is None else f"int64_t({p})") for p in (it.start, it.stop, it.step)]
                    items.append(f"ep::make_slice({', '.join(parts)})")
                else:
                    items.append(f"int64_t({it})")
            return f"ep::view({base}, {', '.join(items)})"
        return self.value(a.value)

    def case(self, name: str, key: str, *args: Arg, ref: Callable[..., Any] | None = None, exact: bool = False,
             rtol: float | None = None, values: bool = True, path: str = "loops", **kwargs: Arg) -> None:
        assert name not in self.cases, name
        site, pa, pk = build_site(key, args, kwargs)
        op = registry().ops[key]
        # the headers of the path being tested (and the loops helpers it shares); other paths'
        # headers may need other toolchains (cuda) or OSes (accelerate)
        self.headers.update(v.header for v in op.variants if v.path in ("loops", path))
        status, expected, given = run_reference(key, pa, pk, ref)
        try:
            result = op.infer(site)
        except TypingError as exc:
            self.cases[name] = Case(name, key, None, status, expected, typing_error=str(exc))
            return
        node = site.node
        ls = LowerSite(key=key, node=node, args=[self.arg(a, n, t) for a, n, t in zip(pa, node.args, site.args)],
                       kwargs={k: self.arg(pk[k], node.kwargs[k], site.kwargs[k]) for k in pk},
                       arg_types=list(site.args), kw_types=dict(site.kwargs), result=result, ctype=ctype,
                       site="t.py:1", path=path)
        expr = op.lower(ls)  # type: ignore[misc]
        self.cases[name] = Case(name, key, result, status, expected, expr=expr, exact=exact, rtol=rtol,
                                inputs=given, values=values)
        self.body.append(f'  EPT_CASE("{name}", {expr});')

    def attr(self, name: str, base: Arg, attr: str) -> None:
        """base.attr through variants.attributes, against getattr on the NumPy value."""
        from everypath.variants.attributes import attribute_lower, attribute_type

        a = _as_arg(base)
        node = _node(a, "p0")
        t = _type(a, node)
        result = attribute_type(t, attr)
        status, expected, given = run_reference("raw", [a], {}, lambda v: getattr(v, attr))
        if isinstance(expected, np.dtype):
            expected = np.dtype(expected).name  # compared by the result type only
        expr = attribute_lower(t, self.arg(a, node, t), attr, result, ctype)
        self.cases[name] = Case(name, "attr", result, status, expected, expr=expr, inputs=given)
        if isinstance(expected, str):
            self.body.append(f"  {{ auto ept_d = {expr}; (void)ept_d; }}")
            self.cases[name].status = "skip"
            return
        self.body.append(f'  EPT_CASE("{name}", {expr});')

    def raw(self, name: str, expr: str, expected: Any, result: Type | None = None) -> None:
        """A case written directly in C++ against the header API."""
        self.cases[name] = Case(name, "raw", result, "ok", expected, expr=expr)
        self.body.append(f'  EPT_CASE("{name}", {expr});')

    def source(self) -> str:
        includes = [f'#include "{h}"' for h in sorted(self.headers - {"everypath/everypath.hpp"})]
        return "\n".join(['#include "check.hpp"', *includes, "", "int main() {", *self.decls, *self.body, "  return 0;", "}", ""])

    def run(self, tmp: Path, opt: str = "-O1", extra_flags: tuple[str, ...] = ()) -> dict[str, list[str]]:
        cxx = shutil.which("g++")
        assert cxx is not None, "g++ is required"
        src = tmp / f"{self.name}.cpp"
        exe = tmp / self.name
        src.write_text(self.source())
        cmd = [cxx, "-std=c++20", opt, "-fwrapv", "-I", str(INCLUDE), "-I", str(CHECK_DIR), str(src), "-o", str(exe), *extra_flags]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise AssertionError(f"g++ failed:\n{proc.stderr[-6000:]}")
        out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        lines: dict[str, list[str]] = {}
        for line in out.stdout.splitlines():
            parts = line.split("|")
            lines[parts[0]] = parts[1:]
        return lines


def _flat_arrays(vals: list[Any]) -> list[np.ndarray]:
    out = []
    for v in vals:
        if isinstance(v, np.ndarray):
            out.append(v)
        elif isinstance(v, (tuple, list)):
            out.extend(_flat_arrays(list(v)))
    return out


@dataclass
class Case:
    name: str
    key: str
    result: Type | None
    status: str
    expected: Any
    typing_error: str | None = None
    expr: str = ""
    exact: bool = False
    rtol: float | None = None
    inputs: list[np.ndarray] = field(default_factory=list)
    values: bool = True  # False: compare dtype and shape only (np.empty)


def _parse_values(text: str, dtype: str) -> np.ndarray:
    if not text:
        return np.array([], dtype=dtype)
    toks = text.split(" ")
    if dtype.startswith("complex"):
        vals = [complex(float(t.split(",")[0]), float(t.split(",")[1])) for t in toks]
    elif dtype == "bool":
        vals = [t == "1" for t in toks]
    elif dtype.startswith(("int", "uint")):
        vals = [int(t) for t in toks]
    else:
        vals = [float(t) for t in toks]
    return np.array(vals, dtype=dtype)


def _close(got: np.ndarray, want: np.ndarray, exact: bool, rtol: float | None, what: str) -> None:
    if want.dtype.kind in "biu" or exact:
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    tol = rtol if rtol is not None else (3e-6 if want.dtype in (np.float32, np.complex64) else 1e-12)
    scale = float(np.max(np.abs(want[np.isfinite(want)]))) if np.isfinite(want).any() else 1.0
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * max(scale, 1.0), equal_nan=True, err_msg=what)


def check(case: Case, got: list[str] | None) -> None:
    what = f"case {case.name}: {case.expr}"
    if case.status == "skip":
        return
    if case.typing_error is not None:
        assert case.status == "error", f"{case.name}: TypingError {case.typing_error!r} but NumPy returned a value"
        assert case.typing_error == case.expected[1], f"{case.name}: {case.typing_error!r} != {case.expected[1]!r}"
        return
    assert got is not None, f"{what}: no output"
    if case.status == "error":
        assert got[0] == "E", f"{what}: expected {case.expected}, got {got}"
        assert (got[1], got[2]) == case.expected, f"{what}: {got[1:]} != {case.expected}"
        return
    assert got[0] != "E", f"{what}: raised {got[1:]} but NumPy returned {case.expected!r}"
    exp = case.expected
    if isinstance(exp, (int, float, complex)) and not isinstance(exp, np.generic):  # a Python scalar
        assert got[0] == "S", f"{what}: expected {exp!r}, got {got}"
        if case.result is not None:
            assert isinstance(case.result, ScalarT) and case.result.weak, f"{what}: typed {case.result}"
        want = np.asarray(exp)
        assert got[1] == want.dtype.name, f"{what}: dtype {got[1]} != {want.dtype}"
        _close(_parse_values(got[2], got[1]), want.reshape(1), True, None, what)
        return
    if isinstance(exp, tuple):
        assert got[0] == "T", what
        vals = [int(x) for x in got[1].split(" ")] if got[1] else []
        assert tuple(vals) == exp, f"{what}: {vals} != {exp}"
        return
    if isinstance(exp, np.ndarray):
        assert got[0] == "A", f"{what}: expected an array, got {got}"
        dtype, view, shape, values = got[1], got[2], got[3], got[4]
        assert dtype == exp.dtype.name, f"{what}: dtype {dtype} != {exp.dtype}"
        shp = tuple(int(d) for d in shape.split(",")) if shape else ()
        assert shp == exp.shape, f"{what}: shape {shp} != {exp.shape}"
        if case.result is not None:
            assert isinstance(case.result, ArrayT) and case.result.ndim == exp.ndim, f"{what}: typed {case.result}"
            assert case.result.dtype.np == exp.dtype, f"{what}: typed {case.result}"
        if exp.size:  # empty arrays never share memory in NumPy's eyes
            shares = any(np.shares_memory(exp, i) for i in case.inputs)
            assert (view == "1") == shares, f"{what}: view={view} but NumPy shares memory: {shares}"
        if case.values:
            _close(_parse_values(values, dtype).reshape(exp.shape), exp, case.exact, case.rtol, what)
        return
    assert got[0] == "S", f"{what}: expected a scalar {exp!r}, got {got}"
    want = np.asarray(exp)
    if case.result is not None:
        assert isinstance(case.result, ScalarT), f"{what}: typed {case.result}, NumPy gave a scalar"
        if isinstance(exp, np.generic):
            assert not case.result.weak, f"{what}: typed as a Python scalar, NumPy gives {type(exp)}"
    assert got[1] == want.dtype.name, f"{what}: dtype {got[1]} != {want.dtype}"
    _close(_parse_values(got[2], got[1]), want.reshape(1), case.exact, case.rtol, what)


def run_and_check(prog: Program, tmp: Path, extra_flags: tuple[str, ...] = ()) -> None:
    out = prog.run(tmp, extra_flags=extra_flags)
    failures = []
    for name, case in prog.cases.items():
        try:
            check(case, out.get(name))
        except AssertionError as exc:
            failures.append(str(exc))
    assert not failures, f"{len(failures)} failing cases:\n" + "\n\n".join(failures[:30])


# ---- sample data -----------------------------------------------------------------------------

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
          np.float32, np.float64, np.complex64, np.complex128]


def sample(shape: tuple[int, ...], dtype: Any, seed: int = 0) -> np.ndarray:
    """Deterministic values of a dtype: small signed integers, their floats, complex pairs."""
    n = int(np.prod(shape)) if shape else 1
    i = np.arange(n, dtype=np.int64) + seed
    base = ((i * 37 + 11) % 23) - 9
    dt = np.dtype(dtype)
    if dt.kind == "b":
        v = base > 0
    elif dt.kind == "u":
        v = np.abs(base)
    elif dt.kind == "i":
        v = base
    elif dt.kind == "f":
        v = base * 0.37 + 0.125
    else:
        v = (base * 0.37 + 0.125) + 1j * (((i * 13 + 5) % 17) - 8) * 0.21
    return np.asarray(v).astype(dt).reshape(shape)


# ---- end-to-end comparisons ------------------------------------------------------------------


def assert_same(got: Any, want: Any, rtol: float = 1e-12, path: str = "result") -> None:
    """Same Python type, dtype, shape and values (floats to rtol), recursively through tuples."""
    assert type(got) is type(want), f"{path}: {type(got).__name__} != {type(want).__name__} ({got!r} vs {want!r})"
    if isinstance(want, tuple):
        assert len(got) == len(want), path
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, rtol, f"{path}[{i}]")
        return
    if isinstance(want, (np.ndarray, np.generic)):
        assert got.dtype == want.dtype, f"{path}: dtype {got.dtype} != {want.dtype}"
        assert np.shape(got) == np.shape(want), f"{path}: shape {np.shape(got)} != {np.shape(want)}"
        g, w = np.asarray(got), np.asarray(want)
        if w.dtype.kind in "biu":
            np.testing.assert_array_equal(g, w, err_msg=path)
        else:
            tol = max(rtol, 3e-6) if w.dtype in (np.float32, np.complex64) else rtol
            scale = float(np.max(np.abs(w[np.isfinite(w)]))) if np.isfinite(w).any() else 1.0
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol * max(scale, 1.0), equal_nan=True, err_msg=path)
        return
    if isinstance(want, float) and math.isnan(want):
        assert math.isnan(got), path
        return
    assert got == want or abs(got - want) <= rtol * max(1.0, abs(want)), f"{path}: {got!r} != {want!r}"


def same_outcome(run_python: Callable[[], Any], run_compiled: Callable[[], Any],
                 check: Callable[[Any, Any], None]) -> Any:
    """Run the Python original and the compiled function: the same exception (type and message),
    or results that pass check(got, want). Returns the compiled result or exception."""
    want_exc = got_exc = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = run_python()
    except Exception as exc:  # noqa: BLE001 - the exception is the expected result
        want_exc = exc
    try:
        got = run_compiled()
    except Exception as exc:  # noqa: BLE001
        got_exc = exc
    if want_exc is not None:
        assert got_exc is not None, f"expected {type(want_exc).__name__}: {want_exc}, got {got!r}"
        assert (type(got_exc), str(got_exc)) == (type(want_exc), str(want_exc))
        return got_exc
    assert got_exc is None, f"raised {type(got_exc).__name__}: {got_exc}"
    check(got, want)
    return got


def same_as_python(compiled: Any, *args: Any, rtol: float = 1e-12) -> Any:
    """Call a compiled function and its Python original on copies of args; compare (or compare exceptions)."""
    return same_outcome(lambda: compiled.py_function(*_copied(args)), lambda: compiled(*_copied(args)),
                        lambda got, want: assert_same(got, want, rtol))

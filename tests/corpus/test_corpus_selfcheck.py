"""Self-check of the acceptance corpus under plain CPython (no compiler involved).

For every kernel in tests/corpus: the file follows the format in README.md, the ENTRY is fully
annotated with allowed annotations, the code stays inside the first operator set, cases() are
well formed and deterministic (two runs on deep copies give the same results, mutated
arguments included), only documented exceptions are raised, result types do not depend on the
input values, and bench_args() runs.  Also tests assert_same_result itself and the loader API.
"""
from __future__ import annotations

import copy
import functools
import importlib.util
import inspect
import pathlib
import sys
import time
import types
import typing
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

HERE = pathlib.Path(__file__).resolve().parent


def _load_helper(name: str) -> types.ModuleType:
    modname = f"everypath_corpus.{name}"
    mod = sys.modules.get(modname)
    if mod is not None:
        return mod
    spec = importlib.util.spec_from_file_location(modname, HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[modname] = mod
    spec.loader.exec_module(mod)
    return mod


loader = _load_helper("_loader")
checks = _load_helper("_checks")
load_corpus = loader.load_corpus
assert_same_result = loader.assert_same_result

KERNELS = {k.name: k for k in load_corpus()}
NAMES = sorted(KERNELS)
SEED = 20240611
MAX_CASE_ELEMENTS = 10_000


# ----------------------------------------------------------------------------------------------
# running the cases
# ----------------------------------------------------------------------------------------------

@dataclass
class Outcome:
    result: Any = None
    exc: BaseException | None = None
    args_after: tuple = ()


def _run(kernel, args: tuple) -> Outcome:
    args = copy.deepcopy(args)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            result = kernel.entry(*args)
        except Exception as exc:  # noqa: BLE001 - classified by the tests
            return Outcome(exc=exc, args_after=args)
    return Outcome(result=result, args_after=args)


@functools.lru_cache(maxsize=None)
def _cases(name: str) -> list[tuple]:
    return KERNELS[name].cases(np.random.default_rng(SEED))


@functools.lru_cache(maxsize=None)
def _outcomes(name: str) -> list[Outcome]:
    k = KERNELS[name]
    return [_run(k, c) for c in _cases(name)]


def _fmt_exc(exc: BaseException) -> str:
    return f"{type(exc).__name__}({str(exc)!r})"


# ----------------------------------------------------------------------------------------------
# corpus-level checks
# ----------------------------------------------------------------------------------------------

def test_corpus_size_and_balance():
    assert len(KERNELS) >= 48, f"only {len(KERNELS)} kernels"
    by_cat = {c: sum(1 for k in KERNELS.values() if k.category == c) for c in loader.CATEGORIES}
    for cat, n in by_cat.items():
        assert n >= len(KERNELS) // 5, f"category {cat!r} has only {n} of {len(KERNELS)} kernels: {by_cat}"


def test_every_file_is_a_kernel():
    stems = sorted(p.stem for p in HERE.glob("*.py") if not p.name.startswith(("_", "test_")))
    assert stems == NAMES


def _feature_table() -> dict[str, set[str]]:
    table: dict[str, set[str]] = {}
    for name, k in KERNELS.items():
        feats = set(checks.syntax_features(k))
        for case, out in zip(_cases(name), _outcomes(name)):
            feats |= checks.value_features(case)
            if out.exc is None:
                feats |= checks.value_features([out.result])
            elif isinstance(out.exc, AssertionError):
                feats.add("assert-triggered")
            else:
                feats.add("raise-triggered")
        table[name] = feats
    return table


REQUIRED_TWICE = [
    "dtype:float64", "dtype:float32", "dtype:int64", "dtype:int32", "dtype:bool", "dtype:uint8",
    "dtype:complex128", "rank:1", "rank:2", "rank:3",
    "range-step", "range-negative-step", "for-over-array", "for-over-rows", "while", "break", "continue",
    "early-return", "if-elif", "if-else", "nested-loops",
    "tuple-return", "tuple-unpacking", "default-args", "mutates-args", "augassign-on-argument",
    "write-through-view", "negative-index", "slice-step", "newaxis", "mask-read", "mask-write",
    "fancy-read", "fancy-write", "assert", "raise", "assert-triggered", "raise-triggered",
    "lambda", "nested-function", "recursion", "helper-function", "list-comprehension",
    "generator-expression", "enumerate", "zip", "np.ndindex", "math", "type-alias", "module-constant",
    "numpy-scalar-param", "tuple-param", "bool-param", "bitwise-ops", "matmul-operator", "complex-literal",
]


def test_feature_coverage():
    table = _feature_table()
    counts: dict[str, list[str]] = {}
    for name, feats in table.items():
        for f in feats:
            counts.setdefault(f, []).append(name)
    missing = {f: counts.get(f, []) for f in REQUIRED_TWICE if len(counts.get(f, [])) < 2}
    assert not missing, f"features covered by fewer than 2 kernels: {missing}"
    assert 1 <= len(counts.get("local-import", [])), "no kernel with a function-local import"
    assert 1 <= len(counts.get("npt-rank-open", [])) <= 3, counts.get("npt-rank-open")
    assert len(counts.get("no-return-annotation", [])) >= 8, counts.get("no-return-annotation")


# ----------------------------------------------------------------------------------------------
# per-kernel format checks
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_format(name):
    k = KERNELS[name]
    m = k.module
    assert m.__name__ == f"everypath_corpus.{name}"
    assert sys.modules[m.__name__] is m
    assert inspect.getsource(k.entry)
    assert m.__doc__ and m.__doc__.strip() and "\n" not in m.__doc__.strip()
    assert k.category in loader.CATEGORIES
    for fn in ("cases", "bench_args"):
        params = list(inspect.signature(getattr(m, fn)).parameters)
        assert len(params) == 1, f"{fn} must take exactly the rng"
    n_params = len(inspect.signature(k.entry).parameters)
    assert all(i < n_params for i in k.mutates), f"MUTATES {k.mutates} out of range"
    problems = checks.lint(k)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", NAMES)
def test_entry_annotations(name):
    sig = inspect.signature(KERNELS[name].entry)
    assert sig.parameters, "the entry takes no parameters"
    for pname, p in sig.parameters.items():
        assert p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD, f"{pname}: plain positional parameters only"
        problem = checks.annotation_problem(p.annotation)
        assert problem is None, f"parameter {pname}: {problem}"
    problem = checks.return_annotation_problem(sig.return_annotation)
    assert problem is None, f"return annotation: {problem}"


def _arg_problem(ann: Any, value: Any) -> str | None:
    """Does a case argument fit the parameter annotation (type, dtype, rank)?"""
    if ann in (int, float, bool, complex):
        ok = type(value) is ann
        return None if ok else f"expected {ann.__name__}, got {type(value).__name__}"
    if isinstance(ann, type) and issubclass(ann, np.generic):
        return None if type(value) is ann else f"expected {ann.__name__}, got {type(value).__name__}"
    if typing.get_origin(ann) is tuple:
        want = typing.get_args(ann)
        if type(value) is not tuple or len(value) != len(want):
            return f"expected a tuple of {len(want)}, got {value!r}"
        bad = [v for v, w in zip(value, want) if type(v) is not w]
        return None if not bad else f"tuple elements of the wrong type: {bad}"
    if typing.get_origin(ann) is np.ndarray:
        if type(value) is not np.ndarray:
            return f"expected an ndarray, got {type(value).__name__}"
        (sc,) = typing.get_args(typing.get_args(ann)[1])
        if value.dtype != np.dtype(sc):
            return f"expected dtype {np.dtype(sc)}, got {value.dtype}"
        rank = checks.array_rank(ann)
        if rank != -1 and value.ndim != rank:
            return f"expected rank {rank}, got {value.ndim}"
        return None
    return f"unexpected annotation {ann!r}"


@pytest.mark.parametrize("name", NAMES)
def test_cases_well_formed(name):
    k = KERNELS[name]
    cases = _cases(name)
    assert isinstance(cases, list) and len(cases) >= 4, "need at least 4 cases"
    sig = inspect.signature(k.entry)
    params = list(sig.parameters.values())
    required = sum(1 for p in params if p.default is inspect.Parameter.empty)
    has_array = False
    saw_empty = saw_one = saw_odd = False
    for i, case in enumerate(cases):
        assert type(case) is tuple, f"case {i} is not a tuple"
        assert required <= len(case) <= len(params), f"case {i} has {len(case)} arguments"
        for j, (p, v) in enumerate(zip(params, case)):
            problem = _arg_problem(p.annotation, v)
            assert problem is None, f"case {i} argument {j} ({p.name}): {problem}"
            if isinstance(v, np.ndarray):
                has_array = True
                assert v.size <= MAX_CASE_ELEMENTS, f"case {i} argument {j} has {v.size} elements"
                saw_empty |= v.size == 0
                saw_one |= 1 in v.shape
                saw_odd |= any(d >= 3 and d % 2 == 1 for d in v.shape)
    if has_array:
        if not saw_empty:
            assert "empty" in inspect.getsource(k.module.cases), \
                "no case with an empty array and no comment in cases() saying why ('empty')"
        assert saw_one, "no case with a length-1 dimension"
        assert saw_odd, "no case with an odd dimension >= 3"
    # cases() must be reproducible from the generator's seed
    again = k.cases(np.random.default_rng(SEED))
    assert len(again) == len(cases)
    for i, (a, b) in enumerate(zip(cases, again)):
        assert_same_result(a, b, rtol=0.0, where=f"cases() called twice, case {i}")


@pytest.mark.parametrize("name", NAMES)
def test_deterministic_and_documented_exceptions(name):
    k = KERNELS[name]
    documented = checks.raised_exceptions(k)
    cases = _cases(name)
    first = _outcomes(name)
    for i, (case, a) in enumerate(zip(cases, first)):
        where = f"{name} case {i}"
        b = _run(k, case)
        if a.exc is not None or b.exc is not None:
            assert a.exc is not None and b.exc is not None, f"{where}: raised only once: {a.exc!r} / {b.exc!r}"
            assert type(a.exc) in documented, (
                f"{where}: raised undocumented {_fmt_exc(a.exc)}; kernel code raises only "
                f"{sorted(t.__name__ for t in documented)}")
            assert type(a.exc) is type(b.exc) and str(a.exc) == str(b.exc), \
                f"{where}: {_fmt_exc(a.exc)} vs {_fmt_exc(b.exc)}"
            continue
        assert_same_result(a.result, b.result, rtol=0.0, where=where)
        for j in k.mutates:
            assert_same_result(a.args_after[j], b.args_after[j], rtol=0.0, where=f"{where} mutated argument {j}")
        for j, (before, after) in enumerate(zip(case, a.args_after)):
            if j in k.mutates:
                continue
            try:
                assert_same_result(before, after, rtol=0.0, where=f"{where} argument {j}")
            except AssertionError as exc:
                raise AssertionError(f"argument {j} was modified but is not listed in MUTATES: {exc}") from None


@pytest.mark.parametrize("name", NAMES)
def test_mutates_is_accurate(name):
    k = KERNELS[name]
    if not k.mutates:
        return
    changed = set()
    for case, out in zip(_cases(name), _outcomes(name)):
        if out.exc is not None:
            continue
        for j in k.mutates:
            try:
                assert_same_result(case[j], out.args_after[j], rtol=0.0)
            except AssertionError:
                changed.add(j)
    assert changed == set(k.mutates), f"MUTATES lists {k.mutates} but only {sorted(changed)} ever change"


@pytest.mark.parametrize("name", NAMES)
def test_exceptions_are_triggered(name):
    """Kernels that assert/raise must have cases that trigger it (the compiler must raise the same)."""
    k = KERNELS[name]
    documented = checks.raised_exceptions(k)
    raised = {type(o.exc) for o in _outcomes(name) if o.exc is not None}
    assert raised <= documented
    if documented:
        assert raised, f"kernel raises {sorted(t.__name__ for t in documented)} but no case triggers it"
    assert len(raised) < len(_outcomes(name)), "every case raises"


def _signature(value: Any, with_rank: bool = True) -> Any:
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, tuple(_signature(v, with_rank) for v in value))
    if isinstance(value, np.ndarray):
        return ("ndarray", str(value.dtype), value.ndim if with_rank else "any rank")
    return type(value).__name__


@pytest.mark.parametrize("name", NAMES)
def test_result_types_do_not_depend_on_values(name):
    """A statically typed compiler can only match CPython if the result type is input-independent.

    Only rank-open (npt.NDArray) parameters may change the rank of results.
    """
    k = KERNELS[name]
    sig = inspect.signature(k.entry)
    rank_open = any(checks.array_rank(p.annotation) == -1 for p in sig.parameters.values())
    seen: dict[Any, int] = {}
    for i, out in enumerate(_outcomes(name)):
        if out.exc is None:
            seen.setdefault(_signature(out.result, with_rank=not rank_open), i)
    assert len(seen) == 1, f"result types differ between cases: {seen}"


@pytest.mark.parametrize("name", NAMES)
def test_bench_args_run(name):
    k = KERNELS[name]
    args = k.bench_args(np.random.default_rng(SEED))
    assert type(args) is tuple
    sig = inspect.signature(k.entry)
    for j, (p, v) in enumerate(zip(sig.parameters.values(), args)):
        problem = _arg_problem(p.annotation, v)
        assert problem is None, f"bench argument {j} ({p.name}): {problem}"
    t0 = time.perf_counter()
    out = _run(k, args)
    elapsed = time.perf_counter() - t0
    assert out.exc is None, f"bench_args raised {_fmt_exc(out.exc)}"
    assert elapsed < 5.0, f"bench run took {elapsed:.2f} s under CPython"


# ----------------------------------------------------------------------------------------------
# assert_same_result
# ----------------------------------------------------------------------------------------------

def _fails(expected, actual, *, match: str, **kw):
    with pytest.raises(AssertionError, match=match):
        assert_same_result(expected, actual, **kw)


def test_same_result_accepts_equal_values():
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    assert_same_result(a, a.copy())
    assert_same_result(a, a * (1.0 + 1e-9))
    assert_same_result((1, 2.0, np.float64(3.0), np.int64(4), True, None, 1j),
                       (1, 2.0 + 1e-12, np.float64(3.0), np.int64(4), True, None, 1j))
    assert_same_result(np.array([np.nan, 1.0]), np.array([np.nan, 1.0]))
    assert_same_result(np.array([np.inf, -np.inf]), np.array([np.inf, -np.inf]))
    assert_same_result(np.float32(1.0), np.float32(1.00001))  # float32 tolerance is 1e-4
    assert_same_result([np.zeros(0, dtype=np.int32)], [np.zeros(0, dtype=np.int32)])
    assert_same_result(np.zeros(3), np.full(3, 1e-14))  # tiny absolute tolerance near zero
    assert_same_result(1.0, 1.0 + 1e-5, rtol=1e-4)


def test_same_result_rejects_float_vs_numpy_float64():
    _fails(1.0, np.float64(1.0), match="type differs")
    _fails(np.float64(1.0), 1.0, match="type differs")
    _fails(1, np.int64(1), match="type differs")
    _fails(1, 1.0, match="type differs")
    _fails(True, np.True_, match="type differs")
    _fails((1.0,), [1.0], match="type differs")


def test_same_result_rejects_dtype_mismatch():
    _fails(np.zeros(3), np.zeros(3, dtype=np.float32), match="dtype differs")
    _fails(np.zeros(3, dtype=np.int64), np.zeros(3, dtype=np.int32), match="dtype differs")
    _fails(np.float32(1.0), np.float64(1.0), match="type differs")


def test_same_result_rejects_shape_mismatch():
    _fails(np.zeros((2, 3)), np.zeros((3, 2)), match="shape differs")
    _fails(np.zeros(3), np.zeros((3, 1)), match="shape differs")
    _fails((1, 2), (1, 2, 3), match="length differs")


def test_same_result_rejects_value_mismatch():
    _fails(np.array([1.0, 2.0]), np.array([1.0, 2.001]), match="values differ")
    _fails(np.array([1, 2]), np.array([1, 3]), match="values differ")
    _fails(np.array([True]), np.array([False]), match="values differ")
    _fails(2.0, 2.0 + 1e-5, match="differ")
    _fails(np.float32(1.0), np.float32(1.01), match="differ")
    _fails(3, 4, match="value differs")
    _fails(1 + 1j, 1 + 2j, match="differ")
    _fails(np.array([np.nan]), np.array([1.0]), match="differ")
    _fails(1.0, 1.0 + 1e-5, match="differ", rtol=1e-7)


def test_same_result_messages_say_where():
    with pytest.raises(AssertionError) as info:
        assert_same_result((1, (np.zeros(2), 3.0)), (1, (np.ones(2), 3.0)), where="kern case 4")
    msg = str(info.value)
    assert "kern case 4" in msg and "result[1][0]" in msg
    with pytest.raises(AssertionError) as info:
        assert_same_result((0, 1.0), (0, np.float64(1.0)), where="k")
    assert "k: result[1]" in str(info.value)


# ----------------------------------------------------------------------------------------------
# loader API and the checker itself
# ----------------------------------------------------------------------------------------------

def test_load_corpus_api():
    names = ["logsumexp", "edit_distance"]
    ks = load_corpus(names)
    assert [k.name for k in ks] == sorted(names)
    k = ks[1]
    assert isinstance(k, loader.CorpusKernel)
    assert k.module is sys.modules["everypath_corpus.logsumexp"]
    assert k.entry is k.module.logsumexp
    assert k.path == HERE / "logsumexp.py"
    assert k.rtol is None and k.mutates == ()
    assert isinstance(k.cases(np.random.default_rng(0)), list)
    assert isinstance(k.bench_args(np.random.default_rng(0)), tuple)
    assert load_corpus(["logsumexp"])[0].module is k.module  # imported once
    with pytest.raises(Exception, match="no corpus kernel"):
        load_corpus(["does_not_exist"])
    with pytest.raises(Exception):
        load_corpus(["_loader"])
    all_names = [k.name for k in load_corpus()]
    assert all_names == sorted(all_names) and not any(n.startswith("_") for n in all_names)


def test_lint_catches_violations(tmp_path):
    bad = tmp_path / "bad_kernel.py"
    bad.write_text(
        '"""A bad kernel."""\n'
        "import numpy as np\n"
        "import os\n"
        'CATEGORY = "loop"\n'
        "def helper(x):\n"
        "    return sorted(x)\n"
        "def bad_kernel(x: np.ndarray[tuple[int], np.dtype[np.float64]], y) -> float:\n"
        "    d = {}\n"
        "    try:\n"
        "        pass\n"
        "    except Exception:\n"
        "        pass\n"
        "    s = np.std(x) + np.float64(1.0) + round(2.5)\n"
        "    print('x')\n"
        "    z = x.real\n"
        "    return helper(x)\n"
        'ENTRY = "bad_kernel"\n'
        "def cases(rng):\n"
        "    return [(np.zeros(0), 1)]\n"
        "def bench_args(rng):\n"
        "    return (np.zeros(0), 1)\n"
    )
    spec = importlib.util.spec_from_file_location("everypath_corpus_test_bad_kernel", bad)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    try:
        spec.loader.exec_module(mod)
        fake = types.SimpleNamespace(module=mod, entry=mod.bad_kernel, mutates=())
        text = "\n".join(checks.lint(fake))
    finally:
        sys.modules.pop(spec.name, None)
    for needle in ("import os", "dict literal", "try/except", "np.std", "np.float64()", "round()",
                   "print()", ".real", "sorted()", "strings only"):
        assert needle in text, f"lint missed {needle!r}:\n{text}"
    assert checks.annotation_problem(inspect.Parameter.empty) == "missing annotation"
    assert checks.annotation_problem(list[int]) is not None
    assert checks.annotation_problem(np.ndarray[tuple[int], np.dtype[np.float16]]) is not None
    assert checks.annotation_problem(np.ndarray[tuple[int, int], np.dtype[np.uint8]]) is None

"""Bounds-checked integer indexing by default: out-of-range indices raise NumPy's IndexError (type and
message, compared with CPython running the same function) on loads, stores and row views, natively and
under wasmtime; the checks the compiler proves unnecessary are absent from the generated C++, the others
present, and boundscheck=False removes them all."""
from __future__ import annotations

import dataclasses
import math
import os
import re
from typing import Any, Callable

import numpy as np
import pytest

import everypath
from everypath.base.settings import Settings
from everypath.lowering.pipeline import generate

Vec = np.ndarray[tuple[int], np.dtype[np.float64]]
IVec = np.ndarray[tuple[int], np.dtype[np.int64]]
Mat = np.ndarray[tuple[int, int], np.dtype[np.float64]]


def _settings(**kw: Any) -> Settings:
    return dataclasses.replace(Settings.from_env({**os.environ, "EVERYPATH_TELEMETRY": "0"}), **kw)


# ---- kernels a user writes (each with the bug the issue shows) -------------------------------------------
def first(x: Vec) -> float:
    return x[0]


def total_off_by_one(x: Vec) -> float:
    s = 0.0
    for i in range(len(x) + 1):  # one too many
        s += x[i]
    return s


def put(y: Vec, i: int, v: float) -> float:
    y[i] = v
    return y.sum()


def put2(x: Mat, i: int, j: int, v: float) -> float:
    x[i, j] = v
    return x[i, j]


def row_sum(x: Mat, i: int) -> float:
    r = x[i]  # a view: one row
    return float(r.sum())


def shift_right(x: Vec, k: int) -> Vec:
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        out[i + k] = x[i]  # k > 0 writes past the end
    return out


def counts(keys: IVec, nbins: int) -> IVec:
    c = np.zeros(nbins, dtype=np.int64)
    for k in keys:
        c[k] += 1  # a key >= nbins (or < -nbins) is out of range
    return c


CASES: dict[str, tuple[Callable[..., Any], list[tuple[Any, ...]]]] = {
    "first": (first, [(np.zeros(0),), (np.arange(3.0),)]),
    "total_off_by_one": (total_off_by_one, [(np.arange(5.0),), (np.zeros(0),)]),
    "put": (put, [(np.zeros(5), 5, 42.0), (np.zeros(5), 10**9, 42.0), (np.zeros(5), 4, 42.0),
                  (np.zeros(5), -5, 1.0), (np.zeros(5), -6, 1.0)]),
    "put2": (put2, [(np.zeros((3, 4)), 2, 4, 1.0), (np.zeros((3, 4)), -4, 0, 1.0), (np.zeros((3, 4)), 1, 1, 1.0),
                    (np.zeros((3, 4)), 3, 0, 1.0), (np.zeros((3, 4)), -1, -4, 1.0), (np.zeros((3, 4)), 0, -5, 1.0)]),
    "row_sum": (row_sum, [(np.ones((3, 4)), 3), (np.ones((3, 4)), -4), (np.ones((3, 4)), -3)]),
    "shift_right": (shift_right, [(np.arange(4.0), 0), (np.arange(4.0), 1)]),
    "counts": (counts, [(np.array([0, 3, 3, 1]), 4), (np.array([0, 4]), 4), (np.array([-1, -5]), 4)]),
}


def _reference(fn: Callable[..., Any], args: tuple[Any, ...]) -> tuple[str, Any, tuple[Any, ...]]:
    copies = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    try:
        return "ok", fn(*copies), copies
    except Exception as e:  # noqa: BLE001 - the reference's exception is what compiled code must raise
        return "raise", (type(e), str(e)), copies


def _check(f: Callable[..., Any], fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    kind, want, after = _reference(fn, args)
    mine = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    if kind == "raise":
        with pytest.raises(want[0]) as info:
            f(*mine)
        assert str(info.value) == want[1]
        return
    got = f(*mine)
    if isinstance(want, np.ndarray):
        np.testing.assert_array_equal(got, want)
    else:
        assert got == want or (isinstance(want, float) and math.isnan(want) and math.isnan(got))
    for m, a in zip(mine, after):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(m, a)


@pytest.mark.parametrize("name", list(CASES))
def test_out_of_range_raises_numpys_index_error(name: str) -> None:
    fn, calls = CASES[name]
    f = everypath.compile(fn, settings=_settings())
    for args in calls:
        _check(f, fn, args)


def test_huge_store_raises_and_the_next_call_works() -> None:
    f = everypath.compile(put, settings=_settings())
    for _ in range(2):
        with pytest.raises(IndexError, match=r"^index 1000000000 is out of bounds for axis 0 with size 5$"):
            f(np.zeros(5), 10**9, 42.0)
        assert f(np.zeros(5), 2, 42.0) == 42.0


# ---- what the compiler proves ------------------------------------------------------------------------
def stencil(u: Mat) -> Mat:
    h, w = u.shape
    v = u.copy()
    for i in range(1, h - 1):
        for j in range(1, w - 1):
            v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])
    return v


def matmul(a: Mat, b: Mat) -> Mat:
    n, k = a.shape
    k2, m = b.shape
    if k != k2:
        raise ValueError("inner dimensions differ")
    c = np.zeros((n, m))
    for i in range(n):
        for p in range(k):
            for j in range(m):
                c[i, j] += a[i, p] * b[p, j]
    return c


def valid_conv(img: Mat, k: Mat) -> Mat:
    if k.shape[0] != 3 or k.shape[1] != 3:
        raise ValueError("3x3 filters only")
    h, w = img.shape
    oh, ow = max(h - 2, 0), max(w - 2, 0)
    out = np.zeros((oh, ow))
    for i in range(oh):
        for j in range(ow):
            acc = 0.0
            for di in range(3):
                for dj in range(3):
                    acc += img[i + di, j + dj] * k[di, dj]
            out[i, j] = acc
    return out


def dot_enumerate(x: Vec, y: Vec) -> float:
    s = 0.0
    n = min(len(x), len(y))
    for i in range(n):
        s += x[i] * y[i]
    for i, v in enumerate(x):
        s += v * x[i]
    return s


def wrap_around(g: Mat) -> Mat:
    h, w = g.shape
    out = np.zeros((h, w))
    for i, j in np.ndindex(g.shape):
        out[i, j] = g[(i - 1) % h, (j + 1) % w]
    return out


PROVEN = [stencil, matmul, valid_conv, dot_enumerate, wrap_around]
_ACCESS = re.compile(r"ep::(get\w*)(<\w+>)?\(")


def _accessors(fn: Callable[..., Any], **kw: Any) -> tuple[set[str], str]:
    src = generate(fn, _settings(**kw)).source
    body = src[src.index("EP_DEFINE_ABI"):]
    return {m.group(1) + (m.group(2) or "") for m in _ACCESS.finditer(body)}, src


@pytest.mark.parametrize("fn", PROVEN, ids=lambda f: f.__name__)
def test_proven_loops_emit_no_check(fn: Callable[..., Any]) -> None:
    accs, _ = _accessors(fn)
    assert accs and accs <= {"get_inbounds", "get_unit_inbounds"}, accs


def test_unproven_accesses_keep_their_check() -> None:
    # >= 0 but maybe too large: one compare, in the loop the run-time test picks (the fast copy never runs here)
    assert _accessors(total_off_by_one)[0] == {"get_nonneg", "get_unit_inbounds"}
    assert _accessors(shift_right)[0] == {"get", "get_inbounds"}  # i + k, k of unknown sign: wrap and check
    assert "get" in _accessors(counts)[0]
    assert _accessors(put2)[0] == {"get"}


def scale_square(d: Mat) -> Mat:
    n = d.shape[0]
    for i in range(n):
        for j in range(n):  # assumes a square matrix: d.shape[1] is never looked at
            d[i, j] = d[i, j] * 2.0 + j
    return d


def test_loop_versioned_on_its_bound() -> None:
    accs, src = _accessors(scale_square)
    assert "n <= l_d.shape[1]" in re.sub(r"v\d+ <= ", "n <= ", src)  # one test before the loop
    assert "get_unit_inbounds" in accs and "get_nonneg<1u>" in accs  # the fast copy and the checked one
    f = everypath.compile(scale_square, settings=_settings())
    for shape in ((3, 3), (2, 3), (3, 2), (0, 4)):
        _check(f, scale_square, (np.arange(float(np.prod(shape))).reshape(shape),))
    _check(f, scale_square, (np.ones((4, 8))[:, ::2],))  # strided: the general loop


def test_rebound_array_is_not_trusted() -> None:
    def shrink(x: Vec) -> float:
        n = x.shape[0]
        s = 0.0
        for _ in range(2):
            for i in range(n):
                s += x[i]
            x = x[1:]  # a shorter array under the same name: x[n - 1] is out of range now
        return s

    accs, src = _accessors(shrink)
    assert accs == {"get_nonneg", "get_unit_inbounds"}, accs  # never proven statically; tested per loop entry
    assert "<= l_x.shape[0]" in src
    f = everypath.compile(shrink, settings=_settings())
    _check(f, shrink, (np.arange(4.0),))


@pytest.mark.parametrize("fn", PROVEN, ids=lambda f: f.__name__)
def test_proven_kernels_match_cpython(fn: Callable[..., Any]) -> None:
    rng = np.random.default_rng(1)
    f = everypath.compile(fn, settings=_settings())
    m = rng.standard_normal((7, 5))
    args = {"stencil": (m,), "matmul": (m, rng.standard_normal((5, 3))), "valid_conv": (m, rng.standard_normal((3, 3))),
            "dot_enumerate": (rng.standard_normal(6), rng.standard_normal(4)), "wrap_around": (m,)}[fn.__name__]
    kind, want, _ = _reference(fn, args)
    np.testing.assert_allclose(f(*args), want, rtol=1e-12)


def test_guards_raise_before_any_access() -> None:
    f = everypath.compile(matmul, settings=_settings())
    _check(f, matmul, (np.ones((2, 3)), np.ones((4, 2))))
    g = everypath.compile(valid_conv, settings=_settings())
    _check(g, valid_conv, (np.ones((5, 5)), np.ones((2, 3))))


# ---- switching it off ------------------------------------------------------------------------------------
def test_boundscheck_false_emits_no_check() -> None:
    accs, src = _accessors(shift_right, boundscheck=False)
    assert "#define EP_UNCHECKED 1" in src
    assert "#define EP_UNCHECKED" not in _accessors(shift_right)[1]
    f = everypath.compile(boundscheck=False, settings=_settings())(shift_right)
    assert f.settings.boundscheck is False
    np.testing.assert_array_equal(f(np.arange(4.0), 0), np.arange(4.0))


def test_settings_from_env() -> None:
    assert Settings.from_env({}).boundscheck is True
    assert Settings.from_env({"EVERYPATH_BOUNDSCHECK": "0"}).boundscheck is False
    assert Settings.from_env({"EVERYPATH_BOUNDSCHECK": "1"}).boundscheck is True
    assert Settings.from_env({"EVERYPATH_CHECKED": "0"}).boundscheck is False  # deprecated alias
    assert Settings.from_env({"EVERYPATH_CHECKED": "1"}).boundscheck is True
    with pytest.raises(TypeError, match="boundscheck"):
        everypath.compile(boundscheck="no")


def test_cache_key_includes_boundscheck() -> None:
    from everypath.lowering import cache

    keys = {cache.front_key(first, None, _settings(boundscheck=b)) for b in (True, False)}
    assert len(keys) == 2


# ---- a portable target -----------------------------------------------------------------------------------
@pytest.mark.slow
def test_wasm32_wasi_raises_numpys_index_error() -> None:
    from everypath.lowering.portable import build_function
    from everypath.lowering.targets import ArtifactKind, get, status

    t = get("wasm32-wasi")
    if not status(t).buildable:
        pytest.skip(f"wasm32-wasi is not buildable here: {status(t).reason}")
    from everypath.lowering.wasm_runner import WasmFunction

    pf = build_function(put2, (t,), _settings(), kinds=(ArtifactKind.WASM,))
    f = WasmFunction(pf.artifact("wasm32-wasi", ArtifactKind.WASM).path, pf.signature)
    for args in CASES["put2"][1]:
        _check(f, put2, args)


def sort_in_place(x: Vec) -> Vec:
    out = x.copy()
    for i in range(1, out.shape[0]):
        key = out[i]
        j = i - 1
        while j >= 0 and key < out[j]:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = key
    return out


def walk_back(x: Vec, stop: int) -> float:
    total = 0.0
    j = x.shape[0] - 1
    while j >= stop:  # below zero the index wraps, as in NumPy, until it leaves the array
        total += x[j]
        j -= 1
    return total


def test_a_decreasing_index_keeps_its_upper_bound() -> None:
    # `j = i - 1` then only `j -= 1`: j <= n - 2 by induction; the sign comes from `while j >= 0 and ...`
    # tested just before each read (lowering/guard_facts.py), and j >= -1 after the loop
    accs, _ = _accessors(sort_in_place)
    assert accs == {"get_inbounds"}, accs
    f = everypath.compile(sort_in_place)
    for x in (np.zeros(0), np.array([2.0]), np.array([3.0, 1.0, 2.0, 1.0]), np.random.default_rng(3).random(51)):
        _check(f, sort_in_place, (x,))
    g = everypath.compile(walk_back)
    assert "get_below<1u>" in _accessors(walk_back)[0]
    for stop in (0, -3, -5, -6, -40):  # -6 of a 5-element array: NumPy's IndexError naming index -6
        _check(g, walk_back, (np.arange(5.0), stop))


U8 = np.ndarray[tuple[int, int], np.dtype[np.uint8]]
I8 = np.ndarray[tuple[int], np.dtype[np.int8]]


def grey_histogram(img: U8) -> np.ndarray[tuple[int], np.dtype[np.int64]]:
    hist = np.zeros(256, dtype=np.int64)
    for row in img:
        for v in row:
            hist[v] += 1
    return hist


def short_histogram(img: U8) -> np.ndarray[tuple[int], np.dtype[np.int64]]:
    hist = np.zeros(255, dtype=np.int64)  # one bin short: 255 is out of range
    for row in img:
        for v in row:
            hist[v] += 1
    return hist


def signed_histogram(x: I8) -> np.ndarray[tuple[int], np.dtype[np.int64]]:
    hist = np.zeros(256, dtype=np.int64)  # int8 values index from -128: negative ones wrap, as in NumPy
    for v in x:
        hist[v] += 1
    return hist


def test_a_narrow_integer_index_is_bounded_by_its_dtype() -> None:
    # a uint8 value is in [0, 255]: it needs no check into an array of 256 made in the function
    assert _accessors(grey_histogram)[0] == {"get_inbounds"}
    assert "get" in _accessors(short_histogram)[0] or "get_nonneg" in _accessors(short_histogram)[0]
    assert _accessors(signed_histogram)[0] != {"get_inbounds"}  # the sign is unknown: wrapped and checked
    rng = np.random.default_rng(5)
    img = rng.integers(0, 256, (17, 9)).astype(np.uint8)
    for fn, args in ((grey_histogram, (img,)), (grey_histogram, (img[:, ::2],)), (grey_histogram, (img[:0],)),
                     (short_histogram, (np.full((2, 2), 254, np.uint8),)),
                     (short_histogram, (img,)),  # holds 255: NumPy's IndexError
                     (signed_histogram, (rng.integers(-128, 128, 50).astype(np.int8),))):
        _check(everypath.compile(fn, settings=_settings()), fn, args)


# ---- bisection: facts from `while lo < hi` and an optimistic fixpoint over lo, hi and mid ---------------
def lower_bound(a: Vec, v: float) -> int:
    lo = 0
    hi = a.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if a[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo


def upper_bound(a: Vec, v: float) -> int:
    lo, hi = 0, len(a)
    while lo < hi:
        mid = lo + (hi - lo) // 2  # the overflow-safe midpoint
        if v < a[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


def bisect_right(a: Vec, x: float) -> int:
    lo, hi = 0, len(a)
    if hi == 0:
        return 0
    if x >= a[hi - 1]:  # hi == len(a) >= 1 here
        return hi
    while lo < hi:
        mid = (lo + hi) >> 1
        if x < a[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


def find_exact(a: Vec, v: float) -> int:
    lo, hi = 0, len(a) - 1
    while lo <= hi:  # mid in [lo, hi], and hi <= len(a) - 1 by induction (hi = mid - 1)
        mid = (lo + hi) // 2
        if a[mid] == v:
            return mid
        if a[mid] < v:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1


def count_below(a: Vec, t: float) -> int:
    i = 0
    while i < len(a) and a[i] < t:  # i <= len(a) - 1 at the read, tested just before
        i += 1
    return i


def lower_bound_off_by_one(a: Vec, v: float) -> int:
    lo, hi = 0, len(a)
    while lo <= hi:  # should be lo < hi (or hi = len(a) - 1): mid reaches len(a) when v is above every element
        mid = (lo + hi) // 2
        if a[mid] < v:
            lo = mid + 1
        else:
            hi = mid - 1
    return lo


def search_from(a: Vec, v: float, lo: int) -> int:
    hi = len(a)
    while lo < hi:  # a negative lo makes mid negative: a[mid] wraps as in NumPy, or leaves the array
        mid = (lo + hi) // 2
        if a[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo


def widening_probe(a: Vec, steps: int) -> float:
    lo, hi = 0, len(a)
    total = 0.0
    while lo < hi and steps > 0:
        mid = (lo + hi) // 2
        total += a[mid]
        hi = mid + 2  # can pass len(a) (len 1: mid 0, then hi 2 and mid 1): the bound grows, no fact
        steps -= 1
    return total


BISECTIONS = [lower_bound, upper_bound, bisect_right, find_exact, count_below]


@pytest.mark.parametrize("fn", BISECTIONS, ids=lambda f: f.__name__)
def test_a_bisection_needs_no_check(fn: Callable[..., Any]) -> None:
    accs, src = _accessors(fn)
    assert accs == {"get_inbounds"}, accs
    assert "ep::pyint::" not in src  # 0 <= lo < hi <= len(a) <= 2**62: `lo + hi` fits int64, no overflow check
    f = everypath.compile(fn, settings=_settings())
    rng = np.random.default_rng(12)
    arrays = [np.zeros(0), np.array([1.0]), np.array([1.0, 1.0, 2.0]), np.sort(rng.integers(0, 6, 40)).astype(float),
              np.sort(rng.standard_normal(101))]
    for a in arrays:
        for v in (-10.0, *a[::7].tolist(), 0.0, 0.5, 1.0, 2.0, 10.0):
            _check(f, fn, (a, v))
    _check(f, fn, (np.arange(20.0)[::3], 9.0))  # a strided view


def test_an_off_by_one_bisection_keeps_its_check() -> None:
    # mid <= hi <= len(a): never negative (mid >= lo >= 0 where lo <= hi holds) but possibly len(a)
    assert _accessors(lower_bound_off_by_one)[0] == {"get_nonneg"}
    f = everypath.compile(lower_bound_off_by_one, settings=_settings())
    a = np.array([1.0, 2.0, 4.0])
    for v in (0.0, 2.0, 3.0, 4.0, 5.0):  # 5.0: mid reaches 3, NumPy's IndexError for axis 0 with size 3
        _check(f, lower_bound_off_by_one, (a, v))
    _check(f, lower_bound_off_by_one, (np.zeros(0), 1.0))
    assert _accessors(widening_probe)[0] == {"get_nonneg"}
    g = everypath.compile(widening_probe, settings=_settings())
    for n, steps in ((1, 1), (1, 2), (2, 3), (5, 4), (9, 9)):
        _check(g, widening_probe, (np.arange(float(n)), steps))


def test_a_bisection_from_a_negative_start_keeps_the_wrap() -> None:
    # mid < hi <= len(a) is proven, its sign is not (lo is a parameter): wrapped, not compared above
    accs, src = _accessors(search_from)
    assert accs == {"get_below<1u>"}, accs
    assert "ep::pyint::add" in src  # lo is unbounded below: `lo + hi` keeps its overflow check
    f = everypath.compile(search_from, settings=_settings())
    a = np.arange(5.0)
    for lo in (0, 2, -3, -9, -12, -20, -(2**63)):  # -9: a[-2] wraps; -20: index -8 is out of range
        for v in (-1.0, 2.5, 9.0):
            _check(f, search_from, (a, v, lo))

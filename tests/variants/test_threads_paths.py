"""The threads path of axis reductions, scans and sorts (paths/threads/reduce_axis.hpp, scan.hpp,
sort.hpp), each lowering forced onto path="threads", compiled into one C++ program (with
-fopenmp, run with OMP_NUM_THREADS=3 so splits are uneven and sorts merge an odd number of
runs) and compared with NumPy; plus one end-to-end build where dispatch picks the path.

Inputs: small ones (the kernels hand them to the loops path) and ones of about 10**5
elements (3 threads' worth), which really split: outer axes across threads, or a long reduced axis into
per-thread partials, lanes across threads, a long lane as chunk sorts + merges.
Tolerances: integer, bool, max/min/arg*, scans and sorts are exact; float sums and means of
a split reduced axis regroup NumPy's pairwise sum: float64 to rtol 1e-12, float32 to 3e-6
(relative to the largest result magnitude); float products to 1e-10 / 1e-4.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import everypath
from everypath.base.settings import Settings
from tests.variants._harness import Const, View, sample
from tests.variants._sortkit import Kit, run_kit
from everypath.variants.paths import host_path
from everypath.variants.registry import PathNotApplicable

pytestmark = pytest.mark.skipif(not host_path("threads").available, reason="no OpenMP on this host")

DTYPES = [np.float32, np.float64, np.int32, np.int64, np.uint8, np.bool_]
BIG = 100_003  # a prime; 3 threads' worth of work for every kernel (see the module doc)


class ThreadsKit(Kit):
    """Cases lowered on one path (threads, or simd); large inputs travel as raw files, not C++ literals."""

    def __init__(self, name: str, where: Path, path: str = "threads") -> None:
        super().__init__(name)
        self.where, self.path = where, path

    def case(self, name: str, key: str, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        super().case(name, key, *args, path=self.path, **kwargs)
        assert f"ep::{self.path}::" in self.cases[name].expr or self.cases[name].typing_error, self.cases[name].expr

    def array(self, a: np.ndarray) -> str:
        if a.size < 4096 or id(a) in self._arrays:
            return super().array(a)
        name = self._fresh("big")
        path = self.where / f"{name}.bin"
        np.ascontiguousarray(a).tofile(path)
        from everypath.base.types import DType

        shape = ", ".join(str(d) for d in a.shape)
        self.decls.append(f'  auto {name} = ept_load<{DType.of(a.dtype).cpp}, {a.ndim}>("{path}", {{{shape}}});')
        self._arrays[id(a)] = (a, name)
        return name

    def source(self) -> str:
        loader = """
template <class T, int N>
ep::Array<T, N> ept_load(const char* path, std::array<ep::index_t, N> shape) {
  auto a = ep::empty<T, N>(shape);
  std::FILE* f = std::fopen(path, "rb");
  if (!f || std::fread(a.data, sizeof(T), static_cast<size_t>(a.size()), f) != static_cast<size_t>(a.size())) std::abort();
  std::fclose(f);
  ept::inputs().push_back(a.owner);
  return a;
}
"""
        return super().source().replace("\nint main() {", loader + "\nint main() {", 1)

    def run(self, tmp: Path, opt: str = "-O1", extra_flags: tuple[str, ...] = ()) -> dict[str, list[str]]:
        flags = ("-fopenmp", "-DEP_HAVE_THREADS=1", "-DEP_THREADS_MIN_PREFIX=65536") if self.path == "threads" \
            else ("-march=native", "-DEP_HAVE_SIMD=1")
        return super().run(tmp, opt, (*extra_flags, *flags))


def big(shape: tuple[int, ...], dt: Any, seed: int, nan: bool = False, near1: bool = False) -> np.ndarray:
    rng = np.random.default_rng(seed)
    d = np.dtype(dt)
    if d.kind == "b":
        return rng.random(shape) < 0.5
    if d.kind in "iu":
        lo = 0 if d.kind == "u" else -60
        return rng.integers(lo, 60, shape).astype(d)
    x = (1 + 0.01 * rng.standard_normal(shape) if near1 else rng.standard_normal(shape)).astype(d)
    x[rng.random(shape) < 0.05] = 0.5  # ties
    if nan:
        x[rng.random(shape) < 0.001] = np.nan
    return x


def stable_argsort(a: Any, axis: Any = -1, **_: Any) -> np.ndarray:
    return np.argsort(a, axis=axis, kind="stable")


def _inputs(dt: Any, seed: int, views: bool, nan: bool = False, near1: bool = False) -> list[tuple[str, Any]]:
    """A small array (loops inside the kernel), wide (3 long rows) and tall (many short rows)
    arrays above the split threshold, and for some dtypes transposed / strided views."""
    wide, tall = big((3, BIG // 3 + 1), dt, seed, nan, near1), big((BIG // 3 + 1, 3), dt, seed + 1, nan, near1)
    out: list[tuple[str, Any]] = [("small", sample((7, 13), dt, seed)), ("wide", wide), ("tall", tall)]
    if views:
        out += [("wideT", View(wide, transpose=True)), ("wideS", View(wide, (slice(None), slice(1, None, 3))))]
    return out


def _reduction_cases(p: ThreadsKit) -> None:
    for dt in DTYPES:
        tag = np.dtype(dt).name
        inexact = np.dtype(dt).kind == "f"
        for vname, x in _inputs(dt, 1, views=dt in (np.float32, np.int64)):
            for key in ("numpy.sum", "numpy.max", "numpy.min", "numpy.any", "numpy.all", "numpy.argmax",
                        "numpy.argmin", "numpy.mean"):
                if key == "numpy.mean" and dt is np.bool_:
                    continue
                op = key.split(".")[1]
                for ax in (0, -1):
                    p.case(f"{op}_{tag}_{vname}_{ax}", key, x, axis=Const(ax))
            p.case(f"sumk_{tag}_{vname}", "numpy.sum", x, axis=Const(1), keepdims=Const(True))
            p.case(f"maxk_{tag}_{vname}", "ndarray.max", x, axis=Const(0), keepdims=Const(True))
            p.case(f"argk_{tag}_{vname}", "numpy.argmax", x, axis=Const(1), keepdims=Const(True))
            if not inexact:
                p.case(f"prod_{tag}_{vname}", "numpy.prod", x, axis=Const(1))  # wraps exactly
        if inexact:
            near1 = big((3, BIG // 3 + 1), dt, 4, near1=True)
            p.case(f"prod_{tag}", "numpy.prod", near1, axis=Const(1), rtol=1e-10 if dt is np.float64 else 1e-4)
            p.case(f"prod0_{tag}", "numpy.prod", near1, axis=Const(0))
            for vname, x in _inputs(dt, 5, views=False, nan=True)[1:]:
                x[0, :2] = [np.nan, 1.0]
                for key in ("numpy.max", "numpy.min", "numpy.argmax", "numpy.argmin", "numpy.nanmax",
                            "numpy.nanmin", "numpy.nansum", "numpy.sum"):
                    for ax in (0, 1):
                        p.case(f"{key[6:]}_{tag}_nan{vname}_{ax}", key, x, axis=Const(ax))
    # 3-d: two reduced axes, a kept axis between them; empty and 1-element inputs
    x3 = big((5, 2003, 11), np.float64, 7)
    p.case("sum3_02", "numpy.sum", x3, axis=Const((0, 2)))
    p.case("sum3_1k", "numpy.sum", x3, axis=Const(1), keepdims=Const(True))
    p.case("max3_12", "numpy.max", x3, axis=Const((1, 2)))
    p.case("argmin3_1", "numpy.argmin", x3, axis=Const(1))
    p.case("sum_empty", "numpy.sum", np.zeros((0, 5)), axis=Const(0))
    p.case("max_empty", "numpy.max", np.zeros((0, 5)), axis=Const(0))
    p.case("argmax_empty", "numpy.argmax", np.zeros((5, 0)), axis=Const(1))
    p.case("sum_one", "numpy.sum", np.ones((1, 1), np.int32), axis=Const(-1))


def _scan_cases(p: ThreadsKit) -> None:
    for dt in DTYPES:
        tag = np.dtype(dt).name
        for vname, x in _inputs(dt, 11, views=dt in (np.float64, np.int32), near1=True):  # bounded products
            for ax in (0, 1):
                p.case(f"cumsum_{tag}_{vname}_{ax}", "numpy.cumsum", x, axis=Const(ax), exact=True)
            p.case(f"cumprod_{tag}_{vname}", "ndarray.cumprod", x, axis=Const(int(vname == "wide")), exact=True)
    # one long integer lane: the two-pass prefix (exact; its threshold lowered to 2^16 in run())
    for dt in (np.int32, np.int64, np.uint8):
        tag = np.dtype(dt).name
        v = big((BIG,), dt, 13)
        p.case(f"cumsum1_{tag}", "numpy.cumsum", v)
        p.case(f"cumprod1_{tag}", "numpy.cumprod", v | 1 if dt is not np.uint8 else v)
        p.case(f"cumsumnone_{tag}", "numpy.cumsum", big((7, BIG // 7), dt, 14))
    v = big((2 * BIG + 1,), np.int64, 16)
    p.case("cumsum1_strided", "numpy.cumsum", View(v, (slice(None, None, 2),)), axis=Const(0))
    p.case("cumsum1_bool_int", "numpy.cumsum", big((BIG,), np.bool_, 15), dtype=Const(np.int32))
    p.case("cumsum_empty", "numpy.cumsum", np.zeros((0, 3), np.int64), axis=Const(1))


def _sort_cases(p: ThreadsKit) -> None:
    for dt in DTYPES:
        tag = np.dtype(dt).name
        for vname, x in _inputs(dt, 21, views=dt in (np.float64, np.int32), nan=True):
            axes = (0, -1, None) if vname in ("small", "wide") else (0,)
            for ax in axes:
                p.case(f"sort_{tag}_{vname}_{ax}", "numpy.sort", x, axis=Const(ax))
                p.case(f"argsort_{tag}_{vname}_{ax}", "numpy.argsort", x, axis=Const(ax), ref=stable_argsort)
            if vname in ("small", "wideT"):
                p.case(f"sorts_{tag}_{vname}", "numpy.sort", x, kind=Const("stable"))
                p.case(f"argsorts_{tag}_{vname}", "numpy.argsort", x, kind=Const("stable"))
            if vname in ("small", "wide", "wideS"):
                tgt = x.copy() if isinstance(x, np.ndarray) else View(x.base.copy(), x.index, x.transpose)
                p.inplace_case(f"msort_{tag}_{vname}", "ndarray.sort", tgt, kind=Const("mergesort"))
        v = big((BIG + 11,), dt, 23, nan=True)
        for kind in ("quicksort", "stable", "heapsort"):
            p.case(f"sort1_{tag}_{kind}", "numpy.sort", v, kind=Const(kind))
        p.case(f"argsort1_{tag}", "ndarray.argsort", v, ref=stable_argsort)
        p.case(f"argsort1s_{tag}", "numpy.argsort", View(v, (slice(None, None, -3),)), kind=Const("mergesort"))
        p.inplace_case(f"msort1_{tag}", "ndarray.sort", v.copy(), kind=Const("stable"))
    zeros = np.zeros(BIG, np.float64)
    zeros[::2] = -0.0
    zeros[::7] = np.nan
    p.case("argsort_signed_zeros", "numpy.argsort", zeros, kind=Const("stable"))  # -0.0 == 0.0: index order
    signed = np.random.default_rng(24).choice(np.array([-1.0, -0.0, 0.0, 1.0]), BIG)

    def same_signs(got: np.ndarray, want: np.ndarray) -> None:  # a stable sort keeps -0.0 / 0.0 in input order
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))

    p.prop_case("sort_signed_zeros", "numpy.sort", same_signs, signed, kind=Const("stable"))
    p.case("sort_empty", "numpy.sort", np.zeros((0, 4)), axis=Const(0))


def _simd_row_cases(p: ThreadsKit) -> None:
    """The simd path: float rows of the last axis; sums bit-identical to NumPy's pairwise order."""
    for dt in (np.float32, np.float64):
        tag = np.dtype(dt).name
        for n in (1, 3, 7, 8, 16, 17, 127, 128, 129, 1000, 4099):
            x = big((5, n), dt, n, nan=False)
            x[2, n // 2] = np.nan  # NaN propagates through sum / max / min of its row
            for key in ("numpy.sum", "numpy.max", "numpy.min", "numpy.mean"):
                p.case(f"{key[6:]}_{tag}_{n}", key, x, axis=Const(-1), exact=key != "numpy.mean")
        x3 = big((4, 3, 129), dt, 5)
        p.case(f"sum3k_{tag}", "numpy.sum", x3, axis=Const(2), keepdims=Const(True), exact=True)
        p.case(f"max3_{tag}", "ndarray.max", x3, axis=Const(-1), exact=True)
        p.case(f"sum1_{tag}", "numpy.sum", x3[0, 0], axis=Const(0), keepdims=Const(True), exact=True)
        for vname, v in (("t", View(x3, transpose=True)), ("s", View(x3, (slice(None), slice(None), slice(None, None, 2))))):
            p.case(f"sumv{vname}_{tag}", "numpy.sum", v, axis=Const(-1))  # strided rows: the loops kernel
            p.case(f"minv{vname}_{tag}", "numpy.min", v, axis=Const(-1), exact=True)
        p.case(f"max_empty_{tag}", "numpy.max", np.zeros((3, 0), dt), axis=Const(-1))
        p.case(f"sum_empty_{tag}", "numpy.sum", np.zeros((0, 4), dt), axis=Const(-1))


@pytest.fixture()
def threads3(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    monkeypatch.setenv("OMP_WAIT_POLICY", "passive")


@pytest.mark.parametrize("family", ["reductions", "scans", "sorts"])
def test_threads_path_against_numpy(family: str, tmp_path: Path, threads3: None) -> None:
    p = ThreadsKit(f"threads_{family}", tmp_path)
    {"reductions": _reduction_cases, "scans": _scan_cases, "sorts": _sort_cases}[family](p)
    run_kit(p, tmp_path)


@pytest.mark.skipif(not host_path("simd").available, reason="no xsimd on this host")
def test_simd_rows_against_numpy(tmp_path: Path) -> None:
    p = ThreadsKit("simd_rows", tmp_path, path="simd")
    _simd_row_cases(p)
    run_kit(p, tmp_path)
    for args, kw in [((np.ones((3, 4)),), {"axis": Const(0)}), ((np.ones((3, 4), np.int64),), {"axis": Const(1)}),
                     ((np.ones((3, 4), np.float32),), {"axis": Const(1), "dtype": Const(np.float64)})]:
        with pytest.raises(PathNotApplicable):  # axis 0, integers, another result dtype: loops
            p.case("declined", "numpy.sum", *args, **kw)


def test_single_float_lanes_stay_sequential(tmp_path: Path) -> None:
    """A 1-d float scan regrouped would round differently from NumPy's: the threads path declines."""
    p = ThreadsKit("declines", tmp_path)
    for args in [(np.ones(9),), (np.ones((2, 3)),), (np.ones(9, np.int32),)]:
        with pytest.raises(PathNotApplicable):
            p.case("c", "numpy.cumsum", *args, dtype=Const(np.float64))
    with pytest.raises(PathNotApplicable):
        p.case("v", "numpy.std", np.ones((3, 4)), axis=Const(0))


F2 = np.ndarray[tuple[int, int], np.dtype[np.float64]]
I1 = np.ndarray[tuple[int], np.dtype[np.int64]]


def kernels(x: F2, v: I1):
    w = x.copy()
    w.sort(axis=0)
    return (np.sum(x, axis=1), x.max(axis=0), np.argmin(x, axis=1), np.cumsum(x, axis=0), np.cumsum(v),
            np.sort(x, axis=None), np.argsort(v, kind="stable"), w)


def test_dispatch_end_to_end(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Default policy: the call sites choose loops or threads at run time by size; both agree with NumPy."""
    cache = tmp_path_factory.getbasetemp() / "threads-cache"
    fn = everypath.compile(kernels, settings=Settings(cache_dir=cache, paths=("loops", "threads")))
    src = fn.cpp_source
    assert "ep::tele::site(" in src and "ep::threads::sort_inplace<0, false>" in src and "ep::threads::argmin_axis" in src
    rng = np.random.default_rng(31)
    for shape in [(5, 7), (1100, 1000), (3, 400_001)]:
        x = rng.standard_normal(shape)
        x[rng.random(shape) < 0.01] = np.nan
        v = rng.integers(-9, 9, x.size)
        for i, (got, want) in enumerate(zip(fn(x, v), kernels(x, v))):
            if i == 0:
                np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=str(shape))
            else:
                np.testing.assert_array_equal(got, want, err_msg=f"{shape} result {i}")
            assert got.dtype == want.dtype and got.shape == want.shape

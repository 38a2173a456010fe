"""np.random.default_rng and Generator methods through everypath.compile: every draw must be
NumPy's, bit for bit, for the same seed, including the state carried between successive calls."""
from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest

import everypath
from everypath.base.errors import CompileError
from tests.variants._harness import _copied

F1 = np.ndarray[tuple[int], np.dtype[np.float64]]
F2 = np.ndarray[tuple[int, int], np.dtype[np.float64]]
I1 = np.ndarray[tuple[int], np.dtype[np.int64]]
U1 = np.ndarray[tuple[int], np.dtype[np.uint8]]
F32 = np.ndarray[tuple[int], np.dtype[np.float32]]

SEEDS = [0, 1, 12345, 2**32 - 1, 2**32, 2**63 - 1]
SIZES = [0, 1, 7, 1000]
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def assert_bits(got: Any, want: Any, path: str = "result") -> None:
    """Same Python type, dtype, shape and the same bits (floats compared by their bytes)."""
    assert type(got) is type(want), f"{path}: {type(got).__name__} != {type(want).__name__} ({got!r} vs {want!r})"
    if isinstance(want, tuple):
        assert len(got) == len(want), path
        for i, (g, w) in enumerate(zip(got, want)):
            assert_bits(g, w, f"{path}[{i}]")
        return
    if isinstance(want, (np.ndarray, np.generic)):
        assert got.dtype == want.dtype, f"{path}: dtype {got.dtype} != {want.dtype}"
        assert np.shape(got) == np.shape(want), f"{path}: shape {np.shape(got)} != {np.shape(want)}"
        g, w = np.ascontiguousarray(got), np.ascontiguousarray(want)
        if g.tobytes() != w.tobytes():
            bad = np.flatnonzero(g.ravel() != w.ravel())[:5]
            raise AssertionError(f"{path}: differs at {bad.tolist()}: {g.ravel()[bad]} vs {w.ravel()[bad]}")
        return
    if isinstance(want, float):
        assert (math.isnan(got) and math.isnan(want)) or got.hex() == want.hex(), f"{path}: {got!r} != {want!r}"
        return
    assert got == want, f"{path}: {got!r} != {want!r}"


def same_bits(compiled: Any, *args: Any) -> Any:
    """The compiled function and its Python original on copies of args: same bits, or the same exception."""
    want_exc = got_exc = None
    py_args, c_args = _copied(args), _copied(args)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = compiled.py_function(*py_args)
    except Exception as exc:  # noqa: BLE001 - the exception is the expected result
        want_exc = exc
    try:
        got = compiled(*c_args)
    except Exception as exc:  # noqa: BLE001
        got_exc = exc
    if want_exc is not None:
        assert got_exc is not None, f"expected {type(want_exc).__name__}: {want_exc}, got {got!r}"
        assert (type(got_exc), str(got_exc)) == (type(want_exc), str(want_exc))
        return got_exc
    assert got_exc is None, f"raised {type(got_exc).__name__}: {got_exc}"
    assert_bits(got, want)
    for i, (c, p) in enumerate(zip(c_args, py_args)):  # arguments written in place (shuffle)
        if isinstance(p, np.ndarray):
            assert_bits(c, p, f"argument {i} after the call")
    return got


# ---- streams: many successive draws from one generator ------------------------------------------


@everypath.compile
def floats(seed: int, n: int):
    rng = np.random.default_rng(seed)
    return (rng.random(n), rng.random(), rng.random((n, 2), dtype=np.float32), rng.random(dtype=np.float32),
            rng.standard_normal(n), rng.standard_normal(), rng.standard_normal((n, 3), dtype=np.float32),
            rng.standard_normal(dtype=np.float32), rng.uniform(-2.0, 3, n), rng.uniform(), rng.uniform(1, 1, size=n),
            rng.normal(1.5, 2.0, size=n), rng.normal(), rng.normal(scale=0.5), rng.exponential(2.0, n),
            rng.exponential(), rng.standard_exponential(n), rng.standard_exponential(),
            rng.standard_exponential((n,), dtype=np.float32), rng.standard_exponential(n, method="inv"),
            rng.standard_exponential(n, np.float32, "inv"), rng.random())


@everypath.compile
def ints(seed: int, n: int):
    rng = np.random.default_rng(seed)
    return (rng.integers(0, 10, size=n), rng.integers(5), rng.integers(-3, 3, size=(n, 2), dtype=np.int32),
            rng.random(), rng.integers(7, size=n), rng.integers(0, 2**40, size=n), rng.integers(-2**62, 2**62, n),
            rng.integers(0, 256, size=n, dtype=np.uint8), rng.integers(3, dtype=np.uint8),
            rng.integers(-1000, 1000, size=n, dtype=np.int16), rng.integers(0, 2, size=n, dtype=np.bool_),
            rng.integers(2, dtype=np.bool_), rng.integers(0, 2**32, size=n, dtype=np.uint32),
            rng.integers(0, 2**32, size=n), rng.integers(0, 65535, size=n, dtype=np.uint16, endpoint=True),
            rng.integers(-128, 127, size=n, dtype=np.int8, endpoint=True), rng.integers(5, 5, n, endpoint=True),
            rng.integers(0, 1, size=n), rng.integers(INT64_MIN, INT64_MAX, size=n),
            rng.integers(0, 2**63 - 1, size=n, dtype=np.uint64, endpoint=True), rng.integers(10, size=n, dtype=np.int64),
            rng.standard_normal(), rng.integers(0, 3, size=n, dtype=np.uint32))


@everypath.compile
def discrete(seed: int, n: int):
    rng = np.random.default_rng(seed)
    return (rng.binomial(10, 0.3, n), rng.binomial(100, 0.4, n), rng.binomial(1000, 0.97, n), rng.binomial(5, 0.5),
            rng.binomial(0, 0.5, n), rng.binomial(10, 1.0, n), rng.binomial(10, 0.0, n), rng.binomial(60, 0.5, n),
            rng.binomial(2**40, 0.25, n), rng.poisson(3.0, n), rng.poisson(50.0, n), rng.poisson(),
            rng.poisson(0.0, n), rng.poisson(1e6, n), rng.poisson(10, n), rng.poisson(9.99, size=(n, 2)), rng.random())


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n", SIZES)
def test_streams(seed: int, n: int) -> None:
    same_bits(floats, seed, n)
    same_bits(ints, seed, n)
    same_bits(discrete, seed, n)


@everypath.compile
def discrete_params(seed: int, k: int, p: float, lam: float, n: int):
    rng = np.random.default_rng(seed)
    return rng.binomial(k, p, n), rng.binomial(k, p), rng.poisson(lam, n), rng.poisson(lam), rng.random()


@pytest.mark.parametrize("k,p,lam", [
    (1, 0.5, 0.5), (7, 0.01, 1e-9), (30, 0.999, 9.5), (61, 0.5, 10.0), (200, 0.15, 12.5), (200, 0.85, 33.3),
    (5000, 0.5, 1e3), (10**6, 0.02, 4.5e4), (10**9, 0.7, 1e12), (45, 0.75, 2.0), (2**62, 1e-18, 1e15),
])
def test_binomial_poisson_algorithms(k: int, p: float, lam: float) -> None:
    """Inversion and BTPE (binomial), multiplication and PTRS (poisson), both sides of p = 0.5."""
    for seed in (0, 3, 2**40):
        same_bits(discrete_params, seed, k, p, lam, 500)


@everypath.compile
def long_normals(seed: int, n: int):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(n), rng.standard_exponential(n), rng.standard_normal(n, np.float32), \
        rng.standard_exponential(n, np.float32)


def test_ziggurat_tails() -> None:
    """Enough draws that every ziggurat layer, the rejection steps and the tails (idx 0) are taken."""
    same_bits(long_normals, 2024, 400_000)


def _draw_twice(rng: Any, n: int) -> Any:
    return rng.random(n), rng.integers(0, 10, size=n, dtype=np.int32)


@everypath.compile
def shared_state(seed: int, n: int):
    rng = np.random.default_rng(seed)
    total = 0.0
    picks = np.zeros(n, dtype=np.int64)
    for i in range(n):  # scalar draws in a loop
        total += rng.random() * rng.standard_normal()
        picks[i] = rng.integers(0, i + 1)
    a = _draw_twice(rng, n)  # a helper function draws from the same state
    alias = rng
    b = _draw_twice(alias, n)  # so does another name bound to it
    other = np.random.default_rng(seed // 3)
    return total, picks, a, b, rng.random(), other.random(), np.random.default_rng(seed).random()


@pytest.mark.parametrize("seed", [0, 7, 2**63 - 1])
@pytest.mark.parametrize("n", [0, 1, 5, 33])
def test_state_is_shared(seed: int, n: int) -> None:
    same_bits(shared_state, seed, n)


# ---- choice / permutation / shuffle -------------------------------------------------------------


@everypath.compile
def choices(seed: int, n: int, a: F1, p: F1, labels: I1):
    rng = np.random.default_rng(seed)
    m = min(n, 20)
    return (rng.choice(5), rng.choice(5, n), rng.choice(a, size=(n, 2)), rng.choice(a), rng.choice(labels, n),
            rng.choice(a.shape[0], n, p=p), rng.choice(a, p=p), rng.choice(labels, size=n, p=p),
            rng.choice(3, size=n, p=[0.25, 0.5, 0.25]), rng.choice(20, size=m, replace=False),
            rng.choice(20000, size=n, replace=False), rng.choice(50, size=min(n, 50), replace=False, shuffle=False),
            rng.choice(a, size=min(n, a.shape[0]), replace=False), rng.choice(9, replace=False), rng.random())


@pytest.mark.parametrize("seed", [0, 12345, 2**63 - 1])
@pytest.mark.parametrize("n", SIZES)
def test_choice(seed: int, n: int) -> None:
    a = np.linspace(-1.0, 2.0, 13)
    p = np.arange(1.0, 14.0)
    p /= p.sum()
    labels = np.arange(100, 113, dtype=np.int64)
    same_bits(choices, seed, n, a, p, labels)


@everypath.compile
def weighted(seed: int, p32: F32, p64: F1, n: int, wide: bool):
    rng = np.random.default_rng(seed)
    if wide:
        return rng.choice(p64.shape[0], n, p=p64), rng.choice(p64.shape[0], p=p64)
    return rng.choice(p32.shape[0], n, p=p32), rng.choice(3, p=[0, 1, 0])


@pytest.mark.parametrize("p", [[0.3, 0.3, 0.40001], [0.3, 0.3, 0.4], [0.5, 0.0, 0.5], [0.3, 0.3, 0.41]])
def test_choice_tolerance(p: list[float]) -> None:
    """sum(p) may miss 1 by sqrt(eps) of float64, or of float32 for a float32 p."""
    p32, p64 = np.array(p, dtype=np.float32), np.array(p, dtype=np.float64)
    r32 = same_bits(weighted, 8, p32, p64, 9, False)
    r64 = same_bits(weighted, 8, p32, p64, 9, True)
    if p[2] == 0.40001:  # within float32's tolerance only
        assert isinstance(r32, tuple) and isinstance(r64, ValueError)


@everypath.compile
def permute(seed: int, v: F1, m: F2, k: I1, n: int):
    rng = np.random.default_rng(seed)
    rng.shuffle(v)
    rng.shuffle(m)
    rng.shuffle(k[::2])
    return (rng.permutation(n), rng.permutation(v), rng.permutation(m), rng.permutation(m.T), rng.permutation(0),
            rng.permutation(k[::-1]), v, m, rng.random())


@pytest.mark.parametrize("seed", [0, 99, 2**63 - 1])
@pytest.mark.parametrize("n", [0, 1, 2, 7, 1000])
def test_permutation_and_shuffle(seed: int, n: int) -> None:
    v = np.arange(n, dtype=np.float64) * 0.5
    m = np.arange(3 * (n % 11), dtype=np.float64).reshape(n % 11, 3)
    k = np.arange(2 * n + 1, dtype=np.int64)
    same_bits(permute, seed, v, m, k, n)


@everypath.compile
def shuffle_arg(seed: int, x: U1, y: F32) -> None:
    rng = np.random.default_rng(seed)
    rng.shuffle(x)
    rng.shuffle(y[1::3])


def test_shuffle_writes_the_argument() -> None:
    same_bits(shuffle_arg, 5, np.arange(50, dtype=np.uint8), np.arange(40, dtype=np.float32))
    ro = np.arange(5, dtype=np.uint8)
    ro.flags.writeable = False
    with pytest.raises(ValueError):
        shuffle_arg(5, ro, np.zeros(4, dtype=np.float32))


# ---- errors: NumPy's exception types and messages -------------------------------------------------


@everypath.compile
def bounded(seed: int, low: int, high: int, n: int, endpoint: bool):
    rng = np.random.default_rng(seed)
    return rng.integers(low, high, size=n, endpoint=endpoint), rng.integers(low, high, endpoint=endpoint)


@everypath.compile
def bounded_u8(seed: int, low: int, high: int, n: int):
    rng = np.random.default_rng(seed)
    return rng.integers(low, high, size=n, dtype=np.uint8)


@pytest.mark.parametrize("low,high,n,endpoint", [
    (5, 1, 3, False), (5, 5, 3, False), (5, 5, 3, True), (5, 4, 3, True), (5, 1, 0, False), (0, 10, -1, False),
    (-(2**63), 2**63 - 1, 4, True), (-(2**63), -(2**63), 2, True), (2**63 - 1, 2**63 - 1, 2, False),
])
def test_integer_bounds(low: int, high: int, n: int, endpoint: bool) -> None:
    same_bits(bounded, 3, low, high, n, endpoint)


@pytest.mark.parametrize("low,high,n", [(-1, 5, 2), (0, 257, 2), (0, 256, 3), (10, 3, 0), (255, 256, 2)])
def test_integer_bounds_uint8(low: int, high: int, n: int) -> None:
    same_bits(bounded_u8, 3, low, high, n)


@everypath.compile
def continuous_p(seed: int, which: int, a: float, b: float, n: int):
    rng = np.random.default_rng(seed)
    if which == 0:
        return rng.normal(a, b, n), rng.normal(a, b)
    if which == 1:
        return rng.uniform(a, b, n), rng.uniform(a, b)
    return rng.exponential(b, n), rng.exponential(b)


@everypath.compile
def discrete_p(seed: int, which: int, k: int, b: float, n: int):
    rng = np.random.default_rng(seed)
    if which == 0:
        return rng.binomial(k, b, n), rng.binomial(k, b)
    return rng.poisson(b, n), rng.poisson(b)


NAN, INF = math.nan, math.inf


@pytest.mark.parametrize("fn,args", [
    (continuous_p, (0, 0.0, -1.0, 3)), (continuous_p, (0, 0.0, -0.0, 3)), (continuous_p, (0, 0.0, NAN, 3)),
    (continuous_p, (0, NAN, 1.0, 3)), (continuous_p, (0, 0.0, -1.0, 0)), (continuous_p, (0, 0.0, -1.0, -1)),
    (continuous_p, (0, 1.0, 2.0, -1)), (continuous_p, (0, 0.0, 0.0, 2)),
    (continuous_p, (1, 2.0, 1.0, 3)), (continuous_p, (1, 0.0, INF, 3)), (continuous_p, (1, -INF, 0.5, 3)),
    (continuous_p, (1, NAN, 0.5, 3)), (continuous_p, (1, 1e308, -1e308, 2)), (continuous_p, (1, -1.0, -1.0, 2)),
    (continuous_p, (2, 0.0, -1.0, 3)), (continuous_p, (2, 0.0, 0.0, 3)), (continuous_p, (2, 0.0, INF, 3)),
    (continuous_p, (2, 0.0, NAN, 2)),
    (discrete_p, (0, -1, 0.5, 3)), (discrete_p, (0, 3, 1.5, 3)), (discrete_p, (0, 3, -0.1, 3)),
    (discrete_p, (0, 3, NAN, 3)), (discrete_p, (0, -1, NAN, 3)), (discrete_p, (0, 0, 0.3, 3)),
    (discrete_p, (1, 0, -1.0, 3)), (discrete_p, (1, 0, NAN, 3)), (discrete_p, (1, 0, 1e19, 3)),
    (discrete_p, (1, 0, 9.2e18, 2)), (discrete_p, (1, 0, -0.0, 2)),
])
def test_parameter_checks(fn: Any, args: tuple[Any, ...]) -> None:
    same_bits(fn, 1, *args)


@everypath.compile
def choice_errors(seed: int, a: int, n: int, p: F1):
    rng = np.random.default_rng(seed)
    return rng.choice(a, n), rng.choice(a, n, p=p), rng.choice(a, n, replace=False)


@pytest.mark.parametrize("a,n,p", [
    (0, 3, [1.0]), (-2, 0, []), (0, 0, []), (2, 3, [0.5, 0.6]), (2, 3, [-0.5, 1.5]), (2, 3, [math.nan, 0.5]),
    (3, 3, [0.5, 0.5]), (3, 4, [0.2, 0.3, 0.5]), (3, -1, [0.2, 0.3, 0.5]), (3, 3, [0.2, 0.3, 0.5]),
    (1, 1, [1.0]),
])
def test_choice_errors(a: int, n: int, p: list[float]) -> None:
    same_bits(choice_errors, 2, a, n, np.array(p, dtype=np.float64))


@everypath.compile
def seeded(seed: int):
    return np.random.default_rng(seed).random(3)


def test_seed_errors_and_fresh_entropy() -> None:
    same_bits(seeded, -1)

    @everypath.compile
    def fresh(n: int):
        return np.random.default_rng().random(n), np.random.default_rng(None).random(n)

    a, b = fresh(4)
    assert a.shape == (4,) and not np.array_equal(a, b) and ((a >= 0) & (a < 1)).all()


def test_compile_time_errors() -> None:
    @everypath.compile
    def bad_dtype(seed: int):
        return np.random.default_rng(seed).random(dtype=np.int64)

    with pytest.raises(CompileError, match=r"Unsupported dtype dtype\('int64'\) for random"):
        bad_dtype(1)

    @everypath.compile
    def bad_method(seed: int):
        return np.random.default_rng(seed).gamma(2.0)

    with pytest.raises(CompileError, match="Generator.gamma is not supported"):
        bad_method(1)

    @everypath.compile
    def weighted_distinct(seed: int):
        return np.random.default_rng(seed).choice(3, 2, replace=False, p=[0.2, 0.3, 0.5])

    with pytest.raises(CompileError, match=r"choice\(replace=False, p=...\) is not supported"):
        weighted_distinct(1)

    @everypath.compile
    def float_bounds(seed: int, high: float):
        return np.random.default_rng(seed).integers(0, high, size=3)

    with pytest.raises(CompileError, match="'high' must be an integer"):
        float_bounds(1, 2.5)

    @everypath.compile
    def array_loc(seed: int, loc: F1):
        return np.random.default_rng(seed).normal(loc, 1.0)

    with pytest.raises(CompileError, match="array-valued 'loc' is not supported"):
        array_loc(1, np.zeros(3))

    @everypath.compile
    def from_outside(rng: np.random.Generator, n: int):
        return rng.random(n)

    with pytest.raises(CompileError, match="np.random.Generator"):
        from_outside(np.random.default_rng(0), 3)

    @everypath.compile
    def returns_generator(seed: int):
        return np.random.default_rng(seed)

    with pytest.raises(TypeError, match="np.random.Generator cannot cross"):
        returns_generator(1)

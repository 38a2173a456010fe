"""NumPy random numbers: np.random.default_rng(seed) and the Generator methods random,
integers, uniform, standard_normal, normal, standard_exponential, exponential, binomial
and poisson (choice, permutation, shuffle: random_sample.py).

Only generators created inside compiled code are supported (a Generator cannot cross
the call boundary). Every method draws NumPy's exact stream for the same seed:
variants/include/everypath/ops/random*.hpp follow numpy/random's C sources word for
word. Distribution parameters must be scalars (NumPy also broadcasts arrays).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from everypath.base.cpp import float_literal
from everypath.base.types import FLOAT, INT, ArrayT, DType, GeneratorT, NoneT, ScalarT, Type
from everypath.variants.ops.creation import shape_rank
from everypath.variants.ops.reductions import Bound, dtype_arg
from everypath.variants.registry import Family, LowerSite, Operator, Registry, Site, TypingError, Variant

RANDOM = (Variant("loops", "everypath/ops/random.hpp", cost_hint="NumPy's PCG64 stream, bit for bit"),)

INT_DTYPES = (DType.INT8, DType.INT16, DType.INT32, DType.INT64, DType.UINT8, DType.UINT16, DType.UINT32,
              DType.UINT64, DType.BOOL)


# ---- shared helpers (also used by random_sample.py) -----------------------------------


def bind(site: Site | LowerSite, names: tuple[str, ...]) -> Bound:
    """The call's arguments by NumPy's parameter names; names[0] is the receiver."""
    return Bound(site, names, site.key if site.key.startswith("Generator.") else None)


def size_rank(b: Bound) -> int | None:
    """The rank `size` gives (None: size=None, one value)."""
    t = b.type("size")
    if t is None or isinstance(t, NoneT):
        return None
    return shape_rank(t)


def shape_arg(b: Bound, rank: int) -> str:
    return f"ep::to_shape<{rank}>({b.expr('size')})"


def reject_out(b: Bound) -> None:
    if b.has("out") and not isinstance(b.type("out"), NoneT):
        raise TypingError(f"{b.site.key}(): argument 'out' is not supported")


def real_scalar(b: Bound, name: str) -> None:
    """A distribution parameter: a real scalar (NumPy also accepts arrays and broadcasts them)."""
    t = b.type(name)
    if isinstance(t, ScalarT) and not t.dtype.is_complex:
        return
    if isinstance(t, ArrayT):
        raise TypingError(f"{b.site.key}(): array-valued '{name}' is not supported; pass a scalar")
    raise TypingError(f"{b.site.key}(): '{name}' must be a real number, got {t}")


def int_scalar(b: Bound, name: str) -> None:
    t = b.type(name)
    if isinstance(t, ScalarT) and (t.dtype.is_integer or t.dtype.is_bool):
        return
    if isinstance(t, ArrayT):
        raise TypingError(f"{b.site.key}(): array-valued '{name}' is not supported; pass an integer")
    raise TypingError(f"{b.site.key}(): '{name}' must be an integer, got {t}")


def double_arg(b: Bound, name: str, default: float) -> str:
    return f"static_cast<double>({b.expr(name)})" if b.has(name) else float_literal(default)


def float_dtype(b: Bound, what: str) -> DType:
    dt = dtype_arg(b.type("dtype")) or DType.FLOAT64
    if dt not in (DType.FLOAT64, DType.FLOAT32):
        raise TypingError(f"Unsupported dtype dtype('{dt}') for {what}")
    return dt


def gen(ls: LowerSite) -> str:
    return ls.args[0]


# ---- default_rng ------------------------------------------------------------------------


def _rng_infer(site: Site) -> Type:
    b = Bound(site, ("seed",), "np.random.default_rng")
    t = b.type("seed")
    if t is None or isinstance(t, NoneT) or (isinstance(t, ScalarT) and (t.dtype.is_integer or t.dtype.is_bool)):
        return GeneratorT()
    if isinstance(t, GeneratorT):
        raise TypingError("np.random.default_rng(generator) is not supported: use the generator itself")
    raise TypingError(f"np.random.default_rng(): the seed must be an integer or None here, got {t}")


def _rng_lower(ls: LowerSite) -> str:
    b = Bound(ls, ("seed",))
    t = b.type("seed")
    return "ep::default_rng(ep::None{})" if t is None or isinstance(t, NoneT) else f"ep::default_rng({b.expr('seed')})"


# ---- Generator.random / standard_normal / standard_exponential ----------------------------

_FILL_NAMES = {
    "random": ("self", "size", "dtype", "out"),
    "standard_normal": ("self", "size", "dtype", "out"),
    "standard_exponential": ("self", "size", "dtype", "method", "out"),
}


def _fill_parse(name: str, site: Site | LowerSite) -> tuple[Bound, DType, int | None]:
    b = bind(site, _FILL_NAMES[name])
    reject_out(b)
    if b.has("method") and not isinstance(b.const("method"), str):
        raise TypingError("standard_exponential(): method must be 'zig' or 'inv'")
    return b, float_dtype(b, name), size_rank(b)


def _fill_infer(name: str) -> Callable[[Site], Type]:
    def infer(site: Site) -> Type:
        _, dt, rank = _fill_parse(name, site)
        return FLOAT if rank is None else ArrayT(dt, rank)

    return infer


def _fill_lower(name: str) -> Callable[[LowerSite], str]:
    def lower(ls: LowerSite) -> str:
        b, dt, rank = _fill_parse(name, ls)
        extra = ""
        if name == "standard_exponential":  # NumPy: anything but 'zig' is the inverse-CDF method
            extra = ", " + ("false" if b.const("method", "zig") == "zig" else "true")
        if rank is None:
            return f"ep::rng_{name}_scalar<{dt.cpp}>({gen(ls)}{extra})"
        return f"ep::rng_{name}<{dt.cpp}, {rank}>({gen(ls)}{extra}, {shape_arg(b, rank)})"

    return lower


# ---- Generator.integers ------------------------------------------------------------------

_INT_NAMES = ("self", "low", "high", "size", "dtype", "endpoint")


def _int_parse(site: Site | LowerSite) -> tuple[Bound, DType, int | None]:
    b = bind(site, _INT_NAMES)
    if not b.has("low"):
        raise TypingError("Generator.integers() missing required argument 'low'")
    int_scalar(b, "low")
    if b.has("high") and not isinstance(b.type("high"), NoneT):
        int_scalar(b, "high")
    dt = dtype_arg(b.type("dtype")) or DType.INT64
    if dt not in INT_DTYPES:
        raise TypingError(f"Unsupported dtype dtype('{dt}') for integers")
    t = b.type("endpoint")
    if t is not None and not (isinstance(t, ScalarT) and t.dtype.is_bool):
        raise TypingError("Generator.integers(): endpoint must be True or False")
    return b, dt, size_rank(b)


def _int_infer(site: Site) -> Type:
    _, dt, rank = _int_parse(site)
    return ScalarT(dt) if rank is None else ArrayT(dt, rank)


def _int_lower(ls: LowerSite) -> str:
    b, dt, rank = _int_parse(ls)
    if b.has("high") and not isinstance(b.type("high"), NoneT):
        low, high = b.expr("low"), b.expr("high")
    else:  # integers(high): [0, high)
        low, high = "int64_t(0)", b.expr("low")
    endpoint = b.expr("endpoint") if b.has("endpoint") else "false"
    args = f"{gen(ls)}, {low}, {high}, {endpoint}, \"{dt.np_name}\""
    if rank is None:
        return f"ep::rng_integers_scalar<{dt.cpp}>({args})"
    return f"ep::rng_integers<{dt.cpp}, {rank}>({args}, {shape_arg(b, rank)})"


# ---- distributions with scalar parameters ----------------------------------------------------

# method -> (parameter names after self, their defaults (None: required), integer parameters, result dtype);
# the C++ kernels are ep::rng_<method>_scalar and ep::rng_<method>
_PARAM_DISTS: dict[str, tuple[tuple[str, ...], tuple[float | None, ...], tuple[str, ...], DType]] = {
    "uniform": (("low", "high"), (0.0, 1.0), (), DType.FLOAT64),
    "normal": (("loc", "scale"), (0.0, 1.0), (), DType.FLOAT64),
    "exponential": (("scale",), (1.0,), (), DType.FLOAT64),
    "binomial": (("n", "p"), (None, None), ("n",), DType.INT64),
    "poisson": (("lam",), (1.0,), (), DType.INT64),
}


def _dist_parse(name: str, site: Site | LowerSite) -> tuple[Bound, int | None]:
    params, defaults, ints, _ = _PARAM_DISTS[name]
    b = bind(site, ("self", *params, "size"))
    for p, d in zip(params, defaults):
        if not b.has(p):
            if d is None:
                raise TypingError(f"Generator.{name}() missing required argument '{p}'")
            continue
        if p in ints:
            int_scalar(b, p)
        else:
            real_scalar(b, p)
    return b, size_rank(b)


def _dist_infer(name: str) -> Callable[[Site], Type]:
    def infer(site: Site) -> Type:
        _, rank = _dist_parse(name, site)
        dt = _PARAM_DISTS[name][3]
        if rank is None:
            return FLOAT if dt is DType.FLOAT64 else INT
        return ArrayT(dt, rank)

    return infer


def _dist_lower(name: str) -> Callable[[LowerSite], str]:
    params, defaults, ints, _ = _PARAM_DISTS[name]

    def lower(ls: LowerSite) -> str:
        b, rank = _dist_parse(name, ls)
        vals = [f"static_cast<int64_t>({b.expr(p)})" if p in ints else double_arg(b, p, d or 0.0)
                for p, d in zip(params, defaults)]
        args = ", ".join([gen(ls), *vals])
        if rank is None:
            return f"ep::rng_{name}_scalar({args})"
        return f"ep::rng_{name}<{rank}>({args}, {shape_arg(b, rank)})"

    return lower


def declare(reg: Registry) -> None:
    reg.add(Operator("numpy.random.default_rng", Family.RANDOM, np.random.default_rng, _rng_infer, _rng_lower,
                     RANDOM))
    gen_cls = np.random.Generator
    for name in _FILL_NAMES:
        reg.add(Operator(f"Generator.{name}", Family.RANDOM, getattr(gen_cls, name), _fill_infer(name),
                         _fill_lower(name), RANDOM))
    reg.add(Operator("Generator.integers", Family.RANDOM, gen_cls.integers, _int_infer, _int_lower, RANDOM))
    for name in _PARAM_DISTS:
        reg.add(Operator(f"Generator.{name}", Family.RANDOM, getattr(gen_cls, name), _dist_infer(name),
                         _dist_lower(name), RANDOM))

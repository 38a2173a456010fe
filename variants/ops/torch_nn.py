"""Products and torch.nn.functional: matmul/mm/bmm (and @ on tensors), F.linear, softmax and
log_softmax, F.layer_norm, F.normalize, F.dropout (training=False), and the activations that take
parameters: F.gelu (approximate='none' or 'tanh'), F.leaky_relu, F.elu, F.hardtanh, F.softplus.

Parameterless activations (relu, silu, hardswish, sigmoid, tanh) are element-wise and fuse: see torch_ops.py.
Result dtypes come from torch itself (replaying the call on small tensors); shape mistakes raise
torch's RuntimeError at run time (variants/include/everypath/ops/torch_nn.hpp, torch_tensor.hpp).
"""
from __future__ import annotations

import dataclasses

from everypath.base.types import ArrayT, DType, NoneT, ScalarT, Type
from everypath.variants.ops._torch import NN, OPS, Ref, bind, const_dim, const_of, need_tensor, replay
from everypath.variants.ops.linalg import PRODUCT_VARIANTS, path_tag
from everypath.variants.ops.torch_shape import size_expr, size_rank
from everypath.variants.registry import (
    Family, LowerSite, Operator, PathNotApplicable, Registry, Site, TypingError, Variant,
)

F = "torch.nn.functional"


def replay_infer(key: str, names: tuple[str, ...]):
    """Typing by replaying the call on torch."""
    def infer(site: Site) -> Type:
        b = bind(site, names, key.split(".")[-1])
        need_tensor(b.type(names[0]), key.split(".")[-1], names[0])
        return replay(b, _ref(site.key))

    return infer


# ---- products -------------------------------------------------------------------------------------
_PRODUCT = {"torch.matmul": ("input", "other"), "torch.mm": ("input", "mat2"), "torch.bmm": ("input", "mat2")}


def _products(header: str, own: dict[str, str] | None = None) -> tuple[Variant, ...]:
    """NumPy's product paths (the loops GEMM, threads row blocks, OpenBLAS, Accelerate) behind torch's checks:
    the loops variant names the torch header, the others the path's own (path_tag declines BLAS for integers),
    or the header in `own` that specialises the torch kernel for that path."""
    loops = Variant("loops", header, cost_hint="torch's checks, the cache-blocked GEMM")
    own = own or {}
    return (loops, *(dataclasses.replace(v, header=own.get(v.path, v.header)) for v in PRODUCT_VARIANTS
                     if v.path in ("threads", "blas", "accelerate")))


# F.linear's own GEMMs: the weight read as stored ([out, in]), through BLAS's transpose flag on blas
_NN_PATHS = {"threads": "everypath/paths/threads/torch_nn.hpp", "blas": "everypath/paths/blas/torch_nn.hpp"}
PRODUCTS, LINEAR = _products(OPS.header), _products(NN.header, _NN_PATHS)

# softmax / log_softmax / layer_norm rows: loops (double accumulation), simd (xsimd rows or lanes), threads
# (blocks of rows across the pool, each on the simd kernel). The thresholds are the default policy before
# telemetry: simd pays from a few rows of 16 floats; the pool's start-up (~5-20 us on a loaded 2-core host)
# needs a few hundred thousand elements.
ROWS = (NN,
        Variant("simd", "everypath/paths/simd/torch_nn.hpp", cost_hint="xsimd max/exp/sum per row or per lane",
                min_work=1 << 6),
        Variant("threads", _NN_PATHS["threads"], cost_hint="row blocks across cores", min_work=1 << 18))


def row_tag(ls: LowerSite) -> str:
    """The path template argument of a row kernel; simd declines dtypes without a batch (none here: softmax
    and layer_norm results are floating)."""
    if ls.path == "loops":
        return ""
    if ls.path not in ("simd", "threads"):
        raise PathNotApplicable(f"torch row kernels have no {ls.path} path")
    r = ls.result
    if not (isinstance(r, ArrayT) and r.dtype in (DType.FLOAT32, DType.FLOAT64)):
        raise PathNotApplicable(f"no {ls.path} row kernel for {getattr(r, 'dtype', r)}")
    return f", ep::path::{ls.path}"


def product_lower(ls: LowerSite) -> str:
    fn = ls.key.split(".")[-1]
    R = ls.result.dtype.cpp  # type: ignore[union-attr]
    return f"ep::tch::{fn}<{R}{path_tag(ls, ls.result)}>({ls.args[0]}, {ls.args[1]})"


def linear_lower(ls: LowerSite) -> str:
    b = bind(ls, ("input", "weight", "bias"), "linear")
    R = ls.result.dtype.cpp  # type: ignore[union-attr]
    bias = b.expr("bias") if b.has("bias") and not isinstance(b.type("bias"), NoneT) else "ep::None{}"
    return f"ep::tch::linear<{R}{path_tag(ls, ls.result)}>({b.expr('input')}, {b.expr('weight')}, {bias})"


# ---- softmax / log_softmax ------------------------------------------------------------------------
def _softmax_dim(site: Site | LowerSite) -> tuple[ArrayT, int]:
    fname = site.key.split(".")[-1]
    names = ("input", "dim", "_stacklevel", "dtype") if site.key.startswith(F) else ("input", "dim", "dtype")
    b = bind(site, names, fname)
    x = need_tensor(b.type("input"), fname)
    d = const_dim(b, "dim", x.ndim)
    if d is None:
        if not site.key.startswith(F):
            raise TypingError(f"{fname}() missing required argument 'dim'")
        d = 0 if x.ndim in (0, 1, 3) else 1  # F.softmax's implicit dim (torch warns that it is deprecated)
    if isinstance(d, tuple):
        raise TypingError(f"{fname}(): argument 'dim' must be int")
    return x, d


def softmax_infer(site: Site) -> Type:
    _softmax_dim(site)
    names = ("input", "dim", "_stacklevel", "dtype") if site.key.startswith(F) else ("input", "dim", "dtype")
    return replay(bind(site, names, site.key.split(".")[-1]), _ref(site.key))


def _ref(key: str) -> Ref:
    """What a key calls: tensor.<m> is the method torch.Tensor.<m>."""
    return Ref(f"torch.Tensor.{key.split('.')[-1]}") if key.startswith("tensor.") else Ref(key)


def softmax_lower(ls: LowerSite) -> str:
    x, d = _softmax_dim(ls)
    R = ls.result.dtype.cpp  # type: ignore[union-attr]
    log = "true" if ls.key.endswith("log_softmax") else "false"
    return f"ep::tch::softmax<{R}, {d if x.ndim else 0}, {log}{row_tag(ls)}>({ls.args[0]})"


# ---- layer_norm / normalize / dropout -------------------------------------------------------------
_LN = ("input", "normalized_shape", "weight", "bias", "eps")


def _ln_rank(site: Site | LowerSite) -> int:
    b = bind(site, _LN, "layer_norm")
    t = b.type("normalized_shape")
    if isinstance(t, ScalarT):
        return 1  # an int: one trailing dim
    w = b.where["normalized_shape"]
    node = site.node.args[w] if isinstance(w, int) else site.node.kwargs[w]
    return size_rank([t], (node,), "layer_norm")  # type: ignore[list-item]


def layer_norm_infer(site: Site) -> Type:
    b = bind(site, _LN, "layer_norm")
    x = need_tensor(b.type("input"), "layer_norm")
    k = _ln_rank(site)
    if k == 0:
        raise TypingError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                          "element, but got normalized_shape = []")
    for name in ("weight", "bias"):
        t = b.type(name)
        if t is not None and not isinstance(t, NoneT):
            need_tensor(t, "layer_norm", name)
    if x.ndim < k:  # torch's shape error, at run time (ep::tch::layer_norm)
        return x
    shapes = {"normalized_shape": None, "weight": (1,) * k, "bias": (1,) * k}
    return replay(b, Ref(site.key), {k_: v for k_, v in shapes.items() if v}, {"normalized_shape": (1,) * k})


def layer_norm_lower(ls: LowerSite) -> str:
    b = bind(ls, _LN, "layer_norm")
    k = _ln_rank(ls)
    R = ls.result.dtype.cpp  # type: ignore[union-attr]
    opt = {n: (b.expr(n) if b.has(n) and not isinstance(b.type(n), NoneT) else "ep::None{}") for n in ("weight", "bias")}
    eps = b.expr("eps") if b.has("eps") else "1e-05"
    shape = size_expr([b.expr("normalized_shape")], [b.type("normalized_shape")], k)  # type: ignore[list-item]
    return f"ep::tch::layer_norm<{R}, {k}{row_tag(ls)}>({b.expr('input')}, {shape}, {opt['weight']}, {opt['bias']}, {eps})"


_NORMALIZE = ("input", "p", "dim", "eps", "out")


def normalize_infer(site: Site) -> Type:
    b = bind(site, _NORMALIZE, "normalize")
    x = need_tensor(b.type("input"), "normalize")
    b.reject_non_none("out")
    const_dim(b, "dim", x.ndim)
    if b.has("p") and const_of(site, b.where["p"]) is ...:
        raise TypingError("normalize(): argument 'p' must be a compile-time constant")
    return replay(b, Ref(site.key))


def normalize_lower(ls: LowerSite) -> str:
    b = bind(ls, _NORMALIZE, "normalize")
    x = ls.arg_types[0]
    assert isinstance(x, ArrayT)
    d = const_dim(b, "dim", x.ndim, 1)
    p = float(b.const("p", 2.0))
    eps = b.expr("eps") if b.has("eps") else "1e-12"
    R = ls.result.dtype.cpp  # type: ignore[union-attr]
    pc = "std::numeric_limits<double>::infinity()" if p == float("inf") else (
        "-std::numeric_limits<double>::infinity()" if p == float("-inf") else repr(p))
    return f"ep::tch::normalize<{R}, {d if x.ndim else 0}>({b.expr('input')}, {pc}, {eps})"


_DROPOUT = ("input", "p", "training", "inplace")


def dropout_infer(site: Site) -> Type:
    b = bind(site, _DROPOUT, "dropout")
    need_tensor(b.type("input"), "dropout")
    if not b.has("training") or const_of(site, b.where["training"]) is not False:
        raise TypingError("F.dropout(): only training=False (inference: the identity) is supported; training=True "
                          "draws random masks")
    if b.has("inplace") and b.const("inplace"):
        raise TypingError("F.dropout(): inplace=True is not supported")
    return replay(b, Ref(site.key))


def dropout_lower(ls: LowerSite) -> str:
    b = bind(ls, _DROPOUT, "dropout")
    if b.has("p") and not b.is_const("p"):  # F.dropout checks p even when it does nothing
        return f"ep::tch::dropout_eval({b.expr('input')}, {b.expr('p')})"
    return b.expr("input")


# ---- activations with parameters ------------------------------------------------------------------
_ACT = {  # key -> (parameter names after input, defaults, scalar function)
    "gelu": (("approximate",), {"approximate": "none"}, ""),
    "leaky_relu": (("negative_slope", "inplace"), {"negative_slope": 0.01}, "torch_leaky_relu"),
    "elu": (("alpha", "inplace"), {"alpha": 1.0}, "torch_elu"),
    "hardtanh": (("min_val", "max_val", "inplace"), {"min_val": -1.0, "max_val": 1.0}, "torch_clamp"),
    "softplus": (("beta", "threshold"), {"beta": 1.0, "threshold": 20.0}, "torch_softplus"),
}


def activation_infer(site: Site) -> Type:
    name = site.key.split(".")[-1]
    params, _, _ = _ACT[name]
    b = bind(site, ("input", *params), name)
    need_tensor(b.type("input"), name)
    if b.has("inplace") and b.const("inplace"):
        raise TypingError(f"{name}(): inplace=True is not supported")
    if name == "gelu" and b.const("approximate", "none") not in ("none", "tanh"):
        raise TypingError("approximate argument must be either none or tanh.")
    return replay(b, Ref(site.key))


def activation_lower(ls: LowerSite) -> str:
    name = ls.key.split(".")[-1]
    params, defaults, fn = _ACT[name]
    b = bind(ls, ("input", *params), name)
    r = ls.result
    assert isinstance(r, ArrayT)
    R = r.dtype.cpp
    if name == "gelu":
        fn = "torch_gelu_tanh" if b.const("approximate", "none") == "tanh" else "torch_gelu"
    extra = "".join(f", static_cast<{R}>({b.expr(p) if b.has(p) else repr(defaults[p])})"
                    for p in params if p in defaults and p != "approximate")
    return f"ep::map<{R}, {r.ndim}>([&](auto v) {{ return ep::sc::{fn}<{R}>(static_cast<{R}>(v){extra}); }}, " \
           f"{b.expr('input')})"


def declare(reg: Registry) -> None:
    add = reg.add
    L = Family.LINALG
    for key, names in _PRODUCT.items():
        name = key.split(".")[-1]
        add(Operator(key, L, Ref(key), replay_infer(key, names), product_lower, PRODUCTS, aliases=(f"tensor.{name}",)))
    add(Operator(f"{F}.linear", L, Ref(f"{F}.linear"), replay_infer(f"{F}.linear", ("input", "weight", "bias")),
                 linear_lower, LINEAR))
    for name in ("softmax", "log_softmax"):
        add(Operator(f"torch.{name}", Family.REDUCTION, Ref(f"torch.{name}"), softmax_infer, softmax_lower, ROWS,
                     aliases=(f"tensor.{name}",)))
        add(Operator(f"{F}.{name}", Family.REDUCTION, Ref(f"{F}.{name}"), softmax_infer, softmax_lower, ROWS))
    add(Operator(f"{F}.layer_norm", Family.REDUCTION, Ref(f"{F}.layer_norm"), layer_norm_infer, layer_norm_lower,
                 ROWS))
    add(Operator(f"{F}.normalize", Family.REDUCTION, Ref(f"{F}.normalize"), normalize_infer, normalize_lower, (NN,)))
    add(Operator(f"{F}.dropout", Family.ELEMENTWISE, Ref(f"{F}.dropout"), dropout_infer, dropout_lower, (NN,)))
    for name in _ACT:
        add(Operator(f"{F}.{name}", Family.ELEMENTWISE, Ref(f"{F}.{name}"), activation_infer, activation_lower, (NN,)))


__all__ = ["declare"]

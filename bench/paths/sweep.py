"""The operator sweep's cases (bench/ops_sweep.py): a kernel for every operator of the registry that a
generic call can exercise, with its inputs per dtype and memory layout.

An operator is called the way a user calls it on 2-d operands of about n elements: element-wise functions
on `nin` arrays, reductions and arg-reductions whole and along axis 1, matrix products on square matrices,
cv2 image functions through ``variants.opbench.CV2_CALLS``, numpy.linalg through ``LINALG_CALLS``;
anything else is tried as ``f(x)``. The reference decides what applies: a (kernel, dtype, layout) the
reference refuses on a small sample is not a case (``probe``), and an operator with no case left is
reported with the reference's reason, so the sweep's table lists every operator.

Layouts: ``contiguous``; ``transposed`` (a .T view); ``strided`` (every second column); ``broadcast``
(the second operand one row, broadcast down): the views are what users pass from slicing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from everypath.variants import opbench
from everypath.variants.registry import Family, Operator

LAYOUTS = ("contiguous", "transposed", "strided", "broadcast")
DTYPES = ("float32", "float64", "int64", "uint8")
_SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%", "pow": "**",
            "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!=", "and_": "&", "or_": "|",
            "xor": "^", "lshift": "<<", "rshift": ">>", "matmul": "@"}
_UNARY_SYMBOLS = {"neg": "-", "pos": "+", "invert": "~"}
# scalar-only and stateful namespaces: no array reference library to compare with
_NOT_ARRAY = ("math.", "builtins.", "Generator.", "numpy.random.")
_PRODUCTS = {"numpy.matmul", "numpy.dot", "numpy.inner", "numpy.vdot", "torch.matmul", "torch.mm",
             "operator.matmul"}
# cv2 calls opbench has no recipe for (the one image is x)
CV2_EXTRA = {
    "cv2.bitwise_not": "cv2.bitwise_not(x)",
    "cv2.bitwise_and": "cv2.bitwise_and(x, x)",
    "cv2.bitwise_or": "cv2.bitwise_or(x, x)",
    "cv2.bitwise_xor": "cv2.bitwise_xor(x, x)",
    "cv2.convertScaleAbs": "cv2.convertScaleAbs(x, alpha=1.5, beta=-3.0)",
    "cv2.rotate": "cv2.rotate(x, cv2.ROTATE_90_CLOCKWISE)",
    "cv2.merge": "cv2.merge((x, x, x))",
    "cv2.flip": "cv2.flip(x, 1)",
    "cv2.transpose": "cv2.transpose(x)",
    "cv2.medianBlur": "cv2.medianBlur(x, 5)",
    "cv2.Laplacian": "cv2.Laplacian(x, cv2.CV_32F)",
}
# calls that need an argument besides the array: (operator, call on x), for each library
# (sort/topk: the values, which are unique whatever the order of ties; a namedtuple result is not compared)
EXTRA = {"torch.topk": "torch.topk(x, 8)[0]", "torch.sort": "torch.sort(x)[0]", "torch.cumsum": "torch.cumsum(x, 1)",
         "numpy.polyval": "np.polyval(x[0, :4], x)"}
_LINALG_SIDE = 384  # decompositions on the loops path are O(k^3) with no blocking: cap the matrix side


@dataclass(frozen=True)
class Kernel:
    """One operator call: the kernel's source and how its operands are shaped."""

    op: str
    name: str  # the row label: the call as written
    source: str
    nin: int
    kind: str  # "rows" (2-d, ~n elements), "square" (k x k), "image" (k x k [x 3]), "spd" (SPD k x k)
    torch: bool


@dataclass(frozen=True)
class SweepCase:
    kernel: Kernel
    dtype: str
    layout: str

    def inputs(self, n: int, rng: np.random.Generator) -> tuple[Any, ...]:
        return make_inputs(self.kernel, self.dtype, self.layout, n, rng)


def _call(key: str) -> str | None:
    for prefix, alias in (("numpy.", "np."), ("torch.nn.functional.", "F."), ("torch.", "torch.")):
        if key.startswith(prefix):
            return alias + key[len(prefix):]
    return None


def _head(torch: bool, cv2: bool = False) -> str:
    head = "import numpy as np\n"
    if torch:
        head += "import torch\nimport torch.nn.functional as F\n"
    if cv2:
        head += "import cv2\n"
    return head


def _kernel(op: str, name: str, body: str, nin: int, kind: str, torch: bool, cv2: bool = False) -> Kernel:
    ann = "torch.Tensor" if torch else "np.ndarray"
    params = ", ".join(f"x{i}: {ann}" for i in range(nin)) if nin > 1 else f"x: {ann}"
    return Kernel(op, name, _head(torch, cv2) + f"def kernel({params}):\n    return {body}\n", nin, kind, torch)


def kernels(op: Operator) -> list[Kernel]:
    """The generic calls of op (empty: none applies; ``no_recipe`` says why)."""
    key = op.key
    torch = key.startswith("torch.") or key.startswith("tensor.")
    if key.startswith(_NOT_ARRAY) or key.startswith("tensor."):
        return []
    if key in CV2_EXTRA:
        return [_kernel(key, CV2_EXTRA[key], CV2_EXTRA[key], 1, "image", False, cv2=True)]
    if key in opbench.CV2_CALLS:
        body = opbench.CV2_CALLS[key].replace("DEPTH", "cv2.CV_32F")
        return [_kernel(key, opbench.CV2_CALLS[key], body, 1, "image3" if key == "cv2.cvtColor" else "image",
                        False, cv2=True)]
    if key in opbench.LINALG_CALLS:
        return [_kernel(key, opbench.LINALG_CALLS[key], opbench.LINALG_CALLS[key].replace("(a", "(x"), 1, "spd",
                        False)]
    if key.startswith("operator."):
        name = key.split(".", 1)[1]
        if name in _UNARY_SYMBOLS:
            return [_kernel(key, f"{_UNARY_SYMBOLS[name]}x", f"{_UNARY_SYMBOLS[name]}x", 1, "rows", False)]
        if name in _SYMBOLS:
            s = _SYMBOLS[name]
            return [_kernel(key, f"x0 {s} x1", f"x0 {s} x1", 2, "square" if s == "@" else "rows", False)]
        return []
    if key.startswith("ndarray."):
        m = key.split(".", 1)[1]
        return [_kernel(key, f"x.{m}()", f"x.{m}()", 1, "rows", False)]
    if key in EXTRA:
        return [_kernel(key, EXTRA[key], EXTRA[key], 1, "rows", torch)]
    call = _call(key)
    if call is None:
        return []
    if key in _PRODUCTS:
        return [_kernel(key, f"{call}(x0, x1)", f"{call}(x0, x1)", 2, "square", torch)]
    if op.family is Family.ELEMENTWISE:
        nin = op.elementwise.nin if op.elementwise is not None else 1
        args = ", ".join(f"x{i}" for i in range(nin)) if nin > 1 else "x"
        return [_kernel(key, f"{call}({args})", f"{call}({args})", nin, "rows", torch)]
    out = [_kernel(key, f"{call}(x)", f"{call}(x)", 1, "rows", torch)]
    if op.family in (Family.REDUCTION, Family.SCAN, Family.SORTING):
        ax = "dim" if torch else "axis"
        out.append(_kernel(key, f"{call}(x, {ax}=1)", f"{call}(x, {ax}=1)", 1, "rows", torch))
    return out


def _values(shape: tuple[int, ...], dtype: str, rng: np.random.Generator, image: bool) -> np.ndarray:
    if np.dtype(dtype).kind in "iu":
        hi = 256 if dtype == "uint8" else 100
        return rng.integers(1, hi, shape).astype(dtype)
    v = rng.random(shape) * (255 if image else 1) + (0 if image else 0.5)
    return v.astype(dtype)


def _shape(kernel: Kernel, n: int) -> tuple[int, ...]:
    k = max(2, int(round(n ** 0.5)))
    if kernel.kind == "spd":
        return (min(k, _LINALG_SIDE), min(k, _LINALG_SIDE))
    if kernel.kind == "image3":
        return (k, k, 3)
    return (k, max(2, n // k))


def _laid_out(shape: tuple[int, ...], dtype: str, layout: str, rng: np.random.Generator, image: bool,
              operand: int) -> np.ndarray:
    r, c, rest = shape[0], shape[1], shape[2:]
    if layout == "transposed":
        return np.swapaxes(_values((c, r, *rest), dtype, rng, image), 0, 1)
    if layout == "strided":
        return _values((r, 2 * c, *rest), dtype, rng, image)[:, ::2]
    if layout == "broadcast" and operand > 0:
        return _values((1, c, *rest), dtype, rng, image)
    return _values(shape, dtype, rng, image)


def make_inputs(kernel: Kernel, dtype: str, layout: str, n: int, rng: np.random.Generator) -> tuple[Any, ...]:
    shape = _shape(kernel, n)
    image = kernel.kind.startswith("image")
    if kernel.kind == "spd":
        x = _values(shape, "float64", rng, False)
        a = x @ x.T + shape[0] * np.eye(shape[0])
        base = a.astype(dtype)
        out: tuple[Any, ...] = (base.T if layout == "transposed" else base,)
    else:
        out = tuple(_laid_out(shape, dtype, layout, rng, image, i) for i in range(kernel.nin))
    if kernel.torch:
        import torch

        out = tuple(torch.from_numpy(a) for a in out)
    return out


def applies(layout: str, kernel: Kernel) -> bool:
    if layout == "broadcast":
        return kernel.nin > 1 and kernel.kind == "rows"
    if kernel.kind == "spd":
        return layout in ("contiguous", "transposed")
    return not (kernel.kind.startswith("image") and layout == "transposed")


def probe(ref: Callable[..., Any], case: SweepCase) -> str | None:
    """None when the reference accepts the case on a small sample, else its reason."""
    import warnings

    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            ref(*case.inputs(64, np.random.default_rng(0)))
    except Exception as e:  # noqa: BLE001 -- the reference's refusal is the answer
        msg = str(e).strip().splitlines()[0] if str(e).strip() else ""
        return f"{type(e).__name__}: {msg[:160]}"
    return None


def group_of(op: str, family: str) -> str:
    """A summary group: the library and the registry family (torch.elementwise, numpy.reduction, ...)."""
    ns = op.split(".")[0]
    return f"{'numpy' if ns in ('numpy', 'ndarray', 'operator') else ns}.{family}"


def no_call_reason(key: str) -> str:
    """Why kernels(op) is empty."""
    if key.startswith(_NOT_ARRAY):
        return "no generic call: a scalar or random-generator function (no array library to compare with)"
    if key.startswith("tensor."):
        return "a tensor method: swept as its torch function"
    return "no generic call: it needs arguments the sweep has no recipe for (add one to sweep.py)"

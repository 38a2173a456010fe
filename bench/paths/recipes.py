"""Benchmark cases: one kernel (Python source defining ``kernel``), the inputs
it takes at a size, and the operators whose paths are tried.  Cases for
single operators reuse ``variants.opbench`` (recipe, cv2_recipe,
linalg_recipe); what it has no recipe for is written here (fused
expressions, rows of 2-d arrays, FFT sizes, PyTorch, random generators)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from everypath.variants import opbench
from everypath.variants.registry import lookup_operator

Inputs = Callable[[int, np.random.Generator], tuple[Any, ...]]


@dataclass(frozen=True)
class Case:
    """One row label of a family table: a kernel and the operators it calls
    (the paths tried are the union of their available paths)."""

    name: str
    ops: tuple[str, ...]
    source: str
    inputs: Inputs


def op_case(name: str, key: str, dtype: str = "float64", axis: int | None = None) -> Case:
    """A single operator through opbench's generic recipe."""
    r = opbench.recipe(lookup_operator(key), dtype, axis)
    return Case(name, (key,), r.source, r.inputs)


def cv2_case(key: str) -> Case:
    """A cv2 image operator on a uint8 image of about n pixels."""
    r = opbench.cv2_recipe(key, "uint8")
    return Case(key, (key,), r.source, r.inputs)


def linalg_case(key: str) -> Case:
    """A numpy.linalg operator on a well-conditioned SPD sqrt(n) x sqrt(n) matrix."""
    r = opbench.linalg_recipe(key, "float64")
    return Case(opbench.LINALG_CALLS[key], (key,), r.source, r.inputs)


_NP_HEAD = ("import numpy as np\nArr = np.ndarray[tuple[int], np.dtype[np.float64]]\n"
            "Mat = np.ndarray[tuple[int, int], np.dtype[np.float64]]\n")


def _vectors(count: int) -> Inputs:
    return lambda n, rng: tuple(rng.random(n) + 0.5 for _ in range(count))


def _rows(n: int, rng: np.random.Generator) -> tuple[Any, ...]:
    """About n elements as sqrt(n) rows."""
    k = max(1, int(round(n ** 0.5)))
    return (rng.random((k, max(1, n // k))),)


def np_case(name: str, ops: tuple[str, ...], body: str, params: str = "x: Arr, y: Arr",
            inputs: Inputs | None = None) -> Case:
    """A NumPy kernel `def kernel(<params>): return <body>` (default: two vectors)."""
    nargs = params.count(":")
    return Case(name, ops, _NP_HEAD + f"def kernel({params}):\n    return {body}\n", inputs or _vectors(nargs))


def rows_case(name: str, ops: tuple[str, ...], body: str) -> Case:
    """A kernel over one sqrt(n) x sqrt(n) float64 matrix `x`."""
    return np_case(name, ops, body, "x: Mat", _rows)


def fft_case(name: str, key: str, body: str) -> Case:
    """np.fft on a float64 vector of n samples (the sizes pick powers of two or not)."""
    return np_case(name, (key,), body, "x: Arr", lambda n, rng: (rng.standard_normal(n),))


def random_case(name: str, key: str, call: str) -> Case:
    """A Generator method drawing n numbers from default_rng(seed): compiled code
    draws NumPy's stream bit for bit, so values compare exactly."""
    src = f"import numpy as np\ndef kernel(seed: int, n: int):\n    return np.random.default_rng(seed).{call}\n"
    return Case(name, (key, "numpy.random.default_rng"), src, lambda n, rng: (12345, n))


_TORCH_HEAD = "import torch\nimport torch.nn.functional as F\n"


def _tensor(rng: np.random.Generator, shape: tuple[int, ...]) -> Any:
    import torch

    return torch.from_numpy(rng.standard_normal(shape).astype(np.float32))


def torch_case(name: str, ops: tuple[str, ...], body: str, shapes: Callable[[int], list[tuple[int, ...]]]) -> Case:
    """A PyTorch kernel over float32 CPU tensors x, w, b, ... (one per shape)."""
    names = "xwbcd"[: len(shapes(1024))]
    params = ", ".join(f"{v}: torch.Tensor" for v in names)
    src = _TORCH_HEAD + f"def kernel({params}):\n    return {body}\n"
    return Case(name, ops, src, lambda n, rng: tuple(_tensor(rng, s) for s in shapes(n)))


def rows_of(width: int) -> Callable[[int], list[tuple[int, ...]]]:
    """One (n // width) x width tensor: activations of a batch of rows."""
    return lambda n: [(max(1, n // width), width)]


def linear_shapes(n: int) -> list[tuple[int, ...]]:
    """x (rows, 128) @ w(128, 128).T + b: a dense layer over n // 128 rows."""
    return [(max(1, n // 128), 128), (128, 128), (128,)]


def conv_shapes(n: int) -> list[tuple[int, ...]]:
    """One 8-channel image of about n values, 8 3x3 filters."""
    side = max(3, int(round((n / 8) ** 0.5)))
    return [(1, 8, side, side), (8, 8, 3, 3), (8,)]

"""Recipes: a one-line kernel calling an operator and its inputs per size, for measuring its variants
(`everypath ops bench`, lowering/opbench.py; `everypath autotune`; bench/paths)."""
from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from everypath.variants.registry import Family, Operator


@dataclass(frozen=True)
class Recipe:
    """A kernel calling the operator and the inputs it takes for one size."""

    source: str  # defines `kernel`
    inputs: Callable[[int, np.random.Generator], tuple[Any, ...]]


def _name(op: Operator) -> str:
    mod = op.key.rsplit(".", 1)[0]
    return op.key if mod in ("numpy", "numpy.linalg", "numpy.fft") else ""


def recipe(op: Operator, dtype: str = "float64", axis: int | None = None) -> Recipe:
    """How to exercise op; ValueError when there is no generic way yet. axis: reductions, scans and
    sorts along that axis of a square-ish 2-d input of about n elements."""
    head = f"import numpy as np\nArr = np.ndarray[tuple[int], np.dtype[np.{dtype}]]\n" \
           f"Mat = np.ndarray[tuple[int, int], np.dtype[np.{dtype}]]\n"
    call = _name(op).replace("numpy.", "np.", 1) if _name(op) else None
    if op.key.startswith("operator.") and op.elementwise is not None:
        sym = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "pow": "**", "lt": "<", "gt": ">"}
        s = sym.get(op.key.split(".")[1])
        if s is None:
            raise ValueError(f"no benchmark recipe for {op.key}")
        return Recipe(head + f"def kernel(x: Arr, y: Arr):\n    return x {s} y\n",
                      lambda n, rng: (rng.random(n).astype(dtype) + 0.5, rng.random(n).astype(dtype) + 0.5))
    if op.key in CV2_CALLS:
        return cv2_recipe(op.key, dtype)
    if call is None:
        raise ValueError(f"no benchmark recipe for {op.key} (only numpy functions and Python operators)")
    if op.family is Family.ELEMENTWISE:
        nin = op.elementwise.nin if op.elementwise is not None else 1
        params = ", ".join(f"x{i}: Arr" for i in range(nin))
        args = ", ".join(f"x{i}" for i in range(nin))
        return Recipe(head + f"def kernel({params}):\n    return {call}({args})\n",
                      lambda n, rng: tuple(rng.random(n).astype(dtype) + 0.5 for _ in range(nin)))
    if axis is not None and op.family in (Family.REDUCTION, Family.SCAN, Family.SORTING):
        def matrix(n: int, rng: np.random.Generator) -> tuple[Any, ...]:
            k = max(1, int(round(n ** 0.5)))
            return (rng.random((k, max(1, n // k))).astype(dtype),)
        return Recipe(head + f"def kernel(x: Mat):\n    return {call}(x, axis={axis})\n", matrix)
    if op.family is Family.REDUCTION:
        return Recipe(head + f"def kernel(x: Arr):\n    return {call}(x)\n", lambda n, rng: (rng.random(n).astype(dtype),))
    if op.key in LINALG_CALLS:
        return linalg_recipe(op.key, dtype)
    if op.family is Family.LINALG and op.key in ("numpy.matmul", "numpy.dot", "numpy.inner"):
        def square(n: int, rng: np.random.Generator) -> tuple[Any, ...]:
            k = max(1, int(round(n ** 0.5)))
            return rng.random((k, k)).astype(dtype), rng.random((k, k)).astype(dtype)
        return Recipe(head + f"def kernel(a: Mat, b: Mat):\n    return {call}(a, b)\n", square)
    return Recipe(head + f"def kernel(x: Arr):\n    return {call}(x)\n", lambda n, rng: (rng.random(n).astype(dtype),))


# cv2 operators taking an image: the call on `x` (a 2-d image of about n pixels; 3-d with 3
# channels for the colour conversions); DEPTH is the Sobel result depth (int16 for uint8)
CV2_CALLS = {
    "cv2.GaussianBlur": "cv2.GaussianBlur(x, (5, 5), 0)",
    "cv2.blur": "cv2.blur(x, (5, 5))",
    "cv2.boxFilter": "cv2.boxFilter(x, -1, (3, 3))",
    "cv2.Sobel": "cv2.Sobel(x, DEPTH, 1, 0)",
    "cv2.erode": "cv2.erode(x, None)",
    "cv2.dilate": "cv2.dilate(x, np.ones((5, 5), np.uint8))",
    "cv2.threshold": "cv2.threshold(x, 100, 200, cv2.THRESH_BINARY)[1]",
    "cv2.cvtColor": "cv2.cvtColor(x, cv2.COLOR_BGR2GRAY)",
    "cv2.resize": "cv2.resize(x, None, fx=0.75, fy=0.75)",
}


def cv2_recipe(key: str, dtype: str) -> Recipe:
    """A cv2 image operator on a random uint8 (0..255) or float image of about n pixels."""
    color = key == "cv2.cvtColor"
    shape = "tuple[int, int, int]" if color else "tuple[int, int]"
    depth = "cv2.CV_16S" if dtype == "uint8" else "-1"
    source = (f"import cv2\nimport numpy as np\nImg = np.ndarray[{shape}, np.dtype[np.{dtype}]]\n"
              f"def kernel(x: Img):\n    return {CV2_CALLS[key].replace('DEPTH', depth)}\n")

    def inputs(n: int, rng: np.random.Generator) -> tuple[Any, ...]:
        k = max(1, int(round(n ** 0.5)))
        shp = (k, k, 3) if color else (k, k)
        if np.dtype(dtype).kind in "iu":
            return (rng.integers(0, 256, shp).astype(dtype),)
        return ((rng.random(shp) * 255).astype(dtype),)

    return Recipe(source, inputs)


# numpy.linalg operators on one square matrix `a` (symmetric positive definite, so every
# one applies); results that are unique only up to signs are reduced to unique parts
LINALG_CALLS = {
    "numpy.linalg.inv": "np.linalg.inv(a)",
    "numpy.linalg.det": "np.linalg.det(a)",
    "numpy.linalg.slogdet": "np.linalg.slogdet(a)[1]",
    "numpy.linalg.solve": "np.linalg.solve(a, a[:, 0])",
    "numpy.linalg.cholesky": "np.linalg.cholesky(a)",
    "numpy.linalg.qr": "np.abs(np.linalg.qr(a)[1])",
    "numpy.linalg.svd": "np.linalg.svd(a)[1]",
    "numpy.linalg.eigh": "np.linalg.eigh(a)[0]",
    "numpy.linalg.eigvalsh": "np.linalg.eigvalsh(a)",
    "numpy.linalg.eigvals": "np.sort(np.abs(np.linalg.eigvals(a)))",
    "numpy.linalg.lstsq": "np.linalg.lstsq(a, a[:, 0])[0]",
    "numpy.linalg.pinv": "np.linalg.pinv(a)",
    "numpy.linalg.matrix_rank": "np.linalg.matrix_rank(a)",
}


def linalg_recipe(key: str, dtype: str) -> Recipe:
    """A numpy.linalg operator on a well-conditioned SPD k x k matrix, k = round(sqrt(n))."""
    source = (f"import numpy as np\nMat = np.ndarray[tuple[int, int], np.dtype[np.{dtype}]]\n"
              f"def kernel(a: Mat):\n    return {LINALG_CALLS[key]}\n")

    def inputs(n: int, rng: np.random.Generator) -> tuple[Any, ...]:
        k = max(1, int(round(n ** 0.5)))
        x = rng.random((k, k))
        return ((x @ x.T + k * np.eye(k)).astype(dtype),)

    return Recipe(source, inputs)


def load_recipe(source: str, where: Path) -> Callable[..., Any]:
    path = where / "ep_opbench_kernel.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("ep_opbench_kernel", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.kernel

"""The families of the benchmark: a name, the reference library, the sizes
(small, medium, large element counts), the tolerance a path's result must meet
and a few representative operators."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .recipes import (Case, conv_shapes, cv2_case, fft_case, linalg_case, linear_shapes, np_case, op_case,
                      random_case, rows_case, rows_of, torch_case)

DEFAULT_SIZES = (1_000, 100_000, 2_000_000)
QUICK_SIZES = (1_000,)


@dataclass(frozen=True)
class Family:
    name: str
    reference: str  # the library the paths are measured against
    cases: Callable[[], tuple[Case, ...]]  # built lazily: recipes import the registry / torch
    sizes: tuple[int, ...] = DEFAULT_SIZES
    rtol: float = 1e-9
    atol: float = 1e-12  # scaled by the largest |value| of the reference result
    abs_tol: float = 0.0  # plus this, unscaled


def _elementwise() -> tuple[Case, ...]:
    return (op_case("np.exp", "numpy.exp"), op_case("np.sin", "numpy.sin"), op_case("np.sqrt", "numpy.sqrt"),
            op_case("x + y", "operator.add"), op_case("x * y", "operator.mul"))


def _fused() -> tuple[Case, ...]:
    return (np_case("np.exp(x) * y + 1", ("numpy.exp", "operator.mul", "operator.add"), "np.exp(x) * y + 1"),
            np_case("np.sqrt(x*x + y*y)", ("numpy.sqrt", "operator.mul", "operator.add"), "np.sqrt(x * x + y * y)"),
            np_case("np.where(x > y, x - y, 0.0) * 2", ("numpy.where", "operator.gt", "operator.sub", "operator.mul"),
                    "np.where(x > y, x - y, 0.0) * 2"))


def _reductions() -> tuple[Case, ...]:
    return (op_case("np.sum", "numpy.sum"), op_case("np.max", "numpy.max"), op_case("np.mean", "numpy.mean"),
            np_case("np.dot(x, y)", ("numpy.dot",), "np.dot(x, y)"))


def _axis_reductions() -> tuple[Case, ...]:
    return (op_case("np.sum axis=0", "numpy.sum", axis=0), op_case("np.sum axis=1", "numpy.sum", axis=1),
            op_case("np.max axis=1", "numpy.max", axis=1), op_case("np.mean axis=0", "numpy.mean", axis=0))


def _scans() -> tuple[Case, ...]:
    return (op_case("np.cumsum", "numpy.cumsum"), op_case("np.cumsum axis=0", "numpy.cumsum", axis=0),
            op_case("np.cumsum axis=1", "numpy.cumsum", axis=1))


def _sorting() -> tuple[Case, ...]:
    return (op_case("np.sort", "numpy.sort"), rows_case("np.sort rows", ("numpy.sort",), "np.sort(x, axis=-1)"),
            op_case("np.argsort", "numpy.argsort"))


def _matmul() -> tuple[Case, ...]:
    return (op_case("np.matmul", "numpy.matmul"),
            np_case("a @ b.T", ("operator.matmul",), "a @ b.T", "a: Mat, b: Mat",
                    lambda n, rng: tuple(rng.random((k, k)) for k in [max(1, round(n ** 0.5))] * 2)))


def _linalg() -> tuple[Case, ...]:
    return tuple(linalg_case(k) for k in ("numpy.linalg.inv", "numpy.linalg.solve", "numpy.linalg.eigh",
                                          "numpy.linalg.svd"))


def _fft() -> tuple[Case, ...]:
    return (fft_case("np.fft.fft", "numpy.fft.fft", "np.fft.fft(x)"),
            fft_case("np.fft.rfft", "numpy.fft.rfft", "np.fft.rfft(x)"),
            fft_case("np.fft.ifft(fft)", "numpy.fft.ifft", "np.fft.ifft(np.fft.fft(x)).real"))


def _image() -> tuple[Case, ...]:
    return tuple(cv2_case(k) for k in ("cv2.GaussianBlur", "cv2.blur", "cv2.erode", "cv2.Sobel", "cv2.threshold",
                                       "cv2.cvtColor"))


def _torch_nn() -> tuple[Case, ...]:
    return (torch_case("F.relu", ("torch.nn.functional.relu",), "F.relu(x)", rows_of(256)),
            torch_case("F.gelu", ("torch.nn.functional.gelu",), "F.gelu(x)", rows_of(256)),
            torch_case("F.softmax dim=-1", ("torch.nn.functional.softmax",), "F.softmax(x, dim=-1)", rows_of(256)),
            torch_case("F.layer_norm", ("torch.nn.functional.layer_norm",), "F.layer_norm(x, (x.shape[-1],))",
                       rows_of(256)),
            torch_case("F.linear", ("torch.nn.functional.linear",), "F.linear(x, w, b)", linear_shapes),
            torch_case("F.conv2d 3x3", ("torch.conv2d",), "F.conv2d(x, w, b, padding=1)", conv_shapes))


def _random() -> tuple[Case, ...]:
    return (random_case("rng.normal", "Generator.normal", "normal(0.0, 1.0, n)"),
            random_case("rng.uniform", "Generator.uniform", "uniform(-1.0, 1.0, n)"),
            random_case("rng.random", "Generator.random", "random(n)"))


FAMILIES: tuple[Family, ...] = (
    Family("elementwise", "NumPy", _elementwise, rtol=1e-12),
    Family("fused", "NumPy", _fused, rtol=1e-12),
    Family("reductions", "NumPy", _reductions),
    Family("axis_reductions", "NumPy", _axis_reductions),
    Family("scans", "NumPy", _scans),
    Family("sorting", "NumPy", _sorting, (1_000, 100_000, 1_000_000), rtol=0.0, atol=0.0),
    Family("matmul", "NumPy", _matmul, (1_024, 65_536, 1_000_000)),
    Family("linalg", "NumPy", _linalg, (1_024, 40_000, 250_000), rtol=1e-7, atol=1e-9),
    Family("fft", "NumPy", _fft, (1_024, 65_536, 1_048_576), rtol=1e-9, atol=1e-11),
    # 8-bit images: OpenCV's fixed-point kernels may round a pixel the other way
    Family("image", "OpenCV", _image, (1_024, 102_400, 2_073_600), rtol=0.0, atol=0.0, abs_tol=1.0),
    Family("torch_nn", "PyTorch", _torch_nn, rtol=1e-4, atol=1e-5),
    Family("random", "NumPy", _random, rtol=0.0, atol=0.0),
)


def select(names: str | None) -> list[Family]:
    """--families a,b (unknown names raise ValueError listing the known ones)."""
    if not names:
        return list(FAMILIES)
    want = [n.strip() for n in names.split(",") if n.strip()]
    known = {f.name: f for f in FAMILIES}
    bad = [n for n in want if n not in known]
    if bad:
        raise ValueError(f"unknown families {', '.join(bad)}; known: {', '.join(known)}")
    return [known[n] for n in want]

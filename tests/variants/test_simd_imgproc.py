"""The simd path of the cv2 image operators (paths/simd/imgproc*.hpp), forced with
Settings(force_path="simd"), against cv2 and against the loops path.

GaussianBlur, blur / boxFilter, Sobel, erode / dilate (uint8, float32), threshold and
cvtColor (uint8) on 1- and 3-channel images of sizes 1x1, 7x5, 13x31 and 64x97 and on
non-contiguous views, kernel sizes 1, 3 and 5 (and wider), every border type.
Tolerances: the simd path computes what the loops path computes, operation for
operation, so both dtypes must equal it exactly; against cv2, uint8 is exact and float32
within 1e-5 relative to the largest |value| (OpenCV adds the taps in another order; Sobel
sums that cancel get an absolute allowance of float32 rounding times the kernel's weight).
BORDER_WRAP (cv2 refuses it for filters) and NaN pixels are compared with loops only.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2", reason="the reference is OpenCV's Python module (opencv-python-headless)")

import everypath  # noqa: E402
from everypath.base.settings import Settings  # noqa: E402
from everypath.variants.paths import host_path  # noqa: E402

pytestmark = pytest.mark.skipif(not host_path("simd").available, reason=str(host_path("simd").reason))

U8 = np.ndarray[tuple[int, int], np.dtype[np.uint8]]
U8C = np.ndarray[tuple[int, int, int], np.dtype[np.uint8]]
F32 = np.ndarray[tuple[int, int], np.dtype[np.float32]]
F32C = np.ndarray[tuple[int, int, int], np.dtype[np.float32]]
BORDERS = (cv2.BORDER_CONSTANT, cv2.BORDER_REPLICATE, cv2.BORDER_REFLECT, cv2.BORDER_REFLECT_101)


def filters(a, c):
    """Every filter on a (2-d) and c (3-channel): results compared with cv2 and loops."""
    k35 = np.ones((3, 5), np.uint8)
    return (
        cv2.GaussianBlur(a, (3, 3), 0), cv2.GaussianBlur(c, (5, 5), 0), cv2.GaussianBlur(a, (1, 5), 0),
        cv2.GaussianBlur(c, (3, 7), 1.3, sigmaY=0.8), cv2.GaussianBlur(a, (0, 0), 2.0),
        cv2.GaussianBlur(a, (5, 3), 0, borderType=cv2.BORDER_CONSTANT),
        cv2.GaussianBlur(c, (5, 3), 0, borderType=cv2.BORDER_REPLICATE),
        cv2.GaussianBlur(a, (5, 3), 0, borderType=cv2.BORDER_REFLECT),
        cv2.blur(a, (3, 3)), cv2.blur(c, (5, 5), borderType=cv2.BORDER_CONSTANT),
        cv2.blur(a, (5, 1), borderType=cv2.BORDER_REPLICATE), cv2.blur(c, (3, 5), borderType=cv2.BORDER_REFLECT),
        cv2.boxFilter(a, -1, (17, 21)), cv2.boxFilter(c, -1, (4, 3), normalize=False),
        cv2.boxFilter(a, -1, (3, 3), anchor=(0, 2), borderType=cv2.BORDER_REFLECT),
        cv2.erode(a, None), cv2.dilate(c, None, borderType=cv2.BORDER_REPLICATE),
        cv2.erode(c, k35, borderType=cv2.BORDER_REFLECT_101), cv2.dilate(a, k35, iterations=2),
        cv2.erode(a, k35, borderType=cv2.BORDER_CONSTANT, borderValue=7),
        cv2.dilate(c, np.ones((5, 3), np.uint8), borderType=cv2.BORDER_REFLECT),
        cv2.erode(a, np.ones((1, 1), np.uint8)), cv2.blur(a, (1, 1)), cv2.boxFilter(c, -1, (1, 1)),
    )


def sobels_u8(a: U8, c: U8C):
    return (cv2.Sobel(a, cv2.CV_16S, 1, 0), cv2.Sobel(c, cv2.CV_16S, 0, 1, ksize=5, borderType=cv2.BORDER_REFLECT),
            cv2.Sobel(a, cv2.CV_16S, 1, 1, ksize=1, borderType=cv2.BORDER_REPLICATE),
            cv2.Sobel(a, cv2.CV_16S, 2, 0, ksize=3, scale=0.5, delta=3, borderType=cv2.BORDER_CONSTANT),
            cv2.Sobel(c, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(a, cv2.CV_8U, 0, 1, ksize=5))


def sobels_f32(a: F32, c: F32C):
    return (cv2.Sobel(a, -1, 1, 0), cv2.Sobel(c, -1, 0, 1, ksize=5, borderType=cv2.BORDER_REFLECT),
            cv2.Sobel(a, -1, 1, 1, ksize=1, borderType=cv2.BORDER_REPLICATE),
            cv2.Sobel(a, cv2.CV_16S, 2, 0, ksize=3, scale=0.5, delta=3, borderType=cv2.BORDER_CONSTANT))


def filters_u8(a: U8, c: U8C):
    return filters(a, c), sobels_u8(a, c)


def filters_f32(a: F32, c: F32C):
    return filters(a, c), sobels_f32(a, c)


def points_u8(a: U8, c: U8C):
    c4 = cv2.cvtColor(c, cv2.COLOR_BGR2BGRA)
    return (cv2.threshold(a, 100, 200, cv2.THRESH_BINARY), cv2.threshold(c, 100.5, 200, cv2.THRESH_BINARY_INV),
            cv2.threshold(a, 50, 0, cv2.THRESH_TRUNC), cv2.threshold(c, 17, 0, cv2.THRESH_TOZERO),
            cv2.threshold(a, 254, 9, cv2.THRESH_TOZERO_INV), cv2.threshold(a, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU),
            cv2.threshold(a, 255, 9, cv2.THRESH_BINARY), cv2.threshold(a, -3, 300, cv2.THRESH_BINARY),
            cv2.cvtColor(c, cv2.COLOR_BGR2GRAY), cv2.cvtColor(c, cv2.COLOR_RGB2GRAY), cv2.cvtColor(c4, cv2.COLOR_BGRA2GRAY),
            cv2.cvtColor(a, cv2.COLOR_GRAY2BGR), cv2.cvtColor(a, cv2.COLOR_GRAY2BGRA), cv2.cvtColor(c, cv2.COLOR_BGR2RGB),
            c4, cv2.cvtColor(c4, cv2.COLOR_BGRA2RGBA), cv2.cvtColor(c4, cv2.COLOR_RGBA2BGR))


def loops_only_u8(a: U8, c: U8C):
    """What cv2 does not take (BORDER_WRAP in filters) or computes otherwise: simd vs loops."""
    return (cv2.GaussianBlur(a, (5, 5), 0, borderType=cv2.BORDER_WRAP), cv2.blur(c, (3, 5), borderType=cv2.BORDER_WRAP),
            cv2.Sobel(a, cv2.CV_16S, 1, 0, borderType=cv2.BORDER_WRAP), cv2.erode(c, None, borderType=cv2.BORDER_WRAP),
            cv2.dilate(a, np.ones((3, 3), np.uint8), borderType=cv2.BORDER_WRAP))


def loops_only_f32(a: F32, c: F32C):
    return (cv2.GaussianBlur(a, (5, 5), 0, borderType=cv2.BORDER_WRAP), cv2.blur(c, (3, 5), borderType=cv2.BORDER_WRAP),
            cv2.Sobel(a, -1, 1, 0, borderType=cv2.BORDER_WRAP), cv2.erode(c, None), cv2.dilate(a, np.ones((3, 3), np.uint8)),
            cv2.erode(a, np.ones((3, 3), np.uint8), borderType=cv2.BORDER_CONSTANT, borderValue=1.5))


def declined(a: F32, h: np.ndarray[tuple[int, int], np.dtype[np.uint16]]):
    """No simd kernel: float32 threshold / cvtColor, uint16 filters: the loops path serves them."""
    return (cv2.threshold(a, 0.5, 1, cv2.THRESH_BINARY)[1], cv2.cvtColor(a, cv2.COLOR_GRAY2BGR),
            cv2.GaussianBlur(h, (3, 3), 0), cv2.Sobel(a, cv2.CV_64F, 1, 0))


def _images(shape: tuple[int, int], dtype: type, rng: np.random.Generator) -> list[tuple[np.ndarray, np.ndarray]]:
    """(2-d, 3-channel) pairs: the size itself, every other column of a wider image, a sub-rectangle."""
    def make(s: tuple[int, ...]) -> np.ndarray:
        if dtype is np.uint8:
            return rng.integers(0, 256, s).astype(np.uint8)
        return (rng.standard_normal(s) * 50).astype(dtype)
    h, w = shape
    out = [(make(shape), make((h, w, 3)))]
    if h * w > 1:
        out.append((make((h, 2 * w))[:, ::2], make((h, 2 * w, 3))[:, ::2]))
        out.append((make((h + 5, w + 4))[2:2 + h, 3:3 + w], make((h + 5, w + 4, 3))[2:2 + h, 3:3 + w]))
    return out


SHAPES = ((1, 1), (7, 5), (13, 31), (64, 97))


def _items(r: object) -> list[np.ndarray]:
    out: list[np.ndarray] = []
    for x in (r if isinstance(r, tuple) else (r,)):
        out.extend(_items(x) if isinstance(x, tuple) else [np.asarray(x)])
    return out


def _sources(cache: Path) -> str:
    return "\n".join(p.read_text() for p in cache.rglob("*.cpp"))


def _check(fn, cache: Path, dtype: type, vs_cv2: bool) -> None:
    simd = everypath.compile(fn, settings=Settings(cache_dir=cache, force_path="simd"))
    loops = everypath.compile(fn, settings=Settings(cache_dir=cache, force_path="loops"))
    rng = np.random.default_rng(5)
    for shape in SHAPES:
        for a, c in _images(shape, dtype, rng):
            got, base = _items(simd(a, c)), _items(loops(a, c))
            want = _items(fn(a, c)) if vs_cv2 else base
            assert len(got) == len(base) == len(want)
            for i, (g, b, x) in enumerate(zip(got, base, want)):
                what = f"{fn.__name__} item {i} on {a.shape} (contiguous: {a.flags.c_contiguous})"
                assert g.dtype == x.dtype and g.shape == x.shape, what
                np.testing.assert_array_equal(g, b, err_msg=f"{what}: simd vs loops")
                if g.dtype.kind == "f":
                    # float32: 1e-5 relative to the largest |value|, plus cancellation in Sobel sums
                    scale = max(1.0, float(np.max(np.abs(x), initial=0)))
                    atol = 3e-7 * 4.0 ** 4 * float(np.max(np.abs(a), initial=1))
                    np.testing.assert_allclose(g, x, rtol=0, atol=1e-5 * scale + atol, err_msg=f"{what}: vs cv2")
                else:
                    np.testing.assert_array_equal(g, x, err_msg=f"{what}: vs cv2")


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("simd-imgproc")


@pytest.mark.parametrize("fn, dtype", [(filters_u8, np.uint8), (filters_f32, np.float32), (points_u8, np.uint8)])
def test_simd_matches_cv2_and_loops(fn, dtype, cache: Path) -> None:
    _check(fn, cache, dtype, vs_cv2=True)


@pytest.mark.parametrize("fn, dtype", [(loops_only_u8, np.uint8), (loops_only_f32, np.float32)])
def test_simd_matches_loops(fn, dtype, cache: Path) -> None:
    _check(fn, cache, dtype, vs_cv2=False)


def test_float_nan_morphology_as_loops(cache: Path) -> None:
    """NaN pixels: erode / dilate give what the loops path gives (a NaN first tap wins)."""
    simd = everypath.compile(loops_only_f32, settings=Settings(cache_dir=cache, force_path="simd"))
    loops = everypath.compile(loops_only_f32, settings=Settings(cache_dir=cache, force_path="loops"))
    rng = np.random.default_rng(9)
    a = rng.standard_normal((19, 23)).astype(np.float32)
    c = rng.standard_normal((19, 23, 3)).astype(np.float32)
    a[rng.random(a.shape) < 0.1] = np.nan
    c[rng.random(c.shape) < 0.1] = np.nan
    for g, b in zip(_items(simd(a, c)), _items(loops(a, c))):
        np.testing.assert_array_equal(g, b)


def test_the_simd_kernels_ran(cache: Path) -> None:
    """The forced builds call ep::simd for every operator above (nothing declined silently)."""
    for fn, dt in ((filters_u8, np.uint8), (points_u8, np.uint8)):
        everypath.compile(fn, settings=Settings(cache_dir=cache, force_path="simd"))(*_images((3, 4), dt, np.random.default_rng(0))[0])
    src = _sources(cache)
    for name in ("cv_gaussian_blur", "cv_box_filter", "cv_sobel", "cv_morphology", "cv_threshold", "cv_cvt_color"):
        assert f"ep::simd::{name}" in src, name


def test_declined_calls_run_on_loops(tmp_path: Path) -> None:
    simd = everypath.compile(declined, settings=Settings(cache_dir=tmp_path, force_path="simd"))
    rng = np.random.default_rng(1)
    a = rng.random((9, 14)).astype(np.float32)
    h = rng.integers(0, 60000, (9, 14)).astype(np.uint16)
    for g, w in zip(_items(simd(a, h)), _items(declined(a, h))):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
    assert "ep::simd::" not in _sources(tmp_path)

"""cv2 operators through everypath.compile: the compiled function against the same Python
function calling cv2, on the loops path and (where this host can build it) the opencv path.

The loops path follows cv2 (OpenCV 5) exactly for these calls. The opencv path runs the
installed OpenCV C++ library, whose version may differ from cv2's: its results are
compared with the same tolerances as tests/variants/test_opencv_cpp.py allows OpenCV 4.
"""
from __future__ import annotations

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2", reason="the reference is OpenCV's Python module (opencv-python-headless)")

import everypath  # noqa: E402
from everypath.base.settings import Settings  # noqa: E402
from tests.variants._cvkit import image  # noqa: E402
from tests.variants._harness import same_as_python  # noqa: E402
from everypath.variants.paths import host_path  # noqa: E402

U8C = np.ndarray[tuple[int, int, int], np.dtype[np.uint8]]
U8 = np.ndarray[tuple[int, int], np.dtype[np.uint8]]
F32 = np.ndarray[tuple[int, int], np.dtype[np.float32]]


def edges(img: U8C):
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    blurred = cv2.GaussianBlur(gray, (5, 5), 0)
    return gray, blurred, cv2.Canny(blurred, 30, 90), cv2.Canny(gray, 50.5, 120, L2gradient=True)


def geometry(img: U8C):
    h, w = img.shape[0], img.shape[1]
    half = cv2.resize(img, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    big = cv2.resize(img, None, fx=1.5, fy=1.5)
    m = cv2.getRotationMatrix2D((w / 2, h / 2), 30.0, 0.9)
    rotated = cv2.warpAffine(img, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return half, big, rotated, cv2.pyrDown(img), cv2.pyrUp(img), cv2.flip(img, -1), cv2.transpose(img)


def masks(gray: U8):
    t, otsu = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    _, inv = cv2.threshold(gray, 127.5, 200, cv2.THRESH_BINARY_INV)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    opened = cv2.morphologyEx(otsu, cv2.MORPH_OPEN, kernel, iterations=2)
    closed = cv2.dilate(cv2.erode(inv, None), kernel)
    return t, otsu, opened, closed, cv2.equalizeHist(gray), cv2.medianBlur(gray, 5), cv2.integral(gray)


def float_filters(x: F32, k: F32):
    sx = cv2.Sobel(x, cv2.CV_32F, 1, 0, ksize=3)
    sy = cv2.Scharr(x, -1, 0, 1)
    lap = cv2.Laplacian(x, cv2.CV_32F, ksize=3)
    box = cv2.blur(x, (3, 5), borderType=cv2.BORDER_REFLECT)
    sharp = cv2.filter2D(x, -1, k)
    mixed = cv2.addWeighted(x, 0.7, box, 0.3, 1.0)
    norm = cv2.normalize(x, None, 0, 1, cv2.NORM_MINMAX)
    border = cv2.copyMakeBorder(x, 1, 2, 3, 4, cv2.BORDER_CONSTANT, value=0.5)
    return sx, sy, lap, box, sharp, mixed, norm, border


def one_channel_3d(img: U8C):
    return cv2.flip(img, 0)


def _paths() -> list[str]:
    return ["loops"] + (["opencv"] if host_path("opencv").available else [])


@pytest.fixture(params=["loops", "opencv"])
def path(request: pytest.FixtureRequest) -> str:
    if request.param not in _paths():
        pytest.skip(f"opencv path not buildable here: {host_path('opencv').reason}")
    return request.param


def _compile(fn, path: str, tmp_path_factory):
    cache = tmp_path_factory.getbasetemp() / f"cv-cache-{path}"
    return everypath.compile(fn, settings=Settings(cache_dir=cache, force_path=path))


@pytest.mark.parametrize("shape", [(24, 32, 3), (17, 23, 3), (9, 10, 4)])
def test_pipelines(path: str, shape: tuple[int, int, int], tmp_path_factory) -> None:
    img = image(shape, np.uint8, 3, smooth=True)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    exact = path == "loops"  # OpenCV 4 differs from cv2 5 in rounding (see the module docstring)
    for fn, arg in ((edges, img), (geometry, img), (masks, gray)):
        compiled = _compile(fn, path, tmp_path_factory)
        if exact:
            same_as_python(compiled, arg)
        else:
            got, want = compiled(arg.copy()), fn(arg.copy())
            for g, w in zip(got, want):
                assert np.shape(g) == np.shape(w) and np.asarray(g).dtype == np.asarray(w).dtype
                assert np.max(np.abs(np.asarray(g, float) - np.asarray(w, float)), initial=0) <= 255 / 32 + 1


def test_float_filters(path: str, tmp_path_factory) -> None:
    x = image((19, 23), np.float32, 5, smooth=True)
    k = np.array([[0, -1, 0], [-1, 5, -1], [0, -1, 0]], np.float32)
    same_as_python(_compile(float_filters, path, tmp_path_factory), x, k, rtol=3e-6)


def test_views_and_errors(path: str, tmp_path_factory) -> None:
    img = image((20, 26, 3), np.uint8, 6)
    compiled = _compile(geometry, path, tmp_path_factory)
    got = compiled(img[::2, 1::2])
    assert [g.shape for g in got] == [w.shape for w in geometry(img[::2, 1::2])]
    flip = _compile(one_channel_3d, path, tmp_path_factory)
    with pytest.raises(ValueError, match="1 channel"):
        flip(img[:, :, :1])
    with pytest.raises(ValueError, match="returns None"):
        flip(np.zeros((0, 4, 3), np.uint8))


def test_statics_fold_cv2_constants() -> None:
    from everypath.tracer.statics import static_for

    assert static_for(cv2.resize).key == "cv2.resize"
    assert static_for(cv2.GaussianBlur).key == "cv2.GaussianBlur"

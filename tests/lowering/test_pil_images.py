"""PIL images in and out of compiled functions: each function, written for PIL-in/PIL-out, compiled and run
beside CPython running it uncompiled; results compared by mode, size and bytes (np.asarray), errors by type
and message, refusals by their located compile error."""
from __future__ import annotations

import functools
from typing import Annotated

import numpy as np
import pytest

import everypath as ep
from everypath.errors import CompileError
from tests.corpus.values._compare import assert_same

Image = pytest.importorskip("PIL.Image")  # the `refs` extra (pyproject.toml)

# ---- the functions, as a user writes them ------------------------------------------------------------


def grey(img: Image.Image) -> Image.Image:
    a = np.asarray(img, dtype=np.float64)
    g = a[:, :, 0] * 0.299 + a[:, :, 1] * 0.587 + a[:, :, 2] * 0.114
    return Image.fromarray(np.clip(np.round(g), 0, 255).astype(np.uint8))


def invert(img: Image.Image) -> Image.Image:
    return Image.fromarray(255 - np.asarray(img))


def threshold_1(img: Image.Image, t: int) -> Image.Image:
    return Image.fromarray(np.asarray(img) > t)  # bool pixels: a mode "1" image


def threshold_l(img: Image.Image, t: int) -> Image.Image:
    a = np.asarray(img)
    return Image.fromarray(np.where(a > t, 255, 0).astype(np.uint8), "L")


def crop(img: Image.Image, x0: int, y0: int, x1: int, y1: int) -> Image.Image:
    return Image.fromarray(np.asarray(img)[y0:y1, x0:x1])


def flip(img: Image.Image) -> tuple[Image.Image, Image.Image]:
    a = np.asarray(img)
    return Image.fromarray(a[::-1]), Image.fromarray(a[:, ::-1])


def box_blur(img: Image.Image) -> Image.Image:
    a = np.asarray(img).astype(np.float32)
    h, w = a.shape[0], a.shape[1]
    p = np.pad(a, ((1, 1), (1, 1), (0, 0)), mode="edge")
    acc = np.zeros_like(a)
    for dy in range(3):
        for dx in range(3):
            acc += p[dy:dy + h, dx:dx + w]
    return Image.fromarray((acc / 9.0 + 0.5).astype(np.uint8))


def resize_nearest(img: Image.Image, w2: int, h2: int) -> Image.Image:
    a = np.asarray(img)
    w, h = img.size
    ys = (np.arange(h2) * h) // h2
    xs = (np.arange(w2) * w) // w2
    return Image.fromarray(a[ys][:, xs])


def alpha_composite(fg: Image.Image, bg: Image.Image) -> Image.Image:
    f = np.asarray(fg).astype(np.float32) / 255.0
    b = np.asarray(bg).astype(np.float32) / 255.0
    fa, ba = f[:, :, 3:4], b[:, :, 3:4]
    out_a = fa + ba * (1.0 - fa)
    safe = np.where(out_a == 0.0, 1.0, out_a)
    rgb = (f[:, :, :3] * fa + b[:, :, :3] * ba * (1.0 - fa)) / safe
    out = np.concatenate((rgb, out_a), axis=2)
    return Image.fromarray((out * 255.0 + 0.5).astype(np.uint8), "RGBA")


def describe(img: Image.Image) -> tuple[int, int, int, int, str, int]:
    w, h = img.size
    a = np.array(img)  # a copy, writeable
    a[0, 0] = 0
    return w, h, img.width, img.height, img.mode, int(a.sum())


def same_image(img: Image.Image) -> Image.Image:
    return img


def _half(im: Image.Image) -> tuple[int, int]:
    w, h = im.size
    return w // 2, h // 2


def top_left(img: Image.Image) -> Image.Image:  # an image passed to a helper
    w, h = _half(img)
    return Image.fromarray(np.ascontiguousarray(np.asarray(img)[:h, :w]))


def _stretch(a: np.ndarray, lo: float, hi: float) -> np.ndarray:
    return (a - lo) * (1.0 / (hi - lo))


def normalise(img: Image.Image) -> Image.Image:  # mode F in, mode F out, through a helper
    a = np.asarray(img)
    return Image.fromarray(_stretch(a, float(a.min()), float(a.max())).astype(np.float32))


def by_channels(a: np.ndarray[tuple[int, int, int], np.dtype[np.uint8]]) -> Image.Image:
    return Image.fromarray(a)  # LA, RGB or RGBA by the channel count; others raise PIL's TypeError


def as_rgb(a: np.ndarray[tuple[int, int, int], np.dtype[np.uint8]]) -> Image.Image:
    return Image.fromarray(a, "RGB")


def stores_after(a: np.ndarray[tuple[int, int], np.dtype[np.uint8]],
                 f: np.ndarray[tuple[int, int], np.dtype[np.float32]]) -> tuple[Image.Image, Image.Image]:
    im, fm = Image.fromarray(a), Image.fromarray(f)  # PIL maps L's buffer, copies F's
    a[0, 0] = 7
    f[0, 0] = 7.0
    return im, fm


def rgb_only(img: Annotated[Image.Image, "RGB"]) -> Image.Image:
    a = np.array(img)
    a[:, :, 0] = 0
    return Image.fromarray(a, "RGB")


def writes_into_asarray(img: Image.Image) -> int:
    a = np.asarray(img)  # read-only in CPython
    a[0, 0] = 1
    return int(a[0, 0])


@functools.cache
def compiled(fn):  # noqa: ANN001, ANN201 - one build per function for the whole module
    return ep.compile(fn)


def same(got: object, want: object) -> None:
    """Value and exact type at every level (tests/corpus/values/_compare.py, shared with the values corpus)."""
    assert_same(want, got)


RNG = np.random.default_rng(14)
RGB = Image.fromarray(RNG.integers(0, 256, (9, 13, 3), dtype=np.uint8))
RGBA = Image.fromarray(RNG.integers(0, 256, (9, 13, 4), dtype=np.uint8))
RGBA2 = Image.fromarray(RNG.integers(0, 256, (9, 13, 4), dtype=np.uint8))
L = Image.fromarray(RNG.integers(0, 256, (11, 6), dtype=np.uint8))
F = Image.fromarray(RNG.normal(3.0, 2.0, (5, 8)).astype(np.float32))
I32 = Image.fromarray(RNG.integers(-2**31, 2**31 - 1, (4, 5), dtype=np.int32))
I16 = Image.fromarray(RNG.integers(0, 2**16, (4, 5), dtype=np.uint16))
ONE = Image.fromarray(RNG.integers(0, 2, (6, 7)).astype(bool))
HSV = RGB.convert("HSV")
CMYK = RGB.convert("CMYK")
LA = RGBA.convert("LA")

CASES = [
    (grey, (RGB,)), (invert, (RGB,)), (invert, (L,)), (invert, (RGBA,)),
    (threshold_1, (L, 100)), (threshold_l, (L, 128)), (threshold_l, (L, 30)),
    (crop, (RGB, 2, 1, 11, 7)), (crop, (L, 0, 0, 6, 11)), (crop, (RGB, 5, 5, 5, 9)),
    (flip, (RGB,)), (flip, (ONE,)), (box_blur, (RGB,)), (box_blur, (RGBA,)),
    (resize_nearest, (RGB, 20, 5)), (resize_nearest, (L, 3, 17)),
    (alpha_composite, (RGBA, RGBA2)),
    (describe, (RGB,)), (describe, (L,)), (describe, (ONE,)), (describe, (I32,)), (describe, (I16,)),
    (describe, (F,)), (describe, (HSV,)), (describe, (CMYK,)),
    (same_image, (HSV,)), (same_image, (CMYK,)), (same_image, (I16,)), (same_image, (ONE,)), (same_image, (LA,)),
    (normalise, (F,)), (top_left, (RGB,)), (top_left, (I32,)),
    (by_channels, (np.asarray(RGB),)), (by_channels, (np.asarray(RGBA),)), (by_channels, (np.asarray(LA),)),
    (rgb_only, (RGB,)),
]


def test_stores_after_fromarray_are_seen_where_pil_shares_the_memory() -> None:
    a, f = np.zeros((3, 4), np.uint8), np.zeros((3, 4), np.float32)
    want = stores_after(a.copy(), f.copy())
    assert np.asarray(want[0])[0, 0] == 7 and np.asarray(want[1])[0, 0] == 0  # PIL 13's behaviour
    same(compiled(stores_after)(a.copy(), f.copy()), want)


@pytest.mark.parametrize(("fn", "args"), CASES, ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)])
def test_pil_in_pil_out_as_cpython(fn, args) -> None:  # noqa: ANN001
    same(compiled(fn)(*args), fn(*args))


def test_an_image_comes_back_as_pil_would_make_it() -> None:
    """Image.fromarray's choices compiled code relies on, asked of PIL (base/types.CHANNEL_MODES)."""
    from everypath.base.types import CHANNEL_MODES

    made = {Image.fromarray(np.zeros((2, 2, c), np.uint8)).mode for c in (2, 3, 4)}
    assert made | {None} == CHANNEL_MODES


def raised(fn, *args) -> BaseException:  # noqa: ANN001
    with pytest.raises(Exception) as err:  # noqa: PT011 - compared with CPython's right after
        fn(*args)
    return err.value


@pytest.mark.parametrize("channels", [1, 5])
def test_an_array_that_cannot_be_an_image_raises_pils_type_error(channels: int) -> None:
    a = np.zeros((3, 4, channels), np.uint8)
    want, got = raised(by_channels, a), raised(compiled(by_channels), a)
    assert type(got) is type(want) is TypeError
    assert str(want) == f"Cannot handle this data type: (1, 1, {channels}), |u1"
    assert str(want) in str(got)


@pytest.mark.parametrize(("channels", "error"), [(4, ValueError), (5, TypeError), (3, None)])
def test_a_given_mode_checks_the_channels_as_pil_does(channels: int, error: type | None) -> None:
    a = RNG.integers(0, 256, (3, 4, channels), dtype=np.uint8)
    if error is None:
        same(compiled(as_rgb)(a), as_rgb(a))
        return
    want, got = raised(as_rgb, a), raised(compiled(as_rgb), a)
    assert type(got) is type(want) is error
    assert str(got) == str(want)


def test_writing_into_asarray_is_refused_as_cpython_refuses_it() -> None:
    want, got = raised(writes_into_asarray, L), raised(compiled(writes_into_asarray), L)
    assert type(got) is type(want) is ValueError
    assert str(want) in str(got) and "'img'" in str(got)


@pytest.mark.parametrize("fn", [invert, rgb_only])
def test_an_argument_that_is_not_an_image_names_the_parameter(fn) -> None:  # noqa: ANN001
    with pytest.raises(TypeError, match=r"argument 'img' must be a PIL\.Image\.Image, not ndarray"):
        compiled(fn)(np.asarray(RGB))


def test_an_image_of_another_mode_than_the_annotation_says() -> None:
    with pytest.raises(TypeError, match=r"rgb_only\(\) argument 'img': an image of mode 'HSV', .*mode 'RGB'"):
        compiled(rgb_only)(HSV)


def test_a_palette_image_is_refused_with_what_to_do() -> None:
    with pytest.raises(TypeError, match=r"argument 'img': mode 'P' images lose their palette.*convert\('RGB'\)"):
        compiled(invert)(RGB.convert("P"))


def _arithmetic(img: Image.Image) -> Image.Image:
    return img + 1  # type: ignore[operator]


def _indexing(img: Image.Image) -> int:
    return int(img[0])  # type: ignore[index]


def _pil_method(img: Image.Image) -> Image.Image:
    return img.convert("L")


def _dynamic_mode(a: np.ndarray[tuple[int, int, int], np.dtype[np.uint8]]) -> str:
    return Image.fromarray(a).mode


def _int64_image(a: np.ndarray[tuple[int, int], np.dtype[np.int64]]) -> Image.Image:
    return Image.fromarray(a)


def _float64_image(a: np.ndarray[tuple[int, int], np.dtype[np.float64]]) -> Image.Image:
    return Image.fromarray(a)


def _returns_array(img: Image.Image) -> Image.Image:
    return np.asarray(img)  # type: ignore[return-value]


REFUSED = [
    (_arithmetic, (RGB,), r"operator.* of a PIL image is not supported in compiled code"),
    (_pil_method, (RGB,), r"PIL\.Image\.Image\.convert\(\) is not supported in compiled code"),
    (_indexing, (RGB,), r"'PIL\.Image\[RGB\]' object is not subscriptable"),
    (_dynamic_mode, (np.zeros((2, 2, 3), np.uint8),), r"depends on its channel count.*Image\.fromarray\(a, 'RGB'\)"),
    (_int64_image, (np.zeros((2, 2), np.int64),), r"raises TypeError: Cannot handle this data type: \(1, 1\), <i8"),
    (_float64_image, (np.zeros((2, 2)),), r"mode 'F' image of float32 pixels: convert the array first"),
    (_returns_array, (RGB,), r"returns np\.ndarray.* but is annotated 'Image\.Image'"),
]


@pytest.mark.parametrize(("fn", "args", "pattern"), REFUSED, ids=[r[0].__name__ for r in REFUSED])
def test_what_is_refused_is_located(fn, args, pattern: str) -> None:  # noqa: ANN001
    with pytest.raises(CompileError, match=pattern) as err:
        ep.compile(fn)(*args)
    assert "test_pil_images.py:" in str(err.value)


def test_a_portable_build_refuses_images_at_the_parameter() -> None:
    from everypath.base.settings import Settings
    from everypath.lowering.dispatch import PathPolicy
    from everypath.lowering.pipeline import generate

    settings = Settings.from_env()
    with pytest.raises(CompileError, match=r"parameter 'img' is a PIL image.*portable build") as err:
        generate(rgb_only, settings, policy=PathPolicy.from_settings(settings))
    assert "test_pil_images.py:" in str(err.value)

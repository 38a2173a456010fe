"""PIL images as compile-time types: the modes a parameter may have and what Image.fromarray makes (PIL is the oracle).

A PIL.Image.Image crosses the boundary as the array ``np.asarray(img)`` gives (docs/semantics.md, "Images
(PIL)"). Which dtype and rank a mode has, which arrays Image.fromarray accepts with or without a mode, what
mode it infers and whether it shares the array's memory are all asked of PIL itself, on 1x1 arrays, once per
(dtype, rank, mode): nothing here restates PIL's tables, so a Pillow release that changes them is followed.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from everypath.base.types import CHANNEL_MODES, ArrayT, DType, ImageT

MAX_CHANNELS = 8  # Image.fromarray's table stops at 4 channels; beyond 8 the answer is the same TypeError
_PALETTE = ("P", "PA")


class ImageError(Exception):
    """A PIL image or Image.fromarray call compiled code cannot take (the message says why and what to do)."""


def image_class() -> Any:
    """PIL.Image.Image, or None while the program has not imported PIL (importing it here would cost every compile)."""
    mod = sys.modules.get("PIL.Image")
    return getattr(mod, "Image", None) if mod is not None else None


def is_image_class(obj: Any) -> bool:
    return obj is not None and obj is image_class()


def _pil() -> Any:
    from PIL import Image

    return Image


@lru_cache(maxsize=None)
def mode_type(mode: str) -> ImageT:
    """The type of an image argument of this mode; ImageError when compiled code cannot take it."""
    if mode in _PALETTE:
        raise ImageError(f"mode '{mode}' images lose their palette as arrays (np.asarray gives the indices): "
                         f"pass img.convert('{'RGBA' if mode == 'PA' else 'RGB'}')")
    Image = _pil()
    try:
        sample = Image.new(mode, (3, 2))
    except Exception as exc:  # noqa: BLE001 - PIL's own refusal, reported as it words it
        raise ImageError(f"'{mode}' is not a mode PIL can make images of ({exc})") from None
    a = np.asarray(sample)
    if not a.dtype.isnative:
        raise ImageError(f"mode '{mode}' images are byte-swapped ({a.dtype.str}) arrays: pass img.convert('I')")
    try:
        t = ImageT(ArrayT(DType.of(a.dtype), a.ndim), mode)
    except ValueError:
        raise ImageError(f"mode '{mode}' images are {a.dtype} arrays, which compiled code does not take") from None
    try:  # what the boundary gives back for such an image must be the same image
        back = to_image(a, mode)
    except (TypeError, ValueError) as exc:
        raise ImageError(f"mode '{mode}' images do not come back from their arrays (Image.fromarray: {exc}): "
                         "pass img.convert('RGB') or another mode") from None
    if back.mode != mode or back.size != sample.size or back.tobytes() != sample.tobytes():
        raise ImageError(f"mode '{mode}' images do not come back from their arrays (Image.fromarray gives "
                         f"mode '{back.mode}'): pass img.convert('RGB') or another mode")
    return t


def value_type(value: Any) -> ImageT | None:
    """The type of a PIL image value (None when it is not one, or of a mode compiled code cannot take)."""
    cls = image_class()
    if cls is None or not isinstance(value, cls):
        return None
    try:
        return mode_type(value.mode)
    except ImageError:
        return None


def refusal(value: Any) -> str | None:
    """Why an image argument cannot cross (None: it can)."""
    try:
        mode_type(value.mode)
    except ImageError as exc:
        return str(exc)
    return None


@lru_cache(maxsize=256)
def _default_mode(typestr: str, channels: tuple[int, ...]) -> str | None:
    try:
        return str(_pil().fromarray(np.zeros((1, 1, *channels), np.dtype(typestr))).mode)
    except (TypeError, ValueError):
        return None


def to_image(arr: np.ndarray, mode: str | None) -> Any:
    """A result typed as an image: Image.fromarray(arr), given the mode only where it would not infer it
    (Image.fromarray(uint16 array, 'I;16') is refused while Image.fromarray(uint16 array) is mode I;16)."""
    Image = _pil()
    if mode is None or _default_mode(arr.dtype.str, tuple(arr.shape[2:])) == mode:
        return Image.fromarray(arr)
    return Image.fromarray(arr, mode)


@dataclass(frozen=True)
class FromArray:
    """What Image.fromarray(array of this type, mode) does, by the channel count of a 3-d array (bit c of a
    mask; bit 0 for a 2-d array): makes an image (ok), raises ValueError (value_error, with that message)
    rather than PIL's TypeError, shares the array's memory when it is C-contiguous (share)."""

    image: ImageT
    ok: int
    value_error: int
    value_message: str
    share: int
    typestr: str


def _outcome(arr: ArrayT, shape: tuple[int, ...], mode: str | None) -> tuple[Any, BaseException | None]:
    try:
        return _pil().fromarray(np.zeros(shape, arr.dtype.np), mode), None
    except (TypeError, ValueError) as exc:
        return None, exc


@lru_cache(maxsize=256)
def fromarray(arr: ArrayT, mode: str | None) -> FromArray:
    """Image.fromarray(a, mode) for an array a of type arr; ImageError when it never makes an image compiled
    code can hold (PIL's own error, or a conversion of the pixels compiled code does not reproduce)."""
    shown = f"Image.fromarray(<{arr.dtype} array of rank {arr.ndim}>{'' if mode is None else f', {mode!r}'})"
    if arr.ndim not in (2, 3):
        raise ImageError(f"{shown}: compiled code makes images of 2-d (H, W) and 3-d (H, W, C) arrays only")
    shapes = [(1, 1)] if arr.ndim == 2 else [(1, 1, c) for c in range(MAX_CHANNELS + 1)]
    ok = value_error = share = 0
    modes: set[str] = set()
    messages: set[str] = set()
    first_error: BaseException | None = None
    typestr = arr.dtype.np.str
    for bit, shape in enumerate(shapes):
        img, exc = _outcome(arr, shape, mode)
        if exc is not None:
            first_error = exc if first_error is None or shape[2:] == (3,) else first_error  # (H, W, 3): typical
            if isinstance(exc, ValueError):
                value_error |= 1 << bit
                messages.add(str(exc))
            elif str(exc) != f"Cannot handle this data type: {(1, 1, *shape[2:])}, {typestr}":
                raise ImageError(f"{shown} raises TypeError: {exc} (not a case compiled code reproduces)")
            continue
        pixels = np.asarray(img)
        if pixels.dtype != arr.dtype.np or pixels.shape != shape:
            raise ImageError(f"{shown} makes a mode '{img.mode}' image of {pixels.dtype} pixels: convert the "
                             f"array first (a.astype(np.{pixels.dtype}))")
        ok |= 1 << bit
        share |= (1 << bit) if img.readonly else 0  # PIL maps the array's buffer instead of copying it
        modes.add(str(img.mode))
    if not ok:
        assert first_error is not None
        raise ImageError(f"{shown} raises {type(first_error).__name__}: {first_error}")
    if len(messages) > 1:
        raise ImageError(f"{shown} raises ValueErrors compiled code does not reproduce: {sorted(messages)}")
    static = next(iter(modes)) if len(modes) == 1 else None
    if static is None and not modes <= CHANNEL_MODES:
        raise ImageError(f"{shown} makes modes {sorted(modes)} by channel count: give the mode")
    return FromArray(ImageT(arr, static), ok, value_error, messages.pop() if messages else "", share, typestr)

__all__ = ["FromArray", "ImageError", "MAX_CHANNELS", "fromarray", "image_class", "is_image_class", "mode_type",
           "refusal", "to_image", "value_type"]

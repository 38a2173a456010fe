"""PIL.Image.Image arguments and results at the boundary of a compiled function.

An image argument crosses as the array ``np.asarray(img)`` gives (read-only, as CPython's: a function
that writes into ``np.asarray(img)`` is refused at the call with CPython's ValueError), an image result
comes back through ``Image.fromarray`` (base/images.to_image), so mode, size and bytes are PIL's own. Done
in Python around the native call, as the tensors' first version was: a call with images costs
``np.asarray`` and ``Image.fromarray`` plus a few µs. Arguments that are not images, or images of a mode
the build cannot take, are refused with a TypeError naming the parameter.
"""
from __future__ import annotations

import typing
from functools import lru_cache
from typing import Any, Callable


def has_image(desc: dict[str, Any]) -> bool:
    """Whether a signature type descriptor (lowering.signature.type_descriptor) holds a PIL image."""
    if desc["kind"] == "array":
        return "image" in desc
    if desc["kind"] == "tuple":
        return any(has_image(i) for i in desc["items"])
    return False


def _argument(fname: str, label: str, desc: dict[str, Any], annotation: str, v: Any) -> Any:
    import numpy as np

    from everypath.base.images import image_class, refusal

    if desc["kind"] == "tuple":
        if not isinstance(v, tuple) or len(v) != len(desc["items"]):
            return v  # the runtime's own TypeError names what it wanted
        return tuple(_argument(fname, f"{label}[{i}]", d, annotation, x) for i, (d, x) in enumerate(zip(desc["items"], v)))
    if "image" not in desc:
        return v
    where = f"{fname}() argument '{label}'"
    if not isinstance(v, image_class()):
        raise TypeError(f"{where} must be a PIL.Image.Image, not {type(v).__name__}")
    mode = desc["image"]
    if v.mode != mode:
        why = refusal(v) or (f"an image of mode '{v.mode}', but this build takes mode '{mode}' images "
                             f"(annotated {annotation}): pass img.convert('{mode}')")
        raise TypeError(f"{where}: {why}")
    a = np.asarray(v)
    if a.dtype == np.bool_:  # mode "1" pixels are bytes 0 and 255 under a bool dtype: compiled code reads 0 and 1
        a = a.view(np.uint8) != 0
        a.flags.writeable = False  # read-only, as np.asarray(img) is
    return a


def _result(fname: str, desc: dict[str, Any], out: Any) -> Any:
    if desc["kind"] == "tuple":
        return tuple(_result(fname, d, x) for d, x in zip(desc["items"], out))
    if "image" not in desc:
        return out
    from everypath.base.images import to_image

    try:
        return to_image(out, desc["image"] or None)
    except (TypeError, ValueError) as exc:  # PIL's words first, then which value and why
        raise type(exc)(f"{exc} ({fname}() result: Image.fromarray cannot make an image of a {out.dtype} array "
                        f"of shape {out.shape})") from None


def wrap(native: Callable[..., Any], sig: dict[str, Any]) -> Callable[..., Any]:
    """The entry point for a signature: native itself when no image crosses, else a Python function that
    converts the images around it."""
    slots = [(i, p["name"], p["type"], p.get("annotation", "PIL.Image.Image"))
             for i, p in enumerate(sig["params"]) if has_image(p["type"])]
    result = sig["result"] if has_image(sig["result"]) else None
    if not slots and result is None:
        return native
    fname = sig["name"]

    def call(*args: Any, **kwargs: Any) -> Any:
        if slots:
            args_l = list(args)
            for i, name, desc, annotation in slots:
                if i < len(args_l):
                    args_l[i] = _argument(fname, name, desc, annotation, args_l[i])
                elif name in kwargs:
                    kwargs[name] = _argument(fname, name, desc, annotation, kwargs[name])
            args = tuple(args_l)
        out = native(*args, **kwargs)
        return out if result is None else _result(fname, result, out)

    return call


@lru_cache(maxsize=512)
def _image_params(fn: Any) -> tuple[tuple[int, str], ...]:
    """The positions and names of fn's parameters annotated PIL.Image.Image (Annotated[...] around it too)."""
    from everypath.base.images import is_image_class

    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception:  # noqa: BLE001 - an annotation that does not evaluate is reported by the compiler
        return ()
    out = []
    for i, name in enumerate(fn.__code__.co_varnames[: fn.__code__.co_argcount]):
        h = hints.get(name)
        if typing.get_origin(h) is typing.Annotated:
            h = typing.get_args(h)[0]
        if is_image_class(h):
            out.append((i, name))
    return tuple(out)


def check_arguments(fname: str, fn: Any, values: tuple[Any, ...]) -> None:
    """Before an open signature is specialised on the arguments: a TypeError naming the parameter for an
    argument of an image parameter that is not an image, or is one of a mode compiled code cannot take."""
    from everypath.base.images import image_class, refusal

    for i, name in _image_params(fn):
        if i >= len(values):
            continue
        v = values[i]
        where = f"{fname}() argument '{name}'"
        if not isinstance(v, image_class()):
            raise TypeError(f"{where} must be a PIL.Image.Image, not {type(v).__name__}")
        why = refusal(v)
        if why is not None:
            raise TypeError(f"{where}: {why}")


__all__ = ["check_arguments", "has_image", "wrap"]

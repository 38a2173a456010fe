"""The Python side of a compiled function's calls: what a build is bound to, and what the C entry
(everypath.lowering._dispatch, see lowering/compiled.py) is told it may call without Python.

An open signature has one build per argument types; the key that picks it is read cheaply on every
call on the Python path (fast_key) and, for calls the C entry checks itself, compiled to a form it
checks without Python (key_spec): exact types, dtype and rank for arrays, item by item for tuples.
"""
from __future__ import annotations

import inspect
import sys
from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class Bound:
    """One build, bound: what a Python-level call goes through, and what the C entry may call instead."""

    call: Callable[..., Any]  # tensors converted at the boundary, module arrays appended
    kernel: Any = None  # the runtime Function when `call` adds nothing but the module arrays, else None
    hidden: tuple[tuple[dict[str, Any], str], ...] = ()  # (namespace, name): the kernel's last parameters

    def entry(self, key: Any = None, min_args: int = 0, max_args: int = 0) -> tuple[Any, ...]:
        return (key, min_args, max_args, self.call, self.kernel, self.hidden if self.kernel is not None else ())


_MAX_ENTRIES = 8  # open signatures: the specialisations C tries in turn before asking Python


def entries(native: Bound | None, by_fast_key: dict[tuple[Any, ...], Bound],
            params: list[inspect.Parameter]) -> tuple[tuple[Any, ...], ...]:
    """What the C entry may call: a closed signature's one build for any arguments, else the latest
    open-signature builds for the positional calls whose keys it can check."""
    if native is not None:
        return (native.entry(),)
    out: list[tuple[Any, ...]] = []
    for fast, bound in reversed(by_fast_key.items()):  # the latest first
        spec = tuple(key_spec(k) for k in fast)
        counts = positional_counts(params, fast)
        if all(s is not None for s in spec) and counts is not None:
            out.append(bound.entry(spec, *counts))
        if len(out) == _MAX_ENTRIES:
            break
    return tuple(out)


def with_hidden(native: Callable[..., Any], fname: str, nparams: int, hidden: dict[str, Any]) -> Callable[..., Any]:
    """Pass the module arrays the build reads, as they are bound now (the guards saw to that)."""
    slots = tuple((h, r.namespace, r.name) for h, r in hidden.items())

    def call(*args: Any, **kwargs: Any) -> Any:
        if len(args) > nparams:
            raise TypeError(f"{fname}() takes {nparams} positional argument{'s' if nparams != 1 else ''} "
                            f"but {len(args)} were given")
        for h, ns, name in slots:
            kwargs[h] = ns[name]
        return native(*args, **kwargs)

    return call


def fast_key(v: Any) -> Any:
    """What decides an open signature's specialisation, read cheaply on every call: the
    Python type, plus dtype and rank for arrays, tensors and NumPy scalars (tuples item by
    item). Equal keys mean equal describe_value_type results."""
    t = type(v)
    if t is tuple:
        return (tuple, tuple(fast_key(x) for x in v))
    if t in _PLAIN_SCALARS:
        return t
    dtype = getattr(v, "dtype", None)
    if dtype is not None and hasattr(v, "ndim"):
        return (t, dtype, v.ndim)
    from everypath.base.annotations import describe_value_type

    return ("described", describe_value_type(v))  # lists and the rest: their element types matter


_PLAIN_SCALARS = frozenset({int, float, bool, complex, type(None), str})


def key_spec(key: Any) -> Any:
    """A fast_key item as the C entry checks it: ('t', type) for an exact type, ('a', type, dtype, ndim)
    for a NumPy array, ('T', type, dtype, ndim) for a torch tensor, ('u', items) for a tuple; None when C
    cannot check it (lists)."""
    import numpy as np  # keys of arrays exist only once NumPy is loaded

    if isinstance(key, type):
        return ("t", key)
    if isinstance(key, tuple) and len(key) == 2 and key[0] is tuple:
        items = tuple(key_spec(k) for k in key[1])
        return None if any(i is None for i in items) else ("u", items)
    if isinstance(key, tuple) and len(key) == 3 and isinstance(key[0], type):
        t, dtype, ndim = key
        if issubclass(t, np.ndarray):
            return ("a", t, dtype, ndim)
        if issubclass(t, np.generic):  # a NumPy scalar type has one dtype and rank 0
            return ("t", t)
        torch = sys.modules.get("torch")  # keys of tensors exist only once torch is loaded
        if torch is not None and issubclass(t, torch.Tensor):
            return ("T", t, dtype, ndim)
    return None


def positional_counts(params: list[inspect.Parameter], fast: tuple[Any, ...]) -> tuple[int, int] | None:
    """Which positional-only calls give this key: (fewest, most) arguments, the parameters left out
    having defaults with the key's types. None when the parameters and the key do not line up."""
    if len(params) != len(fast):
        return None
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    most = 0
    while most < len(params) and params[most].kind in positional:
        most += 1
    fewest = len(params)
    while fewest > 0 and params[fewest - 1].default is not inspect.Parameter.empty \
            and fast_key(params[fewest - 1].default) == fast[fewest - 1]:
        fewest -= 1
    if any(p.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD) for p in params):
        return None
    if fewest > most:
        return None  # a keyword-only parameter without its default's type: keywords only, Python's path
    return fewest, most

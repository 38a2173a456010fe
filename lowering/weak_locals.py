"""Reads of Python-or-NumPy-scalar locals (types.MaybeWeakT): which ones NEP 50 makes indistinguishable."""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from everypath.base.types import ArrayT, MaybeWeakT, ScalarT, UnionT
from everypath.lowering import weak_results
from everypath.tracer.ir import Node, Opcode

if TYPE_CHECKING:
    from everypath.lowering.infer import ProgramTyper, TypedFunction


def check_union_reads(typer: "ProgramTyper", spec: "TypedFunction", n: Node) -> None:
    """Settle every MaybeWeakT local that `n` reads in a way where holding the Python scalar or the NumPy
    scalar would give different results. A read is kept as the NumPy scalar (a Python value converted as NumPy
    converts it) by a NumPy binary op whose loop is the same either way (`total += f32`, `total * f32_array`,
    `total < f32`) and by a store into an array of that dtype. Float and complex locals whose Python values
    are all constants the dtype holds exactly (0.0, 1.0) keep every read inside a loop (the values agree; the
    hot loop stays free of switches). Reads that leave whole (returns) are typed as the pair already
    (lowering/weak_results.py); the other reads are the pair too where their users dispatch over it (`s / n`,
    `math.sqrt(s)`), else the local is demoted to one promoted NumPy slot."""
    for a in n.operands():
        if a.op is not Opcode.LOAD:
            continue
        t = spec.var_types.get(a.target)
        if not isinstance(t, MaybeWeakT) or isinstance(spec.types.get(a), UnionT) or _absorbs(spec, n, a, t):
            continue
        exact = (t.strong.is_float or t.strong.is_complex) and _weak_stores_exact(spec, a.target, t)
        if weak_results.dispatchable_read(a) and not (exact and weak_results.in_loop(a)):
            spec.weak_reads.add(a)  # a switch over the flag at the operation, from the next round on
            typer.changed = True
        elif not exact:
            typer.demote(spec, a.target)


def _absorbs(spec: "TypedFunction", n: Node, a: Node, t: MaybeWeakT) -> bool:
    if (t.strong.is_float or t.strong.is_complex) and weak_results.in_loop(a) and \
            _weak_stores_exact(spec, a.target, t):
        # every Python value it can hold is a constant the dtype holds exactly (0.0): any float
        # operation on the NumPy scalar gives CPython's value; only the type differs, and only until the
        # loop's first NumPy operand (a read after the loop dispatches on the flag: check_union_reads)
        return True
    if sum(1 for x in n.operands() if x is a) != 1:
        return False
    if n.op is Opcode.SETITEM:
        base = spec.types.get(n.args[0])
        return a is n.args[2] and isinstance(base, ArrayT) and base.dtype is t.strong and not base.torch
    if n.op is not Opcode.CALL or n.kwargs:
        return False
    from everypath.variants.ops.elementwise import loop_dtypes
    from everypath.variants.registry import lookup_operator

    key = spec.op_keys.get(n)
    uf = lookup_operator(key).elementwise if key is not None else None
    if uf is None or uf.ufunc is None or uf.nin != 2 or uf.cpp in ("where", "clip") or len(n.args) != 2:
        return False
    i = n.args.index(a)
    other = spec.types.get(n.args[1 - i])
    if not isinstance(other, (ScalarT, ArrayT)) or (isinstance(other, ScalarT) and other.weak):
        return False
    if isinstance(other, ArrayT) and other.torch:
        return False
    o = ScalarT(other.dtype)
    try:
        as_strong = loop_dtypes(uf.ufunc, [t.strong_t, o] if i == 0 else [o, t.strong_t])
        as_weak = loop_dtypes(uf.ufunc, [t.weak_t, o] if i == 0 else [o, t.weak_t])
    except Exception:  # noqa: BLE001 - no loop for one of them: they differ
        return False
    return as_strong == as_weak and as_strong[i] is t.strong


def _weak_stores_exact(spec: "TypedFunction", name: str, t: MaybeWeakT) -> bool:
    for m in spec.fn.body.walk():
        if m.op is Opcode.FOR and name in _names(m.target):
            return False
        if m.op is not Opcode.STORE or m.target != name:
            continue
        vt = spec.types.get(m.args[0])
        if isinstance(vt, ScalarT) and vt.weak:
            v = m.args[0]
            if v.op is not Opcode.CONST or not _exact(v.target, t):
                return False
    return True


def _exact(value: Any, t: MaybeWeakT) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return bool(np.array(value).astype(t.strong.np).item() == value)
    except (OverflowError, ValueError, TypeError):
        return False


def _names(p: Any) -> list[str]:
    return [p] if isinstance(p, str) else [x for q in p for x in _names(q)]

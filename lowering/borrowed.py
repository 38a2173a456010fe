"""Array parameters a function only reads from are borrowed: `const ep::Array<T, N>&`, not a copy.

An ep::Array owns its buffer through a shared_ptr, so passing one by value costs two atomic reference-count
updates per call, and g++ keeps them (and the exception cleanup they need) even once the helper is inlined:
`swap(a, i, j)` called per element of a partition loop spent more on the copies than on the swap. A parameter
the body never rebinds can borrow the caller's array instead: the caller's variable outlives the call (Python
cannot rebind a caller's local), and its elements stay writable through the borrowed view (`a[i] = x`).
Generators keep copies: their frame outlives the call that made them.

The reference is `__restrict__`: nothing changes the Array object (its data pointer, shape, strides) while the
function runs, so g++ may keep them in registers across element stores (an int64 store could otherwise be a
store to `shape`). Only the object is restricted, not its elements: `f(a, a)` borrows one array twice and each
store through one is seen by loads through the other (data pointers loaded from the objects alias freely).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from everypath.base.types import ArrayT, GenT
from everypath.tracer.ir import Opcode

if TYPE_CHECKING:
    from everypath.lowering.infer import TypedFunction


def fixed_params(spec: "TypedFunction") -> frozenset[str]:
    """The parameters the body binds once, from the argument, and never again."""
    stores: dict[str, list[object]] = {}
    for n in spec.fn.body.walk():
        if n.op is Opcode.STORE:
            stores.setdefault(str(n.target), []).append(n.args[0].op)
        elif n.op is Opcode.FOR:
            for name in pattern_names(n.target):
                stores.setdefault(name, []).append(Opcode.FOR)
    return frozenset(p.name for p in spec.fn.params if stores.get(p.name) == [Opcode.PARAM])


def borrowed_params(spec: "TypedFunction") -> frozenset[str]:
    """The array parameters of spec that the body binds once, from the argument, and never again."""
    if spec.fn.is_closure or isinstance(spec.return_type, GenT):
        return frozenset()
    fixed = fixed_params(spec)
    return frozenset(p.name for p, t in zip(spec.fn.params, spec.arg_types)
                     if p.name in fixed and isinstance(t, ArrayT) and spec.var_types.get(p.name) == t)


def pattern_names(p: object) -> list[str]:
    """The names a `for` target binds (a name, or nested tuples of names)."""
    return [p] if isinstance(p, str) else [x for q in p for x in pattern_names(q)]  # type: ignore[attr-defined]

"""``key=`` arguments as lambdas: ``sorted(words, key=len)``, ``max(d, key=d.get)``, ``xs.sort(key=helper)``.

The typer and the C++ call a key through one shape only, a compiled closure (lowering/key_calls.py), so a key
that names a function (a builtin, a helper, a bound method) is traced as the lambda that calls it with the item:
``key=len`` is ``key=lambda item: len(item)``, which CPython computes the same way. ``max(d, key=d.get)`` over
the dict's own keys (``d`` or ``d.keys()``) is ``lambda item: d[item]``: every item is a key of d there, so
``d.get(item)`` is never None and the two agree (a ``d.get`` key over other items stays ``d.get(item)``, refused
with its located error since it may give None)."""
from __future__ import annotations

import ast

ITEM = "ep_key_item"  # the synthesised parameter; not a name user code could clash with in practice
_OVER_OWN_KEYS = frozenset({"sorted", "max", "min"})


def _same(a: ast.expr, b: ast.expr) -> bool:
    return ast.dump(a) == ast.dump(b)


def _over_own_keys(call: ast.Call, fn: ast.expr) -> bool:
    """max(d, key=d.get) / sorted(d.keys(), key=d.get): the items are d's keys."""
    if not (isinstance(fn, ast.Attribute) and fn.attr == "get" and isinstance(call.func, ast.Name)
            and call.func.id in _OVER_OWN_KEYS and len(call.args) == 1):
        return False
    src = call.args[0]
    if (isinstance(src, ast.Call) and isinstance(src.func, ast.Attribute) and src.func.attr == "keys"
            and not src.args and not src.keywords):
        src = src.func.value
    return _same(src, fn.value)


def as_lambda(call: ast.Call, kw: ast.keyword) -> ast.expr:
    """The expression to trace for one keyword of call: a key that names a function becomes a lambda."""
    fn = kw.value
    if kw.arg != "key" or not isinstance(fn, (ast.Name, ast.Attribute)):
        return fn  # a lambda already, None, or anything else: traced as written
    item = ast.Name(ITEM, ast.Load())
    if _over_own_keys(call, fn):
        body: ast.expr = ast.Subscript(fn.value, item, ast.Load())  # type: ignore[attr-defined]
    else:
        body = ast.Call(fn, [item], [])
    args = ast.arguments(posonlyargs=[], args=[ast.arg(ITEM)], vararg=None, kwonlyargs=[], kw_defaults=[],
                         kwarg=None, defaults=[])
    lam = ast.Lambda(args, body)
    for node in ast.walk(lam):  # the synthesised nodes sit at the key's own place, so errors point there
        if not hasattr(node, "lineno") and not isinstance(node, (ast.expr_context, ast.arguments)):
            ast.copy_location(node, fn)
    return lam


__all__ = ["ITEM", "as_lambda"]

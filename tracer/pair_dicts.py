"""dict() of pairs made as they are consumed: `dict(zip(keys, values))`, `dict(enumerate(items))` and
`dict((k, v) for ...)` become the dict comprehension they equal (`{k: v for k, v in zip(keys, values)}`), so
the pairs are never materialised and the dict's key and value types are the iterables' element types.

CPython's dict(iterable) inserts each pair in order, a later equal key replacing the value and keeping the
first place, exactly as the comprehension does; zip stops at the shorter input in both. Anything else given to
dict() (a dict, a list of pairs, keywords) is left to the ordinary call (variants/ops/dicts.py)."""
from __future__ import annotations

import ast
import builtins
from typing import TYPE_CHECKING

from everypath.tracer.statics import Static

if TYPE_CHECKING:
    from everypath.tracer.ir import Node

_KEY, _VALUE = "ep$key", "ep$value"  # the pair's names inside the comprehension (renamed to fresh slots there)
# the builtins whose items are always 2-tuples, by the number of positional arguments that makes them so
_PAIR_ITERATORS: dict[object, tuple[int, ...]] = {builtins.zip: (2,), builtins.enumerate: (1, 2)}
_KEYWORDS: dict[object, set[str | None]] = {builtins.enumerate: {"start"}}  # dict(enumerate(xs, start=1))


def dict_of_pairs(fb, callee: Node | Static, e: ast.Call) -> Node | None:  # noqa: ANN001 - a FunctionBuilder
    """The dict built by loops for dict(<pairs made on the fly>), or None: not such a call."""
    if not (isinstance(callee, Static) and callee.obj is builtins.dict) or e.keywords or len(e.args) != 1:
        return None
    comp = _as_dict_comprehension(fb, e.args[0])
    return None if comp is None else fb.comprehension(comp)


def _as_dict_comprehension(fb, a: ast.expr) -> ast.DictComp | None:  # noqa: ANN001
    if isinstance(a, ast.GeneratorExp):
        # dict((k, v) for ...): key then value, evaluated in that order per item as the tuple display is
        elt = a.elt
        if not (isinstance(elt, ast.Tuple) and len(elt.elts) == 2 and not any(isinstance(x, ast.Starred)
                                                                                 for x in elt.elts)):
            return None
        return ast.copy_location(ast.DictComp(key=elt.elts[0], value=elt.elts[1], generators=a.generators), a)
    if not (isinstance(a, ast.Call) and not any(isinstance(x, ast.Starred) for x in a.args)):
        return None
    fn = _builtin(fb, a.func)
    arity = _PAIR_ITERATORS.get(fn)
    keywords = {k.arg for k in a.keywords}
    if arity is None or len(a.args) + len(keywords) not in arity or keywords - _KEYWORDS.get(fn, set()):
        return None
    target = ast.Tuple(elts=[ast.Name(id=_KEY, ctx=ast.Store()), ast.Name(id=_VALUE, ctx=ast.Store())], ctx=ast.Store())
    comp = ast.DictComp(key=ast.Name(id=_KEY, ctx=ast.Load()), value=ast.Name(id=_VALUE, ctx=ast.Load()),
                        generators=[ast.comprehension(target=target, iter=a, ifs=[], is_async=0)])
    for node in (comp, comp.key, comp.value, target, *target.elts):
        ast.copy_location(node, a)
    return comp


def _builtin(fb, f: ast.expr) -> object:  # noqa: ANN001
    """The builtin a bare name calls (zip, enumerate), unless the function binds that name itself."""
    if not isinstance(f, ast.Name) or fb._bound_here(f.id):
        return None
    try:
        return fb.lookup_global(f.id)
    except KeyError:
        return None


__all__ = ["dict_of_pairs"]

"""Cases for operators that return a list or tuple of arrays (np.split, np.meshgrid, ...).

The check harness compares one array per case, so a list result becomes one
case per item (``list_get(result, i)`` / ``std::get<i>(result)`` against the
NumPy result's item i) plus one case for its length.
"""
from __future__ import annotations

from typing import Any

from everypath.base.types import INT, ListT, TupleT
from tests.variants._harness import Program, reference_for


def seq_cases(p: Program, name: str, key: str, *args: Any, count: int, **kwargs: Any) -> None:
    """Items 0..count-1 and the length of a list/tuple-valued call, each checked against NumPy."""
    fn = reference_for(key)
    for i in range(count):
        p.case(f"{name}_{i}", key, *args, ref=lambda *a, _i=i, **k: fn(*a, **k)[_i], **kwargs)
        _pick(p, f"{name}_{i}", i)
    p.case(f"{name}_len", key, *args, ref=lambda *a, **k: len(fn(*a, **k)), **kwargs)
    c = p.cases[f"{name}_len"]
    if c.typing_error is None:
        c.expr = f"static_cast<int64_t>(std::tuple_size_v<std::decay_t<decltype({c.expr})>>)" \
            if isinstance(c.result, TupleT) else f"static_cast<int64_t>(({c.expr}).size())"
        c.result = INT
        p.body[-1] = f'  EPT_CASE("{name}_len", {c.expr});'


def _pick(p: Program, name: str, i: int) -> None:
    c = p.cases[name]
    if c.typing_error is not None:
        return
    if isinstance(c.result, ListT):
        c.expr, c.result = f"ep::list_get({c.expr}, {i})", c.result.elem
    else:
        assert isinstance(c.result, TupleT) and i < len(c.result.items), (name, c.result)
        c.expr, c.result = f"std::get<{i}>({c.expr})", c.result.items[i]
    p.body[-1] = f'  EPT_CASE("{name}", {c.expr});'


def slice_case(p: Program, name: str, key: str, arr: Any, s: slice, **kwargs: Any) -> None:
    """A call f(arr, s, **kwargs) whose second argument is a run-time slice object
    (the harness has no slice values): typed as SliceT and passed as ep::make_slice."""
    from everypath.base.cpp import ctype
    from everypath.base.types import SliceT
    from tests.variants._harness import Case, build_site, run_reference
    from everypath.variants.registry import LowerSite, TypingError, registry

    site, pa, pk = build_site(key, (arr, 0), kwargs)
    site.args[1] = SliceT()
    op = registry().ops[key]
    p.headers.update(v.header for v in op.variants)
    status, expected, given = run_reference(key, [pa[0], _Raw(s)], pk, None)
    try:
        result = op.infer(site)
    except TypingError as exc:
        p.cases[name] = Case(name, key, None, status, expected, typing_error=str(exc))
        return
    parts = ", ".join("ep::None{}" if x is None else f"int64_t({x})" for x in (s.start, s.stop, s.step))
    node = site.node
    ls = LowerSite(key=key, node=node, args=[p.arg(pa[0], node.args[0], site.args[0]), f"ep::make_slice({parts})"],
                   kwargs={k: p.arg(pk[k], node.kwargs[k], site.kwargs[k]) for k in pk}, arg_types=list(site.args),
                   kw_types=dict(site.kwargs), result=result, ctype=ctype, site="t.py:1")
    expr = op.lower(ls)  # type: ignore[misc]
    p.cases[name] = Case(name, key, result, status, expected, expr=expr, inputs=given)
    p.body.append(f'  EPT_CASE("{name}", {expr});')


class _Raw:
    """An argument handed to the NumPy reference as it is."""

    def __init__(self, value: Any) -> None:
        self.value = value

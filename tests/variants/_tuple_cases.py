"""Harness additions for operators that return tuples (slogdet, qr, svd, eigh,
lstsq) or whose results are unique only up to signs/phases (Q, U, V, eigenvectors).

``TupleProgram.tcase`` emits one output line per tuple element; ``check`` may be
given to compare invariants (reconstruction, orthogonality) instead of raw
values. Exception types are compared by their last dotted component, since
kernels name NumPy's own exceptions as ``numpy.linalg.LinAlgError``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from everypath.base.cpp import ctype
from everypath.base.types import TupleT, Type
from tests.variants._harness import Arg, Case, Program, _parse_values, build_site, check, run_reference
from everypath.variants.registry import LowerSite, TypingError, registry

Checker = Callable[[list[Any], Any, list[Any]], None]  # (got values, NumPy's result, NumPy's inputs)


@dataclass
class TCase:
    name: str
    result: Type | None
    status: str
    expected: Any
    inputs: list[Any]
    checker: Checker | None
    rtol: float | None
    typing_error: str | None = None
    parts: list[str] = field(default_factory=list)


def parse(got: list[str]) -> Any:
    """A printed result line back into a NumPy value."""
    if got[0] == "A":
        dtype, shape, values = got[1], got[3], got[4]
        shp = tuple(int(d) for d in shape.split(",")) if shape else ()
        return _parse_values(values, dtype).reshape(shp)
    if got[0] == "S":
        return _parse_values(got[2], got[1]).reshape(())[()]
    raise AssertionError(f"cannot parse {got}")


class TupleProgram(Program):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.tcases: dict[str, TCase] = {}

    def tcase(self, name: str, key: str, *args: Arg, check: Checker | None = None, within: float | None = None,
              ref: Callable[..., Any] | None = None, **kwargs: Arg) -> None:
        assert name not in self.tcases and name not in self.cases, name
        site, pa, pk = build_site(key, args, kwargs)
        op = registry().ops[key]
        self.headers.update(v.header for v in op.variants)
        status, expected, given = run_reference(key, pa, pk, ref)
        try:
            result = op.infer(site)
        except TypingError as exc:
            self.tcases[name] = TCase(name, None, status, expected, given, check, within, typing_error=str(exc))
            return
        node = site.node
        ls = LowerSite(key=key, node=node, args=[self.arg(a, n, t) for a, n, t in zip(pa, node.args, site.args)],
                       kwargs={k: self.arg(pk[k], node.kwargs[k], site.kwargs[k]) for k in pk},
                       arg_types=list(site.args), kw_types=dict(site.kwargs), result=result, ctype=ctype,
                       site="t.py:1")
        expr = op.lower(ls)  # type: ignore[misc]
        tc = TCase(name, result, status, expected, given, check, within)
        if isinstance(result, TupleT):
            tc.parts = [f"{name}.{i}" for i in range(len(result.items))]
            lines = [f'    EPT_CASE("{p}", std::get<{i}>(ept_t));' for i, p in enumerate(tc.parts)]
            self.body.append(f"  try {{\n    auto ept_t = ({expr});\n" + "\n".join(lines) +
                             f'\n  }} catch (const ep::PyError& ept_e) {{ ept::emit_error("{name}", ept_e); }}')
        else:
            tc.parts = [name]
            self.body.append(f'  EPT_CASE("{name}", {expr});')
        self.tcases[name] = tc


def _normalise(got: list[str] | None) -> list[str] | None:
    if got and got[0] == "E":
        return ["E", got[1].rsplit(".", 1)[-1], got[2]]
    return got


def check_tcase(tc: TCase, out: dict[str, list[str]]) -> None:
    if tc.typing_error is not None:
        assert tc.status == "error", f"{tc.name}: TypingError {tc.typing_error!r} but NumPy returned a value"
        assert tc.typing_error == tc.expected[1], f"{tc.name}: {tc.typing_error!r} != {tc.expected[1]!r}"
        return
    err = _normalise(out.get(tc.name))
    if tc.status == "error" or (err and err[0] == "E"):
        sub = Case(tc.name, "t", tc.result, tc.status, tc.expected)
        check(sub, err)
        return
    got_lines = [out.get(p) for p in tc.parts]
    assert all(g is not None for g in got_lines), f"{tc.name}: missing output"
    items = tc.result.items if isinstance(tc.result, TupleT) else (tc.result,)
    exp = tuple(tc.expected) if isinstance(tc.result, TupleT) else (tc.expected,)
    assert len(exp) == len(items), f"{tc.name}: NumPy returned {len(exp)} values"
    # dtype, shape (and for unchecked parts values) element by element
    for i, (g, e, t) in enumerate(zip(got_lines, exp, items)):
        sub = Case(f"{tc.name}[{i}]", "t", t, "ok", e, rtol=tc.rtol, inputs=list(tc.inputs),
                   values=tc.checker is None)
        if tc.checker is not None and not isinstance(e, np.ndarray):
            assert g[0] == "S" and g[1] == np.asarray(e).dtype.name, f"{tc.name}[{i}]: {g[:2]} vs {type(e)}"
            continue
        check(sub, g)
    if tc.checker is not None:
        tc.checker([parse(g) for g in got_lines], tc.expected, tc.inputs)  # type: ignore[arg-type]


def run_tuple_program(prog: TupleProgram, tmp: Path) -> None:
    out = prog.run(tmp)
    failures = []
    for name, case in prog.cases.items():
        try:
            check(case, _normalise(out.get(name)))
        except AssertionError as exc:
            failures.append(str(exc))
    for tc in prog.tcases.values():
        try:
            check_tcase(tc, out)
        except AssertionError as exc:
            failures.append(f"{tc.name}: {exc}")
    assert not failures, f"{len(failures)} failing cases:\n" + "\n\n".join(failures[:30])


def tol_for(dtype: Any) -> float:
    """Tolerance of the decompositions: relative to the largest entry."""
    return 1e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-10


def close(got: Any, want: Any, tol: float, what: str) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    scale = max(float(np.max(np.abs(want))) if want.size else 1.0, 1.0)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale, err_msg=what)

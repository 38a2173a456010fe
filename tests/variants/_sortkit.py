"""Extra case kinds for the sorting / searching / set / indexing families, on top of
tests/variants/_harness.py: tuple results (one case per item), in-place operators
(the written array is the result) and property checks (partition)."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import numpy as np

from everypath.base.types import TupleT
from tests.variants._harness import Program, View, _parse_values, check, reference_for, sample, value_type

Checker = Callable[[np.ndarray, Any], None]  # (C++ result, NumPy result)


def special(dt: Any, n: int = 23, seed: int = 0) -> np.ndarray:
    """n (>= 10) values with ties, and for inexact dtypes NaN, infinities and signed zeros."""
    x = sample((n,), dt, seed)
    d = np.dtype(dt)
    if d.kind == "f":
        x[[1, 5, 9]] = [np.nan, -np.inf, np.inf]
        x[[2, 3]] = [-0.0, 0.0]
        x[7] = np.nan
    elif d.kind == "c":
        x[[1, 4, 6, 8]] = [complex(np.nan, 1), complex(1, np.nan), complex(np.nan, np.nan), complex(-np.inf, 2)]
        x[3] = complex(x[0].real, -5)
    return x


class Kit(Program):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.props: dict[str, Checker] = {}

    def _patch(self, name: str, wrap: Callable[[str], str]) -> bool:
        case = self.cases[name]
        if case.typing_error is not None:
            return False
        line = f'  EPT_CASE("{name}", {case.expr});'
        assert self.body[-1] == line, (self.body[-1], line)
        case.expr = wrap(case.expr)
        self.body[-1] = f'  EPT_CASE("{name}", {case.expr});'
        return True

    def tuple_case(self, name: str, key: str, *args: Any, n: int, ref: Callable[..., Any] | None = None,
                   **kwargs: Any) -> None:
        """An operator returning a tuple of n arrays: one case per item."""
        fn = ref or reference_for(key)
        for i in range(n):
            item = f"{name}_{i}"
            self.case(item, key, *args, ref=(lambda *a, _i=i, **k: fn(*a, **k)[_i]), **kwargs)
            if self._patch(item, lambda e, _i=i: f"std::get<{_i}>({e})"):
                t = self.cases[item].result
                assert isinstance(t, TupleT) and len(t.items) == n, t
                self.cases[item].result = t.items[i]

    def inplace_case(self, name: str, key: str, *args: Any, checker: Checker | None = None, **kwargs: Any) -> None:
        """An operator writing into its first argument and returning None: the argument is the result."""
        fn = reference_for(key)
        target = args[0]
        self.case(name, key, *args, ref=lambda *a, **k: (fn(*a, **k), a[0])[1], **kwargs)
        if checker is not None:
            self.props[name] = checker
        arg0 = self.arg_expr(target)
        if self._patch(name, lambda e: f"[&] {{ auto ept_t = {arg0}; {e}; return ept_t; }}()"):
            self.cases[name].result = value_type(target.value if isinstance(target, View) else target)

    def arg_expr(self, a: Any) -> str:
        return self.arg(a, None, None) if isinstance(a, View) else self.value(a)  # type: ignore[arg-type]

    def prop_case(self, name: str, key: str, checker: Checker, *args: Any, **kwargs: Any) -> None:
        """Compared by dtype and shape with NumPy, values by a property check."""
        self.case(name, key, *args, **kwargs)
        self.props[name] = checker


def run_kit(kit: Kit, tmp: Path) -> None:
    out = kit.run(tmp)
    failures = []
    for name, case in kit.cases.items():
        try:
            got = out.get(name)
            if name in kit.props and case.typing_error is None and case.status == "ok":
                assert got is not None and got[0] == "A", f"{name}: {got}"
                exp = case.expected
                assert got[1] == exp.dtype.name, f"{name}: dtype {got[1]} != {exp.dtype}"
                shape = tuple(int(d) for d in got[3].split(",")) if got[3] else ()
                assert shape == exp.shape, f"{name}: shape {shape} != {exp.shape}"
                kit.props[name](_parse_values(got[4], got[1]).reshape(shape), exp)
            else:
                check(case, got)
        except AssertionError as exc:
            failures.append(f"{name}: {exc}")
    assert not failures, f"{len(failures)} failing cases:\n" + "\n\n".join(failures[:30])

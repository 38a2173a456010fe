"""Copies of small helpers whose indices the calling loop proved in range (lowering/loop_counters.py).

`swap(a, i, j)` called in the fast copy of `for j in range(lo, hi)` with `i` a trailing counter: the copy's test
put `a[i]` and `a[j]` in range for every iteration, but the checks are in swap's own body. Telling g++ the facts
at the top of the iteration is not enough (measured: it drops the sign test of each index and keeps the compare
against the shape), so the fast copy calls `swap__0__inb0`, swap emitted once more with those accesses unchecked.
A helper qualifies when it has no loops and no calls of its own (lowering/unit.py's small leaves) and its copy
adds no operator call sites (a site is one telemetry row; two copies of it would be two). The general loop, and
every other caller, keep calling the checked helper.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from everypath.lowering.loop_counters import helper_access_nodes, small_leaf

if TYPE_CHECKING:
    from everypath.lowering.dispatch import PathPolicy
    from everypath.lowering.infer import TypedFunction

# (array parameter, axis, index parameter) of a helper's element access proven by the caller
Proven = frozenset[tuple[int, int, int]]


@dataclass(frozen=True)
class Clone:
    symbol: str
    spec: "TypedFunction"
    lines: tuple[str, ...]  # the body, as FunctionEmitter.function_body wrote it


@dataclass
class HelperClones:
    """The unit's helper copies, made on first request and emitted after the functions (lowering/unit.py)."""

    policy: "PathPolicy | None" = None
    made: dict[tuple[str, Proven], Clone | None] = field(default_factory=dict)

    def symbol(self, callee: "TypedFunction", proven: Proven) -> str | None:
        """The copy of callee with `proven` accesses unchecked; None: call callee itself."""
        from everypath.lowering.emit import FunctionEmitter, ident
        from everypath.lowering.sites import SiteTable

        key = (callee.symbol, proven)
        if key not in self.made:
            self.made[key] = None
            if proven and small_leaf(callee):
                sites = SiteTable()
                fe = FunctionEmitter(callee, policy=self.policy, sites=sites)
                params = [p.name for p in callee.fn.params]
                fe.proven = frozenset((m, k, ident(params[ai])) for ai, k, ii, m in helper_access_nodes(callee)
                                      if (ai, k, ii) in proven)
                lines = fe.function_body()
                if fe.proven and not sites.sites and fe.used_paths <= {"loops"} and not fe.used_headers:
                    self.made[key] = Clone(f"{callee.symbol}__inb{len(self.clones())}", callee, tuple(lines))
        made = self.made[key]
        return made.symbol if made is not None else None

    def clones(self) -> list[Clone]:
        return [c for c in self.made.values() if c is not None]

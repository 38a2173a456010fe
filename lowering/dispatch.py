"""Which implementation paths a call site gets, and the C++ that chooses among them.

A call whose operator has several buildable variants becomes a run-time choice:
``ep::dispatch(ep::pick({min_work...}, ep::work(operands...)), [&] { loops }, [&] { simd }, ...)``.
The default policy (each variant's ``min_work``) is what runs before any telemetry;
the selection tables of the telemetry/selector stages replace it. A forced path
(Settings.force_path) emits that variant alone, for differential tests and
benchmarks of one path.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

from everypath.base.settings import Settings
from everypath.variants.availability import TargetLike, available, available_on
from everypath.variants.paths import host_paths
from everypath.variants.registry import LowerSite, Operator, PathNotApplicable, Variant


@dataclass(frozen=True)
class PathPolicy:
    enabled: frozenset[str]
    force: str | None = None
    target: TargetLike | None = None  # a portable build: variants must be available on it, not on this host

    @staticmethod
    def for_target(target: TargetLike, settings: Settings) -> "PathPolicy":
        names = set(target.paths)
        if settings.paths is not None:
            names &= set(settings.paths)
        if settings.force_path is not None:
            names &= {settings.force_path}
        return PathPolicy(frozenset(names | {"loops"}), settings.force_path, target)

    def available(self, v: Variant) -> bool:
        return (available_on(v, self.target) if self.target is not None else available(v))[0]

    @staticmethod
    def from_settings(settings: Settings) -> "PathPolicy":
        names = {n for n, hp in host_paths().items() if hp.available}
        if settings.paths is not None:
            names &= set(settings.paths)
        if settings.force_path is not None:
            if settings.force_path not in host_paths():
                raise ValueError(f"EVERYPATH_FORCE_PATH: unknown path '{settings.force_path}'")
            names &= {settings.force_path}
        return PathPolicy(frozenset(names | {"loops"}), settings.force_path)

    def variants(self, variants: tuple[Variant, ...]) -> list[Variant]:
        """The variants this build includes for one call site (loops always stays as the fallback)."""
        usable = [v for v in variants if v.path in self.enabled and self.available(v)]
        if self.force is not None:
            forced = [v for v in usable if v.path == self.force]
            return forced or [v for v in usable if v.path == "loops"][:1] or usable[:1]
        return usable or list(variants[:1])


def dispatch_expr(options: list[tuple[Variant, str]], operands: list[str]) -> str:
    """The C++ choosing among variant expressions at run time (one expression when alone)."""
    if len(options) == 1:
        return options[0][1]
    thresholds = ", ".join(str(v.min_work) for v, _ in options)
    work = f"ep::work({', '.join(operands)})" if operands else "0"
    lambdas = ", ".join(f"[&]() {{ return {expr}; }}" for _, expr in options)
    return f"ep::dispatch(ep::pick({{{thresholds}}}, {work}), {lambdas})"


def lower_variants(op: Operator, site: LowerSite, policy: PathPolicy, used: set[str],
                   lower: Callable[[LowerSite], str] | None = None) -> list[tuple[Variant, str]]:
    """Lower one call through every variant the policy admits: (variant, C++) in dispatch order."""
    fn = lower or op.lower
    assert fn is not None
    options = []
    for v in policy.variants(op.variants):
        try:
            options.append((v, fn(replace(site, path=v.path))))
        except PathNotApplicable:
            continue
        used.add(v.path)
    if not options:  # every other path declined: the reference loops path is always there
        options.append((op.variants[0], fn(replace(site, path="loops"))))
        used.add("loops")
    return options

"""What a run prints and writes: one table per family (reference time, then
each path's time and ratio, the best path starred), the summary at the
largest size, the goal line, and the JSON with every number."""

from __future__ import annotations

import dataclasses
import json
import pathlib
from collections import Counter
from dataclasses import dataclass
from typing import Any

from corpus.common import geomean

from .measure import PATH_ORDER, Row, Timing

SHOWN = {"fail": "FAIL", "wrong": "WRONG", "timeout": "T/O"}
CLOSE = 1.05  # a win by less than this is within the noise of a shared machine


@dataclass(frozen=True)
class FamilyRun:
    name: str
    reference: str
    sizes: tuple[int, ...]
    rows: tuple[Row, ...]
    error: str = ""  # the family could not run at all (its recipes failed)


@dataclass(frozen=True)
class FamilySummary:
    family: str
    reference: str
    size: int  # the largest size run
    best_path: str | None  # the path that is best on most operators
    best_paths: dict[str, int]  # path -> on how many operators it is the best
    ratio: float | None  # geometric mean over operators of the best right path's ratio
    right: int  # operators with at least one right path
    operators: int
    beating: int  # operators whose best path beats the reference
    beats: bool  # ratio > 1 with a right path for every operator


def summarize(run: FamilyRun) -> FamilySummary:
    size = max((r.size for r in run.rows), default=0)
    top = [r for r in run.rows if r.size == size]
    ratios = [r.best_ratio for r in top if r.best_ratio]
    counts = Counter(r.best for r in top if r.best)
    gm = geomean(ratios)  # type: ignore[arg-type]
    return FamilySummary(run.name, run.reference, size, counts.most_common(1)[0][0] if counts else None,
                         dict(counts), gm, len(ratios), len(top), sum(1 for x in ratios if x > 1.0),
                         bool(gm and gm > 1.0 and len(ratios) == len(top) and top))


def goal_line(sums: list[FamilySummary]) -> str:
    won = sum(s.beats for s in sums)
    close = sum(1 for s in sums if s.beats and s.ratio is not None and s.ratio < CLOSE)
    verdict = "met" if sums and 2 * won >= len(sums) else "not met"
    return (f"best path beats the reference on {won} of {len(sums)} families at large sizes "
            f"(goal: at least half) -- {verdict}" + (f"; {close} of them by less than {CLOSE - 1:.0%}, "
                                                     "within run-to-run noise" if close else ""))


def fmt_time(s: float | None) -> str:
    if s is None:
        return "-"
    for unit, f in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if s >= f:
            return f"{s / f:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def _cell(t: Timing | None, best: bool) -> tuple[str, str]:
    if t is None:
        return "", ""
    if not t.timed:
        return SHOWN.get(t.status, t.status.upper()), ""
    mark = "*" if t.status == "slow" else ""
    return fmt_time(t.seconds) + mark, (f"{t.ratio:.2f}×" if t.ratio else "-") + (" ★" if best else "")


def family_table(run: FamilyRun) -> tuple[list[str], list[list[str]], list[str]]:
    """Header, rows and notes (the reason of every path not timed normally)."""
    present = {t.path for r in run.rows for t in r.paths}
    paths = [p for p in PATH_ORDER if p in present] + sorted(present - set(PATH_ORDER))
    header = ["operator", "n", "inputs", f"{run.reference}"]
    for p in paths:
        header += [p, f"{p} ×"]
    rows, notes = [], []
    for r in run.rows:
        by = {t.path: t for t in r.paths}
        line = [r.case, f"{r.size:,}", r.shapes, fmt_time(r.reference.seconds) if r.reference.timed
                else SHOWN.get(r.reference.status, r.reference.status.upper())]
        for p in paths:
            line += list(_cell(by.get(p), p == r.best))
        rows.append(line)
        for t in (r.reference, *r.paths):
            if t.reason:
                notes.append(f"{r.case} n={r.size:,} {t.path}: {t.status.upper()} {t.reason}")
    return header, rows, notes


def summary_table(sums: list[FamilySummary]) -> tuple[list[str], list[list[str]]]:
    header = ["family", "vs", "n (largest)", "best path", "ratio (geomean)", "ops beating", "beats?"]
    rows = []
    for s in sums:
        best = ", ".join(f"{p}×{c}" for p, c in sorted(s.best_paths.items(), key=lambda kv: -kv[1]))
        rows.append([s.family, s.reference, f"{s.size:,}", best or "-", f"{s.ratio:.2f}×" if s.ratio else "-",
                     f"{s.beating}/{s.operators}" + (f" ({s.operators - s.right} no right path)"
                                                      if s.right < s.operators else ""),
                     ("yes (<5%)" if s.ratio and s.ratio < CLOSE else "yes") if s.beats else "no"])
    return header, rows


def print_report(runs: list[FamilyRun], meta: dict[str, Any], plain: bool) -> list[FamilySummary]:
    sums = [summarize(r) for r in runs]  # a family that could not run counts as not beating
    tables: list[tuple[str, list[str], list[list[str]], list[str]]] = []
    for run in runs:
        if run.error:
            tables.append((f"{run.name}: could not run", ["error"], [[run.error]], []))
            continue
        h, rows, notes = family_table(run)
        tables.append((f"{run.name} (vs {run.reference}): time per call, × = {run.reference} time / path time "
                       f"(>1: path faster), ★ best path", h, rows, notes))
    sh, srows = summary_table(sums)
    tables.append(("summary: each family at its largest size (best right path per operator)", sh, srows, []))
    head = (f"threads: {meta['threads']} (OpenMP, OpenBLAS, torch, OpenCV)  ·  median of {meta['repeat']} "
            f"samples >= {meta['target_sample_ms']:g} ms each, round-robin  ·  * = one call only (slow)")
    try:
        if plain:
            raise ImportError
        from rich.console import Console
        from rich.markup import escape
        from rich.table import Table

        console = Console(width=max(Console().width, 160))
        console.print(head)
        for title, h, rows, notes in tables:
            t = Table(title=escape(title), title_justify="left")
            for i, c in enumerate(h):
                t.add_column(c, justify="left" if i == 0 or c == "inputs" else "right")
            for row in rows:
                t.add_row(*map(escape, row))
            console.print(t)
            for n in notes:
                console.print(f"  [dim]{escape(n)}[/dim]", highlight=False)
        console.print(goal_line(sums))
    except ImportError:
        print(head)
        for title, h, rows, notes in tables:
            print(f"\n{title}\n" + " | ".join(h))
            for row in rows:
                print(" | ".join(row))
            for n in notes:
                print("  " + n)
        print(goal_line(sums))
    return sums


def write_json(out: str, meta: dict[str, Any], runs: list[FamilyRun], sums: list[FamilySummary]) -> None:
    doc = {
        "meta": meta,
        "families": [dataclasses.asdict(r) for r in runs],
        "summary": [dataclasses.asdict(s) for s in sums],
        "beats": sum(s.beats for s in sums),
        "of": len(sums),
        "goal": goal_line(sums),
    }
    p = pathlib.Path(out)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(doc, indent=1, default=str))

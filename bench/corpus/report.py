"""What a run prints and writes: the per-kernel and summary tables, the
everypath goals, the notes, and the JSON file with every number."""

from __future__ import annotations

import dataclasses
import json
import pathlib
import sys
from typing import Any, TextIO

from .common import CATEGORIES, GOALS, EngineResult, KernelResult, geomean, log
from .pythran_build import PythranBuild


# --------------------------------------------------------------------------
# summary
# --------------------------------------------------------------------------


def summarize(results: list[KernelResult], engines: tuple[str, ...]) -> dict[str, Any]:
    """Geomean speedups per category and overall, over the kernels each
    engine got right, and where everypath stands against the goals."""
    # a kernel whose plain-Python baseline failed is a corpus problem, not
    # an engine's: it is listed apart and left out of every count
    no_baseline = [r.name for r in results if r.cpython.median_ns is None]
    results = [r for r in results if r.cpython.median_ns is not None]
    groups: dict[str, list[KernelResult]] = {}
    for c in CATEGORIES:
        sel = [r for r in results if r.category == c]
        if sel:
            groups[c] = sel
    for r in results:
        if r.category not in CATEGORIES:
            groups.setdefault(r.category, []).append(r)
    groups["overall"] = list(results)
    out: dict[str, Any] = {}
    for gname, rs in groups.items():
        row: dict[str, Any] = {"kernels": len(rs), "engines": {}}
        for e in engines:
            sp = [r.engines[e].speedup for r in rs if r.engines[e].right]
            row["engines"][e] = {
                "geomean": geomean(sp),
                "right": len(sp),
                "total": len(rs),
                "statuses": _count([r.engines[e].status for r in rs]),
            }
        if "everypath" in engines:
            slow = [
                r.name
                for r in rs
                if r.engines["everypath"].right and r.engines["everypath"].speedup < 1.0 / GOALS["slower_tolerance"]
            ]
            row["everypath_slower_than_numpy_10pct"] = slow
        out[gname] = row

    goals: dict[str, Any] = {}
    if "everypath" in engines:
        def _g(cat: str) -> dict[str, Any]:
            return out.get(cat, {}).get("engines", {}).get("everypath", {})

        for cat in ("loop", "array"):
            if cat in out:
                g = _g(cat)
                gm = g.get("geomean")
                goals[f"{cat}_geomean"] = {
                    "target": GOALS[cat],
                    "value": gm,
                    "right": g.get("right"),
                    "total": g.get("total"),
                    "met": bool(gm is not None and gm >= GOALS[cat] and g.get("right") == g.get("total")),
                }
        arr_slow = out.get("array", {}).get("everypath_slower_than_numpy_10pct", [])
        all_slow = out["overall"].get("everypath_slower_than_numpy_10pct", [])
        if "array" in out:
            arr = _g("array")
            goals["never_10pct_slower_than_numpy"] = {
                "array_slower": arr_slow,
                "all_slower": all_slow,
                "array_right": arr.get("right"),
                "array_total": arr.get("total"),
                # a kernel everypath cannot run correctly is not "not slower"
                "met": bool(arr.get("total") and arr.get("right") == arr.get("total") and not arr_slow),
            }
        if "pythran" in engines:
            common = [r for r in results if r.engines["everypath"].right and r.engines["pythran"].right]
            h2h = geomean([r.engines["everypath"].speedup / r.engines["pythran"].speedup for r in common])
            ep, pt = _g("overall").get("geomean"), out["overall"]["engines"]["pythran"]["geomean"]
            goals["ahead_of_pythran"] = {
                "everypath_geomean": ep,
                "pythran_geomean": pt,
                "everypath_right": out["overall"]["engines"]["everypath"]["right"],
                "pythran_right": out["overall"]["engines"]["pythran"]["right"],
                "head_to_head_geomean": h2h,
                "head_to_head_kernels": len(common),
                "head_to_head_wins": sum(
                    1 for r in common if r.engines["everypath"].speedup > r.engines["pythran"].speedup
                ),
                "met": bool(
                    ep is not None
                    and (pt is None or ep > pt)
                    and (h2h is None or h2h > 1.0)
                    and out["overall"]["engines"]["everypath"]["right"] >= out["overall"]["engines"]["pythran"]["right"]
                ),
            }
    return {"groups": out, "goals": goals, "no_baseline": no_baseline}


def _count(items: list[str]) -> dict[str, int]:
    d: dict[str, int] = {}
    for i in items:
        d[i] = d.get(i, 0) + 1
    return d


# --------------------------------------------------------------------------
# tables
# --------------------------------------------------------------------------


def _fmt_x(er: EngineResult) -> str:
    if er.status == "ok" and er.speedup is not None:
        s = er.speedup
        return f"{s:.3g}×" if s < 1000 else f"{s:,.0f}×"
    return {
        "compile-fail": "FAIL",
        "wrong": "WRONG",
        "timeout": "T/O",
        "error": "ERR",
        "crash": "CRASH",
        "skipped": "-",
    }.get(er.status, er.status)


def fmt_ms(ns: float | None) -> str:
    if ns is None:
        return "-"
    ms = ns / 1e6
    return f"{ms:.3g}" if ms < 1000 else f"{ms:,.0f}"


def _fmt_gm(v: float | None) -> str:
    return "-" if v is None else (f"{v:.3g}×" if v < 1000 else f"{v:,.0f}×")


def _trim(text: str, limit: int = 90) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def kernel_rows(results: list[KernelResult], engines: tuple[str, ...]) -> list[list[str]]:
    rows = []
    for r in results:
        if r.status not in ("ok",):
            status = _trim(f"{r.status}: {r.reason}")
        else:
            bad = [_trim(f"{e}: {r.engines[e].label()}") for e in engines if r.engines[e].status not in ("ok", "skipped")]
            status = "; ".join(bad) if bad else "ok"
        rows.append([r.name, r.category, fmt_ms(r.cpython.median_ns), *[_fmt_x(r.engines[e]) for e in engines], status])
    return rows


def _met(flag: bool) -> str:
    return "MET" if flag else "NOT MET"


def summary_rows(summary: dict[str, Any], engines: tuple[str, ...]) -> list[list[str]]:
    """One row per category + overall; the goal that applies to the row is
    printed beside it."""
    rows = []
    goals = summary["goals"]
    for gname, row in summary["groups"].items():
        cells = [gname, str(row["kernels"])]
        for e in engines:
            g = row["engines"][e]
            cells.append(f"{_fmt_gm(g['geomean'])} ({g['right']}/{g['total']})")
        goal = []
        if "everypath" in engines:
            cells.append(str(len(row.get("everypath_slower_than_numpy_10pct", []))))
            if f"{gname}_geomean" in goals:
                gg = goals[f"{gname}_geomean"]
                goal.append(f"≥{gg['target']:g}×: {_met(gg['met'])}")
            if gname == "array" and "never_10pct_slower_than_numpy" in goals:
                goal.append(f"never >10% slower: {_met(goals['never_10pct_slower_than_numpy']['met'])}")
            if gname == "overall" and "ahead_of_pythran" in goals:
                goal.append(f"ahead of Pythran: {_met(goals['ahead_of_pythran']['met'])}")
        cells.append("; ".join(goal))
        rows.append(cells)
    return rows


def goal_lines(summary: dict[str, Any]) -> list[str]:
    goals = summary["goals"]
    groups = summary["groups"]
    out = []

    def gm(g: dict[str, Any]) -> str:
        return f"{_fmt_gm(g.get('geomean'))} ({g.get('right')}/{g.get('total')} right)"

    for cat, what in (("loop", "loop kernels"), ("array", "whole-array kernels")):
        if f"{cat}_geomean" in goals:
            g = goals[f"{cat}_geomean"]
            out.append(f"{what:38s} ≥ {g['target']:g}× (all right)   now {gm(groups[cat]['engines']['everypath'])}"
                       f"   {_met(g['met'])}")
    if "never_10pct_slower_than_numpy" in goals:
        g = goals["never_10pct_slower_than_numpy"]
        slow = ", ".join(g["array_slower"]) or "none"
        out.append(f"{'never >10% slower than NumPy (array)':38s} 0 slower (all right)   now slower: {slow};"
                   f" {g['array_right']}/{g['array_total']} right   {_met(g['met'])}")
        if g["all_slower"] and g["all_slower"] != g["array_slower"]:
            out.append(f"{'':38s} (all categories: slower: {', '.join(g['all_slower'])})")
    if "ahead_of_pythran" in goals:
        g = goals["ahead_of_pythran"]
        h2h = "-" if g["head_to_head_geomean"] is None else f"{g['head_to_head_geomean']:.3g}×"
        out.append(
            f"{'ahead of Pythran overall':38s} > Pythran   now everypath {gm(groups['overall']['engines']['everypath'])}"
            f" vs Pythran {gm(groups['overall']['engines']['pythran'])}; head-to-head {h2h}"
            f" on {g['head_to_head_kernels']} common kernels, {g['head_to_head_wins']} wins   {_met(g['met'])}"
        )
    return out


def _plain_table(title: str, header: list[str], rows: list[list[str]], out: TextIO) -> None:
    widths = [len(h) for h in header]
    for row in rows:
        for i, c in enumerate(row):
            widths[i] = max(widths[i], len(c))
    widths[-1] = len(header[-1])  # last column is free-form
    print(f"\n{title}", file=out)

    def line(cells: list[str]) -> str:
        parts = []
        for i, c in enumerate(cells):
            if i == len(cells) - 1:
                parts.append(c)
            elif i >= 2 or (i == 1 and header[1] == "kernels"):
                parts.append(c.rjust(widths[i]))
            else:
                parts.append(c.ljust(widths[i]))
        return "  ".join(parts).rstrip()

    print(line(header), file=out)
    print("  ".join("-" * w for w in widths), file=out)
    for row in rows:
        print(line(row), file=out)


def print_report(
    results: list[KernelResult], summary: dict[str, Any], engines: tuple[str, ...], meta: dict[str, Any], plain: bool
) -> None:
    """Kernel table, summary table (rich when installed, else plain text),
    goals and notes, on stdout."""
    names = {"everypath": "everypath ×", "numba": "Numba ×", "pythran": "Pythran ×"}
    k_header = ["kernel", "category", "CPython ms", *[names[e] for e in engines], "status"]
    s_header = ["group", "kernels", *[f"{names[e]} (right/total)" for e in engines]]
    if "everypath" in engines:
        s_header.append("ep >10% slower than NumPy")
    s_header.append("everypath goal")
    k_rows = kernel_rows(results, engines)
    s_rows = summary_rows(summary, engines)
    caption = (
        f"speedup = CPython time / engine time (median of {meta['repeat']} samples of ≥20 ms); "
        "FAIL = compile-fail, WRONG = wrong result, T/O = timeout, - = skipped"
    )
    console = None
    if not plain:
        try:
            from rich.console import Console
            from rich.table import Table

            console = Console()
            if not console.is_terminal:
                console = Console(width=220)
        except ImportError:
            console = None
    if console is not None:
        t = Table(title="corpus benchmark", caption=caption)
        for i, h in enumerate(k_header):
            last = i == len(k_header) - 1
            t.add_column(h, justify="right" if 2 <= i and not last else "left", no_wrap=not last,
                         overflow="fold" if last else "ellipsis")
        for row in k_rows:
            t.add_row(*row)
        console.print(t)
        st = Table(title="summary: geomean speedup over the kernels each engine got right")
        for i, h in enumerate(s_header):
            last = i == len(s_header) - 1
            st.add_column(h, justify="right" if 1 <= i and not last else "left", no_wrap=not last)
        for row in s_rows:
            st.add_row(*row)
        console.print(st)
    else:
        _plain_table("corpus benchmark", k_header, k_rows, sys.stdout)
        print(caption)
        _plain_table("summary: geomean speedup over the kernels each engine got right", s_header, s_rows, sys.stdout)
    if summary.get("no_baseline"):
        print(f"\nleft out of the summary (plain Python failed): {', '.join(summary['no_baseline'])}")
    lines = goal_lines(summary)
    if lines:
        print("\ngoals (everypath, from the issue):")
        for ln in lines:
            print("  " + ln)
    notes = [(r.name, e, n) for r in results for e in engines for n in r.engines[e].notes]
    if notes:
        print("\nnotes (type differences of peers, warnings):")
        for name, e, n in notes[:60]:
            print(f"  {name} [{e}] {n}")
        if len(notes) > 60:
            print(f"  … {len(notes) - 60} more in --json")


def write_json(
    path: str,
    meta: dict[str, Any],
    results: list[KernelResult],
    builds: dict[str, PythranBuild],
    summary: dict[str, Any],
) -> None:
    out = pathlib.Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "meta": meta,
        "kernels": [r.to_json() for r in results],
        "pythran_builds": {k: dataclasses.asdict(v) for k, v in builds.items()},
        "summary": summary,
    }
    out.write_text(json.dumps(payload, indent=1, default=str))
    log(f"wrote {out}")

#!/usr/bin/env python
"""Speed of the values corpus group (tests/corpus/values: str/dict/set pre- and post-processing) vs CPython.

    python bench/values_bench.py [--functions text.word_counts,...] [--repeat N] [--json OUT]

Every function with a ``bench_<name>()`` is compiled, checked equal to CPython on those arguments (value and
exact type), then timed: best of N calls each, CPython and compiled interleaved. Prints per-function times,
the ratio CPython / everypath, and the geometric mean of the ratios. Functions that fail to compile or differ
are listed with the reason and left out of the mean. No pass/fail.
"""
from __future__ import annotations

import argparse
import copy
import json
import math
import pathlib
import sys
import time
from typing import Any, Callable

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import everypath as ep  # noqa: E402
from tests.corpus.values import load  # noqa: E402
from tests.corpus.values._compare import assert_same  # noqa: E402


def _best(fn: Callable[..., Any], args: tuple, repeat: int) -> float:
    best = math.inf
    for _ in range(repeat):
        a = copy.deepcopy(args)
        t0 = time.perf_counter()
        fn(*a)
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--functions", help="comma-separated module.name ids (default: all with bench args)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", help="write the rows here")
    opts = ap.parse_args()
    wanted = set(opts.functions.split(",")) if opts.functions else None
    rows, skipped = [], []
    for vf in load():
        if vf.bench is None or (wanted and vf.id not in wanted):
            continue
        args = vf.bench()
        try:
            compiled = ep.compile(vf.fn)
            assert_same(vf.fn(*copy.deepcopy(args)), compiled(*copy.deepcopy(args)), vf.rtol, vf.id)
        except Exception as exc:  # noqa: BLE001 - reported, not timed
            skipped.append((vf.id, f"{type(exc).__name__}: {str(exc).splitlines()[0][:150]}"))
            continue
        py = native = math.inf
        for _ in range(2):  # interleaved rounds: load changes on a shared machine hit both sides
            py = min(py, _best(vf.fn, args, opts.repeat))
            native = min(native, _best(compiled, args, opts.repeat))
        rows.append({"function": vf.id, "cpython_ms": py * 1e3, "everypath_ms": native * 1e3, "ratio": py / native})
        print(f"{vf.id:34s} CPython {py * 1e3:9.3f} ms  everypath {native * 1e3:9.3f} ms  {py / native:7.2f}x",
              flush=True)
    if rows:
        geo = math.exp(sum(math.log(r["ratio"]) for r in rows) / len(rows))
        print(f"geomean of {len(rows)} functions: {geo:.2f}x  (min {min(r['ratio'] for r in rows):.2f}x, "
              f"max {max(r['ratio'] for r in rows):.2f}x)")
    for name, why in skipped:
        print(f"not measured: {name}: {why}")
    if opts.json:
        pathlib.Path(opts.json).write_text(json.dumps({"rows": rows, "skipped": skipped}, indent=1))


if __name__ == "__main__":
    main()

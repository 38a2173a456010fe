#!/usr/bin/env python
"""What a first build costs: g++ time per corpus kernel with and without the precompiled header.

    python bench/build_bench.py [--kernels a,b | --all] [--repeat N] [--json OUT]

Each kernel's C++ is generated once (types from its bench_args), then built with lowering.build.build_shared
into fresh output paths, three ways:

  off     EVERYPATH_PCH=0: every build parses the runtime headers
  first   a private, empty cache: the first build of the unit's header prefix (no .gch yet, none made)
  second  the second build of that prefix in that cache: it also compiles the prefix's .gch
  warm    the .gch already in the cache (every later function with the same header prefix)

Reported: the median CPU seconds (user + system of the g++ children: steadier than wall time on a
shared machine) and median wall seconds of each, with the ratios second/off and warm/off. Issue 13's goal:
a 30-line kernel with a few NumPy calls in <= 2 s on a quiet core, no function over 10 s.
"""
from __future__ import annotations

import argparse
import dataclasses
import inspect
import json
import pathlib
import resource
import statistics
import sys
import tempfile
import time

_HERE = pathlib.Path(__file__).resolve().parent
ROOT = _HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# a loop kernel, NumPy-call kernels (maps, keepdims reductions, BLAS), big units
DEFAULT_KERNELS = ("mandelbrot", "softmax_rows_f32", "layernorm_gelu_f32", "cosine_similarity", "nbody_step",
                   "sobel_uint8")
MODES = ("off", "first", "second", "warm")


@dataclasses.dataclass
class Row:
    kernel: str
    lines: int
    cpu: dict[str, float] = dataclasses.field(default_factory=dict)
    wall: dict[str, float] = dataclasses.field(default_factory=dict)


def _source(kernel, settings) -> str:
    import numpy as np

    from everypath.base.annotations import describe_value_type
    from everypath.lowering.pipeline import generate

    args = kernel.module.bench_args(np.random.default_rng(0))
    bound = inspect.signature(kernel.entry).bind(*args)
    bound.apply_defaults()
    return generate(kernel.entry, settings, tuple(describe_value_type(v) for v in bound.arguments.values())).source


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _build(source: str, settings, work: pathlib.Path) -> tuple[float, float]:
    from everypath.lowering.build import build_shared

    out = pathlib.Path(tempfile.mkdtemp(dir=work)) / "unit.so"
    c0, t0 = _children_cpu(), time.perf_counter()
    build_shared(source, out, settings)
    return _children_cpu() - c0, time.perf_counter() - t0


def measure(name: str, repeat: int, work: pathlib.Path) -> Row:
    from everypath.base.settings import Settings
    from tests.corpus._loader import load_corpus

    kernel = load_corpus([name])[0]
    base = dataclasses.replace(Settings.from_env(), cache_dir=pathlib.Path(tempfile.mkdtemp(dir=work)))
    source = _source(kernel, base)
    row = Row(name, len(source.splitlines()))
    samples: dict[str, list[tuple[float, float]]] = {m: [] for m in MODES}
    for _ in range(2):  # warm's precompiled header (the second build makes it), and the page cache for all
        _build(source, base, work)
    for _ in range(repeat):  # interleaved, so a burst of load on the machine hits every mode alike
        samples["off"].append(_build(source, dataclasses.replace(base, pch=False), work))
        fresh = dataclasses.replace(base, cache_dir=pathlib.Path(tempfile.mkdtemp(dir=work)))
        samples["first"].append(_build(source, fresh, work))
        samples["second"].append(_build(source, fresh, work))
        samples["warm"].append(_build(source, base, work))
    for m in MODES:
        row.cpu[m] = statistics.median(c for c, _ in samples[m])
        row.wall[m] = statistics.median(w for _, w in samples[m])
    return row


def _table(rows: list[Row]) -> str:
    head = (f"{'kernel':<22}{'lines':>6}  {'off':>6}{'first':>7}{'second':>7}{'warm':>6}  {'second/off':>10}"
            f"{'warm/off':>9}  {'off wall':>9}{'warm wall':>10}")
    out = ["CPU seconds (user + system) of the g++ runs, median", head, "-" * len(head)]
    for r in rows:
        c = r.cpu
        out.append(f"{r.kernel:<22}{r.lines:>6}  {c['off']:>6.2f}{c['first']:>7.2f}{c['second']:>7.2f}{c['warm']:>6.2f}  "
                   f"{c['second'] / c['off']:>10.2f}{c['warm'] / c['off']:>9.2f}  {r.wall['off']:>9.2f}{r.wall['warm']:>10.2f}")
    gm = statistics.geometric_mean
    out.append(f"{'geomean':<22}{'':>6}  {'':>26}  {gm([r.cpu['second'] / r.cpu['off'] for r in rows]):>10.2f}"
               f"{gm([r.cpu['warm'] / r.cpu['off'] for r in rows]):>9.2f}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernels", default=",".join(DEFAULT_KERNELS))
    ap.add_argument("--all", action="store_true", help="every corpus kernel")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", type=pathlib.Path)
    a = ap.parse_args(argv)
    if a.all:
        from tests.corpus._loader import kernel_names

        names = list(kernel_names())
    else:
        names = [n.strip() for n in a.kernels.split(",") if n.strip()]
    rows = []
    with tempfile.TemporaryDirectory(prefix="everypath-build-bench-") as tmp:
        for n in names:
            rows.append(measure(n, a.repeat, pathlib.Path(tmp)))
            print(f"{n}: off {rows[-1].cpu['off']:.2f} s, warm {rows[-1].cpu['warm']:.2f} s cpu", file=sys.stderr)
    print(_table(rows))
    worst = max(rows, key=lambda r: r.wall["warm"])
    print(f"\nslowest warm build: {worst.kernel} {worst.wall['warm']:.2f} s wall (goal: none over 10 s)")
    if a.json:
        a.json.write_text(json.dumps([dataclasses.asdict(r) for r in rows], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The long differential fuzzing run: python bench/fuzz_bench.py --programs N --seed S --json OUT [--failures DIR]."""
from __future__ import annotations

import argparse
import collections
import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fuzz.runner import Kind, Outcome, run_isolated  # noqa: E402


def refusal_class(detail: str) -> str:
    """A CompileError's message without its location and the names and numbers in it."""
    msg = re.sub(r"^.*?:\d+:\d+: error: ", "", detail)
    msg = re.sub(r"`[^`]*`|'[^']*'|\b\d+\b", "_", msg)
    return msg[:100]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--programs", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--failures", type=Path, default=Path("fuzz_failures"), help="folder for failing kernels")
    ap.add_argument("--chunk", type=int, default=30, help="kernels per worker process")
    a = ap.parse_args(argv)
    t0 = time.time()
    out: list[Outcome] = []
    for start in range(0, a.programs, a.chunk):
        out += run_isolated(a.seed, min(a.chunk, a.programs - start), start=start)
        done = collections.Counter(o.kind.name for o in out)
        print(f"{len(out)}/{a.programs} {dict(done)} {time.time() - t0:.0f}s", flush=True)
        _write(a, out, t0)  # after every chunk: a long run that is stopped still leaves its figures
    return 0


def _write(a: argparse.Namespace, out: list[Outcome], t0: float) -> None:
    counts = collections.Counter(o.kind for o in out)
    refused = collections.Counter(refusal_class(o.detail) for o in out if o.kind is Kind.REFUSED)
    compiled = sum(n for k, n in counts.items() if k is not Kind.REFUSED and k is not Kind.GXX)
    a.failures.mkdir(parents=True, exist_ok=True)
    for o in out:
        if o.kind in (Kind.WRONG, Kind.CRASH, Kind.GXX):
            (a.failures / f"{o.kind.value}_{o.name}.py").write_text(
                "import math\n\nimport numpy as np\n\n\n" + o.source + '\n"""\n' + o.detail.replace('"""', "'''") + '\n"""\n')
    report = {
        "seed": a.seed, "tried": len(out), "compiled": compiled, "seconds": round(time.time() - t0, 1),
        **{k.value: counts.get(k, 0) for k in Kind},
        "refused_by_class": dict(refused.most_common()),
        "failures": [{"name": o.name, "kind": o.kind.value, "detail": o.detail[:500]} for o in out
                     if o.kind in (Kind.WRONG, Kind.CRASH, Kind.GXX)],
    }
    print(f"programs tried {len(out)}, compiled {compiled}, refused {counts.get(Kind.REFUSED, 0)}, "
          f"wrong {counts.get(Kind.WRONG, 0)}, crashed {counts.get(Kind.CRASH, 0)}, "
          f"g++ failures {counts.get(Kind.GXX, 0)}; ok {counts.get(Kind.OK, 0)}")
    for cls, n in refused.most_common():
        print(f"  refused {n}: {cls}")
    if a.json is not None:
        a.json.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    raise SystemExit(main())

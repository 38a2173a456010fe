"""`make demo`: compile an example module ahead of time, run it, check it against CPython, show the speedup."""
from __future__ import annotations

import copy
import sys
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from everypath.tracer.modules import compiled_functions, import_path  # noqa: E402
from tests.corpus._loader import assert_same_result  # noqa: E402


def _time(fn, args, repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        a = copy.deepcopy(args)
        t0 = time.perf_counter()
        fn(*a)
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    started_ns = time.time_ns()
    console = Console()
    module = import_path(str(Path(__file__).with_name("kernels.py")))
    funcs = compiled_functions(module)
    rng = np.random.default_rng(0)
    inputs = {
        "pairwise_distances": (rng.standard_normal((300, 8)),),
        "black_scholes": (rng.uniform(10, 50, 1_000_000), rng.uniform(10, 50, 1_000_000),
                          rng.uniform(0.1, 2.0, 1_000_000), 0.02, 0.3),
        "mandelbrot": (200, 120, 100),
        "rolling_mean": (rng.standard_normal(200_000), 7),
    }
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("compiling examples/kernels.py ahead of time", total=len(funcs))
        builds = {}
        for name, f in funcs.items():
            t0 = time.perf_counter()
            m = f.build()
            builds[name] = ("cache" if m.from_cache else f"{time.perf_counter() - t0:.1f} s")
            progress.advance(task)
    table = Table(title="everypath demo: CPython + NumPy vs compiled (best of 5)")
    for col in ("function", "build", "CPython", "everypath", "speedup", "same result"):
        table.add_column(col, justify="right" if col not in ("function",) else "left")
    for name, f in funcs.items():
        args = inputs[name]
        want, got = f.py_function(*copy.deepcopy(args)), f(*copy.deepcopy(args))
        assert_same_result(want, got, where=name)
        tp, te = _time(f.py_function, args), _time(f, args)
        table.add_row(name, builds[name], f"{tp * 1e3:.2f} ms", f"{te * 1e3:.3f} ms", f"{tp / te:.1f}x", "yes")
    console.print(table)
    try:
        funcs["rolling_mean"](np.ones(3), 0)
    except ValueError as exc:
        console.print(f"errors cross over as Python exceptions: ValueError({exc!s})")
    console.print("Inspect what was generated: .venv/bin/everypath trace examples/kernels.py:rolling_mean, "
                  ".venv/bin/everypath cpp examples/kernels.py:black_scholes")
    show_telemetry(console, started_ns)
    ship(console, funcs["rolling_mean"], rng.standard_normal(10_000), 7)
    close_the_loop(console)


def ship(console: Console, compiled, x: np.ndarray, window: int) -> None:
    """Bundle one function for every target, then run it natively (each x86-64 level this CPU has),
    under qemu-user (linux-arm64) and under wasmtime (wasm32-wasi), each result checked against CPython."""
    import tempfile

    from everypath.base.settings import Settings
    from everypath.lowering.bundle import open_bundle, write_bundle
    from everypath.lowering.bundle_exec import How, runner_for
    from everypath.lowering.loader import NoArtifactError, cpu_has, host
    from everypath.lowering.portable import build_function
    from everypath.lowering.targets import TARGETS

    settings = Settings.from_env()
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("building rolling_mean for every target", total=len(TARGETS))
        pf = build_function(compiled.py_function, tuple(TARGETS.values()), settings,
                            on_target=lambda name: progress.advance(task))
    want = compiled.py_function(x, window)
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d)
        path = folder / "rolling_mean.everypath"
        write_bundle(compiled.py_function, pf, path)
        bundle = open_bundle(path)
        np.savez(folder / "in.npz", x=x, window=np.asarray(window))
        table = Table(title=f"everypath bundle examples/kernels.py:rolling_mean -> {path.name} "
                            f"({path.stat().st_size / 1e6:.1f} MB, {len(bundle.artifacts)} artifacts)")
        for col in ("target", "kind", "size", "ran", "same result"):
            table.add_column(col, justify="right" if col == "size" else "left")
        h = host()
        for art in sorted(bundle.artifacts, key=lambda a: (a["target"], a["kind"])):
            ran, same = "-", "-"
            if art["kind"] in ("executable", "wasi-executable"):
                try:
                    how = runner_for(art, h)
                except NoArtifactError:  # another OS: checked for format by the tests, not run here
                    how = None
                if how is How.NATIVE and not cpu_has(h, art):
                    how, ran = None, "CPU lacks the level"
                if how is not None:
                    from everypath.lowering.bundle_exec import run_artifact

                    out = folder / f"out-{art['target']}.npz"
                    rc, _, err = run_artifact(bundle, art, how, folder / "in.npz", out, settings,
                                              ["--no-telemetry"])
                    ran = {How.NATIVE: "natively", How.QEMU: "qemu-user", How.WASMTIME: "wasmtime"}[how]
                    if rc != 0:
                        raise SystemExit(f"{art['target']}: exit {rc}: {err}")
                    with np.load(out) as z:
                        assert_same_result(want, z["result"], where=art["target"])
                    same = "yes"
            table.add_row(art["target"], art["kind"], f"{art['size'] / 1024:.0f} KiB", ran, same)
        for s in bundle.manifest["not_built"]:
            table.add_row(s["target"], s["kind"], "-", f"not built: {s['reason'].split(':')[0][:40]}", "-")
        console.print(table)
    console.print("Ship it yourself: .venv/bin/everypath bundle examples/kernels.py:rolling_mean -o rm.everypath; "
                  ".venv/bin/everypath inspect rm.everypath; .venv/bin/everypath run rm.everypath --inputs in.npz")


def show_telemetry(console: Console, since_ns: int) -> None:
    """What the runtime shim recorded during this run, read back from the lake through DuckDB."""
    from everypath.base.settings import Settings
    from everypath.telemetry.shim import flush_telemetry
    from everypath.telemetry.views import query

    settings = Settings.from_env()
    if not settings.telemetry:
        console.print("telemetry is off (EVERYPATH_TELEMETRY=0): nothing recorded")
        return
    flush_telemetry()
    rows = query(settings.lake, "SELECT function, op, variant, count(*) AS calls, "
                 "quantile_cont(latency_ns, 0.5) AS p50 FROM calls WHERE ts >= make_timestamp($1 // 1000) "
                 "GROUP BY ALL ORDER BY function, op, variant", [since_ns]).to_pylist()
    table = Table(title=f"operator calls recorded this run (lake: {settings.lake})")
    for col in ("function", "operator", "variant", "calls", "p50"):
        table.add_column(col, justify="right" if col in ("calls", "p50") else "left")
    for r in rows:
        table.add_row(r["function"].rsplit(".", 1)[-1], r["op"], r["variant"], str(r["calls"]),
                      f"{r['p50'] / 1e3:.1f} µs")
    console.print(table)
    console.print("Query it yourself: .venv/bin/everypath telemetry query \"SELECT * FROM op_latency\"")


LOOP_SIZES = (1_000, 100_000)
LOOP_ISAS = "native,baseline"  # each ISA level x thread count is measured as a device of its own
LOOP_THREADS = "all,1"


def _everypath(args: list[str], env: dict[str, str]) -> str:
    import subprocess

    p = subprocess.run([sys.executable, "-m", "everypath.cli", *args], env=env, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"everypath {' '.join(args)} failed ({p.returncode}):\n{p.stderr.strip()}")
    return p.stdout


def close_the_loop(console: Console) -> None:
    """The loop the product is about, on a lake of its own: measure every variant of black_scholes's
    operators on this host (autotune), fit the selector (retrain), print the table it promoted, then
    run the function again in a new process and show its calls following that table."""
    import json
    import os
    import shutil

    from everypath.base.settings import Settings
    from everypath.telemetry.device import process_device
    from everypath.telemetry.views import query

    settings = Settings.from_env()
    root = settings.cache_dir / "demo-loop"
    shutil.rmtree(root, ignore_errors=True)  # every demo starts the loop from an empty lake
    lake, registry = root / "lake", root / "registry"
    env = dict(os.environ, EVERYPATH_LAKE=str(lake), EVERYPATH_REGISTRY=str(registry), EVERYPATH_TELEMETRY="1")
    target = str(Path(__file__).with_name("kernels.py")) + ":black_scholes"
    with console.status(f"everypath autotune {Path(target).name} --isa {LOOP_ISAS} --threads {LOOP_THREADS} (every variant, "
                        f"{len(LOOP_SIZES)} sizes)"):
        rows = json.loads(_everypath(["autotune", target, "--sizes", ",".join(map(str, LOOP_SIZES)), "--isa",
                                      LOOP_ISAS, "--threads", LOOP_THREADS, "--repeats", "3", "--json"], env))
    with console.status("everypath selector retrain"):
        out = json.loads(_everypath(["selector", "retrain", "--json"], env))
    console.print(f"autotune measured {len(rows)} (call site, variant, size) medians; retrain: version "
                  f"{out['version']}, top-1 {out['top1_score']:.2f}, closed gap {out['closed_gap']:.2f}, "
                  f"promoted: {out['promoted']}")
    table_file = registry / "current" / "selection_table.json"
    if not out["promoted"]:
        # one host's sweep is too little to judge a fleet model: retrain stores it without promoting;
        # the demo puts the stored table in force explicitly, as an operator trying it on one machine would
        stored = [p for p in sorted((registry / "models").glob("*/selection_table.json"))
                  if json.loads(p.read_text()).get("version") == out["version"]]
        if not stored:
            console.print("retrain stored no selection table; the built-in thresholds keep choosing")
            return
        table_file = stored[0]
        env["EVERYPATH_SELECTION_TABLE"] = str(table_file)
        console.print(f"not promoted: {out.get('coverage') or 'see the metrics'}. The demo applies the stored "
                      f"table with EVERYPATH_SELECTION_TABLE={table_file}")
    doc = json.loads(table_file.read_text())
    dc = str(process_device(settings)["device_class"])
    entries = doc["tables"].get(dc) or doc["tables"].get("*", [])
    medians: dict[tuple[str, str, int], float] = {}
    for r in rows:
        if r["status"] == "ok" and r["device_class"] == dc:
            medians[(r["op"], r["variant"], r["size"])] = r["median_ns"]
    t = Table(title=f"selection table {doc['version']} in force for this device class ({dc})")
    for col in ("operator", "size range (elements)", "chosen variant", "measured gain vs loops"):
        t.add_column(col, justify="right" if col == "measured gain vs loops" else "left")
    for e in entries:
        edges = [0, *e["bounds"], None]
        for i, v in enumerate(e["variants"]):
            lo, hi = edges[i], edges[i + 1]
            sizes = [n for n in LOOP_SIZES if n >= lo and (hi is None or n < hi)]
            gains = [medians[(e["op"], "loops", n)] / medians[(e["op"], v, n)] for n in sizes
                     if (e["op"], "loops", n) in medians and (e["op"], v, n) in medians]
            rng = f"{lo:,} .. {hi - 1:,}" if hi is not None else f"{lo:,} and more"
            t.add_row(e["op"], rng, v, " / ".join(f"{g:.2f}x at {n:,}" for g, n in zip(gains, sizes)) or "-")
    console.print(t)
    since = time.time_ns()
    with console.status("black_scholes again, in a new process: its calls follow the table"):
        _rerun(env)
    got = query(lake, "SELECT op, n_elements, variant, table_version, count(*) AS calls FROM calls "
                "WHERE ts >= make_timestamp($1 // 1000) GROUP BY ALL ORDER BY op, n_elements", [since]).to_pylist()
    followed = sum(r["calls"] for r in got if r["table_version"] == doc["version"])
    total = sum(r["calls"] for r in got)
    console.print(f"re-run: {followed} of {total} operator calls were chosen by table {doc['version']}")


def _rerun(env: dict[str, str]) -> None:
    import subprocess

    code = ("import sys, numpy as np; sys.path.insert(0, sys.argv[1]); from examples import kernels as k\n"
            "from everypath.telemetry.shim import flush_telemetry\n"
            "rng = np.random.default_rng(1)\n"
            f"for n in {LOOP_SIZES!r}:\n"
            "    a = [rng.uniform(10, 50, n), rng.uniform(10, 50, n), rng.uniform(0.1, 2.0, n)]\n"
            "    for _ in range(5): k.black_scholes(*a, 0.02, 0.3)\n"
            "flush_telemetry()\n")
    p = subprocess.run([sys.executable, "-c", code, str(Path(__file__).resolve().parent.parent)], env=env,
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"the re-run failed ({p.returncode}):\n{p.stderr.strip()}")


if __name__ == "__main__":
    main()

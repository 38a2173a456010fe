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


if __name__ == "__main__":
    main()
